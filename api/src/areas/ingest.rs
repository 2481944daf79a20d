//! Phone capture uploads over tus 1.0 (`/api/clips/native-ingest`): creation, resumable
//! PATCHes, the offset read (HEAD, or GET with a JSON body) and termination. Each PATCH body
//! streams into one part object in raw-uploads (one storage part in memory, whatever the size)
//! while `http::tus::PartCheck` watches it; `shared::domain::footage::uploads` records it.
//!
//! A PATCH cut off mid-body keeps what arrived (as tus 1.0 says a server should): the bytes
//! received become a part, HEAD reports the offset after them, and the client resumes from
//! there. With `Upload-Checksum` the cut part cannot be verified, so it keeps nothing, as the
//! checksum extension allows. A body that breaks a rule (too long, not a video, a checksum that
//! does not match) keeps nothing either.

use crate::auth::Acting;
use crate::http::extract::Path;
use crate::http::tus::{self, PartCheck};
use crate::http::{ApiError, Result};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Serialize;
use shared::db::{Id, Ts};
use shared::domain::InWorkspace;
use shared::domain::footage::uploads::{self as domain, Limits, NewUpload, UploadStatus};
use shared::repo::uploads::Upload;
use shared::storage::Store;
use std::sync::{Arc, Mutex};
use utoipa::ToSchema;

/// An upload as the JSON bodies show it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadView {
    pub id: Id,
    pub session_id: Id,
    /// `uploading`, `joining`, `complete`, `failed` or `expired`.
    pub status: UploadStatus,
    pub offset: i64,
    pub length: i64,
    /// The clip made from the upload, once joined.
    pub clip_id: Option<Id>,
    /// The job joining the parts (then the clip's probe is the clip's `jobId`).
    pub job_id: Option<Id>,
    pub failure: Option<String>,
    pub expires_at: Ts,
    /// The tus upload URL (PATCH, HEAD, DELETE).
    pub location: String,
}

fn location(state: &AppState, id: Id) -> String {
    state
        .cfg
        .public_url(&format!("/api/clips/native-ingest/{id}"))
}

fn view(state: &AppState, u: &Upload) -> UploadView {
    UploadView {
        id: u.id,
        session_id: u.session_id,
        status: u.status,
        offset: u.upload_offset,
        length: u.length,
        clip_id: u.clip_id,
        job_id: u.job_id,
        failure: u.failure.clone(),
        expires_at: u.expires_at,
        location: location(state, u.id),
    }
}

fn set(h: &mut HeaderMap, name: &'static str, value: impl ToString) {
    if let Ok(v) = HeaderValue::from_str(&value.to_string()) {
        h.insert(name, v);
    }
}

/// The tus headers every response carries, errors included.
fn tus_response(state: &AppState, r: Result<Response>) -> Response {
    let mut resp = r.unwrap_or_else(IntoResponse::into_response);
    let h = resp.headers_mut();
    set(h, tus::TUS_RESUMABLE, tus::VERSION);
    set(h, tus::TUS_VERSION, tus::VERSION);
    set(h, tus::TUS_EXTENSION, tus::EXTENSIONS);
    set(h, tus::TUS_MAX_SIZE, state.cfg.upload_max_bytes);
    set(h, tus::TUS_CHECKSUM_ALGORITHM, tus::CHECKSUM_ALGORITHMS);
    resp
}

