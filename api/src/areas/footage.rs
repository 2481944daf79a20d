//! Footage: clips and footage sessions (`/api/clips/*`, `/api/sessions/*`). Handlers extract,
//! call one `shared::domain::footage` operation and map the result; the work runs in jobs
//! (`jobs::footage`), which clients follow through the clip's status or the job's poll URL.

use super::jobs::{JobAccepted, accepted};
use crate::auth::{Caller, Ws};
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use jobs::footage::ENQUEUER;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use shared::domain::footage::{self as domain, ClipStatus, SessionStatus, clips, sessions};
use shared::repo::footage::{Clip, Session, SessionSummary};
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
}

pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    page: Page,
    Query(q): Query<ClipListQuery>,
) -> Result<axum::Json<Paged<ClipView>>> {
    let ws = ws.acting(&caller);
    let f = clips::Filter {
        session: q.session_id,
        status: q.status,
    };
    let rows = clips::list(&state.db, &ws, f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(ClipView::from).collect()),
    ))
}

pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<ClipView>> {
    let ws = ws.acting(&caller);
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
    caller: Caller,
    ws: Ws,
    Query(q): Query<StatusQuery>,
) -> Result<axum::Json<ClipStatuses>> {
    let ws = ws.acting(&caller);
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

fn job(q: domain::Queued) -> (StatusCode, axum::Json<JobAccepted>) {
    accepted(jobs::Enqueued {
        id: q.job_id,
        existing: q.existing,
    })
}

/// Submits the clip to the analysis backend (a job); a clip in flight returns its live job.
pub async fn analyze(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(r): Body<ClipRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let ws = ws.acting(&caller);
    let (_, q) = clips::analyze(&state.db, &ENQUEUER, &ws, r.clip_id).await?;
    Ok(job(q))
}

pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(r): Body<ClipRef>,
) -> Result<axum::Json<ClipView>> {
    let ws = ws.acting(&caller);
    Ok(axum::Json(
        clips::cancel(&state.db, &ENQUEUER, &ws, r.clip_id)
            .await?
            .into(),
    ))
}

pub async fn probe(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(r): Body<ClipRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let ws = ws.acting(&caller);
    Ok(job(
        clips::probe(&state.db, &ENQUEUER, &ws, r.clip_id).await?
    ))
}

pub async fn store(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(r): Body<ClipRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let ws = ws.acting(&caller);
    Ok(job(
        clips::store(&state.db, &ENQUEUER, &ws, r.clip_id).await?
    ))
}

pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    let ws = ws.acting(&caller);
    clips::delete(&state.db, &ENQUEUER, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- sessions ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
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
    caller: Caller,
    ws: Ws,
    page: Page,
    Query(q): Query<SessionListQuery>,
) -> Result<axum::Json<Paged<SessionListItem>>> {
    let ws = ws.acting(&caller);
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
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<SessionDetail>> {
    let ws = ws.acting(&caller);
    let (s, clips) = sessions::get(&state.db, &ws, id).await?;
    Ok(axum::Json(SessionDetail {
        session: s.into(),
        clips: clips.into_iter().map(ClipView::from).collect(),
    }))
}

pub async fn store_session(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(r): Body<SessionRef>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let ws = ws.acting(&caller);
    Ok(job(sessions::store(
        &state.db,
        &ENQUEUER,
        &ws,
        r.session_id,
    )
    .await?))
}

pub async fn delete_session(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    let ws = ws.acting(&caller);
    sessions::delete(&state.db, &ENQUEUER, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
