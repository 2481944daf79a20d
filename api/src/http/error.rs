//! The HTTP face of `shared::Error`: each error kind's status and the one JSON shape,
//! `{"error": {"code", "message", "details"?}}`, with `Retry-After` when the error says when.
//!
//! Handlers and extractors return [`Result`]; `?` lifts a domain error (or a sqlx/anyhow error)
//! into an [`ApiError`], so the mapping below is the only place a status is chosen.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
pub use shared::Error;
use shared::ErrorKind;

/// A `shared::Error` on its way out as an HTTP response.
#[derive(Debug)]
pub struct ApiError(pub Error);

/// What handlers, extractors and api helpers return.
pub type Result<T, E = ApiError> = std::result::Result<T, E>;

/// The status an error kind answers with.
pub fn status(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
        ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::Gone => StatusCode::GONE,
        ErrorKind::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
        ErrorKind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorKind::ChecksumMismatch => {
            StatusCode::from_u16(460).expect("460 is a valid status code")
        }
        ErrorKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorKind::RangeNotSatisfiable => StatusCode::RANGE_NOT_SATISFIABLE,
        ErrorKind::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorKind::ProviderFailed => StatusCode::BAD_GATEWAY,
        ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError(e.into())
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(e: anyhow::Error) -> Self {
        ApiError(e.into())
    }
}

impl From<shared::providers::ProviderError> for ApiError {
    fn from(e: shared::providers::ProviderError) -> Self {
        ApiError(e.into())
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let e = self.0;
        let status = status(e.kind);
        if e.kind.is_server_error() {
            tracing::error!(status = status.as_u16(), code = e.code, error = %e, "request failed");
        }
        let mut body = json!({ "error": { "code": e.code, "message": e.message } });
        if let Some(d) = e.details {
            body["error"]["details"] = d;
        }
        let mut resp = (status, axum::Json(body)).into_response();
        if let Some(secs) = e.retry_after_secs {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_maps_to_its_status_class() {
        assert_eq!(status(Error::not_found("x").kind), 404);
        assert_eq!(status(Error::gone("invite_used", "used").kind), 410);
        assert_eq!(status(Error::provider_not_configured("p").kind), 503);
        assert_eq!(status(Error::provider_failed("p", "m").kind), 502);
        assert!(status(ErrorKind::Internal).is_server_error());
        assert!(status(ErrorKind::Conflict).is_client_error());
    }

    #[test]
    fn retry_after_becomes_a_header() {
        let r = ApiError(Error::too_many_requests(7)).into_response();
        assert_eq!(r.status(), 429);
        assert_eq!(r.headers()[header::RETRY_AFTER], "7");
    }
}
