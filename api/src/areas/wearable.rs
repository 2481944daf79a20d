//! Wearable (watch) data (`/api/wearable/*`): sessions and their samples, live sessions, the
//! bulk-file upload URL, GPX and FIT import, GPX export, ground-truth labels and the detector's
//! accuracy, clip alignment and highlights, the wearer's day, the coach's roster and who is
//! live. Handlers extract, call one `shared::domain::wearable` operation and map the result.
//!
//! The routes that take a wearer's data (`sessions`, `sessions/live`, `upload-url`, `import`,
//! `my-schedule`) are `Auth::User`: the athlete wearing the watch is usually not a member, and
//! `domain::wearable::access` decides (the athlete's own login, or a member with
//! `wearable.manage` in the athlete's workspace).

use super::jobs::{JobAccepted, accepted};
use crate::auth::{Acting, Caller};
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::upload::{self, Media};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use shared::db::Id;
use shared::domain::InWorkspace;
use shared::domain::wearable::labels::{self, AccuracyReport, LabelView, NewLabel};
use shared::domain::wearable::people::{self, LiveWearer, RosterAthlete, Schedule};
use shared::domain::wearable::samples::Stream;
use shared::domain::wearable::sessions::{
    self, ImportMeta, LiveReport, SamplePage, SessionDetail, SessionUpload, SessionView,
    UploadRequest, UploadUrl, Uploaded,
};
use shared::domain::wearable::sync::{self, Highlight, SyncPatch, SyncRequest, SyncView};
use shared::domain::wearable::{MAX_FILE_BYTES, access, derive, fit, gpx};
use shared::storage::Store;
use utoipa::ToSchema;

/// A session answer: the session and the job working on it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionAccepted {
    pub session: SessionView,
    /// The job reading or deriving it (poll `/api/jobs/{id}`).
    pub job_id: Option<Id>,
    pub poll_url: Option<String>,
}

fn answer(u: Uploaded, status: StatusCode) -> (StatusCode, axum::Json<SessionAccepted>) {
    (
        status,
        axum::Json(SessionAccepted {
            poll_url: u.job_id.map(|j| format!("/api/jobs/{j}")),
            job_id: u.job_id,
            session: u.session,
        }),
    )
}

pub async fn upload(
    State(state): State<AppState>,
    caller: Caller,
    Body(b): Body<SessionUpload>,
) -> Result<(StatusCode, axum::Json<SessionAccepted>)> {
    let mut c = state.db.acquire().await?;
    let w = access::wearer(&mut c, caller.actor(), b.athlete_id).await?;
    drop(c);
    let file = b.upload_id.is_some();
    let u = sessions::upload(&state.db, &state.storage, &w, b).await?;
    let status = match (u.created, file) {
        (false, _) => StatusCode::OK,
        (true, true) => StatusCode::ACCEPTED,
        (true, false) => StatusCode::CREATED,
    };
    Ok(answer(u, status))
}

pub async fn live(
    State(state): State<AppState>,
    caller: Caller,
    Body(b): Body<LiveReport>,
) -> Result<(StatusCode, axum::Json<SessionAccepted>)> {
    let mut c = state.db.acquire().await?;
    let w = access::wearer(&mut c, caller.actor(), b.athlete_id).await?;
    drop(c);
    let u = sessions::live(&state.db, &w, b).await?;
    let status = if u.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(answer(u, status))
}

