//! The web application (issue 37): the desk's guard (sign-in, workspace, module, permission,
//! CSRF on every post), its pages over form posts on both databases, the message catalogue and
//! the assets. The real-browser workflows are in `browser-tests/` (run by `pages::browser`).

mod admin;
mod admin_b;
mod assets;
mod athletes;
mod billing;
mod competition;
mod competition_b;
mod footage;
mod guard;
mod messages;
mod mine;
mod notifications;
mod reviews;
mod settings;
mod settings_b;
mod training;
mod watch;

use crate::support::*;

/// A desk page of `s`'s workspace.
pub fn ws_path(s: &Session, rest: &str) -> String {
    format!("/w/{}{rest}", s.org_id)
}

/// GET a desk page as `s` (the browser sends both cookies).
pub async fn get(app: &TestApp, s: &Session, path: &str) -> Resp {
    app.get(path).header("cookie", &cookies_of(s)).send().await
}

/// POST a desk form as `s`, with its CSRF token, as a same-origin browser does.
pub async fn post(app: &TestApp, s: &Session, path: &str, fields: &[(&str, &str)]) -> Resp {
    let mut all = vec![("csrf", s.csrf.as_str())];
    all.extend_from_slice(fields);
    app.post(path)
        .header("cookie", &cookies_of(s))
        .header("sec-fetch-site", "same-origin")
        .form(&all)
        .send()
        .await
}

/// POST a desk multipart form as `s`: the CSRF token first, the text `fields`, and a file
/// (field name, content type, bytes) when given.
pub async fn post_multipart(
    app: &TestApp,
    s: &Session,
    path: &str,
    fields: &[(&str, &str)],
    file: Option<(&str, &str, &[u8])>,
) -> Resp {
    let part = |name: &str, value: &str| {
        format!("--XyZ\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
    };
    let mut b = part("csrf", &s.csrf).into_bytes();
    for (k, v) in fields {
        b.extend_from_slice(part(k, v).as_bytes());
    }
    if let Some((name, ct, bytes)) = file {
        b.extend_from_slice(format!("--XyZ\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"f\"\r\nContent-Type: {ct}\r\n\r\n").as_bytes());
        b.extend_from_slice(bytes);
        b.extend_from_slice(b"\r\n");
    }
    b.extend_from_slice(b"--XyZ--\r\n");
    app.post(path)
        .header("cookie", &cookies_of(s))
        .header("sec-fetch-site", "same-origin")
        .raw("multipart/form-data; boundary=XyZ", &b)
        .send()
        .await
}
