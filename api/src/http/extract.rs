//! Request extractors that answer bad input with the service's JSON error shape (axum's stock
//! `Json` and `Query` answer 415/422 in plain text).

use crate::http::{ApiError, Error};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::json;
use shared::ErrorKind;

/// Whether the request says its body is JSON (`application/json` or `…+json`).
pub fn is_json(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| {
            let m = m.trim();
            m.eq_ignore_ascii_case("application/json") || m.ends_with("+json")
        })
}

/// A JSON request body, deserialized with the failing field's path in the error.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        if !is_json(req.headers()) {
            return Err(Error::unsupported_media_type(
                "the request body must be JSON with Content-Type: application/json",
            )
            .into());
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                Error::payload_too_large("the request body is too large")
            } else {
                Error::bad_request("invalid_body", e.body_text())
            }
        })?;
        Ok(parse_json(&bytes).map(Body)?)
    }
}

pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.to_string();
        match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                Error::bad_request("invalid_json", format!("malformed JSON: {message}"))
            }
            _ => {
                // serde names a missing field in the message, not the path.
                let field = if path == "." {
                    missing_field_name(&message).unwrap_or(path)
                } else {
                    path
                };
                Error::bad_request("validation_failed", format!("{field}: {message}")).with_details(
                    json!({
                        "fields": [{ "field": field, "code": "invalid", "message": message }]
                    }),
                )
            }
        }
    })
}

fn missing_field_name(message: &str) -> Option<String> {
    let rest = message.strip_prefix("missing field `")?;
    Some(rest.split('`').next()?.to_string())
}

/// Query-string parameters, with the same error shape as bodies.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let q = parts.uri.query().unwrap_or("");
        let de = serde_urlencoded::Deserializer::new(url::form_urlencoded::parse(q.as_bytes()));
        Ok(serde_path_to_error::deserialize(de)
            .map(Query)
            .map_err(|e| {
                let field = e.path().to_string();
                let message = e.into_inner().to_string();
                let field = if field == "." {
                    missing_field_name(&message).unwrap_or(field)
                } else {
                    field
                };
                Error::bad_request("invalid_query", format!("{field}: {message}")).with_details(
                    json!({ "fields": [{ "field": field, "code": "invalid", "message": message }] }),
                )
            })?)
    }
}

/// Path parameters; a malformed one (say, an id that is not a UUID) is a 404 like an absent row.
pub struct Path<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, s: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, s)
            .await
            .map(|p| Path(p.0))
            .map_err(|_| Error::new(ErrorKind::NotFound, "not_found", "not found").into())
    }
}

/// For `#[serde(default, deserialize_with = "nullable")]` on an `Option<Option<T>>` field of a
/// patch body: absent is `None`, an explicit `null` is `Some(None)` ("clear it"), a value is
/// `Some(Some(v))` (plain serde reads `null` as absent).
pub fn nullable<'de, T, D>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    T: serde::Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(d).map(Some)
}