pub async fn upload_url(
    State(state): State<AppState>,
    caller: Caller,
    Body(b): Body<UploadRequest>,
) -> Result<(StatusCode, axum::Json<UploadUrl>)> {
    let mut c = state.db.acquire().await?;
    let w = access::wearer(&mut c, caller.actor(), b.athlete_id).await?;
    drop(c);
    let base = state.cfg.public_base_url.as_str();
    let u = sessions::upload_url(&state.db, &state.storage, &state.keys, base, &w, b).await?;
    Ok((StatusCode::CREATED, axum::Json(u)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportQuery {
    athlete_id: Option<Id>,
    client_session_id: Option<String>,
    training_session_id: Option<Id>,
    device: Option<String>,
}

/// A FIT file (".FIT" at byte 8), else the start of an XML document (after an optional
/// byte-order mark and whitespace), taken for GPX.
fn sniff_watch_file(b: &[u8]) -> Option<&'static str> {
    if fit::is_fit(b) {
        return Some(fit::CONTENT_TYPE);
    }
    let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
    let start = b.iter().position(|c| !c.is_ascii_whitespace())?;
    b[start..]
        .starts_with(b"<")
        .then_some("application/gpx+xml")
}

const WATCH_FILE: Media = Media {
    sniff: sniff_watch_file,
    max_bytes: MAX_FILE_BYTES,
    refused_code: "upload_not_gpx",
    refused_message: "the body is neither a FIT file nor a GPX (XML) document",
};

pub async fn import(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<ImportQuery>,
    req: Request,
) -> Result<(StatusCode, axum::Json<SessionAccepted>)> {
    let mut c = state.db.acquire().await?;
    let w = access::wearer(&mut c, caller.actor(), q.athlete_id).await?;
    let meta = ImportMeta {
        client_session_id: q.client_session_id,
        training_session_id: q.training_session_id,
        device: q.device,
    };
    drop(c);
    let (parts, body) = req.into_parts();
    let u = import_file(&state, &w, meta, &parts.headers, body).await?;
    let status = if u.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(answer(u, status))
}

/// Reads a watch file sent as `body` into a new session of `w` (this route's and the web
/// application's imports alike): staged at the session's upload key, checked by its bytes and
/// size as it streams, then read in one transaction.
pub async fn import_file(
    state: &AppState,
    w: &access::Wearer,
    mut meta: ImportMeta,
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
) -> shared::Result<sessions::Uploaded> {
    {
        let mut c = state.db.acquire().await?;
        meta.check(&mut c, w.org_id).await?;
    }
    let session = Id::new();
    let key = shared::domain::wearable::upload_key(w.org_id, session);
    upload::store(
        &state.storage,
        Store::RawUploads,
        &key,
        headers,
        body,
        &WATCH_FILE,
    )
    .await?;
    derive::import_file(&state.db, &state.storage, w, session, meta).await
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduleQuery {
    date: Option<NaiveDate>,
    tz_offset_minutes: Option<i64>,
}

pub async fn my_schedule(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<ScheduleQuery>,
) -> Result<axum::Json<Schedule>> {
    let s = people::my_schedule(
        &state.db,
        caller.actor(),
        q.date,
        q.tz_offset_minutes.unwrap_or(0),
    )
    .await?;
    Ok(axum::Json(s))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionsQuery {
    athlete_id: Option<Id>,
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<SessionsQuery>,
) -> Result<axum::Json<Paged<SessionView>>> {
    let rows = sessions::list(
        &state.db,
        &ws,
        q.athlete_id,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(page.wrap(rows)))
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<axum::Json<SessionDetail>> {
    Ok(axum::Json(sessions::get(&state.db, &ws, id).await?))
}

pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    sessions::delete(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn rederive(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let job = sessions::rederive(&state.db, &ws, id).await?;
    Ok(accepted(shared::job::Enqueued {
        id: job,
        existing: false,
    }))
}

pub async fn export_gpx(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<Response> {
    Ok(gpx_file(&state, &ws, id).await?)
}

/// The session as a GPX download, rides marked (this route's and the web application's).
pub async fn gpx_file(state: &AppState, ws: &InWorkspace, id: Id) -> shared::Result<Response> {
    let d = sessions::get(&state.db, ws, id).await?;
    let mut c = state.db.acquire().await?;
    let samples = sessions::load_streams(&mut c, id, &[Stream::Gps, Stream::Hr]).await?;
    let rides: Vec<gpx::MarkedRide> = d
        .rides
        .iter()
        .map(|r| gpx::MarkedRide {
            start_ms: r.start.unix_millis(),
            end_ms: r.end.unix_millis(),
            top_speed_kmh: r.top_speed_kmh,
            mean_speed_kmh: r.mean_speed_kmh,
            distance_m: r.distance_m,
            heading_deg: r.heading_deg,
            shore_angle_deg: r.shore_angle_deg,
        })
        .collect();
    let name = format!(
        "{} {}",
        d.session.athlete_name.as_deref().unwrap_or("Surf session"),
        d.session.started_at.to_rfc3339()
    );
    let doc = gpx::export(&name, &samples.gps, &samples.hr, &rides);
    Ok((
        [
            (header::CONTENT_TYPE, "application/gpx+xml".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"session-{id}.gpx\""),
            ),
        ],
        doc,
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SamplesQuery {
    stream: Option<String>,
    from: Option<i64>,
    to: Option<i64>,
    limit: Option<i64>,
    offset: Option<i64>,
}

pub async fn samples(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Query(q): Query<SamplesQuery>,
) -> Result<axum::Json<SamplePage>> {
    let mut v = shared::error::Validator::new();
    let stream = v.choice_of::<Stream>("stream", q.stream.as_deref().unwrap_or("gps"));
    let limit = q.limit.unwrap_or(1000);
    let offset = q.offset.unwrap_or(0);
    v.check(
        (1..=sessions::MAX_SAMPLE_PAGE).contains(&limit),
        "limit",
        "out_of_range",
        "must be between 1 and 10000",
    );
    v.check(
        offset >= 0,
        "offset",
        "out_of_range",
        "must not be negative",
    );
    v.finish()?;
    let page = sessions::samples(
        &state.db,
        &ws,
        id,
        stream.expect("checked"),
        q.from,
        q.to,
        limit,
        offset,
    )
    .await?;
    Ok(axum::Json(page))
}

pub async fn who_is_surfing(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<axum::Json<Paged<LiveWearer>>> {
    let rows = people::who_is_surfing(&state.db, &ws, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page.wrap(rows)))
}

pub async fn roster(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<axum::Json<Paged<RosterAthlete>>> {
    let rows = people::roster(&state.db, &ws, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page.wrap(rows)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    session_id: Option<Id>,
}

pub async fn list_labels(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<SessionRef>,
) -> Result<axum::Json<Paged<LabelView>>> {
    let session = q
        .session_id
        .ok_or_else(|| shared::Error::field("sessionId", "required", "name the session"))?;
    let rows = labels::list(&state.db, &ws, session, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page.wrap(rows)))
}

pub async fn add_label(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<NewLabel>,
) -> Result<(StatusCode, axum::Json<LabelView>)> {
    let l = labels::create(&state.db, &ws, b).await?;
    Ok((StatusCode::CREATED, axum::Json(l)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelRef {
    id: Option<Id>,
}

pub async fn delete_label(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<LabelRef>,
) -> Result<StatusCode> {
    let id =
        q.id.ok_or_else(|| shared::Error::field("id", "required", "name the label"))?;
    labels::delete(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn accuracy(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<SessionRef>,
) -> Result<axum::Json<AccuracyReport>> {
    let r = labels::accuracy(&state.db, &ws, q.session_id, page.limit, page.offset).await?;
    Ok(axum::Json(r))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncQuery {
    clip_id: Option<Id>,
    session_id: Option<Id>,
}

pub async fn list_syncs(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<SyncQuery>,
) -> Result<axum::Json<Paged<SyncView>>> {
    let rows = sync::list(
        &state.db,
        &ws,
        q.clip_id,
        q.session_id,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(page.wrap(rows)))
}

pub async fn align(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<SyncRequest>,
) -> Result<axum::Json<SyncView>> {
    Ok(axum::Json(sync::align(&state.db, &ws, b).await?))
}

pub async fn set_offset(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(b): Body<SyncPatch>,
) -> Result<axum::Json<SyncView>> {
    Ok(axum::Json(sync::set_manual(&state.db, &ws, b).await?))
}

pub async fn highlights(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Query(q): Query<SessionRef>,
) -> Result<axum::Json<Paged<Highlight>>> {
    let session = q
        .session_id
        .ok_or_else(|| shared::Error::field("sessionId", "required", "name the session"))?;
    let rows = sync::highlights(&state.db, &ws, session, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page.wrap(rows)))
}
