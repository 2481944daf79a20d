//! Training sessions and their rosters: the operations behind `/api/training-sessions`.
//!
//! A session has a time range, a location and spot, a coach and an optional capacity. The roster
//! holds athletes as registered, waitlisted, attended or no-show. Every roster change locks the
//! session row first (`repo::training::lock`), so concurrent adds at the capacity edge cannot
//! overbook, and a freed place goes to the first waitlisted athlete in the same transaction.
//! Each write runs in one transaction with its audit entry (target `training_session`).
//! The CSV import of past sessions is `crate::import::training`.

pub use crate::model::training::{ParticipantStatus, SessionSource};

use super::InWorkspace;
use super::athletes::AthleteStatus;
use crate::db::{Db, Executor, Id, Ts};
use crate::error::Validator;
use crate::repo::training::{self, FootageSession, Participant, Session};
use crate::repo::{athletes, audit, orgs};
use crate::times::{self, TimeKind};
use crate::{Error, Result};
use serde_json::{Value, json};

/// The largest capacity a session may have.
pub const MAX_CAPACITY: i64 = 1000;

const TARGET: &str = "training_session";

// ---- input ----

/// A new session's fields as sent, before checking.
pub struct RawSession<'a> {
    pub title: &'a str,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<&'a str>,
    pub spot: Option<&'a str>,
    pub coach_user_id: Option<Id>,
    pub capacity: Option<i64>,
    pub notes: Option<&'a str>,
}

/// A new session's fields, checked (the coach's membership is checked by [`create`]).
pub struct NewSession {
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub coach_user_id: Option<Id>,
    pub capacity: Option<i64>,
    pub notes: Option<String>,
}

impl NewSession {
    /// Checks every field, reporting all invalid ones at once (400 `validation_failed`).
    pub fn parse(raw: &RawSession<'_>) -> Result<NewSession> {
        let mut v = Validator::new();
        let title = v.text("title", raw.title, 200);
        check_times(&mut v, raw.starts_at, raw.ends_at);
        check_capacity(&mut v, raw.capacity);
        let location = opt_text(&mut v, "location", raw.location, 200);
        let spot = opt_text(&mut v, "spot", raw.spot, 200);
        let notes = opt_text(&mut v, "notes", raw.notes, 5000);
        v.finish()?;
        Ok(NewSession {
            title,
            starts_at: raw.starts_at,
            ends_at: raw.ends_at,
            location,
            spot,
            coach_user_id: raw.coach_user_id,
            capacity: raw.capacity,
            notes,
        })
    }
}

/// A session's changes as sent: `None` keeps a field. `capacity` is the JSON value: a number
/// sets it, `null` removes the limit.
#[derive(Default)]
pub struct RawSessionPatch<'a> {
    pub title: Option<&'a str>,
    pub starts_at: Option<Ts>,
    pub ends_at: Option<Ts>,
    pub location: Option<&'a str>,
    pub spot: Option<&'a str>,
    pub coach_user_id: Option<Id>,
    pub capacity: Option<&'a Value>,
    pub notes: Option<&'a str>,
}

/// A session's changes, checked field by field (the time range is checked against the stored
/// session by [`update`]). `Some(None)` clears an optional field.
pub struct SessionPatch {
    title: Option<String>,
    starts_at: Option<Ts>,
    ends_at: Option<Ts>,
    location: Option<Option<String>>,
    spot: Option<Option<String>>,
    coach_user_id: Option<Id>,
    capacity: Option<Option<i64>>,
    notes: Option<Option<String>>,
}

impl SessionPatch {
    pub fn parse(raw: &RawSessionPatch<'_>) -> Result<SessionPatch> {
        let mut v = Validator::new();
        let title = raw.title.map(|t| v.text("title", t, 200));
        let capacity = match raw.capacity {
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
        let location = raw
            .location
            .map(|s| opt_text(&mut v, "location", Some(s), 200));
        let spot = raw.spot.map(|s| opt_text(&mut v, "spot", Some(s), 200));
        let notes = raw.notes.map(|s| opt_text(&mut v, "notes", Some(s), 5000));
        v.finish()?;
        Ok(SessionPatch {
            title,
            starts_at: raw.starts_at,
            ends_at: raw.ends_at,
            location,
            spot,
            coach_user_id: raw.coach_user_id,
            capacity,
            notes,
        })
    }
}

/// The statuses a member may set on a participant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusChange(ParticipantStatus);

impl StatusChange {
    /// The statuses a member may set, as spelled on the wire (and in the OpenAPI document).
    pub const NAMES: &'static [&'static str] = &["attended", "no_show", "registered"];

