//! Footage: clips and footage sessions (`/api/clips/*`, `/api/sessions/*`). Handlers extract,
//! call one `shared::domain::footage` operation and map the result; the work runs in jobs
//! (`shared::domain::footage::jobs`), which clients follow through the clip's status or the job's poll URL.

use super::jobs::{JobAccepted, accepted};
use crate::auth::{Acting, Caller};
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::zerocopy::Door;
use crate::http::{Result, ranged};
use crate::state::AppState;
use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use shared::domain::footage::{
    self as domain, ClipStatus, SessionStatus, Verdict, clips, labels, sessions,
};
use shared::repo::footage::{Clip, Label, Session, SessionSummary};
use shared::video::token;
use utoipa::ToSchema;

/// A clip as clients see it: status, progress, why it failed, probe and stats.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClipView {
    pub id: Id,
    pub session_id: Id,
    pub athlete_id: Option<Id>,
    pub file_name: String,
    pub status: ClipStatus,
    /// 0–100 while the analysis runs; 100 once processed.
    pub progress: i64,
    /// Why the clip failed or was cancelled: a stable code and a message.
    pub status_code: Option<String>,
    pub status_message: Option<String>,
    /// The job working on the clip now (GET `/api/jobs/{id}`).
    pub job_id: Option<Id>,
    pub size_bytes: Option<i64>,
    /// Rotation, duration, codec, resolution and frame rate, once probed.
    #[schema(value_type = Object)]
    pub probe: Option<Value>,
    /// Ride windows, maneuvers, wave count and speeds, once processed.
    #[schema(value_type = Object)]
    pub stats: Option<Value>,
    pub has_video: bool,
    pub has_overlay: bool,
    pub created_at: Ts,
    pub updated_at: Ts,
    pub status_changed_at: Ts,
}

