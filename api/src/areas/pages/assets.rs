//! The pages' static files, compiled into the binary (`api/assets/`): the stylesheet, the icon,
//! the web app manifest, the vendored script libraries (`scripts/vendor-web`), the desk's own
//! ES modules and the service worker. Text assets are gzipped once, on first use, for browsers that accept it.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use std::io::Write;
use std::sync::LazyLock;

pub const SITE_CSS: &str = include_str!("../../../assets/site.css");
pub const ICON_SVG: &str = include_str!("../../../assets/icon.svg");
pub const MANIFEST: &str = include_str!("../../../assets/manifest.webmanifest");
pub const HTMX_JS: &str = include_str!("../../../assets/vendor/htmx.min.js");
pub const HTMX_LICENSE: &str = include_str!("../../../assets/vendor/htmx.LICENSE");
pub const TUS_JS: &str = include_str!("../../../assets/vendor/tus.min.js");
pub const TUS_LICENSE: &str = include_str!("../../../assets/vendor/tus.LICENSE");
pub const DESK_JS: &str = include_str!("../../../assets/js/desk.mjs");
pub const PUSH_JS: &str = include_str!("../../../assets/js/push.mjs");
pub const CLIP_JS: &str = include_str!("../../../assets/js/clip.mjs");
pub const REVIEWS_JS: &str = include_str!("../../../assets/js/reviews.mjs");
pub const UPLOAD_JS: &str = include_str!("../../../assets/js/upload.mjs");
pub const WATCH_JS: &str = include_str!("../../../assets/js/watch.mjs");
pub const SW_JS: &str = include_str!("../../../assets/sw.js");

/// One static file: its bytes, type, and gzipped bytes made on first use.
pub struct Asset {
    body: &'static str,
    content_type: &'static str,
    gzipped: LazyLock<Vec<u8>>,
}

macro_rules! asset {
    ($name:ident, $body:expr, $ct:expr) => {
        pub static $name: Asset = Asset {
            body: $body,
            content_type: $ct,
            gzipped: LazyLock::new(|| gzip($body)),
        };
    };
}

asset!(CSS, SITE_CSS, "text/css; charset=utf-8");
asset!(ICON, ICON_SVG, "image/svg+xml");
asset!(WEBMANIFEST, MANIFEST, "application/manifest+json");
asset!(HTMX, HTMX_JS, "text/javascript; charset=utf-8");
asset!(HTMX_LICENCE, HTMX_LICENSE, "text/plain; charset=utf-8");
asset!(TUS, TUS_JS, "text/javascript; charset=utf-8");
asset!(TUS_LICENCE, TUS_LICENSE, "text/plain; charset=utf-8");
asset!(DESK, DESK_JS, "text/javascript; charset=utf-8");
asset!(PUSH, PUSH_JS, "text/javascript; charset=utf-8");
asset!(CLIP, CLIP_JS, "text/javascript; charset=utf-8");
asset!(REVIEWS, REVIEWS_JS, "text/javascript; charset=utf-8");
asset!(UPLOAD, UPLOAD_JS, "text/javascript; charset=utf-8");
asset!(WATCH, WATCH_JS, "text/javascript; charset=utf-8");
asset!(SW, SW_JS, "text/javascript; charset=utf-8");

fn gzip(s: &str) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(s.as_bytes()).expect("gzip into memory");
    e.finish().expect("gzip into memory")
}

impl Asset {
    fn serve(&'static self, req: &HeaderMap) -> Response {
        let gz = req
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
        let mut r = if gz {
            let mut r = self.gzipped.as_slice().into_response();
            r.headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            r
        } else {
            self.body.into_response()
        };
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.content_type),
        );
        h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=86400"),
        );
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        r
    }
}

pub async fn site_css(h: HeaderMap) -> Response {
    CSS.serve(&h)
}

pub async fn icon(h: HeaderMap) -> Response {
    ICON.serve(&h)
}

pub async fn manifest(h: HeaderMap) -> Response {
    WEBMANIFEST.serve(&h)
}

pub async fn htmx(h: HeaderMap) -> Response {
    HTMX.serve(&h)
}

pub async fn htmx_licence(h: HeaderMap) -> Response {
    HTMX_LICENCE.serve(&h)
}

pub async fn tus(h: HeaderMap) -> Response {
    TUS.serve(&h)
}

pub async fn tus_licence(h: HeaderMap) -> Response {
    TUS_LICENCE.serve(&h)
}

pub async fn desk_js(h: HeaderMap) -> Response {
    DESK.serve(&h)
}

pub async fn push_js(h: HeaderMap) -> Response {
    PUSH.serve(&h)
}

pub async fn clip_js(h: HeaderMap) -> Response {
    CLIP.serve(&h)
}

pub async fn reviews_js(h: HeaderMap) -> Response {
    REVIEWS.serve(&h)
}

pub async fn upload_js(h: HeaderMap) -> Response {
    UPLOAD.serve(&h)
}

pub async fn watch_js(h: HeaderMap) -> Response {
    WATCH.serve(&h)
}

/// The service worker, at the root so that its scope is the whole site. A worker runs under
/// the policy its script is served with: the pages' (`script-src 'self'`, no eval).
pub async fn service_worker(h: HeaderMap) -> Response {
    let mut r = SW.serve(&h);
    r.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(super::CSP),
    );
    r
}
