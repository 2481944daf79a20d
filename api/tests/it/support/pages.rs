//! Reading the HTML pages: their security headers, the hidden CSRF field of their forms, and
//! every link in sent mail and API answers (for the "no link leads to a 404" check).

use super::app::{Resp, Session};
use axum::http::StatusCode;

/// The public base URL of the test app.
pub const BASE: &str = "http://app.test";

/// Asserts an HTML page with the pages' security headers (CSP: scripts and styles from this
/// service only, no inline or eval; no framing, no referrer) and no inline script.
#[track_caller]
pub fn assert_page(r: &Resp, status: StatusCode) {
    assert_eq!(r.status, status, "{}", r.body);
    let h = |n: &str| {
        r.headers
            .get(n)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert!(
        h("content-type").starts_with("text/html"),
        "{}",
        h("content-type")
    );
    let csp = h("content-security-policy");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe"), "no inline script or eval: {csp}");
    assert_eq!(h("referrer-policy"), "no-referrer");
    assert_eq!(h("x-frame-options"), "DENY");
    assert!(r.body.starts_with("<!doctype html>"), "{}", r.body);
    for tag in r.body.split("<script").skip(1) {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        assert!(
            tag.contains("src=\"/assets/"),
            "a script only from this service's files: <script{tag}>"
        );
    }
}

/// The value of the hidden `name` input of a page.
pub fn hidden(body: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = body
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} field in {body}"));
    let rest = &body[start + marker.len()..];
    rest[..rest.find('"').unwrap()].to_string()
}

/// Every URL on this service in `text` (mail text, a JSON body), without trailing punctuation.
pub fn links_in(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut rest = text;
    while let Some(i) = rest.find(BASE) {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '<' | '>' | ')' | '\\'))
            .unwrap_or(tail.len());
        let url = tail[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', '\'']);
        out.push(url.to_string());
        rest = &tail[end..];
    }
    out
}

/// The cookie header a page visit of `s` sends (the browser sends both cookies).
pub fn cookies_of(s: &Session) -> String {
    format!("sc_session={}; sc_csrf={}", s.cookie, s.csrf)
}
