//! HTTP range semantics (RFC 9110 §14) over a stored object or an external origin, for the
//! video proxy: one range (`bytes=a-b`, `bytes=a-`, `bytes=-n`) answers 206 with
//! Content-Range; an unsatisfiable one 416 with `Content-Range: bytes */len`; several ranges,
//! `b < a` or another unit are ignored (200, the whole body, as RFC 9110 allows); `If-Range`
//! with an ETag (strong comparison) or a date (equal to Last-Modified) keeps the range only
//! while the representation is unchanged, else 200. HEAD answers the same headers without a
//! body. ETag and Last-Modified are passed on, `Accept-Ranges: bytes` and
//! `Cache-Control: private` are set. The body is the storage or origin stream handed to
//! `Body::from_stream`: hyper polls it only as the client drains the socket, so memory stays
//! constant (one chunk in flight) whatever the size. On a connection of `serve_http`, a local
//! store's file, and the body of a plain-HTTP upstream (S3's presigned GET, an external
//! origin), are moved by the kernel instead (`zerocopy`).
//!
//! [`serve_stored`] and [`serve_external`] never fail: an error becomes its JSON error
//! response, so routes can return their answer directly.

use std::time::SystemTime;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use shared::storage::{ByteRange, Object, ObjectMeta, Storage, StorageError, Store};
use shared::video::origin::{self, OriginBody, OriginRequest, OriginResponse};
use shared::video::ssrf::OriginPolicy;
use shared::video::ssrf::READ_TIMEOUT;
use shared::{Error, ErrorKind};

use super::ApiError;
use super::zerocopy::Door;

fn fail(e: Error) -> Response {
    ApiError(e).into_response()
}

fn header_str(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The single range a request asks for, or `None` (no Range header, or one we ignore).
pub fn requested_range(headers: &HeaderMap) -> Option<ByteRange> {
    // Several Range headers are several ranges: ignored like a list.
    if headers.get_all(header::RANGE).iter().count() != 1 {
        return None;
    }
    header_str(headers, header::RANGE).and_then(ByteRange::parse_header)
}

/// An HTTP date (IMF-fixdate).
pub fn http_date(t: SystemTime) -> String {
    DateTime::<Utc>::from(t)
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

fn parse_http_date(v: &str) -> Option<i64> {
    DateTime::parse_from_rfc2822(v.trim())
        .ok()
        .map(|d| d.timestamp())
}

/// Whether a range request may be honoured under its `If-Range` (RFC 9110 §13.1.5): true
/// without one; an entity tag must equal `etag` strongly (a weak tag never matches); a date
/// must equal Last-Modified to the second.
pub fn if_range_holds(headers: &HeaderMap, etag: Option<&str>, last_modified: Option<i64>) -> bool {
    let Some(v) = headers.get(header::IF_RANGE) else {
        return true;
    };
    let Ok(v) = v.to_str() else {
        return false;
    };
    let v = v.trim();
    if v.starts_with('"') {
        return etag.is_some_and(|e| !e.starts_with("W/") && e == v);
    }
    if v.starts_with("W/") {
        return false;
    }
    match (parse_http_date(v), last_modified) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The strong ETag of a stored object: the backend's version tag when it has one (S3's ETag,
/// the local store's size and mtime), else a hash of where it is and its size and time.
fn stored_etag(store: Store, key: &str, meta: &ObjectMeta) -> String {
    let clean = meta
        .etag
        .as_deref()
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic() && b != b'"'));
    match clean {
        Some(t) => format!("\"{t}\""),
        None => {
            let modified = meta
                .last_modified
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            let id = format!("{store}\n{key}\n{}\n{modified}", meta.size);
            format!(
                "\"{}\"",
                &shared::crypto::sha256_b64url(id.as_bytes())[..22]
            )
        }
    }
}

fn set(h: &mut HeaderMap, name: HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        h.insert(name, v);
    }
}

fn unsatisfiable(size: Option<u64>, content_range: Option<&str>) -> Response {
    let mut resp = fail(Error::new(
        ErrorKind::RangeNotSatisfiable,
        "range_not_satisfiable",
        match size {
            Some(s) => format!("the range is outside the video's {s} bytes"),
            None => "the range is outside the video".to_string(),
        },
    ));
    let cr = match (size, content_range) {
        (Some(s), _) => Some(format!("bytes */{s}")),
        (None, cr) => cr.map(str::to_string),
    };
    if let Some(cr) = cr {
        set(resp.headers_mut(), header::CONTENT_RANGE, &cr);
    }
    resp
}

fn storage_error(e: StorageError) -> Response {
    match e {
        StorageError::NotFound | StorageError::InvalidKey(_) => fail(Error::not_found("video")),
        StorageError::RangeNotSatisfiable { size } => unsatisfiable(Some(size), None),
        StorageError::Backend(e) => fail(Error::internal(e)),
    }
}

