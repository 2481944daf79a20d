//! Wearable sessions, their sample chunks, detected rides, ground-truth labels and clip
//! alignments (migration 13). Every read of a session goes through its workspace.

use crate::db::{Executor, Id, Ts};
use crate::model::wearable::{Chunk, Ride, SessionSource, SessionStatus, Stream, SyncMethod};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct Session {
    pub id: Id,
    pub org_id: Id,
    pub athlete_id: Option<Id>,
    pub wearer_user_id: Option<Id>,
    pub coach_user_id: Option<Id>,
    pub training_session_id: Option<Id>,
    pub source: SessionSource,
    pub status: SessionStatus,
    pub status_message: Option<String>,
    pub device: Option<String>,
    pub client_session_id: Option<String>,
    pub started_at: Ts,
    pub ended_at: Option<Ts>,
    pub last_seen_at: Option<Ts>,
    pub gps_count: i64,
    pub hr_count: i64,
    pub imu_count: i64,
    pub stored_bytes: i64,
    pub upload_key: Option<String>,
    pub upload_format: Option<String>,
    pub detector_version: Option<String>,
    pub derived_at: Option<Ts>,
    pub summary: Option<Json<Value>>,
    pub job_id: Option<Id>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str = "id, org_id, athlete_id, wearer_user_id, coach_user_id, training_session_id, source, status,
    status_message, device, client_session_id, started_at, ended_at, last_seen_at, gps_count, hr_count, imu_count,
    stored_bytes, upload_key, upload_format, detector_version, derived_at, summary, job_id, created_by, created_at, updated_at";

pub async fn insert_session(x: &mut impl Executor, s: &Session) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO wearable_sessions (id, org_id, athlete_id, wearer_user_id, coach_user_id, training_session_id, source,
            status, status_message, device, client_session_id, started_at, ended_at, last_seen_at, upload_key, upload_format,
            job_id, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)")
        .bind(s.id).bind(s.org_id).bind(s.athlete_id).bind(s.wearer_user_id).bind(s.coach_user_id)
        .bind(s.training_session_id).bind(s.source).bind(s.status).bind(&s.status_message).bind(&s.device)
        .bind(&s.client_session_id).bind(s.started_at).bind(s.ended_at).bind(s.last_seen_at).bind(&s.upload_key)
        .bind(&s.upload_format).bind(s.job_id).bind(s.created_by).bind(s.created_at))?;
    Ok(())
}

/// Writes the fields that change after creation.
pub async fn update_session(x: &mut impl Executor, s: &Session) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE wearable_sessions SET status = $2, status_message = $3, device = $4, ended_at = $5, last_seen_at = $6,
            gps_count = $7, hr_count = $8, imu_count = $9, stored_bytes = $10, upload_key = $11, detector_version = $12,
            derived_at = $13, summary = $14, job_id = $15, started_at = $16, athlete_id = $17,
            training_session_id = $18, updated_at = $19, source = $20
         WHERE id = $1")
        .bind(s.id).bind(s.status).bind(&s.status_message).bind(&s.device).bind(s.ended_at).bind(s.last_seen_at)
        .bind(s.gps_count).bind(s.hr_count).bind(s.imu_count).bind(s.stored_bytes).bind(&s.upload_key)
        .bind(&s.detector_version).bind(s.derived_at).bind(&s.summary).bind(s.job_id).bind(s.started_at)
        .bind(s.athlete_id).bind(s.training_session_id).bind(Ts::now()).bind(s.source))?;
    Ok(())
}

pub async fn get_session(
    x: &mut impl Executor,
    org: Id,
    id: Id,
) -> Result<Option<Session>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM wearable_sessions WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

