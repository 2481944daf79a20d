//! Training sessions and their rosters (issue 5): the handlers. The rules (capacity, the
//! waitlist, attendance, the row locks that keep concurrent adds from overbooking) are the
//! operations of `shared::domain::training`; the CSV import is `shared::import::training`.

use crate::areas::imports::{self, CsvFile, ImportQuery};
use crate::auth::{Acting, Caller, Ws};
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use shared::domain::training::{
    self as domain, NewSession, ParticipantStatus, RawSession, RawSessionPatch, Roster,
    SessionPatch, SessionSource, StatusChange,
};
use shared::import::training::TrainingImporter;
use shared::repo::training::{self, Session};
use utoipa::ToSchema;

pub use shared::domain::training::MAX_CAPACITY;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = TrainingSessionView)]
pub struct SessionView {
    pub id: Id,
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub coach_user_id: Option<Id>,
    /// Null: no limit.
    pub capacity: Option<i64>,
    pub notes: Option<String>,
    pub source: SessionSource,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<&Session> for SessionView {
    fn from(s: &Session) -> Self {
        SessionView {
            id: s.id,
            title: s.title.clone(),
            starts_at: s.starts_at,
            ends_at: s.ends_at,
            location: s.location.clone(),
            spot: s.spot.clone(),
            coach_user_id: s.coach_user_id,
            capacity: s.capacity,
            notes: s.notes.clone(),
            source: s.source,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantView {
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub status: ParticipantStatus,
    /// Order of joining; the waitlist is served in this order.
    pub position: i64,
    pub added_at: Ts,
    pub updated_at: Ts,
}

impl From<training::Participant> for ParticipantView {
    fn from(p: training::Participant) -> Self {
        ParticipantView {
            athlete_id: p.athlete_id,
            first_name: p.first_name,
            last_name: p.last_name,
            status: p.status,
            position: p.position,
            added_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RosterView {
    pub session_id: Id,
    pub capacity: Option<i64>,
    /// Registered, attended and no-show participants.
    pub places_taken: i64,
    pub waitlisted: i64,
    pub participants: Vec<ParticipantView>,
    /// Athletes this request moved from the waitlist to registered.
    pub promoted: Vec<Id>,
}

impl From<Roster> for RosterView {
    fn from(r: Roster) -> Self {
        RosterView {
            session_id: r.session_id,
            capacity: r.capacity,
            places_taken: r.places_taken,
            waitlisted: r.waitlisted,
            participants: r.participants.into_iter().map(Into::into).collect(),
            promoted: r.promoted,
        }
    }
}

// ---- list, create, read, update, delete ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListQuery {
    /// Sessions ending after this time.
    from: Option<Ts>,
    /// Sessions starting before this time.
    to: Option<Ts>,
    coach_id: Option<Id>,
    location: Option<String>,
    spot: Option<String>,
    /// Sessions with this athlete on the roster.
    athlete_id: Option<Id>,
    #[allow(dead_code)]
    limit: Option<i64>,
    #[allow(dead_code)]
    offset: Option<i64>,
}

pub async fn list(
    State(state): State<AppState>,
    ws: Ws,
    page: Page,
    Query(q): Query<ListQuery>,
) -> Result<axum::Json<Paged<SessionView>>> {
    let f = training::Filter {
        from: q.from,
        to: q.to,
        coach: q.coach_id,
        location: q.location.filter(|s| !s.is_empty()),
        spot: q.spot.filter(|s| !s.is_empty()),
        athlete: q.athlete_id,
    };
    let rows = domain::list(&state.db, ws.org_id, &f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.iter().map(SessionView::from).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSession {
    /// Trimmed; not blank.
    #[schema(pattern = r"\S", max_length = 200)]
    pub title: String,
    pub starts_at: Ts,
    /// After `startsAt`.
    pub ends_at: Ts,
    #[schema(max_length = 200)]
    pub location: Option<String>,
    #[schema(max_length = 200)]
    pub spot: Option<String>,
    /// A member of this workspace.
    pub coach_user_id: Option<Id>,
    /// Absent: no limit.
    #[schema(minimum = 1, maximum = 1000)]
    pub capacity: Option<i64>,
    #[schema(max_length = 5000)]
    pub notes: Option<String>,
}

pub async fn create(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<CreateSession>,
) -> Result<(StatusCode, axum::Json<SessionView>)> {
    let new = NewSession::parse(&RawSession {
        title: &req.title,
        starts_at: req.starts_at,
        ends_at: req.ends_at,
        location: req.location.as_deref(),
        spot: req.spot.as_deref(),
        coach_user_id: req.coach_user_id,
        capacity: req.capacity,
        notes: req.notes.as_deref(),
    })?;
    let s = domain::create(&state.db, &ws, new).await?;
    Ok((StatusCode::CREATED, axum::Json(SessionView::from(&s))))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = TrainingSessionDetail)]
pub struct SessionDetail {
    pub session: SessionView,
    pub roster: RosterView,
    /// The surf spot the session's spot name (else its location) resolved to at the spot
    /// provider (`backfill-spots`), when it did.
    pub spot_details: Option<shared::providers::spotsource::Spot>,
}

impl From<(Session, Roster)> for SessionDetail {
    fn from((s, r): (Session, Roster)) -> Self {
        SessionDetail {
            session: SessionView::from(&s),
            roster: r.into(),
            spot_details: None,
        }
    }
}

pub async fn get(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<SessionDetail>> {
    let (session, roster) = domain::get(&state.db, ws.org_id, id).await?;
    let spot = shared::domain::spots::details_for(
        &state.db,
        session.spot.as_deref().or(session.location.as_deref()),
    )
    .await?;
    let mut detail = SessionDetail::from((session, roster));
    detail.spot_details = spot;
    Ok(axum::Json(detail))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateSession {
    #[schema(pattern = r"\S", max_length = 200)]
    pub title: Option<String>,
    pub starts_at: Option<Ts>,
    pub ends_at: Option<Ts>,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub coach_user_id: Option<Id>,
    /// A number sets it; null removes the limit. Raising it promotes waitlisted athletes;
    /// lowering it below the places taken keeps everyone registered.
    #[schema(value_type = Option<i64>)]
    #[serde(default, deserialize_with = "present")]
    pub capacity: Option<Value>,
    pub notes: Option<String>,
}

/// Tells an explicit `null` (Some(Null)) from an absent field (None).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

pub async fn update(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<UpdateSession>,
) -> Result<axum::Json<SessionDetail>> {
    let patch = SessionPatch::parse(&RawSessionPatch {
        title: req.title.as_deref(),
        starts_at: req.starts_at,
        ends_at: req.ends_at,
        location: req.location.as_deref(),
        spot: req.spot.as_deref(),
        coach_user_id: req.coach_user_id,
        capacity: req.capacity.as_ref(),
        notes: req.notes.as_deref(),
    })?;
    let detail = domain::update(&state.db, &ws, id, patch).await?;
    Ok(axum::Json(detail.into()))
}

pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    domain::delete(&state.db, &ws, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- roster ----

pub async fn participants(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<RosterView>> {
    let roster = domain::participants(&state.db, ws.org_id, id).await?;
    Ok(axum::Json(roster.into()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddParticipant {
    pub athlete_id: Id,
}

/// Adds an athlete: registered while places are free, else waitlisted.
pub async fn add_participant(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(req): Body<AddParticipant>,
) -> Result<(StatusCode, axum::Json<RosterView>)> {
    let roster = domain::add_participant(&state.db, &ws, id, req.athlete_id).await?;
    Ok((StatusCode::CREATED, axum::Json(roster.into())))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetParticipant {
    /// registered: a waitlisted athlete, when a place is free.
    #[schema(schema_with = status_changes)]
    pub status: String,
}

fn status_changes() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    shared::db::text_enum_schema(StatusChange::NAMES)
}

pub async fn set_participant(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((id, athlete)): Path<(Id, Id)>,
    Body(req): Body<SetParticipant>,
) -> Result<axum::Json<RosterView>> {
    let status = StatusChange::parse(&req.status)?;
    let roster = domain::set_participant(&state.db, &ws, id, athlete, status).await?;
    Ok(axum::Json(roster.into()))
}

/// Removes an athlete; a freed place goes to the first waitlisted athlete.
pub async fn remove_participant(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((id, athlete)): Path<(Id, Id)>,
) -> Result<axum::Json<RosterView>> {
    let roster = domain::remove_participant(&state.db, &ws, id, athlete).await?;
    Ok(axum::Json(roster.into()))
}

// ---- import ----

/// CSV of past sessions with attendance (rules: `shared::import::training`).
pub async fn import(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Query(q): Query<ImportQuery>,
    file: CsvFile,
) -> Result<Response> {
    imports::import(&state, &caller, &ws, &TrainingImporter, q, file).await
}

// ---- footage ----

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProvisionVideo {
    pub training_session_id: Id,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FootageSessionView {
    pub id: Id,
    pub training_session_id: Option<Id>,
    pub title: String,
    pub status: shared::domain::footage::SessionStatus,
    pub created_at: Ts,
    /// False when the training session already had one (which is returned).
    pub created: bool,
}

/// Creates the footage session of a training session when filming starts; a second call
/// returns the same one (200 instead of 201).
pub async fn provision_video(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<ProvisionVideo>,
) -> Result<(StatusCode, axum::Json<FootageSessionView>)> {
    let (f, created) = domain::provision_video(&state.db, &ws, req.training_session_id).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        axum::Json(FootageSessionView {
            id: f.id,
            training_session_id: f.training_session_id,
            title: f.title,
            status: f.status,
            created_at: f.created_at,
            created,
        }),
    ))
}
