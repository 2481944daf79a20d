//! Training sessions, their participant rosters (with a waitlist) and the footage session a
//! training session gets when filming starts.

use crate::db::{Executor, Id, Ts};
use crate::model::training::{ParticipantStatus, SessionSource};
use crate::{execute, sql};
use sqlx::FromRow;

#[derive(Debug, Clone, FromRow)]
pub struct Session {
    pub id: Id,
    pub org_id: Id,
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub coach_user_id: Option<Id>,
    pub capacity: Option<i64>,
    pub notes: Option<String>,
    pub source: SessionSource,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str = "id, org_id, title, starts_at, ends_at, location, spot, coach_user_id, capacity, notes, source, created_by, created_at, updated_at";

pub async fn insert(x: &mut impl Executor, s: &Session) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO training_sessions (id, org_id, title, starts_at, ends_at, location, spot, coach_user_id, capacity, notes,
            source, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)")
        .bind(s.id).bind(s.org_id).bind(&s.title).bind(s.starts_at).bind(s.ends_at).bind(&s.location).bind(&s.spot)
        .bind(s.coach_user_id).bind(s.capacity).bind(&s.notes).bind(s.source).bind(s.created_by)
        .bind(s.created_at).bind(s.updated_at))?;
    Ok(())
}

pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Session>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM training_sessions WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

/// Takes the session's row lock (PostgreSQL; SQLite write transactions are serialised), so
/// concurrent roster changes of one session run one after the other. False when absent.
pub async fn lock(x: &mut impl Executor, org: Id, id: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE training_sessions SET updated_at = updated_at WHERE id = $1 AND org_id = $2"
        )
        .bind(id)
        .bind(org)
    )?;
    Ok(n == 1)
}

pub async fn update(x: &mut impl Executor, s: &Session) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE training_sessions SET title = $3, starts_at = $4, ends_at = $5, location = $6, spot = $7, coach_user_id = $8,
            capacity = $9, notes = $10, updated_at = $11
         WHERE id = $1 AND org_id = $2")
        .bind(s.id).bind(s.org_id).bind(&s.title).bind(s.starts_at).bind(s.ends_at).bind(&s.location).bind(&s.spot)
        .bind(s.coach_user_id).bind(s.capacity).bind(&s.notes).bind(Ts::now()))?;
    Ok(())
}

pub async fn delete(x: &mut impl Executor, org: Id, id: Id) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM training_sessions WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub from: Option<Ts>,
    pub to: Option<Ts>,
    pub coach: Option<Id>,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub athlete: Option<Id>,
}

/// Sessions overlapping `[from, to)`, by start time.
pub async fn list(
    x: &mut impl Executor,
    org: Id,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Session>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM training_sessions s WHERE s.org_id = $1
           AND ($2 IS NULL OR s.ends_at > $2) AND ($3 IS NULL OR s.starts_at < $3)
           AND ($4 IS NULL OR s.coach_user_id = $4)
           AND ($5 IS NULL OR LOWER(s.location) = LOWER($5))
           AND ($6 IS NULL OR LOWER(s.spot) = LOWER($6))
           AND ($7 IS NULL OR EXISTS (SELECT 1 FROM training_participants p WHERE p.session_id = s.id AND p.athlete_id = $7))
         ORDER BY s.starts_at, s.id LIMIT $8 OFFSET $9"
    );
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q))
        .bind(org).bind(f.from).bind(f.to).bind(f.coach).bind(&f.location).bind(&f.spot).bind(f.athlete)
        .bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// One session an athlete is on the roster of, with their place there.
#[derive(Debug, Clone, FromRow)]
pub struct Attendance {
    pub session_id: Id,
    pub title: String,
    pub starts_at: Ts,
    pub status: ParticipantStatus,
}