/// Locks the session row for the rest of the transaction (PostgreSQL; SQLite's write
/// transactions are already exclusive).
pub async fn lock_session(
    x: &mut impl Executor,
    org: Id,
    id: Id,
) -> Result<Option<Session>, sqlx::Error> {
    match x.conn() {
        crate::db::DbConn::Sqlite(c) => {
            let q =
                format!("SELECT {COLUMNS} FROM wearable_sessions WHERE id = $1 AND org_id = $2");
            sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q))
                .bind(id)
                .bind(org)
                .fetch_optional(&mut *c)
                .await
        }
        crate::db::DbConn::Pg(c) => {
            let q = format!(
                "SELECT {COLUMNS} FROM wearable_sessions WHERE id = $1 AND org_id = $2 FOR UPDATE"
            );
            sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q))
                .bind(id)
                .bind(org)
                .fetch_optional(&mut *c)
                .await
        }
    }
}

pub async fn by_client_id(
    x: &mut impl Executor,
    org: Id,
    client: &str,
) -> Result<Option<Session>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM wearable_sessions WHERE org_id = $1 AND client_session_id = $2"
    );
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(org).bind(client).fetch_optional(&mut *c).await)
}

/// The workspace's sessions, newest first (optionally one athlete's).
pub async fn list_sessions(
    x: &mut impl Executor,
    org: Id,
    athlete: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Session>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM wearable_sessions WHERE org_id = $1 AND ($2 IS NULL OR athlete_id = $2)
         ORDER BY started_at DESC, id LIMIT $3 OFFSET $4"
    );
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(org).bind(athlete).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// The workspace's watch sessions recorded in a training session, by start.
pub async fn of_training_session(
    x: &mut impl Executor,
    org: Id,
    training: Id,
) -> Result<Vec<Session>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM wearable_sessions WHERE org_id = $1 AND training_session_id = $2
         ORDER BY started_at, id LIMIT 100"
    );
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(org).bind(training).fetch_all(&mut *c).await)
}

/// Live sessions of the workspace seen since `since`, most recently seen first.
pub async fn live_sessions(
    x: &mut impl Executor,
    org: Id,
    since: Ts,
    limit: i64,
    offset: i64,
) -> Result<Vec<Session>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM wearable_sessions WHERE org_id = $1 AND status = 'live' AND last_seen_at >= $2
         ORDER BY last_seen_at DESC, id LIMIT $3 OFFSET $4"
    );
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(org).bind(since).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn delete_session(x: &mut impl Executor, org: Id, id: Id) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM wearable_sessions WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )
}

// ---- chunks ----

#[derive(Debug, Clone, FromRow)]
pub struct ChunkRow {
    pub stream: Stream,
    pub start_ms: i64,
    pub end_ms: i64,
    pub sample_count: i64,
    pub data: Vec<u8>,
}

pub async fn insert_chunk(
    x: &mut impl Executor,
    session: Id,
    c: &Chunk,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO wearable_chunks (id, session_id, stream, start_ms, end_ms, sample_count, data)
         VALUES ($1, $2, $3, $4, $5, $6, $7)")
        .bind(Id::new()).bind(session).bind(c.stream).bind(c.start_ms).bind(c.end_ms).bind(c.count)
        .bind(&c.data))?;
    Ok(())
}

/// The chunks of one stream (every stream: `None`) overlapping `[from, to]`, in time order.
pub async fn chunks(
    x: &mut impl Executor,
    session: Id,
    stream: Option<Stream>,
    from: i64,
    to: i64,
) -> Result<Vec<ChunkRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ChunkRow>(
        "SELECT stream, start_ms, end_ms, sample_count, data FROM wearable_chunks
         WHERE session_id = $1 AND ($2 IS NULL OR stream = $2) AND end_ms >= $3 AND start_ms <= $4
         ORDER BY stream, start_ms, id")
        .bind(session).bind(stream).bind(from).bind(to).fetch_all(&mut *c).await)
}

/// A stored chunk without its data.
#[derive(Debug, Clone, FromRow)]
pub struct ChunkMeta {
    pub id: Id,
    pub stream: Stream,
    pub start_ms: i64,
    pub sample_count: i64,
}

