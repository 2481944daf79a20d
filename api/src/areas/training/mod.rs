//! Training sessions and their rosters (issue 5).
//!
//! A session has a time range, a location and spot, a coach and an optional capacity. The roster
//! holds athletes as registered, waitlisted, attended or no-show. Every roster change locks the
//! session row first, so concurrent adds at the capacity edge cannot overbook, and a freed place
//! goes to the first waitlisted athlete in the same transaction.

use crate::areas::athletes::import::{
    ImportQuery, SYNC_MAX_BYTES, read_csv_body, report_response, run_as_job, sha256_hex,
};
use crate::auth::{Caller, Ws};
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use shared::db::{Executor, Id, Ts};
use shared::error::Validator;
use shared::import::{self, Report};
use shared::repo::training::{self, Session};
use shared::repo::{athletes, audit, orgs};

use utoipa::ToSchema;

pub const MAX_CAPACITY: i64 = 1000;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
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
    /// manual or import
    pub source: String,
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
            source: s.source.clone(),
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
    /// registered, waitlisted, attended or no_show
    pub status: String,
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

async fn roster(
    x: &mut impl Executor,
    org: Id,
    s: &Session,
    promoted: Vec<Id>,
) -> Result<RosterView> {
    let ps = training::participants(x, org, s.id).await?;
    let waitlisted = ps.iter().filter(|p| p.status == "waitlisted").count() as i64;
    Ok(RosterView {
        session_id: s.id,
        capacity: s.capacity,
        places_taken: ps.len() as i64 - waitlisted,
        waitlisted,
        participants: ps.into_iter().map(ParticipantView::from).collect(),
        promoted,
    })
}

async fn load(x: &mut impl Executor, ws: &Ws, id: Id) -> Result<Session> {
    Ok(training::get(x, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("training session"))?)
}

/// Loads the session with its row locked (call first in a roster-changing transaction).
async fn load_locked(x: &mut impl Executor, ws: &Ws, id: Id) -> Result<Session> {
    if !training::lock(x, ws.org_id, id).await? {
        return Err(Error::not_found("training session").into());
    }
    load(x, ws, id).await
}

fn entry<'a>(
    ws: &Ws,
    caller: &Caller,
    action: &'a str,
    target: Id,
    data: Value,
) -> audit::Entry<'a> {
    caller.audit(
        Some(ws.org_id),
        action,
        "training_session",
        Some(target.to_string()),
        data,
    )
}

fn opt_text(v: &mut Validator, field: &str, s: Option<&str>, max: usize) -> Option<String> {
    let s = s.map(str::trim).filter(|s| !s.is_empty())?;
    if s.chars().count() > max {
        v.add(
            field,
            "too_long",
            format!("must be at most {max} characters"),
        );
    }
    Some(s.to_string())
}

fn check_times(v: &mut Validator, starts: Ts, ends: Ts) {
    v.check(
        ends > starts,
        "endsAt",
        "out_of_range",
        "must be after startsAt",
    );
    v.check(
        ends.0 - starts.0 <= chrono::Duration::days(7),
        "endsAt",
        "out_of_range",
        "a session lasts at most 7 days",
    );
}