impl From<Clip> for ClipView {
    fn from(k: Clip) -> Self {
        ClipView {
            id: k.id,
            session_id: k.session_id,
            athlete_id: k.athlete_id,
            file_name: k.file_name,
            status: k.status,
            progress: k.progress,
            status_code: k.status_code,
            status_message: k.status_message,
            job_id: k.job_id,
            size_bytes: k.size_bytes,
            probe: k.probe.map(|p| p.0),
            stats: k.stats.map(|s| s.0),
            has_video: k.video_key.is_some(),
            has_overlay: k.overlay_key.is_some(),
            created_at: k.created_at,
            updated_at: k.updated_at,
            status_changed_at: k.status_changed_at,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClipRef {
    pub clip_id: Id,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: Id,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClipListQuery {
    pub session_id: Option<Id>,
    pub status: Option<ClipStatus>,
    pub athlete_id: Option<Id>,
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<ClipListQuery>,
) -> Result<axum::Json<Paged<ClipView>>> {
    let f = clips::Filter {
        session: q.session_id,
        status: q.status,
        athlete: q.athlete_id,
        newest_first: false,
    };
    let rows = clips::list(&state.db, &ws, f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(ClipView::from).collect()),
    ))
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<ClipView>> {
    Ok(axum::Json(clips::get(&state.db, &ws, id).await?.into()))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusQuery {
    /// One clip id, or up to 100 separated by commas.
    pub ids: String,
}

#[derive(Serialize, ToSchema)]
pub struct ClipStatuses {
    pub items: Vec<ClipView>,
}

/// The stored status of one or up to 100 clips; never calls the backend.
pub async fn status(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<StatusQuery>,
) -> Result<axum::Json<ClipStatuses>> {
    let mut ids = Vec::new();
    for part in q.ids.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        ids.push(part.parse::<Id>().map_err(|_| {
            shared::Error::field(
                "ids",
                "invalid_format",
                "must be clip ids separated by commas",
            )
        })?);
    }
    let rows = clips::statuses(&state.db, &ws, &ids).await?;
    Ok(axum::Json(ClipStatuses {
        items: rows.into_iter().map(ClipView::from).collect(),
    }))
}

/// Submits the clip to the analysis backend (a job); a clip in flight returns its live job.
pub async fn analyze(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<ClipRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let (_, q) = clips::analyze(&state.db, &ws, r.clip_id).await?;
    Ok(accepted(q))
}

pub async fn cancel(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<ClipRef>,
) -> Result<axum::Json<ClipView>> {
    Ok(axum::Json(
        clips::cancel(&state.db, &ws, r.clip_id).await?.into(),
    ))
}

pub async fn probe(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<ClipRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    Ok(accepted(clips::probe(&state.db, &ws, r.clip_id).await?))
}

pub async fn store(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<ClipRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    Ok(accepted(clips::store(&state.db, &ws, r.clip_id).await?))
}

pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    clips::delete(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- sessions ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = FootageSessionListItem)]
pub struct SessionView {
    pub id: Id,
    pub training_session_id: Option<Id>,
    pub athlete_id: Option<Id>,
    pub title: String,
    pub status: SessionStatus,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<Session> for SessionView {
    fn from(s: Session) -> Self {
        SessionView {
            id: s.id,
            training_session_id: s.training_session_id,
            athlete_id: s.athlete_id,
            title: s.title,
            status: s.status,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionListItem {
    #[serde(flatten)]
    pub session: SessionView,
    pub clip_count: i64,
    pub stored_count: i64,
}

impl From<SessionSummary> for SessionListItem {
    fn from(s: SessionSummary) -> Self {
        SessionListItem {
            session: s.session.into(),
            clip_count: s.clip_count,
            stored_count: s.stored_count,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = FootageSessionDetail)]
pub struct SessionDetail {
    #[serde(flatten)]
    pub session: SessionView,
    pub clips: Vec<ClipView>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionListQuery {
    pub athlete_id: Option<Id>,
}

pub async fn list_sessions(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<SessionListQuery>,
) -> Result<axum::Json<Paged<SessionListItem>>> {
    let rows = sessions::list(
        &state.db,
        &ws,
        q.athlete_id,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(page.wrap(
        rows.into_iter().map(SessionListItem::from).collect(),
    )))
}

pub async fn get_session(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<SessionDetail>> {
    let (s, clips) = sessions::get(&state.db, &ws, id).await?;
    Ok(axum::Json(SessionDetail {
        session: s.into(),
        clips: clips.into_iter().map(ClipView::from).collect(),
    }))
}

pub async fn store_session(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<SessionRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    Ok(accepted(
        sessions::store(&state.db, &ws, r.session_id).await?,
    ))
}

pub async fn delete_session(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    sessions::delete(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- video links ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignQuery {
    pub clip_id: Id,
    /// `web`, `low`, `processed` or `original`; without it the web rendition once ready, else
    /// the processed video once stored, else the original.
    pub variant: Option<clips::VideoVariant>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignedVideo {
    /// `/api/video/stream?token=…` on this service; plays with Range requests, no cookie.
    pub url: String,
    pub variant: clips::VideoVariant,
    pub expires_at: Ts,
}

/// An HMAC-signed stream URL for a clip the caller may see, valid one hour.
pub async fn sign(
    State(state): State<AppState>,
    caller: Caller,
    Acting(ws): Acting,
    Query(q): Query<SignQuery>,
) -> Result<axum::Json<SignedVideo>> {
    Ok(axum::Json(
        stream_url(&state, caller.user.id, &ws, q.clip_id, q.variant).await?,
    ))
}

/// The signed stream URL of a clip `user` may see in `ws` (the JSON route above and the web
/// application's players alike): the variant asked for, else the default one.
pub async fn stream_url(
    state: &AppState,
    user: Id,
    ws: &shared::domain::InWorkspace,
    clip_id: Id,
    variant: Option<clips::VideoVariant>,
) -> shared::Result<SignedVideo> {
    let found = clips::video_source(&state.db, ws, clip_id, variant).await?;
    Ok(sign_stream(state, user, clip_id, found))
}

/// A stream URL for `source`, the video of `clip_id`, bound to `user` (the caller checked that
/// they may see it: `stream_url` above, or an athlete's published review).
pub fn sign_stream(
    state: &AppState,
    user: Id,
    clip_id: Id,
    (variant, source): (clips::VideoVariant, token::VideoSource),
) -> SignedVideo {
    let (url, expires_at) = signed(state, user, clip_id, source);
    SignedVideo {
        url,
        variant,
        expires_at,
    }
}

/// A `/api/video/stream` URL for `source`, one of `clip_id`'s, bound to `user`; and when it
/// expires. Only for a clip the caller was checked to see.
pub fn signed(state: &AppState, user: Id, clip_id: Id, source: token::VideoSource) -> (String, Ts) {
    let now = Ts::now();
    let grant = token::StreamGrant::new(clip_id, user, source, now.0.timestamp());
    // The token is URL-safe as it stands (base64url and a dot).
    let url = state.cfg.public_url(&format!(
        "/api/video/stream?token={}",
        token::sign(&state.keys, &grant)
    ));
    (
        url,
        now.plus(chrono::Duration::seconds(token::LIFETIME_SECS)),
    )
}

/// The answer of `GET /api/clips/sidecar`: the overlay document the analysis backend made for
/// the clip, stored as it came (a JSON object whose fields are the backend's,
/// docs/providers/analysis-backend.md), or a byte range of it (206) when one is asked for.
pub struct SidecarDocument;

impl utoipa::PartialSchema for SidecarDocument {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "the analysis backend's overlay document for the clip, as stored",
            ))
            .into()
    }
}
impl utoipa::ToSchema for SidecarDocument {}

/// The stored overlay sidecar of a clip the caller may see (Range supported).
pub async fn sidecar(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(r): Query<ClipRef>,
    method: Method,
    headers: HeaderMap,
    door: Option<Extension<Door>>,
) -> Result<Response> {
    let (store, key) = clips::overlay(&state.db, &ws, r.clip_id).await?;
    let door = door.as_ref().map(|d| &d.0);
    Ok(ranged::serve_stored(&state.storage, store, &key, &headers, &method, door).await)
}

// ---- maneuver labels ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ManeuverLabelView)]
pub struct LabelView {
    pub id: Id,
    pub clip_id: Id,
    /// The predicted maneuver this judges (index into `predictions`); null for an added one.
    pub prediction_index: Option<i64>,
    pub predicted_type: Option<String>,
    pub predicted_confidence: Option<f64>,
    pub verdict: Verdict,
    pub corrected_type: Option<String>,
    pub start_ms: i64,
    pub end_ms: i64,
    pub note: Option<String>,
    pub labelled_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<Label> for LabelView {
    fn from(l: Label) -> Self {
        LabelView {
            id: l.id,
            clip_id: l.clip_id,
            prediction_index: l.prediction_index,
            predicted_type: l.predicted_type,
            predicted_confidence: l.predicted_confidence,
            verdict: l.verdict,
            corrected_type: l.corrected_type,
            start_ms: l.start_ms,
            end_ms: l.end_ms,
            note: l.note,
            labelled_by: l.labelled_by,
            created_at: l.created_at,
            updated_at: l.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Maneuvers {
    /// What the analysis backend predicted, as it gave it.
    pub predictions: Vec<labels::Prediction>,
    /// The coaches' verdicts and added maneuvers.
    pub labels: Vec<LabelView>,
}

pub async fn maneuvers(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<Maneuvers>> {
    let (predictions, rows) = labels::list(&state.db, &ws, id).await?;
    Ok(axum::Json(Maneuvers {
        predictions,
        labels: rows.into_iter().map(LabelView::from).collect(),
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = NewManeuverLabel)]
pub struct NewLabel {
    /// The predicted maneuver judged; omit for a maneuver the model missed (`added`).
    pub prediction_index: Option<i64>,
    /// `confirmed`, `corrected`, `rejected` or `added`.
    pub verdict: String,
    pub corrected_type: Option<String>,
    /// Defaults to a second either side of the prediction.
    pub start_ms: Option<i64>,
    pub end_ms: Option<i64>,
    pub note: Option<String>,
}

pub async fn add_maneuver(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<NewLabel>,
) -> Result<(StatusCode, axum::Json<LabelView>)> {
    let raw = labels::RawLabel {
        prediction_index: b.prediction_index,
        verdict: &b.verdict,
        corrected_type: b.corrected_type.as_deref(),
        start_ms: b.start_ms,
        end_ms: b.end_ms,
        note: b.note.as_deref(),
    };
    let l = labels::create(&state.db, &ws, id, &raw).await?;
    Ok((StatusCode::CREATED, axum::Json(l.into())))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelPatch {
    /// The label to change.
    pub label_id: Id,
    pub verdict: Option<String>,
    /// null clears it.
    pub corrected_type: Option<Option<String>>,
    pub start_ms: Option<i64>,
    pub end_ms: Option<i64>,
    /// null clears it.
    pub note: Option<Option<String>>,
}

pub async fn correct_maneuver(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<LabelPatch>,
) -> Result<axum::Json<LabelView>> {
    let raw = labels::RawPatch {
        verdict: b.verdict.as_deref(),
        corrected_type: b.corrected_type.as_ref().map(Option::as_deref),
        start_ms: b.start_ms,
        end_ms: b.end_ms,
        note: b.note.as_ref().map(Option::as_deref),
    };
    let l = labels::update(&state.db, &ws, id, b.label_id, &raw).await?;
    Ok(axum::Json(l.into()))
}

#[derive(Deserialize)]
pub struct ExportQuery {
    /// `jsonl` (default) or `csv`.
    pub format: Option<labels::ExportFormat>,
}

/// The workspace's maneuver labels as a training set (JSONL or CSV download).
pub async fn export_labels(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<ExportQuery>,
) -> Result<Response> {
    let format = q.format.unwrap_or(labels::ExportFormat::Jsonl);
    let body = labels::export(&state.db, &ws, format).await?;
    let (ct, name) = match format {
        labels::ExportFormat::Jsonl => ("application/x-ndjson", "maneuver-labels.jsonl"),
        labels::ExportFormat::Csv => ("text/csv; charset=utf-8", "maneuver-labels.csv"),
    };
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, ct.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response())
}

// ---- the analysis backend's completion webhook ----

/// `POST /api/webhooks/analysis`: a completed analysis, signed per Standard Webhooks with
/// `ANALYSIS_WEBHOOK_SECRET`. Verified, then applied like a poll's answer (compare-and-set, so
/// duplicates and races with the poll apply once); 204 whenever the signature holds, so the
/// backend stops retrying.
pub async fn analysis_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: bytes::Bytes,
) -> Result<StatusCode> {
    let signed = shared::providers::webhooks::WebhookHeaders::from_map(&headers);
    // An unsigned request is refused before anything else (also where no backend is set up).
    if signed.id.is_none() || signed.timestamp.is_none() || signed.signature.is_none() {
        return Err(shared::Error::unauthorized(
            "webhook_header_missing",
            "a webhook needs its webhook-id, webhook-timestamp and webhook-signature headers",
        )
        .into());
    }
    let backend = shared::providers::analysis::Analysis::from_config(
        state.cfg.analysis.as_ref(),
        shared::providers::http::shared_client().clone(),
    )?;
    let now = Ts::now().0.timestamp();
    let hook = backend.verify_webhook(signed, &body, now).map_err(|e| {
        let kind = if e.is_configuration() {
            shared::ErrorKind::Unavailable
        } else {
            shared::ErrorKind::Unauthenticated
        };
        shared::Error::new(kind, e.code(), e.to_string())
    })?;
    let applied = domain::analysis::completed(&state.db, &hook.job).await?;
    tracing::info!(webhook_id = %hook.id, analysis_id = %hook.job.id, ?applied, "analysis webhook");
    Ok(StatusCode::NO_CONTENT)
}
