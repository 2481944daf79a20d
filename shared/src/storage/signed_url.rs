//! Signed URLs on the api for the local store:
//! `{public_base_url}/api/storage/{store}/{key}?op=get|put&exp=<unix seconds>&sig=<b64url>`.
//!
//! `sig` is `Keys::sign("storage-url", "<op>\n<store>\n<exp>\n<key>\n<ct>")`; keys and content
//! types contain no newline (control characters are refused), so the message is unambiguous.
//! An upload URL is bound to the content type it was issued for, as S3's presigned PUT is:
//! it carries it as `ct`, the signature covers it, and the route takes only a request whose
//! Content-Type is exactly that (and whose bytes are of that type, where we know the type's
//! bytes). A download URL has an empty `ct`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use url::Url;

use super::{StorageError, Store, validate_key};
use crate::crypto::Keys;

/// The `Keys::sign` purpose of local storage URLs.
pub const SIGNED_URL_PURPOSE: &str = "storage-url";

/// What a signed URL allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UrlOp {
    Get,
    Put,
}

impl UrlOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UrlOp::Get => "get",
            UrlOp::Put => "put",
        }
    }
}

/// The query string of a local signed URL, for the api route's `Query` extractor.
#[derive(Clone, Debug, Deserialize)]
pub struct SignedUrlQuery {
    pub op: UrlOp,
    pub exp: u64,
    pub sig: String,
    /// The content type an upload URL is bound to; empty for a download.
    pub ct: String,
}

fn message(store: Store, key: &str, op: UrlOp, exp: u64, ct: &str) -> String {
    format!("{}\n{}\n{exp}\n{key}\n{ct}", op.as_str(), store.name())
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

pub(crate) fn local_url(
    keys: &Keys,
    public_base_url: &str,
    store: Store,
    key: &str,
    op: UrlOp,
    ct: &str,
    ttl: Duration,
) -> Result<String, StorageError> {
    let ttl_secs = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    let exp = unix_now().saturating_add(ttl_secs);
    let sig = keys.sign(
        SIGNED_URL_PURPOSE,
        message(store, key, op, exp, ct).as_bytes(),
    );

    let mut url = Url::parse(public_base_url)
        .map_err(|e| StorageError::backend(e, format!("public base URL {public_base_url:?}")))?;
    {
        let mut path = url.path_segments_mut().map_err(|()| {
            StorageError::Backend(anyhow::anyhow!(
                "public base URL {public_base_url:?} cannot have a path"
            ))
        })?;
        // Each key segment is percent-encoded on its own; the `/` between them stay.
        path.pop_if_empty()
            .extend(["api", "storage", store.name()])
            .extend(key.split('/'));
    }
    {
        let mut q = url.query_pairs_mut();
        q.clear()
            .append_pair("op", op.as_str())
            .append_pair("exp", &exp.to_string());
        if !ct.is_empty() {
            q.append_pair("ct", ct);
        }
        q.append_pair("sig", &sig);
    }
    Ok(url.into())
}

/// Checks a local signed URL's parameters (the route passes the decoded path's store and key
/// and the query), at `now` in Unix seconds: the signature must match and `now` must not be
/// past `exp`. Constant-time comparison.
pub fn verify_local_url(
    keys: &Keys,
    store: Store,
    key: &str,
    q: &SignedUrlQuery,
    now: u64,
) -> bool {
    now <= q.exp
        && validate_key(key).is_ok()
        && keys.verify(
            SIGNED_URL_PURPOSE,
            message(store, key, q.op, q.exp, &q.ct).as_bytes(),
            &q.sig,
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(url: &str) -> (String, SignedUrlQuery) {
        let u = Url::parse(url).unwrap();
        let pairs: std::collections::HashMap<String, String> =
            u.query_pairs().into_owned().collect();
        let q = SignedUrlQuery {
            op: serde_json::from_value(pairs["op"].clone().into()).unwrap(),
            exp: pairs["exp"].parse().unwrap(),
            sig: pairs["sig"].clone(),
            ct: pairs.get("ct").cloned().unwrap_or_default(),
        };
        (u.path().to_string(), q)
    }

    #[test]
    fn keys_are_percent_encoded_per_segment_under_the_base_path() {
        let keys = Keys::new(&[7u8; 32]);
        let url = local_url(
            &keys,
            "https://coach.example/app/",
            Store::SessionVideos,
            "ws 1/a?b#c%/v.mp4",
            UrlOp::Get,
            "",
            Duration::from_secs(60),
        )
        .unwrap();
        let (path, q) = parts(&url);
        assert_eq!(
            path,
            "/app/api/storage/session-videos/ws%201/a%3Fb%23c%25/v.mp4"
        );
        assert_eq!(q.op, UrlOp::Get);
        let now = unix_now();
        assert!(q.exp >= now + 59 && q.exp <= now + 61);
        assert!(verify_local_url(
            &keys,
            Store::SessionVideos,
            "ws 1/a?b#c%/v.mp4",
            &q,
            now
        ));
    }

    #[test]
    fn an_upload_url_is_bound_to_its_content_type() {
        let keys = Keys::new(&[7u8; 32]);
        let url = local_url(
            &keys,
            "http://coach.example",
            Store::RawUploads,
            "a/photo.png",
            UrlOp::Put,
            "image/png",
            Duration::from_secs(60),
        )
        .unwrap();
        let (_, mut q) = parts(&url);
        assert_eq!(q.ct, "image/png");
        let now = unix_now();
        assert!(verify_local_url(
            &keys,
            Store::RawUploads,
            "a/photo.png",
            &q,
            now
        ));
        q.ct = "text/html".into();
        assert!(!verify_local_url(
            &keys,
            Store::RawUploads,
            "a/photo.png",
            &q,
            now
        ));
        q.ct = String::new();
        assert!(!verify_local_url(
            &keys,
            Store::RawUploads,
            "a/photo.png",
            &q,
            now
        ));
    }
}