/// Serves the object `key` of `store` for a GET or HEAD with the request's `headers`.
pub async fn serve_stored(
    storage: &Storage,
    store: Store,
    key: &str,
    headers: &HeaderMap,
    method: &Method,
    door: Option<&Door>,
) -> Response {
    // A plain GET asks for the object (or its range) straight away: the answer carries what
    // the headers need, so a player's every range costs one request to the store, not two. A
    // HEAD, or a GET whose `If-Range` decides whether the range applies, reads the metadata
    // first.
    if *method == Method::GET && !headers.contains_key(header::IF_RANGE) {
        let range = requested_range(headers);
        if let Some(door) = door
            && let Some(resp) = stored_by_socket(storage, store, key, range, door).await
        {
            return resp;
        }
        let obj = match storage.get(store, key, range).await {
            Ok(obj) => obj,
            Err(e) => return storage_error(e),
        };
        let (status, h) = stored_headers(store, key, &obj.meta(), obj.range);
        return (status, h, object_body(obj, door)).into_response();
    }
    let meta = match storage.head(store, key).await {
        Ok(Some(m)) => m,
        Ok(None) => return fail(Error::not_found("video")),
        Err(e) => return storage_error(e),
    };
    let etag = stored_etag(store, key, &meta);
    let modified = meta
        .last_modified
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    let range = requested_range(headers).filter(|_| if_range_holds(headers, Some(&etag), modified));
    let served = match range.map(|r| r.resolve(meta.size)) {
        None => None,
        Some(Ok(span)) => Some(span),
        Some(Err(_)) => return unsatisfiable(Some(meta.size), None),
    };
    let (status, h) = stored_headers(store, key, &meta, served);
    if method == Method::HEAD {
        return (status, h, Body::empty()).into_response();
    }
    let obj = match storage
        .get(store, key, served.map(|(f, l)| ByteRange::new(f, l)))
        .await
    {
        Ok(obj) => obj,
        Err(e) => return storage_error(e),
    };
    // Replaced between head and get: the headers above would describe another object.
    if obj.size != meta.size {
        return fail(Error::unavailable(
            "video_changed",
            "the video changed while it was being read; retry",
            1,
        ));
    }
    (status, h, object_body(obj, door)).into_response()
}

/// A stored object's body: sent by the kernel from the local store's file when the connection
/// has a door (`zerocopy`), else the backend's stream.
fn object_body(obj: Object, door: Option<&Door>) -> Body {
    match (door, obj.file) {
        (Some(door), Some(span)) => door.file_body(span),
        _ => Body::from_stream(obj.body),
    }
}

/// A plain GET of an object in S3 on a plain-HTTP endpoint, relayed by the kernel from the
/// S3 server's socket (`zerocopy`, [`Storage::get_on_socket`]), with the headers the SDK's
/// path sets. `None` when that does not apply: the SDK's path then answers, errors included.
async fn stored_by_socket(
    storage: &Storage,
    store: Store,
    key: &str,
    range: Option<ByteRange>,
    door: &Door,
) -> Option<Response> {
    let obj = storage
        .get_on_socket(store, key, range, READ_TIMEOUT)
        .await?;
    let (status, h) = stored_headers(store, key, &obj.meta, obj.range);
    Some((status, h, door.socket_body(obj.body)).into_response())
}

/// The status and headers of a stored object's answer: the whole of it, or the inclusive span
/// `served`.
fn stored_headers(
    store: Store,
    key: &str,
    meta: &ObjectMeta,
    served: Option<(u64, u64)>,
) -> (StatusCode, HeaderMap) {
    let mut h = HeaderMap::new();
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private"));
    set(&mut h, header::ETAG, &stored_etag(store, key, meta));
    if let Some(t) = meta.last_modified {
        set(&mut h, header::LAST_MODIFIED, &http_date(t));
    }
    set(
        &mut h,
        header::CONTENT_TYPE,
        meta.content_type
            .as_deref()
            .unwrap_or("application/octet-stream"),
    );
    let (status, length) = match served {
        Some((first, last)) => {
            set(
                &mut h,
                header::CONTENT_RANGE,
                &format!("bytes {first}-{last}/{}", meta.size),
            );
            (StatusCode::PARTIAL_CONTENT, last - first + 1)
        }
        None => (StatusCode::OK, meta.size),
    };
    h.insert(header::CONTENT_LENGTH, length.into());
    super::inert::make_inert(&mut h);
    (status, h)
}

/// Serves the external `url` (checked against `policy`) for a GET or HEAD with the request's
/// `headers`: one valid range and its `If-Range` are forwarded, the origin decides, and its
/// answer is relayed. A redirect is 502 `video_redirect_refused`, an origin's 404/410 is 404,
/// any other non-success 502 `video_origin_failed`.
pub async fn serve_external(
    policy: &OriginPolicy,
    url: &str,
    headers: &HeaderMap,
    method: &Method,
    door: Option<&Door>,
) -> Response {
    let range = requested_range(headers).map(ByteRange::header_value);
    let req = OriginRequest {
        head: method == Method::HEAD,
        if_range: range
            .as_ref()
            .and_then(|_| header_str(headers, header::IF_RANGE))
            .map(str::to_string),
        range,
        socket_body: door.is_some(),
    };
    match origin::fetch(policy, url, &req).await {
        Ok(r) => relay(r, door),
        Err(e) => fail(e),
    }
}