/// Every chunk of a session, by its earliest sample (the order `replay` reads them in).
pub async fn chunk_index(
    x: &mut impl Executor,
    session: Id,
) -> Result<Vec<ChunkMeta>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ChunkMeta>(
        "SELECT id, stream, start_ms, sample_count FROM wearable_chunks
         WHERE session_id = $1 ORDER BY start_ms, stream, id")
        .bind(session).fetch_all(&mut *c).await)
}

/// One chunk's data.
pub async fn chunk_data(x: &mut impl Executor, chunk: Id) -> Result<Vec<u8>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, Vec<u8>>("SELECT data FROM wearable_chunks WHERE id = $1")
        .bind(chunk).fetch_one(&mut *c).await)
}

pub async fn delete_chunk(x: &mut impl Executor, chunk: Id) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM wearable_chunks WHERE id = $1").bind(chunk)
    )
}

/// Chunks per stream and their bytes.
#[derive(Debug, Clone, FromRow)]
pub struct StreamUsage {
    pub stream: Stream,
    pub chunks: i64,
    pub samples: i64,
    pub bytes: i64,
}

pub async fn usage(x: &mut impl Executor, session: Id) -> Result<Vec<StreamUsage>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, StreamUsage>(
        "SELECT stream, COUNT(*) AS chunks, CAST(COALESCE(SUM(sample_count), 0) AS BIGINT) AS samples,
            CAST(COALESCE(SUM(LENGTH(data)), 0) AS BIGINT) AS bytes
         FROM wearable_chunks WHERE session_id = $1 GROUP BY stream ORDER BY stream")
        .bind(session).fetch_all(&mut *c).await)
}

// ---- rides ----

#[derive(Debug, Clone, FromRow)]
pub struct RideRow {
    pub id: Id,
    pub session_id: Id,
    pub detector_version: String,
    pub idx: i64,
    pub start_ms: i64,
    pub end_ms: i64,
    pub distance_m: f64,
    pub top_speed_kmh: f64,
    pub mean_speed_kmh: f64,
    pub heading_deg: Option<f64>,
    pub shore_angle_deg: Option<f64>,
    pub created_at: Ts,
}

pub async fn replace_rides(
    x: &mut impl Executor,
    org: Id,
    session: Id,
    version: &str,
    rides: &[Ride],
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM wearable_rides WHERE session_id = $1 AND detector_version = $2")
            .bind(session)
            .bind(version)
    )?;
    let now = Ts::now();
    for (i, r) in rides.iter().enumerate() {
        execute!(x, sqlx::query(
            "INSERT INTO wearable_rides (id, org_id, session_id, detector_version, idx, start_ms, end_ms, distance_m,
                top_speed_kmh, mean_speed_kmh, heading_deg, shore_angle_deg, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)")
            .bind(Id::new()).bind(org).bind(session).bind(version).bind(i as i64).bind(r.start_ms)
            .bind(r.end_ms).bind(r.distance_m).bind(r.top_speed_kmh).bind(r.mean_speed_kmh)
            .bind(r.heading_deg).bind(r.shore_angle_deg).bind(now))?;
    }
    Ok(())
}

pub async fn rides(
    x: &mut impl Executor,
    session: Id,
    version: &str,
) -> Result<Vec<RideRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, RideRow>(
        "SELECT id, session_id, detector_version, idx, start_ms, end_ms, distance_m, top_speed_kmh, mean_speed_kmh,
            heading_deg, shore_angle_deg, created_at
         FROM wearable_rides WHERE session_id = $1 AND detector_version = $2 ORDER BY idx")
        .bind(session).bind(version).fetch_all(&mut *c).await)
}

// ---- labels ----

#[derive(Debug, Clone, FromRow)]
pub struct Label {
    pub id: Id,
    pub org_id: Id,
    pub session_id: Id,
    pub start_ms: i64,
    pub end_ms: i64,
    /// A "no rides" mark: `start_ms..end_ms` was watched and holds no ride.
    pub no_rides: bool,
    pub note: Option<String>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

const LABEL_COLUMNS: &str =
    "id, org_id, session_id, start_ms, end_ms, no_rides, note, created_by, created_at";

pub async fn insert_label(x: &mut impl Executor, l: &Label) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO wearable_labels (id, org_id, session_id, start_ms, end_ms, no_rides, note, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
        .bind(l.id).bind(l.org_id).bind(l.session_id).bind(l.start_ms).bind(l.end_ms).bind(l.no_rides)
        .bind(&l.note).bind(l.created_by).bind(l.created_at))?;
    Ok(())
}

