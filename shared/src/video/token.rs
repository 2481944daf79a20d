//! The stream token: a signed, expiring grant to read one video source through
//! `/api/video/stream`, issued by an access-checked route and bound to the clip and the caller.
//!
//! Format: `base64url(JSON payload) "." base64url(HMAC-SHA256)`, the MAC under the key that
//! `Keys` derives for [`PURPOSE`] (so it cannot be confused with any other signature of the
//! service). Compact and URL-safe: it goes in a query string as is. The payload is not secret
//! (it names a store key or an allow-listed URL), only unforgeable.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::crypto::Keys;
use crate::db::Id;
use crate::error::Error;
use crate::storage::Store;

/// The `Keys::sign` purpose of stream tokens.
pub const PURPOSE: &str = "video-stream";

/// How long a signed stream URL stays valid.
pub const LIFETIME_SECS: i64 = 3600;

/// Where the bytes of a grant come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VideoSource {
    /// An object in one of our stores.
    Stored { store: Store, key: String },
    /// An external origin, fetched under the SSRF rules of `video::ssrf` when streamed.
    External { url: String },
}

/// What a stream token allows: reading `source` for `clip_id` on behalf of `user_id` until
/// `expires_at` (Unix seconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamGrant {
    pub clip_id: Id,
    pub user_id: Id,
    pub source: VideoSource,
    pub expires_at: i64,
}

impl StreamGrant {
    /// A grant that expires [`LIFETIME_SECS`] after `now`.
    pub fn new(clip_id: Id, user_id: Id, source: VideoSource, now: i64) -> Self {
        StreamGrant {
            clip_id,
            user_id,
            source,
            expires_at: now + LIFETIME_SECS,
        }
    }
}

/// The wire payload: short field names keep URLs short; `s`+`k` or `x`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Payload {
    c: Id,
    u: Id,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    s: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    k: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    x: Option<String>,
    e: i64,
}

/// The signed token for `grant`.
pub fn sign(keys: &Keys, grant: &StreamGrant) -> String {
    let (s, k, x) = match &grant.source {
        VideoSource::Stored { store, key } => {
            (Some(store.name().to_string()), Some(key.clone()), None)
        }
        VideoSource::External { url } => (None, None, Some(url.clone())),
    };
    let payload = Payload {
        c: grant.clip_id,
        u: grant.user_id,
        s,
        k,
        x,
        e: grant.expires_at,
    };
    let json = serde_json::to_vec(&payload).expect("payload serializes");
    let body = URL_SAFE_NO_PAD.encode(json);
    let mac = keys.sign(PURPOSE, body.as_bytes());
    format!("{body}.{mac}")
}

fn invalid() -> Error {
    Error::forbidden(
        "video_token_invalid",
        "the video link is not valid; ask for a new one",
    )
}

/// Checks `token` at `now` (Unix seconds). The signature is checked first (constant time), so
/// a forged or tampered token learns nothing, not even whether it would have expired:
/// tampered or garbled → 403 `video_token_invalid`; authentic but past its expiry → 401
/// `video_token_expired`.
pub fn verify(keys: &Keys, token: &str, now: i64) -> Result<StreamGrant, Error> {
    let (body, mac) = token.split_once('.').ok_or_else(invalid)?;
    if !keys.verify(PURPOSE, body.as_bytes(), mac) {
        return Err(invalid());
    }
    // Authentic from here on: a decode failure means a token of another format version.
    let raw = URL_SAFE_NO_PAD.decode(body).map_err(|_| invalid())?;
    let p: Payload = serde_json::from_slice(&raw).map_err(|_| invalid())?;
    let source = match (p.s, p.k, p.x) {
        (Some(s), Some(key), None) => VideoSource::Stored {
            store: Store::from_name(&s).ok_or_else(invalid)?,
            key,
        },
        (None, None, Some(url)) => VideoSource::External { url },
        _ => return Err(invalid()),
    };
    if now > p.e {
        return Err(Error::unauthorized(
            "video_token_expired",
            "the video link has expired; ask for a new one",
        ));
    }
    Ok(StreamGrant {
        clip_id: p.c,
        user_id: p.u,
        source,
        expires_at: p.e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn keys() -> Keys {
        Keys::new(&[9u8; 32])
    }

    fn stored(now: i64) -> StreamGrant {
        StreamGrant::new(
            Id::new(),
            Id::new(),
            VideoSource::Stored {
                store: Store::SessionVideos,
                key: "ws/clip one/v.mp4".into(),
            },
            now,
        )
    }

    #[test]
    fn round_trips_both_sources_and_is_url_safe() {
        let g = stored(1000);
        assert_eq!(g.expires_at, 1000 + LIFETIME_SECS);
        let t = sign(&keys(), &g);
        assert!(
            t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
            "{t}"
        );
        assert_eq!(verify(&keys(), &t, 1000).unwrap(), g);
        let ext = StreamGrant::new(
            Id::new(),
            Id::new(),
            VideoSource::External {
                url: "https://cdn.example/v.mp4?x=1&y=2".into(),
            },
            5,
        );
        assert_eq!(verify(&keys(), &sign(&keys(), &ext), 5).unwrap(), ext);
    }

    #[test]
    fn expires_after_its_lifetime_with_401() {
        let g = stored(1000);
        let t = sign(&keys(), &g);
        assert!(verify(&keys(), &t, g.expires_at).is_ok());
        let e = verify(&keys(), &t, g.expires_at + 1).unwrap_err();
        assert_eq!(
            (e.kind, e.code),
            (ErrorKind::Unauthenticated, "video_token_expired")
        );
    }

    #[test]
    fn tampered_garbled_or_foreign_tokens_are_403_even_when_expired() {
        let g = stored(1000);
        let t = sign(&keys(), &g);
        let (body, mac) = t.split_once('.').unwrap();
        // Another grant's payload under this token's MAC.
        let other = sign(&keys(), &stored(2000));
        let other_body = other.split_once('.').unwrap().0;
        let mut flipped = body.to_string().into_bytes();
        flipped[3] = if flipped[3] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(flipped).unwrap();
        let later = g.expires_at + 10_000;
        for bad in [
            format!("{other_body}.{mac}"),
            format!("{flipped}.{mac}"),
            format!("{body}.{}", &mac[1..]),
            format!("{body}."),
            body.to_string(),
            String::new(),
            "...".into(),
            sign(&Keys::new(&[1u8; 32]), &g),
        ] {
            for now in [1000, later] {
                let e = verify(&keys(), &bad, now).unwrap_err();
                assert_eq!(
                    (e.kind, e.code),
                    (ErrorKind::Forbidden, "video_token_invalid"),
                    "{bad}"
                );
            }
        }
        // Signed with another purpose's key (say, a storage URL signature) is no token either.
        let foreign = format!("{body}.{}", keys().sign("storage-url", body.as_bytes()));
        assert_eq!(
            verify(&keys(), &foreign, 1000).unwrap_err().code,
            "video_token_invalid"
        );
    }
}
