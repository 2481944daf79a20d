//! The web pages behind every link the service hands out (issue 17; `docs/pages.md`): sign-in,
//! sign-up, password reset, email verified, member and athlete invites (with the guardian path),
//! TV sign-in, one-click unsubscribe, the public athlete profile, club self-enrollment and the
//! integrations landing. Server-rendered from askama templates (`api/templates/`, checked at
//! compile time, HTML-escaped), one stylesheet (`/assets/site.css`), no script at all.
//!
//! Every page is a registry row with `Auth::Page` (`routes/pages.rs`), so the router, the route
//! table and the guard know it; pages are not in the OpenAPI document. A page handler does what
//! the JSON handler of the same flow does: it parses the form and calls the same
//! `shared::domain` operation; only the HTML, the form fields and the redirects differ.
//!
//! Rules every page follows:
//! - headers ([`page`]): a Content-Security-Policy without script (`default-src 'none'`),
//!   `frame-ancestors 'none'`, `form-action 'self'`, `Referrer-Policy: no-referrer` (several
//!   pages carry a token in their URL), `nosniff`, `Cache-Control: no-store`;
//! - forms post `application/x-www-form-urlencoded` ([`Form`]); a post from another site
//!   (`Sec-Fetch-Site`, else `Origin`) is refused; a post that acts as the signed-in user carries the session's CSRF token
//!   in a hidden `csrf` field ([`check_csrf`]), the same token the API wants in `X-CSRF-Token`;
//! - errors of the domain are shown in the page with the HTTP status the API would answer;
//! - the sign-in and sign-up pages set the same `sc_session`/`sc_csrf` cookies as the API.

pub mod accounts;
pub mod assets;
pub mod club;
pub mod impersonation;
pub mod invite;
pub mod join;
pub mod profile;
pub mod tv;
pub mod unsubscribe;

use crate::auth::{Caller, SignedIn};
use crate::http::error::status;
use crate::state::AppState;
use askama::Template;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use shared::Error;
use shared::crypto::constant_time_eq;

/// The policy of every page: only this service's own files may run or style it (no inline
/// script or style, no eval), nothing may frame it or receive its forms.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src 'self'; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// [`CSP`] where the object store signs its URLs for another origin (S3): message photos and
/// voice notes are shown from there, so images and audio may also come from `origin`.
pub fn policy_for_store(origin: &str) -> String {
    CSP.replace(
        "img-src 'self' blob:",
        &format!("img-src 'self' blob: {origin}"),
    )
    .replace("media-src 'self'", &format!("media-src 'self' {origin}"))
}

/// What every page shows around its content: the title, and who is signed in (with the CSRF
/// token of the sign-out form).
pub struct Chrome {
    pub title: String,
    pub user: Option<(String, String)>,
    /// While a platform admin acts as the signed-in person: the banner's sentence and its
    /// stop button's label (the desk's catalogue texts).
    pub banner: Option<(String, String)>,
}

impl Chrome {
    pub fn new(title: &str, who: &PageUser) -> Chrome {
        let banner = who
            .0
            .as_ref()
            .filter(|s| s.caller.impersonator.is_some())
            .map(|s| {
                let cat = crate::areas::desk::i18n::Catalogue::english();
                let name = [("name", s.caller.user.name.as_str())];
                (
                    cat.fill("app.impersonating", &name),
                    cat.fill("app.stop_impersonating", &name),
                )
            });
        Chrome {
            title: title.to_string(),
            user: who
                .0
                .as_ref()
                .map(|s| (s.caller.user.name.clone(), s.csrf.clone())),
            banner,
        }
    }
}

/// A domain error as a page shows it: one sentence and the fields it names.
#[derive(Default)]
pub struct Notice {
    pub message: String,
    pub fields: Vec<(String, String)>,
}