/// The athlete's training sessions, newest first, at most `limit`.
pub async fn attendance_of(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    limit: i64,
) -> Result<Vec<Attendance>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Attendance>(
        "SELECT s.id AS session_id, s.title, s.starts_at, p.status FROM training_participants p
         JOIN training_sessions s ON s.id = p.session_id
         WHERE s.org_id = $1 AND p.athlete_id = $2 ORDER BY s.starts_at DESC, s.id LIMIT $3")
        .bind(org).bind(athlete).bind(limit).fetch_all(&mut *c).await)
}

/// One training session as the workspace calendar shows it.
#[derive(Debug, Clone, FromRow, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CalendarEntry {
    pub id: Id,
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub coach_user_id: Option<Id>,
    pub capacity: Option<i64>,
    /// Participants holding a place (registered, attended, no-show).
    pub participants: i64,
    pub waitlisted: i64,
}

/// The org's training sessions overlapping `[from, to)`, by start time (for the workspace
/// calendar, `GET /api/orgs/{id}/calendar`).
pub async fn calendar_entries(
    x: &mut impl Executor,
    org: Id,
    from: Ts,
    to: Ts,
) -> Result<Vec<CalendarEntry>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, CalendarEntry>(
        "SELECT s.id, s.title, s.starts_at, s.ends_at, s.location, s.spot, s.coach_user_id, s.capacity,
            (SELECT COUNT(*) FROM training_participants p WHERE p.session_id = s.id AND p.status <> 'waitlisted') AS participants,
            (SELECT COUNT(*) FROM training_participants p WHERE p.session_id = s.id AND p.status = 'waitlisted') AS waitlisted
         FROM training_sessions s WHERE s.org_id = $1 AND s.ends_at > $2 AND s.starts_at < $3
         ORDER BY s.starts_at, s.id")
        .bind(org).bind(from).bind(to).fetch_all(&mut *c).await)
}

// ---- roster ----

#[derive(Debug, Clone, FromRow)]
pub struct Participant {
    pub id: Id,
    pub session_id: Id,
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub status: ParticipantStatus,
    pub position: i64,
    pub created_at: Ts,
    pub updated_at: Ts,
}

pub async fn participants(
    x: &mut impl Executor,
    org: Id,
    session: Id,
) -> Result<Vec<Participant>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Participant>(
        "SELECT p.id, p.session_id, p.athlete_id, a.first_name, a.last_name, p.status, p.position, p.created_at, p.updated_at
         FROM training_participants p JOIN athletes a ON a.id = p.athlete_id
         WHERE p.org_id = $1 AND p.session_id = $2
         ORDER BY CASE WHEN p.status = 'waitlisted' THEN 1 ELSE 0 END, p.position, p.id")
        .bind(org).bind(session).fetch_all(&mut *c).await)
}

pub async fn participant(
    x: &mut impl Executor,
    session: Id,
    athlete: Id,
) -> Result<Option<Participant>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Participant>(
        "SELECT p.id, p.session_id, p.athlete_id, a.first_name, a.last_name, p.status, p.position, p.created_at, p.updated_at
         FROM training_participants p JOIN athletes a ON a.id = p.athlete_id
         WHERE p.session_id = $1 AND p.athlete_id = $2")
        .bind(session).bind(athlete).fetch_optional(&mut *c).await)
}

/// Participants holding a place (everyone but the waitlist).
pub async fn places_taken(x: &mut impl Executor, session: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM training_participants WHERE session_id = $1 AND status <> 'waitlisted'")
        .bind(session).fetch_one(&mut *c).await)
}

/// Adds an athlete with `status`, at the end of the order. Call with the session locked.
pub async fn add_participant(
    x: &mut impl Executor,
    org: Id,
    session: Id,
    athlete: Id,
    status: ParticipantStatus,
    by: Option<Id>,
) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "INSERT INTO training_participants (id, org_id, session_id, athlete_id, status, position, added_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5,
            (SELECT COALESCE(MAX(position), 0) + 1 FROM training_participants WHERE session_id = $3), $6, $7, $7)")
        .bind(Id::new()).bind(org).bind(session).bind(athlete).bind(status).bind(by).bind(now))?;
    Ok(())
}