pub async fn labels(
    x: &mut impl Executor,
    session: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Label>, sqlx::Error> {
    let q = format!(
        "SELECT {LABEL_COLUMNS} FROM wearable_labels
         WHERE session_id = $1 ORDER BY start_ms, id LIMIT $2 OFFSET $3"
    );
    sql!(x, c => sqlx::query_as::<_, Label>(sqlx::AssertSqlSafe(q))
        .bind(session).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// The session's ride labels, or its "no rides" marks.
pub async fn count_labels(
    x: &mut impl Executor,
    session: Id,
    no_rides: bool,
) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM wearable_labels WHERE session_id = $1 AND no_rides = $2")
        .bind(session).bind(no_rides).fetch_one(&mut *c).await)
}

pub async fn get_label(
    x: &mut impl Executor,
    org: Id,
    id: Id,
) -> Result<Option<Label>, sqlx::Error> {
    let q = format!("SELECT {LABEL_COLUMNS} FROM wearable_labels WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Label>(sqlx::AssertSqlSafe(q))
        .bind(id).bind(org).fetch_optional(&mut *c).await)
}

pub async fn delete_label(x: &mut impl Executor, id: Id) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM wearable_labels WHERE id = $1").bind(id)
    )
}

/// The workspace's sessions that have labels, newest first.
pub async fn labelled_sessions(
    x: &mut impl Executor,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Session>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM wearable_sessions s WHERE org_id = $1
           AND EXISTS (SELECT 1 FROM wearable_labels l WHERE l.session_id = s.id)
         ORDER BY started_at DESC, id LIMIT $2 OFFSET $3"
    );
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(org).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

// ---- clip alignment ----

#[derive(Debug, Clone, FromRow)]
pub struct Sync {
    pub id: Id,
    pub org_id: Id,
    pub clip_id: Id,
    pub session_id: Id,
    pub offset_ms: i64,
    pub method: SyncMethod,
    pub confidence: f64,
    pub details: Json<Value>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const SYNC_COLUMNS: &str = "id, org_id, clip_id, session_id, offset_ms, method, confidence, details, created_by, created_at, updated_at";

/// Stores the clip's alignment, replacing an earlier one.
pub async fn upsert_sync(x: &mut impl Executor, s: &Sync) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO wearable_syncs (id, org_id, clip_id, session_id, offset_ms, method, confidence, details, created_by,
            created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
         ON CONFLICT (clip_id) DO UPDATE SET session_id = excluded.session_id, offset_ms = excluded.offset_ms,
            method = excluded.method, confidence = excluded.confidence, details = excluded.details,
            updated_at = excluded.updated_at")
        .bind(s.id).bind(s.org_id).bind(s.clip_id).bind(s.session_id).bind(s.offset_ms).bind(s.method)
        .bind(s.confidence).bind(&s.details).bind(s.created_by).bind(s.updated_at))?;
    Ok(())
}

