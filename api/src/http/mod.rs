//! HTTP plumbing shared by every area: extractors, pagination, cookies, client address.

pub mod cookies;
pub mod error;
pub mod extract;
pub mod inert;
pub mod pagination;
pub mod ranged;
pub mod tus;
pub mod upload;
pub mod zerocopy;

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use std::net::SocketAddr;

pub use error::{ApiError, Error, Result};

/// The client's address as seen by this process (the peer of the TCP connection). Behind a
/// proxy this is the proxy; rate limits keyed by it are then per proxy, which errs safe.
pub fn client_ip(parts: &Parts) -> String {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Paths whose next segment is a secret (an invite token): the logs show `{token}` instead.
const SECRET_SEGMENT_AFTER: &[&str] = &[
    "/join/",
    "/invite/",
    "/api/invite/lookup/",
    "/api/orgs/invite/",
];

/// A request path as log lines show it: no token of an invite link is ever logged (query
/// strings, where the other emailed tokens travel, are not logged at all).
pub fn loggable_path(path: &str) -> std::borrow::Cow<'_, str> {
    for p in SECRET_SEGMENT_AFTER {
        if let Some(rest) = path.strip_prefix(p) {
            let tail = rest.find('/').map_or("", |i| &rest[i..]);
            return format!("{p}{{token}}{tail}").into();
        }
    }
    path.into()
}

/// The longest wait for the next chunk of a streamed request body (the routes of
/// `RouteDef::streamed_body`, which the request timeout does not bound).
pub const BODY_IDLE: std::time::Duration = std::time::Duration::from_secs(60);

/// A request body as a stream of chunks that ends in an error when no chunk arrives for
/// [`BODY_IDLE`], so a stalled client cannot hold an upload open forever.
pub fn streamed_body(
    body: axum::body::Body,
) -> impl futures::Stream<Item = std::io::Result<bytes::Bytes>> + Send {
    use futures::StreamExt;
    futures::stream::unfold(Some(body.into_data_stream()), |s| async move {
        let mut s = s?;
        match tokio::time::timeout(BODY_IDLE, s.next()).await {
            Ok(Some(item)) => Some((item.map_err(std::io::Error::other), Some(s))),
            Ok(None) => None,
            Err(_) => Some((
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no bytes for {} s", BODY_IDLE.as_secs()),
                )),
                None,
            )),
        }
    })
}
