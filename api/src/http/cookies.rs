//! The web session cookie and its CSRF companion.
//!
//! `sc_session` is HttpOnly, SameSite=Lax (so the OAuth callback, a top-level GET from the
//! provider, still carries it) and Secure when the public URL is https. `sc_csrf` is readable by
//! the web client, which echoes it in `X-CSRF-Token` on every cookie-authenticated write; its
//! value is an HMAC of the session secret, so it cannot be forged without the session.

use axum::http::{HeaderMap, HeaderValue, header};

pub const SESSION_COOKIE: &str = "sc_session";
pub const CSRF_COOKIE: &str = "sc_csrf";
pub const CSRF_HEADER: &str = "x-csrf-token";

pub fn get(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

pub fn set(
    name: &str,
    value: &str,
    max_age_secs: i64,
    http_only: bool,
    secure: bool,
) -> HeaderValue {
    let mut c = format!("{name}={value}; Path=/; SameSite=Lax; Max-Age={max_age_secs}");
    if http_only {
        c.push_str("; HttpOnly");
    }
    if secure {
        c.push_str("; Secure");
    }
    HeaderValue::from_str(&c).expect("cookie values are base64url")
}

pub fn clear(name: &str, secure: bool) -> HeaderValue {
    set(name, "", 0, true, secure)
}

/// Set-Cookie headers that end the web session in the browser (sign-out, account deletion).
pub fn cleared_session(secure: bool) -> axum::http::HeaderMap {
    let mut h = axum::http::HeaderMap::new();
    h.append(header::SET_COOKIE, clear(SESSION_COOKIE, secure));
    h.append(header::SET_COOKIE, clear(CSRF_COOKIE, secure));
    h
}