pub async fn sync_of_clip(
    x: &mut impl Executor,
    org: Id,
    clip: Id,
) -> Result<Option<Sync>, sqlx::Error> {
    let q = format!("SELECT {SYNC_COLUMNS} FROM wearable_syncs WHERE clip_id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Sync>(sqlx::AssertSqlSafe(q)).bind(clip).bind(org).fetch_optional(&mut *c).await)
}

pub async fn syncs(
    x: &mut impl Executor,
    org: Id,
    session: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Sync>, sqlx::Error> {
    let q = format!(
        "SELECT {SYNC_COLUMNS} FROM wearable_syncs WHERE org_id = $1 AND ($2 IS NULL OR session_id = $2)
         ORDER BY updated_at DESC, id LIMIT $3 OFFSET $4"
    );
    sql!(x, c => sqlx::query_as::<_, Sync>(sqlx::AssertSqlSafe(q)).bind(org).bind(session).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

// ---- the wearer's day, the coach's roster ----

/// A training session on the wearer's day: one they coach or one their athlete row is on.
#[derive(Debug, Clone, FromRow)]
pub struct ScheduleEntry {
    pub id: Id,
    pub org_id: Id,
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    pub athlete_id: Option<Id>,
    pub participant_status: Option<String>,
}

pub async fn schedule(
    x: &mut impl Executor,
    user: Id,
    from: Ts,
    to: Ts,
) -> Result<Vec<ScheduleEntry>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ScheduleEntry>(
        "SELECT id, org_id, title, starts_at, ends_at, location, spot, athlete_id, participant_status FROM (
         SELECT s.id, s.org_id, s.title, s.starts_at, s.ends_at, s.location, s.spot,
            p.athlete_id, p.status AS participant_status
         FROM training_sessions s
         JOIN athletes a ON a.org_id = s.org_id AND a.user_id = $1 AND a.status <> 'archived'
         JOIN training_participants p ON p.session_id = s.id AND p.athlete_id = a.id
         WHERE s.starts_at < $3 AND s.ends_at > $2
         UNION
         SELECT s.id, s.org_id, s.title, s.starts_at, s.ends_at, s.location, s.spot,
            NULL AS athlete_id, NULL AS participant_status
         FROM training_sessions s JOIN members m ON m.org_id = s.org_id AND m.user_id = $1
         WHERE s.coach_user_id = $1 AND s.starts_at < $3 AND s.ends_at > $2
         ) day ORDER BY starts_at, id LIMIT 200")
        .bind(user).bind(from).bind(to).fetch_all(&mut *c).await)
}

/// The caller's athlete rows (not archived), across workspaces.
#[derive(Debug, Clone, FromRow)]
pub struct OwnAthlete {
    pub id: Id,
    pub org_id: Id,
}

pub async fn own_athletes(x: &mut impl Executor, user: Id) -> Result<Vec<OwnAthlete>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, OwnAthlete>(
        "SELECT id, org_id FROM athletes WHERE user_id = $1 AND status <> 'archived' ORDER BY created_at, id")
        .bind(user).fetch_all(&mut *c).await)
}

/// An athlete assigned to the coach, with their live session if any.
#[derive(Debug, Clone, FromRow)]
pub struct RosterEntry {
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub live_session_id: Option<Id>,
}

pub async fn roster(
    x: &mut impl Executor,
    org: Id,
    coach: Id,
    live_since: Ts,
    limit: i64,
    offset: i64,
) -> Result<Vec<RosterEntry>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, RosterEntry>(
        "SELECT a.id AS athlete_id, a.first_name, a.last_name,
            (SELECT w.id FROM wearable_sessions w WHERE w.athlete_id = a.id AND w.status = 'live'
               AND w.last_seen_at >= $3 ORDER BY w.last_seen_at DESC LIMIT 1) AS live_session_id
         FROM athlete_coaches ac JOIN athletes a ON a.id = ac.athlete_id
         WHERE ac.org_id = $1 AND ac.user_id = $2 AND a.status = 'active'
         ORDER BY a.last_name, a.first_name, a.id LIMIT $4 OFFSET $5")
        .bind(org).bind(coach).bind(live_since).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Display names of athletes (for lists).
#[derive(Debug, Clone, FromRow)]
pub struct AthleteName {
    pub id: Id,
    pub first_name: String,
    pub last_name: String,
}

pub async fn athlete_name(
    x: &mut impl Executor,
    id: Id,
) -> Result<Option<AthleteName>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, AthleteName>(
        "SELECT id, first_name, last_name FROM athletes WHERE id = $1")
        .bind(id).fetch_optional(&mut *c).await)
}