pub async fn set_participant_status(
    x: &mut impl Executor,
    session: Id,
    athlete: Id,
    status: ParticipantStatus,
) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE training_participants SET status = $3, updated_at = $4 WHERE session_id = $1 AND athlete_id = $2")
        .bind(session).bind(athlete).bind(status).bind(Ts::now()))
}

pub async fn remove_participant(
    x: &mut impl Executor,
    session: Id,
    athlete: Id,
) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM training_participants WHERE session_id = $1 AND athlete_id = $2")
            .bind(session)
            .bind(athlete)
    )
}

/// Promotes waitlisted participants, first come first served, while places are free.
/// Call with the session locked, in the transaction that freed the place. Returns the
/// promoted athletes.
pub async fn promote_waitlist(
    x: &mut impl Executor,
    session: Id,
    capacity: Option<i64>,
) -> Result<Vec<Id>, sqlx::Error> {
    let mut promoted = vec![];
    loop {
        if let Some(cap) = capacity
            && places_taken(x, session).await? >= cap
        {
            break;
        }
        let next = sql!(x, c => sqlx::query_scalar::<_, Id>(
            "SELECT athlete_id FROM training_participants WHERE session_id = $1 AND status = 'waitlisted'
             ORDER BY position, id LIMIT 1")
            .bind(session).fetch_optional(&mut *c).await)?;
        let Some(athlete) = next else { break };
        set_participant_status(x, session, athlete, ParticipantStatus::Registered).await?;
        promoted.push(athlete);
    }
    Ok(promoted)
}

/// The athletes on a session's roster, whatever their status (the CSV import's duplicates).
pub async fn roster_athletes(x: &mut impl Executor, session: Id) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, Id>(
        "SELECT athlete_id FROM training_participants WHERE session_id = $1")
        .bind(session).fetch_all(&mut *c).await)
}

/// Finds the org's session with this title and start (the CSV import's duplicate key).
pub async fn by_title_and_start(
    x: &mut impl Executor,
    org: Id,
    title: &str,
    starts_at: Ts,
) -> Result<Option<Session>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM training_sessions WHERE org_id = $1 AND LOWER(title) = LOWER($2) AND starts_at = $3 ORDER BY id LIMIT 1"
    );
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(org).bind(title).bind(starts_at).fetch_optional(&mut *c).await)
}

// ---- footage sessions ----

#[derive(Debug, Clone, FromRow)]
pub struct FootageSession {
    pub id: Id,
    pub org_id: Id,
    pub training_session_id: Option<Id>,
    pub title: String,
    pub status: crate::model::footage::SessionStatus,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

/// The training session's footage session, created when absent. `true` when this call
/// created it. Concurrent calls make one (the unique training_session_id decides).
pub async fn provision_footage(
    x: &mut impl Executor,
    org: Id,
    session: &Session,
    by: Id,
) -> Result<(FootageSession, bool), sqlx::Error> {
    let now = Ts::now();
    let n = execute!(x, sqlx::query(
        "INSERT INTO footage_sessions (id, org_id, training_session_id, athlete_id, title, status, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, NULL, $4, 'recording', $5, $6, $6)
         ON CONFLICT (training_session_id) DO NOTHING")
        .bind(Id::new()).bind(org).bind(session.id).bind(&session.title).bind(by).bind(now))?;
    let f = sql!(x, c => sqlx::query_as::<_, FootageSession>(
        "SELECT id, org_id, training_session_id, title, status, created_by, created_at FROM footage_sessions
         WHERE training_session_id = $1 AND org_id = $2")
        .bind(session.id).bind(org).fetch_one(&mut *c).await)?;
    Ok((f, n == 1))
}

/// The sessions where `athlete` holds a place (registered, attended or no-show: anything but
/// waitlisted), so a caller removing the athlete can promote each session's waitlist after.
pub async fn sessions_with_place(
    x: &mut impl Executor,
    athlete: Id,
) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, Id>(
        "SELECT session_id FROM training_participants WHERE athlete_id = $1 AND status <> 'waitlisted'")
        .bind(athlete).fetch_all(&mut *c).await)
}
