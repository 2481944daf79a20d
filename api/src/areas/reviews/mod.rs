//! Reviews (`/api/reviews/*`): a coach's review of a footage session, its keypoints, the
//! suggestions from the clips' measurements, the build (a job) and publishing. Handlers
//! extract, call one `shared::domain::reviews` operation and map the result. Voice notes are in
//! [`voice_notes`], the phone's routes (reading, receipts, replies) in [`phone`].

pub mod phone;
pub mod replies;
pub mod voice_notes;

use super::jobs::{JobAccepted, accepted};
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use shared::domain::reviews::lifecycle::Full;
use shared::domain::reviews::{
    KeypointOrigin, ReviewStatus, TranscriptStatus, keypoints, lifecycle, reading,
};
use shared::repo::review_audio::VoiceNote;
use shared::repo::reviews::{Filter, Keypoint, Receipt, Review};
use shared::storage::Store;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewView {
    pub id: Id,
    pub session_id: Id,
    pub athlete_id: Option<Id>,
    pub title: String,
    pub summary: Option<String>,
    /// `draft`, `building`, `ready` or `published`.
    pub status: ReviewStatus,
    /// The build job, when one ran.
    pub job_id: Option<Id>,
    pub built_at: Option<Ts>,
    pub published_at: Option<Ts>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<Review> for ReviewView {
    fn from(r: Review) -> Self {
        ReviewView {
            id: r.id,
            session_id: r.session_id,
            athlete_id: r.athlete_id,
            title: r.title,
            summary: r.summary,
            status: r.status,
            job_id: r.job_id,
            built_at: r.built_at,
            published_at: r.published_at,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeypointView {
    pub id: Id,
    pub clip_id: Id,
    pub at_ms: i64,
    pub end_ms: Option<i64>,
    pub body: String,
    #[schema(value_type = Object)]
    pub drawing: Option<Value>,
    pub maneuver_type: Option<String>,
    /// `suggested` (from the measurements) or `coach`.
    pub origin: KeypointOrigin,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<Keypoint> for KeypointView {
    fn from(k: Keypoint) -> Self {
        KeypointView {
            id: k.id,
            clip_id: k.clip_id,
            at_ms: k.at_ms,
            end_ms: k.end_ms,
            body: k.body,
            drawing: k.drawing.map(|d| d.0),
            maneuver_type: k.maneuver_type,
            origin: k.origin,
            created_by: k.created_by,
            created_at: k.created_at,
            updated_at: k.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewDetail {
    #[serde(flatten)]
    pub review: ReviewView,
    pub keypoints: Vec<KeypointView>,
    pub voice_notes: Vec<VoiceNoteView>,
}

async fn detail(state: &AppState, f: Full) -> Result<ReviewDetail> {
    let mut notes = Vec::with_capacity(f.notes.len());
    for n in f.notes {
        notes.push(VoiceNoteView::new(state, n).await?);
    }
    Ok(ReviewDetail {
        review: f.review.into(),
        keypoints: f.keypoints.into_iter().map(KeypointView::from).collect(),
        voice_notes: notes,
    })
}

/// How long a recording's URL plays: long enough to listen with pauses, short enough that a
/// forwarded link to a minor's review soon stops working.
const PLAY_URL_TTL: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// A signed URL to play a recording in the raw-uploads store.
pub async fn play_url(state: &AppState, key: &str) -> Result<String> {
    let url = state
        .storage
        .presign_get(
            Store::RawUploads,
            key,
            PLAY_URL_TTL,
            &state.keys,
            state.cfg.public_base_url.as_str().trim_end_matches('/'),
        )
        .await
        .map_err(shared::Error::internal)?;
    Ok(url)
}

/// A coach's voice note, with a URL to play it (valid for 30 minutes).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoiceNoteView {
    pub id: Id,
    /// The keypoint the note is about, when it is about one.
    pub keypoint_id: Option<Id>,
    /// The audio's type, read from its first bytes (audio/mp4, audio/mpeg, audio/aac,
    /// audio/wav, audio/ogg, audio/webm).
    pub content_type: String,
    pub size_bytes: i64,
    pub url: String,
    /// Null until the review is built, or when transcription failed or is not configured
    /// (`transcriptReason` says why); the note stays playable either way.
    pub transcript: Option<String>,
    /// `pending`, `done`, `skipped` (no model configured) or `failed`.
    pub transcript_status: TranscriptStatus,
    pub transcript_reason: Option<String>,
    /// The model that wrote the transcript.
    pub transcript_model: Option<String>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

impl VoiceNoteView {
    async fn new(state: &AppState, n: VoiceNote) -> Result<Self> {
        Ok(VoiceNoteView {
            url: play_url(state, &n.object_key).await?,
            id: n.id,
            keypoint_id: n.keypoint_id,
            content_type: n.content_type,
            size_bytes: n.size_bytes,
            transcript: n.transcript,
            transcript_status: n.transcript_status,
            transcript_reason: n.transcript_reason,
            transcript_model: n.transcript_model,
            created_by: n.created_by,
            created_at: n.created_at,
        })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    pub session_id: Option<Id>,
    pub athlete_id: Option<Id>,
    pub status: Option<ReviewStatus>,
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<ListQuery>,
) -> Result<axum::Json<Paged<ReviewView>>> {
    let f = Filter {
        session: q.session_id,
        athlete: q.athlete_id,
        status: q.status,
    };
    let rows = lifecycle::list(&state.db, &ws, f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(ReviewView::from).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewReview {
    /// The footage session reviewed.
    pub session_id: Id,
    /// Defaults to the session's athlete.
    pub athlete_id: Option<Id>,
    /// Defaults to "Review: {session title}".
    pub title: Option<String>,
    pub summary: Option<String>,
}

pub async fn create(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<NewReview>,
) -> Result<(StatusCode, axum::Json<ReviewView>)> {
    let raw = lifecycle::RawReview {
        session_id: b.session_id,
        athlete_id: b.athlete_id,
        title: b.title.as_deref(),
        summary: b.summary.as_deref(),
    };
    let r = lifecycle::create(&state.db, &ws, &raw).await?;
    Ok((StatusCode::CREATED, axum::Json(r.into())))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptView {
    pub user_id: Id,
    pub device_id: String,
    pub delivered_at: Ts,
    pub opened_at: Option<Ts>,
}

impl From<Receipt> for ReceiptView {
    fn from(r: Receipt) -> Self {
        ReceiptView {
            user_id: r.user_id,
            device_id: r.device_id,
            delivered_at: r.delivered_at,
            opened_at: r.opened_at,
        }
    }
}

/// A review as its coach reads it: with who received and opened it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoachReview {
    #[serde(flatten)]
    pub detail: ReviewDetail,
    pub receipts: Vec<ReceiptView>,
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<CoachReview>> {
    let f = lifecycle::get(&state.db, &ws, id).await?;
    let receipts = reading::receipts(&state.db, f.review.id).await?;
    Ok(axum::Json(CoachReview {
        detail: detail(&state, f).await?,
        receipts: receipts.into_iter().map(ReceiptView::from).collect(),
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReviewPatch {
    pub title: Option<String>,
    /// null clears it.
    pub summary: Option<Option<String>>,
    /// null clears it.
    pub athlete_id: Option<Option<Id>>,
}

pub async fn update(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<ReviewPatch>,
) -> Result<axum::Json<ReviewView>> {
    let raw = lifecycle::RawPatch {
        title: b.title.as_deref(),
        summary: b.summary.as_ref().map(Option::as_deref),
        athlete_id: b.athlete_id,
    };
    Ok(axum::Json(
        lifecycle::update(&state.db, &ws, id, &raw).await?.into(),
    ))
}

pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    lifecycle::delete(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- keypoints ----

/// A change to a keypoint: a field left out stays.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeypointPatch {
    /// The keypoint's own clip, if given (a keypoint stays on its clip).
    pub clip_id: Option<Id>,
    /// Milliseconds from the clip's start.
    pub at_ms: Option<i64>,
    /// The end of a window; null clears it.
    pub end_ms: Option<Option<i64>>,
    /// The note, 1 to 2000 characters.
    pub body: Option<String>,
    /// Drawing data for the player's overlay (a JSON object or array, at most 64 KiB); null
    /// clears it.
    #[schema(value_type = Object)]
    pub drawing: Option<Option<Value>>,
    /// The maneuver the note is about; null clears it.
    pub maneuver_type: Option<Option<String>>,
}

impl KeypointPatch {
    fn raw(&self) -> keypoints::RawKeypoint<'_> {
        keypoints::RawKeypoint {
            clip_id: self.clip_id,
            at_ms: self.at_ms,
            end_ms: self.end_ms,
            body: self.body.as_deref(),
            drawing: self.drawing.as_ref().map(Option::as_ref),
            maneuver_type: self.maneuver_type.as_ref().map(Option::as_deref),
        }
    }
}

/// A new keypoint: the fields a change may leave out are required here.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewKeypoint {
    /// A clip of the review's footage session.
    pub clip_id: Id,
    /// Milliseconds from the clip's start.
    #[schema(minimum = 0)]
    pub at_ms: i64,
    /// The end of a window: after `atMs`.
    #[schema(minimum = 1)]
    pub end_ms: Option<i64>,
    #[schema(min_length = 1, max_length = 2000)]
    pub body: String,
    /// Drawing data for the player's overlay (a JSON object or array, at most 64 KiB).
    #[schema(value_type = Object)]
    pub drawing: Option<Value>,
    pub maneuver_type: Option<String>,
}

impl NewKeypoint {
    fn raw(&self) -> keypoints::RawKeypoint<'_> {
        keypoints::RawKeypoint {
            clip_id: Some(self.clip_id),
            at_ms: Some(self.at_ms),
            end_ms: self.end_ms.map(Some),
            body: Some(&self.body),
            drawing: self.drawing.as_ref().map(Some),
            maneuver_type: self.maneuver_type.as_deref().map(Some),
        }
    }
}

pub async fn add_keypoint(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<NewKeypoint>,
) -> Result<(StatusCode, axum::Json<KeypointView>)> {
    let k = keypoints::create(&state.db, &ws, id, &b.raw()).await?;
    Ok((StatusCode::CREATED, axum::Json(k.into())))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeypointPath {
    pub id: Id,
    pub keypoint_id: Id,
}

pub async fn update_keypoint(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<KeypointPath>,
    Body(b): Body<KeypointPatch>,
) -> Result<axum::Json<KeypointView>> {
    let k = keypoints::update(&state.db, &ws, p.id, p.keypoint_id, &b.raw()).await?;
    Ok(axum::Json(k.into()))
}

pub async fn delete_keypoint(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<KeypointPath>,
) -> Result<StatusCode> {
    keypoints::delete(&state.db, &ws, p.id, p.keypoint_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Suggested {
    /// Keypoints added by this call (0 when every suggestion is there already).
    pub added: u64,
    pub review: ReviewDetail,
}

/// Keypoints from the analysed clips' ride windows and maneuvers; no model call.
pub async fn suggest(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<Suggested>> {
    let added = keypoints::suggest(&state.db, &ws, id).await?;
    let f = lifecycle::get(&state.db, &ws, id).await?;
    Ok(axum::Json(Suggested {
        added,
        review: detail(&state, f).await?,
    }))
}

pub async fn build(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    Ok(accepted(lifecycle::build(&state.db, &ws, id).await?))
}

pub async fn publish(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<ReviewView>> {
    Ok(axum::Json(
        lifecycle::publish(&state.db, &ws, id).await?.into(),
    ))
}
