//! The one stylesheet of the pages, compiled into the binary (`api/assets/site.css`).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

pub const SITE_CSS: &str = include_str!("../../../assets/site.css");

pub async fn site_css() -> Response {
    let mut r = SITE_CSS.into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}