impl Notice {
    pub fn of(e: &Error) -> Notice {
        if e.kind.is_server_error() {
            tracing::error!(code = e.code, error = %e, "page request failed");
            return Notice {
                message: "Something went wrong on our side. Please try again in a moment.".into(),
                fields: vec![],
            };
        }
        let fields = e
            .details
            .as_ref()
            .and_then(|d| d["fields"].as_array())
            .map(|fs| {
                fs.iter()
                    .map(|f| {
                        (
                            f["field"].as_str().unwrap_or("").to_string(),
                            f["message"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let message = match (e.code, e.retry_after_secs) {
            ("validation_failed", _) => "Please correct the fields below.".to_string(),
            ("rate_limited", Some(s)) => {
                format!("Too many attempts. Please wait {s} seconds and try again.")
            }
            _ => capitalise(&e.message),
        };
        Notice { message, fields }
    }

    /// The message of one field, for the field's own line.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(f, _)| f == name)
            .map(|(_, m)| m.as_str())
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect::<String>() + ".",
        None => String::new(),
    }
}

/// The field error of `name` in an optional notice (templates call it as `err(notice, "x")`).
pub fn field_error<'a>(n: &'a Option<Notice>, name: &str) -> Option<&'a str> {
    n.as_ref().and_then(|n| n.field(name))
}

/// A rendered page with the security headers.
pub fn page<T: Template>(code: StatusCode, t: &T) -> Response {
    match t.render() {
        Ok(html) => with_headers(code, html),
        Err(e) => {
            tracing::error!(error = %e, "rendering a page failed");
            with_headers(
                StatusCode::INTERNAL_SERVER_ERROR,
                "<!doctype html><title>Error</title><p>Something went wrong.</p>".into(),
            )
        }
    }
}

fn with_headers(code: StatusCode, html: String) -> Response {
    let mut r = (code, html).into_response();
    security_headers(r.headers_mut());
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}

pub fn security_headers(h: &mut HeaderMap) {
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// A 303 to a path of this service, with the security headers and extra headers (cookies).
pub fn see_other(location: &str, extra: HeaderMap) -> Response {
    let mut r = (StatusCode::SEE_OTHER, extra).into_response();
    security_headers(r.headers_mut());
    r.headers_mut().insert(
        header::LOCATION,
        HeaderValue::from_str(location).unwrap_or(HeaderValue::from_static("/")),
    );
    r
}

/// The page that says why something could not be shown (status as the API would answer).
#[derive(Template)]
#[template(path = "pages/message.html")]
pub struct MessagePage {
    pub c: Chrome,
    pub heading: String,
    pub text: String,
    pub link: Option<(String, String)>,
}

pub fn message(
    code: StatusCode,
    who: &PageUser,
    heading: &str,
    text: &str,
    link: Option<(&str, &str)>,
) -> Response {
    page(
        code,
        &MessagePage {
            c: Chrome::new(heading, who),
            heading: heading.into(),
            text: text.into(),
            link: link.map(|(h, t)| (h.to_string(), t.to_string())),
        },
    )
}

/// A domain error as a whole page.
pub fn error_page(who: &PageUser, e: &Error) -> Response {
    let n = Notice::of(e);
    let heading = match e.kind {
        shared::ErrorKind::NotFound => "Not found",
        shared::ErrorKind::RateLimited => "Please wait",
        shared::ErrorKind::Unauthenticated | shared::ErrorKind::Gone => "This link does not work",
        k if k.is_server_error() => "Something went wrong",
        _ => "That did not work",
    };
    let mut r = message(
        status(e.kind),
        who,
        heading,
        &n.message,
        Some(("/", "Home")),
    );
    if let Some(s) = e.retry_after_secs {
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(s));
    }
    r
}

/// The web session of this request, if any (set by the guard for `Auth::Page` routes).
pub struct PageUser(pub Option<SignedIn>);

impl PageUser {
    pub fn caller(&self) -> Option<&Caller> {
        self.0.as_ref().map(|s| &s.caller)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for PageUser {
    type Rejection = std::convert::Infallible;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(PageUser(parts.extensions.get::<SignedIn>().cloned()))
    }
}

/// The sign-in page, coming back to `next` (a path of this service) afterwards.
pub fn sign_in_first(next: &str) -> Response {
    see_other(&format!("/signin?next={}", encode(next)), HeaderMap::new())
}

/// Percent-encodes a query value.
pub fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `next` if it is a path of this service (`/…`, not `//…`), else `/`: no open redirect.
pub fn local_path(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.contains('\\') => n.into(),
        _ => "/".into(),
    }
}

/// The signed-in user's form carries their session's CSRF token (403 `csrf_failed` otherwise),
/// as a cookie-authenticated API write carries it in `X-CSRF-Token`.
pub fn check_csrf(s: &SignedIn, given: &str) -> Result<(), Error> {
    if constant_time_eq(s.csrf.as_bytes(), given.as_bytes()) {
        Ok(())
    } else {
        Err(Error::forbidden(
            "csrf_failed",
            "this form has expired; reload the page and try again",
        ))
    }
}

/// A page's form post: `application/x-www-form-urlencoded`, from this site (a browser's
/// `Origin`, when sent, must be this service), parsed into `T`. A bad post is a page, not JSON.
pub struct Form<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for Form<T> {
    type Rejection = Response;
    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let who = PageUser(req.extensions().get::<SignedIn>().cloned());
        let bytes = form_bytes(req, state, &who).await?;
        serde_urlencoded::from_bytes(&bytes).map(Form).map_err(|_| {
            error_page(
                &who,
                &Error::bad_request("invalid_body", "the form is incomplete"),
            )
        })
    }
}

/// The body of a form post from this site, as `application/x-www-form-urlencoded`; an error
/// page for `who` otherwise (cross-site, another media type, too large).
pub async fn form_bytes(req: Request, state: &AppState, who: &PageUser) -> Result<Bytes, Response> {
    if !same_origin(req.headers(), state) {
        return Err(error_page(
            who,
            &Error::forbidden("cross_site_form", "this form was sent from another site"),
        ));
    }
    let form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !form {
        return Err(error_page(
            who,
            &Error::unsupported_media_type("send the form as application/x-www-form-urlencoded"),
        ));
    }
    Bytes::from_request(req, state)
        .await
        .map_err(|_| error_page(who, &Error::payload_too_large("the form is too large")))
}

/// Whether a form post comes from this site. Browsers say so in `Sec-Fetch-Site` (sent whatever
/// the referrer policy); without it, an `Origin` must be this service's public origin or the
/// request's own host. Pages send `Referrer-Policy: no-referrer`, under which a browser's form
/// posts carry `Origin: null`, so `null` alone proves nothing and is refused. A post with
/// neither header (a mail client's one-click unsubscribe, a script) is no browser's cross-site
/// form and passes.
pub fn same_origin(h: &HeaderMap, state: &AppState) -> bool {
    if let Some(site) = h.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return matches!(site, "same-origin" | "none");
    }
    let Some(origin) = h.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    if origin == state.cfg.public_base_url.origin().ascii_serialization() {
        return true;
    }
    let host = h.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin_host = origin
        .split_once("://")
        .map(|(_, rest)| rest.trim_end_matches('/'));
    matches!((host, origin_host), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b))
}

/// A checkbox's value in a form: present means ticked.
pub fn ticked(v: &Option<String>) -> bool {
    v.as_deref().is_some_and(|v| !v.is_empty())
}