fn relay(r: OriginResponse, door: Option<&Door>) -> Response {
    let status = match r.status {
        200 => StatusCode::OK,
        206 => StatusCode::PARTIAL_CONTENT,
        416 => return unsatisfiable(None, r.content_range.as_deref()),
        404 | 410 => return fail(Error::not_found("video")),
        s => {
            return fail(
                Error::new(
                    ErrorKind::ProviderFailed,
                    "video_origin_failed",
                    format!("the video origin answered {s}"),
                )
                .with_details(serde_json::json!({ "originStatus": s })),
            );
        }
    };
    let mut h = HeaderMap::new();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private"));
    set(
        &mut h,
        header::ACCEPT_RANGES,
        r.accept_ranges.as_deref().unwrap_or("bytes"),
    );
    for (name, value) in [
        (header::CONTENT_RANGE, &r.content_range),
        (header::CONTENT_TYPE, &r.content_type),
        (header::ETAG, &r.etag),
        (header::LAST_MODIFIED, &r.last_modified),
    ] {
        if let Some(v) = value {
            set(&mut h, name, v);
        }
    }
    if let Some(len) = r.content_length {
        h.insert(header::CONTENT_LENGTH, len.into());
    }
    // The origin chose the type; from our origin it must still never run.
    super::inert::make_inert(&mut h);
    let body = match (door, r.body) {
        (Some(door), OriginBody::Socket(span)) => door.socket_body(span),
        (_, body) => Body::from_stream(body.into_stream()),
    };
    (status, h, body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: HeaderName, v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn if_range_compares_strong_etags_and_exact_dates() {
        let t = 784_111_777; // Sun, 06 Nov 1994 08:49:37 GMT
        assert!(if_range_holds(&HeaderMap::new(), None, None));
        let tag = Some("\"abc\"");
        assert!(if_range_holds(
            &with(header::IF_RANGE, "\"abc\""),
            tag,
            None
        ));
        assert!(!if_range_holds(
            &with(header::IF_RANGE, "\"abd\""),
            tag,
            None
        ));
        assert!(!if_range_holds(
            &with(header::IF_RANGE, "W/\"abc\""),
            tag,
            None
        ));
        let date = with(header::IF_RANGE, "Sun, 06 Nov 1994 08:49:37 GMT");
        assert!(if_range_holds(&date, tag, Some(t)));
        assert!(!if_range_holds(&date, tag, Some(t + 1)));
        assert!(!if_range_holds(
            &with(header::IF_RANGE, "garbage"),
            tag,
            Some(t)
        ));
        assert_eq!(
            http_date(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(t as u64)),
            "Sun, 06 Nov 1994 08:49:37 GMT"
        );
    }

    #[test]
    fn only_one_range_is_honoured() {
        assert_eq!(
            requested_range(&with(header::RANGE, "bytes=-5")),
            Some(ByteRange::suffix(5))
        );
        assert_eq!(requested_range(&with(header::RANGE, "bytes=0-1,3-4")), None);
        assert_eq!(ByteRange::new(1, 2).header_value(), "bytes=1-2");
        assert_eq!(ByteRange::starting_at(7).header_value(), "bytes=7-");
        assert_eq!(ByteRange::suffix(9).header_value(), "bytes=-9");
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    fn headers(name: HeaderName, values: &[Vec<u8>]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            if let Ok(v) = HeaderValue::from_bytes(v) {
                h.append(name.clone(), v);
            }
        }
        h
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Any Range and If-Range header values: no panic, and a range that is honoured lies
        /// within the object.
        #[test]
        fn range_and_if_range_headers_never_panic(
            range in prop::collection::vec(prop_oneof![
                prop::collection::vec(any::<u8>(), 0..30),
                "bytes=[0-9]{0,21}-[0-9]{0,21}".prop_map(String::into_bytes),
            ], 0..3),
            if_range in prop::collection::vec(any::<u8>(), 0..40),
            size in any::<u64>(),
            etag in proptest::option::of("\"[a-z0-9]{0,10}\""),
            modified in proptest::option::of(any::<i64>()),
        ) {
            let h = headers(header::RANGE, &range);
            if let Some(r) = requested_range(&h)
                && let Ok((first, last)) = r.resolve(size)
            {
                prop_assert!(first <= last && last < size);
                let back = ByteRange::parse_header(&r.header_value());
                prop_assert_eq!(back, Some(r));
            }
            let h = headers(header::IF_RANGE, &[if_range]);
            let _ = if_range_holds(&h, etag.as_deref(), modified);
        }

        #[test]
        fn an_http_date_reads_back_to_the_second(secs in 0u64..253_402_300_799) {
            let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs);
            prop_assert_eq!(parse_http_date(&http_date(t)), Some(secs as i64));
        }
    }
}
