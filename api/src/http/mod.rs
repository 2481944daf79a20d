//! HTTP plumbing shared by every area: extractors, pagination, cookies, client address.

pub mod cookies;
pub mod error;
pub mod extract;
pub mod pagination;
pub mod ranged;

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
