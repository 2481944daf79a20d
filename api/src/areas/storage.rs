//! The local object store's signed URLs (`Storage::presign_get/put` on the embedded default;
//! with S3 the URLs point at S3 instead). The HMAC signature and expiry in the query are the
//! credential. An upload takes only the Content-Type its URL was issued for, and bytes of that
//! type where we know them (photos, audio, video). Reads honour `Range` (206 with
//! Content-Range) and are served inert (`http::inert`).

use crate::http::extract::{Path, Query};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Deserialize;
use shared::storage::{ByteRange, SignedUrlQuery, StorageError, Store, UrlOp, verify_local_url};

#[derive(Deserialize)]
pub struct ObjectPath {
    store: String,
    key: String,
}

fn check(state: &AppState, p: &ObjectPath, q: &SignedUrlQuery, op: UrlOp) -> Result<Store> {
    let store = Store::from_name(&p.store).ok_or_else(|| Error::not_found("store"))?;
    let now = shared::db::Ts::now().0.timestamp().max(0) as u64;
    if q.op != op || !verify_local_url(&state.keys, store, &p.key, q, now) {
        return Err(Error::unauthorized(
            "invalid_token",
            "the signed URL is not valid or has expired",
        )
        .into());
    }
    Ok(store)
}

fn storage_error(e: StorageError) -> Error {
    match e {
        StorageError::NotFound | StorageError::InvalidKey(_) => Error::not_found("object"),
        StorageError::RangeNotSatisfiable { size } => Error::new(
            shared::ErrorKind::RangeNotSatisfiable,
            "range_not_satisfiable",
            format!("the object has {size} bytes"),
        ),
        StorageError::Backend(e) => Error::internal(e),
    }
}

/// The signature fields, all optional so a missing one is a 401, not a 400.
#[derive(Deserialize)]
pub struct Signature {
    op: Option<UrlOp>,
    exp: Option<u64>,
    sig: Option<String>,
    ct: Option<String>,
}

fn signed(q: Signature) -> Result<SignedUrlQuery> {
    match (q.op, q.exp, q.sig) {
        (Some(op), Some(exp), Some(sig)) => Ok(SignedUrlQuery {
            op,
            exp,
            sig,
            ct: q.ct.unwrap_or_default(),
        }),
        _ => Err(Error::unauthorized("invalid_token", "the URL carries no signature").into()),
    }
}

pub async fn download(
    State(state): State<AppState>,
    Path(p): Path<ObjectPath>,
    Query(q): Query<Signature>,
    headers: HeaderMap,
) -> Result<Response> {
    let store = check(&state, &p, &signed(q)?, UrlOp::Get)?;
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(ByteRange::parse_header);
    let obj = state
        .storage
        .get(store, &p.key, range)
        .await
        .map_err(storage_error)?;
    let status = if obj.range.is_some() {
        StatusCode::PARTIAL_CONTENT
    } else {
        StatusCode::OK
    };
    let mut h = HeaderMap::new();
    h.insert(
        header::ACCEPT_RANGES,
        "bytes".parse().expect("static header"),
    );
    h.insert(header::CONTENT_LENGTH, obj.content_length().into());
    if let Some(cr) = obj.content_range() {
        h.insert(header::CONTENT_RANGE, cr.parse().map_err(Error::internal)?);
    }
    if let Some(ct) = &obj.content_type {
        h.insert(header::CONTENT_TYPE, ct.parse().map_err(Error::internal)?);
    }
    crate::http::inert::make_inert(&mut h);
    Ok((status, h, Body::from_stream(obj.body)).into_response())
}

/// The answer of a stored upload: the object's size in bytes.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[schema(as = StoredObject)]
pub struct Stored {
    pub size: u64,
}

pub async fn upload(
    State(state): State<AppState>,
    Path(p): Path<ObjectPath>,
    Query(q): Query<Signature>,
    req: Request,
) -> Result<(StatusCode, axum::Json<Stored>)> {
    let q = signed(q)?;
    let store = check(&state, &p, &q, UrlOp::Put)?;
    let sent = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if sent != q.ct {
        return Err(Error::new(
            shared::ErrorKind::UnsupportedMediaType,
            "content_type_mismatch",
            format!("this URL takes Content-Type: {}", q.ct),
        )
        .into());
    }
    let (head, rest) = crate::http::upload::take_head(req.into_body()).await?;
    if shared::video::sniff::matches_declared(&q.ct, &head) == Some(false) {
        return Err(Error::new(
            shared::ErrorKind::UnsupportedMediaType,
            "upload_type_mismatch",
            format!("the file is not {}", q.ct),
        )
        .into());
    }
    let body = futures::stream::once(async { Ok(bytes::Bytes::from(head)) }).chain(rest);
    let size = state
        .storage
        .put(store, &p.key, body, &q.ct)
        .await
        .map_err(storage_error)?;
    Ok((StatusCode::CREATED, axum::Json(Stored { size })))
}