/// `Upload-Offset`, `Upload-Length`, `Upload-Expires` (RFC 9110 date) of an upload.
fn upload_headers(h: &mut HeaderMap, u: &Upload) {
    set(h, tus::UPLOAD_OFFSET, u.upload_offset);
    set(h, tus::UPLOAD_LENGTH, u.length);
    if u.status == UploadStatus::Uploading {
        set(
            h,
            tus::UPLOAD_EXPIRES,
            u.expires_at.0.format("%a, %d %b %Y %H:%M:%S GMT"),
        );
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// `OPTIONS /api/clips/native-ingest`: tus discovery, answered without credentials and without
/// `Tus-Resumable` in the request (the one tus request that needs neither).
pub async fn options(State(state): State<AppState>) -> Response {
    tus_response(&state, Ok(StatusCode::NO_CONTENT.into_response()))
}

/// `POST /api/clips/native-ingest`: a new upload (`Upload-Length`, `Upload-Metadata` with
/// `sessionId`, `filename` and optionally `athleteId`, `clientUploadId`, `recordedAt`).
/// The same `clientUploadId` returns the upload it made before.
pub async fn create(
    State(state): State<AppState>,
    Acting(ws): Acting,
    headers: HeaderMap,
) -> Response {
    let r = async {
        tus::check_version(&headers)?;
        if headers.contains_key(tus::UPLOAD_DEFER_LENGTH) {
            return Err(shared::Error::field(
                "Upload-Defer-Length",
                "defer_length_unsupported",
                "send Upload-Length: the file's size is known when the upload starts",
            )
            .into());
        }
        let new = NewUpload {
            length: tus::number(&headers, "Upload-Length")?,
            metadata: tus::metadata(&headers)?,
        };
        let (u, _existing) =
            domain::create(&state.db, &ws, Limits::from_config(&state.cfg), new).await?;
        let mut resp = (StatusCode::CREATED, axum::Json(view(&state, &u))).into_response();
        let h = resp.headers_mut();
        upload_headers(h, &u);
        set(h, "location", location(&state, u.id));
        Ok::<_, ApiError>(resp)
    }
    .await;
    tus_response(&state, r)
}

/// `HEAD`/`GET /api/clips/native-ingest/{uploadId}`: where the upload stands (`Upload-Offset`
/// to resume from); GET also answers with the JSON view. An expired upload is 410. HEAD is the
/// tus request and wants `Tus-Resumable`; GET is this API's JSON read, which does not.
pub async fn status(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    let r = async {
        if method == Method::HEAD {
            tus::check_version(&headers)?;
        }
        let u = domain::get(&state.db, &ws, id).await?;
        if u.status == UploadStatus::Expired {
            return Err(shared::Error::gone(
                "upload_expired",
                "the upload waited too long for its bytes; start a new one",
            )
            .into());
        }
        let mut resp = axum::Json(view(&state, &u)).into_response();
        upload_headers(resp.headers_mut(), &u);
        Ok::<_, ApiError>(resp)
    }
    .await;
    tus_response(&state, r)
}

/// `PATCH /api/clips/native-ingest/{uploadId}`: bytes at `Upload-Offset`, streamed into a part
/// object; 204 with the new `Upload-Offset`.
pub async fn append(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    req: Request,
) -> Response {
    let r = append_inner(&state, ws, id, req).await;
    tus_response(&state, r)
}

async fn append_inner(state: &AppState, ws: InWorkspace, id: Id, req: Request) -> Result<Response> {
    let headers = req.headers();
    tus::check_version(headers)?;
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if ct != tus::OFFSET_OCTET_STREAM {
        return Err(shared::Error::new(
            shared::ErrorKind::UnsupportedMediaType,
            "unsupported_media_type",
            format!(
                "send the bytes with Content-Type: {}",
                tus::OFFSET_OCTET_STREAM
            ),
        )
        .into());
    }
    let offset = tus::number(headers, "Upload-Offset")?;
    let checksum = tus::checksum(headers)?;
    let keep_partial = checksum.is_none();
    let offset_i = i64::try_from(offset)
        .map_err(|_| shared::Error::field("Upload-Offset", "out_of_range", "too large"))?;
    let u = domain::check_append(&state.db, &ws, id, offset_i).await?;
    let check = Arc::new(Mutex::new(PartCheck::new(
        offset,
        u.length as u64,
        checksum,
    )));
    let verdict: Arc<Mutex<Option<shared::Error>>> = Arc::default();
    let body = {
        let check = check.clone();
        let verdict = verdict.clone();
        let mut ended = false;
        crate::http::streamed_body(req.into_body())
            .map(Some)
            .chain(futures::stream::once(async { None }))
            .filter_map(move |item| {
                let mut c = check.lock().expect("part check lock");
                let out = match item {
                    _ if ended => None,
                    Some(Ok(bytes)) => match c.feed(&bytes) {
                        Ok(()) => Some(Ok(bytes)),
                        Err(e) => Some(Err(e)),
                    },
                    // The client went away or stalled: what arrived is kept as the part,
                    // unless a checksum was to vouch for the whole body.
                    Some(Err(_)) if keep_partial => {
                        ended = true;
                        c.finish().err().map(Err)
                    }
                    Some(Err(e)) => Some(Err(shared::Error::new(
                        shared::ErrorKind::BadRequest,
                        "upload_interrupted",
                        format!("the body ended early: {e}"),
                    ))),
                    None => c.finish().err().map(Err),
                };
                let out = out.map(|r| {
                    r.map_err(|e| {
                        let msg = e.message.clone();
                        *verdict.lock().expect("verdict lock") = Some(e);
                        std::io::Error::other(msg)
                    })
                });
                async move { out }
            })
    };
    let key = domain::part_key(u.org_id, u.id, offset_i);
    let stored = state
        .storage
        .put(Store::RawUploads, &key, body, "application/octet-stream")
        .await;
    if let Err(e) = stored {
        let broken = verdict.lock().expect("verdict lock").take();
        return Err(broken.unwrap_or_else(|| shared::Error::internal(e)).into());
    }
    let (seen, content_type) = {
        let c = check.lock().expect("part check lock");
        (c.seen() as i64, c.content_type())
    };
    let u = if seen == 0 {
        // An empty PATCH moves nothing (and keeps no empty part).
        state
            .storage
            .delete(Store::RawUploads, &key)
            .await
            .map_err(shared::Error::internal)?;
        u
    } else {
        let limits = Limits::from_config(&state.cfg);
        match domain::commit_part(
            &state.db,
            &ws,
            limits,
            &u,
            offset_i,
            seen,
            &key,
            content_type,
        )
        .await
        {
            Ok(u) => u,
            Err(e) => {
                // Not recorded: this PATCH's part must not linger (its key is its own).
                if let Err(d) = state.storage.delete(Store::RawUploads, &key).await {
                    tracing::warn!(error = %d, key, "could not delete an unrecorded upload part");
                }
                return Err(e.into());
            }
        }
    };
    let mut resp = StatusCode::NO_CONTENT.into_response();
    upload_headers(resp.headers_mut(), &u);
    Ok(resp)
}

/// `DELETE /api/clips/native-ingest/{uploadId}`: the tus termination of an unfinished upload.
pub async fn terminate(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    headers: HeaderMap,
) -> Response {
    let r = async {
        tus::check_version(&headers)?;
        domain::terminate(&state.db, &ws, id).await?;
        Ok::<_, ApiError>(StatusCode::NO_CONTENT.into_response())
    }
    .await;
    tus_response(&state, r)
}