async fn check_coach(x: &mut impl Executor, ws: &Ws, coach: Option<Id>) -> Result<()> {
    if let Some(c) = coach
        && orgs::membership(x, c, ws.org_id).await?.is_none()
    {
        return Err(Error::field(
            "coachUserId",
            "invalid",
            "must be a member of this workspace",
        )
        .into());
    }
    Ok(())
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
    if let (Some(f), Some(t)) = (q.from, q.to)
        && t <= f
    {
        return Err(Error::field("to", "out_of_range", "must be after from").into());
    }
    let mut c = state.db.acquire().await?;
    let f = training::Filter {
        from: q.from,
        to: q.to,
        coach: q.coach_id,
        location: q.location.filter(|s| !s.is_empty()),
        spot: q.spot.filter(|s| !s.is_empty()),
        athlete: q.athlete_id,
    };
    let rows = training::list(&mut c, ws.org_id, &f, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.iter().map(SessionView::from).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSession {
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    /// A member of this workspace.
    pub coach_user_id: Option<Id>,
    /// 1 to 1000; absent: no limit.
    pub capacity: Option<i64>,
    pub notes: Option<String>,
}

fn check_capacity(v: &mut Validator, cap: Option<i64>) {
    if let Some(c) = cap {
        v.check(
            (1..=MAX_CAPACITY).contains(&c),
            "capacity",
            "out_of_range",
            "must be between 1 and 1000",
        );
    }
}

pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<CreateSession>,
) -> Result<(StatusCode, axum::Json<SessionView>)> {
    let mut v = Validator::new();
    let title = v.text("title", &req.title, 200);
    check_times(&mut v, req.starts_at, req.ends_at);
    check_capacity(&mut v, req.capacity);
    let location = opt_text(&mut v, "location", req.location.as_deref(), 200);
    let spot = opt_text(&mut v, "spot", req.spot.as_deref(), 200);
    let notes = opt_text(&mut v, "notes", req.notes.as_deref(), 5000);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    check_coach(&mut tx, &ws, req.coach_user_id).await?;
    let now = Ts::now();
    let s = Session {
        id: Id::new(),
        org_id: ws.org_id,
        title,
        starts_at: req.starts_at,
        ends_at: req.ends_at,
        location,
        spot,
        coach_user_id: req.coach_user_id,
        capacity: req.capacity,
        notes,
        source: "manual".into(),
        created_by: Some(caller.user.id),
        created_at: now,
        updated_at: now,
    };
    training::insert(&mut tx, &s).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "training.created",
            s.id,
            json!({ "startsAt": s.starts_at }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(SessionView::from(&s))))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionDetail {
    pub session: SessionView,
    pub roster: RosterView,
}

pub async fn get(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<SessionDetail>> {
    let mut c = state.db.acquire().await?;
    let s = load(&mut c, &ws, id).await?;
    let roster = roster(&mut c, ws.org_id, &s, vec![]).await?;
    Ok(axum::Json(SessionDetail {
        session: SessionView::from(&s),
        roster,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateSession {
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
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<UpdateSession>,
) -> Result<axum::Json<SessionDetail>> {
    let mut v = Validator::new();
    let title = req.title.as_deref().map(|t| v.text("title", t, 200));
    let capacity = match &req.capacity {
        None => None,
        Some(Value::Null) => Some(None),
        Some(n) => match n.as_i64() {
            Some(c) => {
                check_capacity(&mut v, Some(c));
                Some(Some(c))
            }
            None => {
                v.add("capacity", "invalid", "must be a whole number or null");
                None
            }
        },
    };
    let location = req
        .location
        .as_deref()
        .map(|s| opt_text(&mut v, "location", Some(s), 200));
    let spot = req
        .spot
        .as_deref()
        .map(|s| opt_text(&mut v, "spot", Some(s), 200));
    let notes = req
        .notes
        .as_deref()
        .map(|s| opt_text(&mut v, "notes", Some(s), 5000));
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let mut s = load_locked(&mut tx, &ws, id).await?;
    if let Some(t) = title {
        s.title = t;
    }
    if let Some(t) = req.starts_at {
        s.starts_at = t;
    }
    if let Some(t) = req.ends_at {
        s.ends_at = t;
    }
    let mut v = Validator::new();
    check_times(&mut v, s.starts_at, s.ends_at);
    v.finish()?;
    if let Some(l) = location {
        s.location = l;
    }
    if let Some(l) = spot {
        s.spot = l;
    }
    if let Some(n) = notes {
        s.notes = n;
    }
    if req.coach_user_id.is_some() {
        check_coach(&mut tx, &ws, req.coach_user_id).await?;
        s.coach_user_id = req.coach_user_id;
    }
    if let Some(c) = capacity {
        s.capacity = c;
    }
    training::update(&mut tx, &s).await?;
    let promoted = training::promote_waitlist(&mut tx, s.id, s.capacity).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "training.updated",
            s.id,
            json!({ "promoted": promoted }),
        ),
    )
    .await?;
    let s = load(&mut tx, &ws, id).await?;
    let roster = roster(&mut tx, ws.org_id, &s, promoted).await?;
    tx.commit().await?;
    Ok(axum::Json(SessionDetail {
        session: SessionView::from(&s),
        roster,
    }))
}

pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    let s = load_locked(&mut tx, &ws, id).await?;
    training::delete(&mut tx, ws.org_id, s.id).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "training.deleted",
            s.id,
            json!({ "title": s.title }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- roster ----

pub async fn participants(
    State(state): State<AppState>,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<axum::Json<RosterView>> {
    let mut c = state.db.acquire().await?;
    let s = load(&mut c, &ws, id).await?;
    Ok(axum::Json(roster(&mut c, ws.org_id, &s, vec![]).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddParticipant {
    pub athlete_id: Id,
}

/// Adds an athlete: registered while places are free, else waitlisted.
pub async fn add_participant(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
    Body(req): Body<AddParticipant>,
) -> Result<(StatusCode, axum::Json<RosterView>)> {
    let mut tx = state.db.begin().await?;
    let s = load_locked(&mut tx, &ws, id).await?;
    let a = athletes::get(&mut tx, ws.org_id, req.athlete_id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    if a.status == shared::domain::athletes::AthleteStatus::Archived {
        return Err(
            Error::conflict("athlete_archived", "archived athletes cannot join sessions").into(),
        );
    }
    if training::participant(&mut tx, s.id, a.id).await?.is_some() {
        return Err(Error::conflict(
            "already_participant",
            "the athlete is already on this session's roster",
        )
        .into());
    }
    let full = match s.capacity {
        Some(cap) => training::places_taken(&mut tx, s.id).await? >= cap,
        None => false,
    };
    let status = if full { "waitlisted" } else { "registered" };
    training::add_participant(&mut tx, ws.org_id, s.id, a.id, status, Some(caller.user.id)).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "training.participant_added",
            s.id,
            json!({ "athleteId": a.id, "status": status }),
        ),
    )
    .await?;
    let roster = roster(&mut tx, ws.org_id, &s, vec![]).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(roster)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetParticipant {
    /// attended, no_show, or registered (a waitlisted athlete, when a place is free)
    pub status: String,
}

pub async fn set_participant(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path((id, athlete)): Path<(Id, Id)>,
    Body(req): Body<SetParticipant>,
) -> Result<axum::Json<RosterView>> {
    let status = req.status.trim().to_lowercase();
    if !["attended", "no_show", "registered"].contains(&status.as_str()) {
        return Err(Error::field(
            "status",
            "invalid_choice",
            "must be attended, no_show or registered",
        )
        .into());
    }
    let mut tx = state.db.begin().await?;
    let s = load_locked(&mut tx, &ws, id).await?;
    let p = training::participant(&mut tx, s.id, athlete)
        .await?
        .ok_or_else(|| Error::not_found("participant"))?;
    if status == "registered"
        && p.status == "waitlisted"
        && let Some(cap) = s.capacity
        && training::places_taken(&mut tx, s.id).await? >= cap
    {
        return Err(Error::conflict(
            "session_full",
            "no place is free; the athlete stays on the waitlist",
        )
        .into());
    }
    training::set_participant_status(&mut tx, s.id, athlete, &status).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "training.participant_updated",
            s.id,
            json!({ "athleteId": athlete, "from": p.status, "to": status }),
        ),
    )
    .await?;
    let roster = roster(&mut tx, ws.org_id, &s, vec![]).await?;
    tx.commit().await?;
    Ok(axum::Json(roster))
}

/// Removes an athlete; a freed place goes to the first waitlisted athlete in this transaction.
pub async fn remove_participant(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path((id, athlete)): Path<(Id, Id)>,
) -> Result<axum::Json<RosterView>> {
    let mut tx = state.db.begin().await?;
    let s = load_locked(&mut tx, &ws, id).await?;
    if training::remove_participant(&mut tx, s.id, athlete).await? == 0 {
        return Err(Error::not_found("participant").into());
    }
    let promoted = training::promote_waitlist(&mut tx, s.id, s.capacity).await?;
    audit::record(
        &mut tx,
        entry(
            &ws,
            &caller,
            "training.participant_removed",
            s.id,
            json!({ "athleteId": athlete, "promoted": promoted }),
        ),
    )
    .await?;
    let roster = roster(&mut tx, ws.org_id, &s, promoted).await?;
    tx.commit().await?;
    Ok(axum::Json(roster))
}

// ---- import ----

/// CSV of past sessions with attendance (rules: `shared::import::training`).
pub async fn import(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Query(q): Query<ImportQuery>,
    req: Request,
) -> Result<Response> {
    let data = read_csv_body(req).await?;
    let sha = sha256_hex(&data);
    if q.background || data.len() > SYNC_MAX_BYTES {
        return run_as_job(
            &state,
            &caller,
            &ws,
            "training",
            data,
            sha,
            |upload_id, sha256| {
                jobs::Job::spec(&jobs::kinds::TrainingImport {
                    upload_id,
                    org_id: ws.org_id,
                    user_id: caller.user.id,
                    dry_run: q.dry_run,
                    sha256,
                })
            },
        )
        .await;
    }
    let mut report = Report::new(q.dry_run, sha);
    let parsed = import::training::parse(&data, &mut report);
    let mut tx = state.db.begin().await?;
    import::training::commit(&mut tx, ws.org_id, caller.user.id, parsed, &mut report).await?;
    if report.committed {
        audit::record(
            &mut tx,
            audit::Entry {
                org_id: Some(ws.org_id),
                actor: Some(caller.user.id),
                impersonator: caller.impersonator,
                action: "training.imported",
                target_type: "org",
                target_id: Some(ws.org_id.to_string()),
                data: json!({ "rows": report.rows, "details": report.details, "sha256": report.sha256 }),
            },
        )
        .await?;
        tx.commit().await?;
    }
    Ok(report_response(report))
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
    pub status: String,
    pub created_at: Ts,
    /// False when the training session already had one (which is returned).
    pub created: bool,
}

/// Creates the footage session of a training session when filming starts; a second call
/// returns the same one (200 instead of 201).
pub async fn provision_video(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<ProvisionVideo>,
) -> Result<(StatusCode, axum::Json<FootageSessionView>)> {
    let mut tx = state.db.begin().await?;
    let s = load(&mut tx, &ws, req.training_session_id).await?;
    let (f, created) = training::provision_footage(&mut tx, ws.org_id, &s, caller.user.id).await?;
    if created {
        audit::record(
            &mut tx,
            entry(
                &ws,
                &caller,
                "training.video_provisioned",
                s.id,
                json!({ "footageSessionId": f.id }),
            ),
        )
        .await?;
    }
    tx.commit().await?;
    Ok((
        if created {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        },
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
