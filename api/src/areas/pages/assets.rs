//! The pages' stylesheet and icon, compiled into the binary (`api/assets/`).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

pub const SITE_CSS: &str = include_str!("../../../assets/site.css");

pub const ICON_SVG: &str = include_str!("../../../assets/icon.svg");

pub async fn site_css() -> Response {
    asset(SITE_CSS, "text/css; charset=utf-8")
}

pub async fn icon() -> Response {
    asset(ICON_SVG, "image/svg+xml")
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
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