    /// One of [`Self::NAMES`] (case and surrounding spaces ignored).
    pub fn parse(s: &str) -> Result<StatusChange> {
        let s = s.trim().to_lowercase();
        match ParticipantStatus::parse(&s) {
            Ok(st) if Self::NAMES.contains(&st.as_str()) => Ok(StatusChange(st)),
            _ => Err(Error::field(
                "status",
                "invalid_choice",
                "must be attended, no_show or registered",
            )),
        }
    }
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
    let in_range =
        v.time("startsAt", starts, TimeKind::Calendar) & v.time("endsAt", ends, TimeKind::Calendar);
    if !in_range {
        return;
    }
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

// ---- results ----

/// A session's roster as every roster operation answers it.
pub struct Roster {
    pub session_id: Id,
    pub capacity: Option<i64>,
    /// Registered, attended and no-show participants.
    pub places_taken: i64,
    pub waitlisted: i64,
    /// Places first (in order of joining), then the waitlist.
    pub participants: Vec<Participant>,
    /// Athletes this operation moved from the waitlist to registered.
    pub promoted: Vec<Id>,
}

async fn roster(x: &mut impl Executor, org: Id, s: &Session, promoted: Vec<Id>) -> Result<Roster> {
    let ps = training::participants(x, org, s.id).await?;
    let waitlisted = ps
        .iter()
        .filter(|p| p.status == ParticipantStatus::Waitlisted)
        .count() as i64;
    Ok(Roster {
        session_id: s.id,
        capacity: s.capacity,
        places_taken: ps.len() as i64 - waitlisted,
        waitlisted,
        participants: ps,
        promoted,
    })
}

async fn load(x: &mut impl Executor, org: Id, id: Id) -> Result<Session> {
    training::get(x, org, id)
        .await?
        .ok_or_else(|| Error::not_found("training session"))
}

/// Loads the session with its row locked (first in a roster-changing transaction).
async fn load_locked(x: &mut impl Executor, org: Id, id: Id) -> Result<Session> {
    if !training::lock(x, org, id).await? {
        return Err(Error::not_found("training session"));
    }
    load(x, org, id).await
}

async fn check_coach(x: &mut impl Executor, org: Id, coach: Option<Id>) -> Result<()> {
    if let Some(c) = coach
        && orgs::membership(x, c, org).await?.is_none()
    {
        return Err(Error::field(
            "coachUserId",
            "invalid",
            "must be a member of this workspace",
        ));
    }
    Ok(())
}

// ---- sessions ----

/// The workspace's sessions matching `filter` (`to` must be after `from`).
pub async fn list(
    db: &Db,
    org: Id,
    filter: &training::Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Session>> {
    times::check_filters(
        &[("from", filter.from), ("to", filter.to)],
        TimeKind::Calendar,
    )?;
    if let (Some(f), Some(t)) = (filter.from, filter.to)
        && t <= f
    {
        return Err(Error::field("to", "out_of_range", "must be after from"));
    }
    let mut c = db.acquire().await?;
    Ok(training::list(&mut c, org, filter, limit, offset).await?)
}

pub async fn create(db: &Db, ws: &InWorkspace, new: NewSession) -> Result<Session> {
    let mut tx = db.begin().await?;
    check_coach(&mut tx, ws.org_id, new.coach_user_id).await?;
    let now = Ts::now();
    let s = Session {
        id: Id::new(),
        org_id: ws.org_id,
        title: new.title,
        starts_at: new.starts_at,
        ends_at: new.ends_at,
        location: new.location,
        spot: new.spot,
        coach_user_id: new.coach_user_id,
        capacity: new.capacity,
        notes: new.notes,
        source: SessionSource::Manual,
        created_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    training::insert(&mut tx, &s).await?;
    let data = json!({ "startsAt": s.starts_at });
    audit::record(&mut tx, ws.audit("training.created", TARGET, s.id, data)).await?;
    tx.commit().await?;
    Ok(s)
}

/// A session with its roster.
pub async fn get(db: &Db, org: Id, id: Id) -> Result<(Session, Roster)> {
    let mut c = db.acquire().await?;
    let s = load(&mut c, org, id).await?;
    let r = roster(&mut c, org, &s, vec![]).await?;
    Ok((s, r))
}

/// Applies the changes; a raised (or removed) capacity promotes waitlisted athletes, a lowered
/// one keeps everyone registered.
pub async fn update(
    db: &Db,
    ws: &InWorkspace,
    id: Id,
    patch: SessionPatch,
) -> Result<(Session, Roster)> {
    let mut tx = db.begin().await?;
    let mut s = load_locked(&mut tx, ws.org_id, id).await?;
    if let Some(t) = patch.title {
        s.title = t;
    }
    s.starts_at = patch.starts_at.unwrap_or(s.starts_at);
    s.ends_at = patch.ends_at.unwrap_or(s.ends_at);
    let mut v = Validator::new();
    check_times(&mut v, s.starts_at, s.ends_at);
    v.finish()?;
    if let Some(l) = patch.location {
        s.location = l;
    }
    if let Some(l) = patch.spot {
        s.spot = l;
    }
    if let Some(n) = patch.notes {
        s.notes = n;
    }
    if patch.coach_user_id.is_some() {
        check_coach(&mut tx, ws.org_id, patch.coach_user_id).await?;
        s.coach_user_id = patch.coach_user_id;
    }
    if let Some(c) = patch.capacity {
        s.capacity = c;
    }
    training::update(&mut tx, &s).await?;
    let promoted = training::promote_waitlist(&mut tx, s.id, s.capacity).await?;
    let data = json!({ "promoted": promoted });
    audit::record(&mut tx, ws.audit("training.updated", TARGET, s.id, data)).await?;
    let s = load(&mut tx, ws.org_id, id).await?;
    let r = roster(&mut tx, ws.org_id, &s, promoted).await?;
    tx.commit().await?;
    Ok((s, r))
}

pub async fn delete(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let s = load_locked(&mut tx, ws.org_id, id).await?;
    training::delete(&mut tx, ws.org_id, s.id).await?;
    let data = json!({ "title": s.title });
    audit::record(&mut tx, ws.audit("training.deleted", TARGET, s.id, data)).await?;
    tx.commit().await?;
    Ok(())
}

// ---- roster ----

pub async fn participants(db: &Db, org: Id, id: Id) -> Result<Roster> {
    Ok(get(db, org, id).await?.1)
}

/// Adds an athlete: registered while places are free, else waitlisted.
pub async fn add_participant(db: &Db, ws: &InWorkspace, id: Id, athlete: Id) -> Result<Roster> {
    let mut tx = db.begin().await?;
    let s = load_locked(&mut tx, ws.org_id, id).await?;
    let a = athletes::get(&mut tx, ws.org_id, athlete)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    if a.status == AthleteStatus::Archived {
        return Err(Error::conflict(
            "athlete_archived",
            "archived athletes cannot join sessions",
        ));
    }
    if training::participant(&mut tx, s.id, a.id).await?.is_some() {
        return Err(Error::conflict(
            "already_participant",
            "the athlete is already on this session's roster",
        ));
    }
    let full = match s.capacity {
        Some(cap) => training::places_taken(&mut tx, s.id).await? >= cap,
        None => false,
    };
    let status = if full {
        ParticipantStatus::Waitlisted
    } else {
        ParticipantStatus::Registered
    };
    let by = Some(ws.actor.user_id);
    training::add_participant(&mut tx, ws.org_id, s.id, a.id, status, by).await?;
    let data = json!({ "athleteId": a.id, "status": status });
    let entry = ws.audit("training.participant_added", TARGET, s.id, data);
    audit::record(&mut tx, entry).await?;
    let r = roster(&mut tx, ws.org_id, &s, vec![]).await?;
    tx.commit().await?;
    Ok(r)
}

/// Records attendance, or registers a waitlisted athlete when a place is free (409
/// `session_full` otherwise).
pub async fn set_participant(
    db: &Db,
    ws: &InWorkspace,
    id: Id,
    athlete: Id,
    StatusChange(status): StatusChange,
) -> Result<Roster> {
    let mut tx = db.begin().await?;
    let s = load_locked(&mut tx, ws.org_id, id).await?;
    let p = training::participant(&mut tx, s.id, athlete)
        .await?
        .ok_or_else(|| Error::not_found("participant"))?;
    if status == ParticipantStatus::Registered
        && p.status == ParticipantStatus::Waitlisted
        && let Some(cap) = s.capacity
        && training::places_taken(&mut tx, s.id).await? >= cap
    {
        return Err(Error::conflict(
            "session_full",
            "no place is free; the athlete stays on the waitlist",
        ));
    }
    training::set_participant_status(&mut tx, s.id, athlete, status).await?;
    let data = json!({ "athleteId": athlete, "from": p.status, "to": status });
    let entry = ws.audit("training.participant_updated", TARGET, s.id, data);
    audit::record(&mut tx, entry).await?;
    let r = roster(&mut tx, ws.org_id, &s, vec![]).await?;
    tx.commit().await?;
    Ok(r)
}

/// Removes an athlete; a freed place goes to the first waitlisted athlete in this transaction.
pub async fn remove_participant(db: &Db, ws: &InWorkspace, id: Id, athlete: Id) -> Result<Roster> {
    let mut tx = db.begin().await?;
    let s = load_locked(&mut tx, ws.org_id, id).await?;
    if training::remove_participant(&mut tx, s.id, athlete).await? == 0 {
        return Err(Error::not_found("participant"));
    }
    let promoted = training::promote_waitlist(&mut tx, s.id, s.capacity).await?;
    let data = json!({ "athleteId": athlete, "promoted": promoted });
    let entry = ws.audit("training.participant_removed", TARGET, s.id, data);
    audit::record(&mut tx, entry).await?;
    let r = roster(&mut tx, ws.org_id, &s, promoted).await?;
    tx.commit().await?;
    Ok(r)
}

// ---- footage ----

/// The training session's footage session, made when filming starts; `true` when this call
/// made it (a second call returns the same one).
pub async fn provision_video(
    db: &Db,
    ws: &InWorkspace,
    session: Id,
) -> Result<(FootageSession, bool)> {
    let mut tx = db.begin().await?;
    let s = load(&mut tx, ws.org_id, session).await?;
    let by = ws.actor.user_id;
    let (f, created) = training::provision_footage(&mut tx, ws.org_id, &s, by).await?;
    if created {
        let data = json!({ "footageSessionId": f.id });
        let entry = ws.audit("training.video_provisioned", TARGET, s.id, data);
        audit::record(&mut tx, entry).await?;
    }
    tx.commit().await?;
    Ok((f, created))
}
