//! A review's voice notes (`/api/reviews/{id}/voice-notes`): the coach records audio and sends
//! it as the request body; it is checked by its first bytes and size while it streams into
//! storage ([`crate::http::upload`]). The notes are read with the review.

use super::VoiceNoteView;
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Path, Query};
use crate::http::upload::{self, Media};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::http::StatusCode;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::InWorkspace;
use shared::domain::reviews::voice_notes::{self as domain, MAX_BYTES, Recorded};
use shared::repo::review_audio::VoiceNote;
use shared::storage::Store;

const AUDIO: Media = upload::audio(MAX_BYTES);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddQuery {
    /// The keypoint the note is about.
    pub keypoint_id: Option<Id>,
}

/// `POST /api/reviews/{id}/voice-notes`: the audio is the body (M4A/AAC, MP3, WAV, Ogg/Opus
/// or WebM, at most 25 MiB). The review must take edits; a `ready` one goes back to `draft`.
pub async fn add(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(review): Path<Id>,
    Query(q): Query<AddQuery>,
    req: Request,
) -> Result<(StatusCode, axum::Json<VoiceNoteView>)> {
    let (parts, body) = req.into_parts();
    let n = record(&state, &ws, review, q.keypoint_id, &parts.headers, body).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(VoiceNoteView::new(&state, n).await?),
    ))
}

/// Stores `body` as a voice note of `review` (this route's and the review builder page's
/// recordings alike): checked before a byte is read, then by its first bytes and size while it
/// streams into storage; a recording that does not become a note is deleted.
pub async fn record(
    state: &AppState,
    ws: &InWorkspace,
    review: Id,
    keypoint: Option<Id>,
    headers: &HeaderMap,
    body: Body,
) -> shared::Result<VoiceNote> {
    domain::check_add(&state.db, ws, review, keypoint).await?;
    let id = Id::new();
    let key = domain::key(ws.org_id, review, id);
    let stored = upload::store(
        &state.storage,
        Store::RawUploads,
        &key,
        headers,
        body,
        &AUDIO,
    )
    .await?;
    let rec = Recorded {
        id,
        keypoint_id: keypoint,
        object_key: key.clone(),
        content_type: stored.content_type.to_string(),
        size_bytes: stored.size,
    };
    let added = domain::add(&state.db, ws, review, &rec).await;
    if added.is_err() {
        // Not recorded (the review changed meanwhile): the audio must not linger.
        if let Err(d) = state.storage.delete(Store::RawUploads, &key).await {
            tracing::warn!(error = %d, key, "could not delete an unrecorded voice note");
        }
    }
    added
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotePath {
    pub id: Id,
    pub note_id: Id,
}

/// `DELETE /api/reviews/{id}/voice-notes/{noteId}`: the audio is deleted by a job.
pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<NotePath>,
) -> Result<StatusCode> {
    domain::delete(&state.db, &ws, p.id, p.note_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
