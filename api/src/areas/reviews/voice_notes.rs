//! A review's voice notes (`/api/reviews/{id}/voice-notes`): the coach records audio and sends
//! it as the request body; it is checked by its first bytes and size while it streams into
//! storage ([`crate::http::upload`]). The notes are read with the review.

use super::VoiceNoteView;
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Path, Query};
use crate::http::upload::{self, Media};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::reviews::voice_notes::{self as domain, MAX_BYTES, Recorded};
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
    domain::check_add(&state.db, &ws, review, q.keypoint_id).await?;
    let id = Id::new();
    let key = domain::key(ws.org_id, review, id);
    let (parts, body) = req.into_parts();
    let stored = upload::store(
        &state.storage,
        Store::RawUploads,
        &key,
        &parts.headers,
        body,
        &AUDIO,
    )
    .await?;
    let rec = Recorded {
        id,
        keypoint_id: q.keypoint_id,
        object_key: key.clone(),
        content_type: stored.content_type.to_string(),
        size_bytes: stored.size,
    };
    match domain::add(&state.db, &ws, review, &rec).await {
        Ok(n) => Ok((
            StatusCode::CREATED,
            axum::Json(VoiceNoteView::new(&state, n).await?),
        )),
        Err(e) => {
            // Not recorded (the review changed meanwhile): the audio must not linger.
            if let Err(d) = state.storage.delete(Store::RawUploads, &key).await {
                tracing::warn!(error = %d, key, "could not delete an unrecorded voice note");
            }
            Err(e.into())
        }
    }
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
