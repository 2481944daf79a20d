//! Stored and relayed bodies are served from the service's own origin, where a page would run
//! with the signed-in person's cookies. So every such answer is made inert: a sandboxing CSP
//! that allows nothing, and `Content-Disposition: attachment` for anything but the media types
//! a browser only ever displays (`nosniff` is on every response, see `app::protective_headers`).

use axum::http::{HeaderMap, HeaderValue, header};

/// The types served inline: photos, audio and video, whose bytes the uploads check. SVG is an
/// image that runs script, so it is not among them.
fn displays_only(content_type: &str) -> bool {
    let t = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        t.as_str(),
        "image/jpeg" | "image/png" | "image/webp" | "image/heic" | "image/heif"
    ) || t.starts_with("audio/")
        || t.starts_with("video/")
}

/// Adds the sandbox and, unless the answer's Content-Type is inline media, the attachment
/// disposition.
pub fn make_inert(h: &mut HeaderMap) {
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; sandbox"),
    );
    let inline = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(displays_only);
    if !inline {
        h.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(content_type: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(t) = content_type {
            h.insert(header::CONTENT_TYPE, t.parse().unwrap());
        }
        make_inert(&mut h);
        h
    }

    #[test]
    fn pages_scripts_and_svg_are_downloads_and_media_plays_inline() {
        for t in [
            Some("text/html"),
            Some("image/svg+xml"),
            Some("application/xhtml+xml"),
            Some("text/csv"),
            Some("TEXT/HTML; charset=utf-8"),
            None,
        ] {
            let h = served(t);
            assert_eq!(h[header::CONTENT_DISPOSITION], "attachment", "{t:?}");
            assert_eq!(
                h[header::CONTENT_SECURITY_POLICY],
                "default-src 'none'; sandbox"
            );
        }
        for t in ["image/png", "image/heic", "audio/mp4", "video/mp4"] {
            let h = served(Some(t));
            assert!(!h.contains_key(header::CONTENT_DISPOSITION), "{t}");
            assert_eq!(
                h[header::CONTENT_SECURITY_POLICY],
                "default-src 'none'; sandbox"
            );
        }
    }
}
