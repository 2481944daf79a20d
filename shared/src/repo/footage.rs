//! Footage sessions, clips, maneuver labels, tus uploads and batch uploads: rows and queries.
//! Status changes of a clip are compare-and-set ([`set_status`]): the caller names the status
//! it read, so two writers never both move a clip.

use crate::db::{Executor, Id, Ts};
use crate::model::footage::{ClipStatus, SessionStatus, Verdict};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

// ---- footage sessions ----

#[derive(Debug, Clone, FromRow)]
pub struct Session {
    pub id: Id,
    pub org_id: Id,
    pub training_session_id: Option<Id>,
    pub athlete_id: Option<Id>,
    pub title: String,
    pub status: SessionStatus,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const SESSION_COLUMNS: &str = "id, org_id, training_session_id, athlete_id, title, status, created_by, created_at, updated_at";

pub async fn get_session(
    x: &mut impl Executor,
    org: Id,
    id: Id,
) -> Result<Option<Session>, sqlx::Error> {
    let q = format!("SELECT {SESSION_COLUMNS} FROM footage_sessions WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Session>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

pub async fn insert_session(x: &mut impl Executor, s: &Session) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO footage_sessions (id, org_id, training_session_id, athlete_id, title, status, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
        .bind(s.id).bind(s.org_id).bind(s.training_session_id).bind(s.athlete_id).bind(&s.title)
        .bind(s.status).bind(s.created_by).bind(s.created_at).bind(s.updated_at))?;
    Ok(())
}

/// A session with its clip counts, as lists show it.
#[derive(Debug, Clone, FromRow)]
pub struct SessionSummary {
    #[sqlx(flatten)]
    pub session: Session,
    pub clip_count: i64,
    pub stored_count: i64,
}

pub async fn list_sessions(
    x: &mut impl Executor,
    org: Id,
    athlete: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<Vec<SessionSummary>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, SessionSummary>(
        "SELECT s.id, s.org_id, s.training_session_id, s.athlete_id, s.title, s.status, s.created_by, s.created_at, s.updated_at,
                (SELECT COUNT(*) FROM clips k WHERE k.session_id = s.id) AS clip_count,
                (SELECT COUNT(*) FROM clips k WHERE k.session_id = s.id AND k.status = 'stored') AS stored_count
         FROM footage_sessions s
         WHERE s.org_id = $1 AND ($2 IS NULL OR s.athlete_id = $2)
         ORDER BY s.created_at DESC, s.id DESC LIMIT $3 OFFSET $4")
        .bind(org).bind(athlete).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// The footage session filmed at a training session, if filming started.
pub async fn session_of_training(
    x: &mut impl Executor,
    org: Id,
    training: Id,
) -> Result<Option<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, Id>(
        "SELECT id FROM footage_sessions WHERE training_session_id = $1 AND org_id = $2")
        .bind(training).bind(org).fetch_optional(&mut *c).await)
}

pub async fn set_session_status(
    x: &mut impl Executor,
    id: Id,
    status: SessionStatus,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE footage_sessions SET status = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(status)
            .bind(Ts::now())
    )?;
    Ok(())
}

pub async fn delete_session(x: &mut impl Executor, org: Id, id: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("DELETE FROM footage_sessions WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )?;
    Ok(n == 1)
}

// ---- clips ----

#[derive(Debug, Clone, FromRow)]
pub struct Clip {
    pub id: Id,
    pub org_id: Id,
    pub session_id: Id,
    pub athlete_id: Option<Id>,
    pub file_name: String,
    pub status: ClipStatus,
    pub status_code: Option<String>,
    pub status_message: Option<String>,
    pub progress: i64,
    pub raw_key: Option<String>,
    pub source_url: Option<String>,
    pub size_bytes: Option<i64>,
    pub content_type: Option<String>,
    pub probe: Option<Json<Value>>,
    pub analysis_generation: i64,
    pub analysis_id: Option<String>,
    pub analysis_result: Option<Json<Value>>,
    pub job_id: Option<Id>,
    pub stats: Option<Json<Value>>,
    pub video_key: Option<String>,
    pub video_size: Option<i64>,
    pub overlay_key: Option<String>,
    pub overlay_size: Option<i64>,
    pub batch_id: Option<Id>,
    pub batch_row: Option<i64>,
    pub recorded_at: Option<Ts>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
    pub status_changed_at: Ts,
}

impl Clip {
    /// The clip's length in milliseconds: the analysis's measure, else ffprobe's; `None`
    /// before either has run.
    pub fn duration_ms(&self) -> Option<i64> {
        let from_stats = self
            .stats
            .as_ref()
            .and_then(|s| s.0.get("duration_ms"))
            .and_then(Value::as_i64);
        let from_probe = self
            .probe
            .as_ref()
            .and_then(|p| p.0.get("durationMs"))
            .and_then(Value::as_i64);
        from_stats.or(from_probe)
    }

    /// A clip a batch manifest names (row `batch.1` of batch `batch.0`), waiting for its file.
    pub fn awaiting_upload(
        org: Id,
        session: Id,
        athlete: Option<Id>,
        file_name: String,
        batch: (Id, i64),
        by: Id,
        now: Ts,
    ) -> Clip {
        Clip {
            id: Id::new(),
            org_id: org,
            session_id: session,
            athlete_id: athlete,
            file_name,
            status: ClipStatus::AwaitingUpload,
            status_code: None,
            status_message: None,
            progress: 0,
            raw_key: None,
            source_url: None,
            size_bytes: None,
            content_type: None,
            probe: None,
            analysis_generation: 0,
            analysis_id: None,
            analysis_result: None,
            job_id: None,
            stats: None,
            video_key: None,
            video_size: None,
            overlay_key: None,
            overlay_size: None,
            batch_id: Some(batch.0),
            batch_row: Some(batch.1),
            recorded_at: None,
            created_by: Some(by),
            created_at: now,
            updated_at: now,
            status_changed_at: now,
        }
    }
}

const CLIP_COLUMNS: &str = "id, org_id, session_id, athlete_id, file_name, status, status_code, status_message, progress,
    raw_key, source_url, size_bytes, content_type, probe, analysis_generation, analysis_id, analysis_result, job_id, stats,
    video_key, video_size, overlay_key, overlay_size, batch_id, batch_row, recorded_at, created_by, created_at,
    updated_at, status_changed_at";

pub async fn insert_clip(x: &mut impl Executor, k: &Clip) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO clips (id, org_id, session_id, athlete_id, file_name, status, progress, raw_key, source_url,
            size_bytes, content_type, analysis_generation, batch_id, batch_row, recorded_at, created_by,
            created_at, updated_at, status_changed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $17)")
        .bind(k.id).bind(k.org_id).bind(k.session_id).bind(k.athlete_id).bind(&k.file_name).bind(k.status)
        .bind(k.progress).bind(&k.raw_key).bind(&k.source_url).bind(k.size_bytes).bind(&k.content_type)
        .bind(k.analysis_generation).bind(k.batch_id).bind(k.batch_row).bind(k.recorded_at).bind(k.created_by)
        .bind(k.created_at))?;
    Ok(())
}

pub async fn get_clip(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Clip>, sqlx::Error> {
    let q = format!("SELECT {CLIP_COLUMNS} FROM clips WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Clip>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

/// The clip whose analysis the backend knows by `analysis_id` (its webhook names only that).
pub async fn clip_by_analysis(
    x: &mut impl Executor,
    analysis_id: &str,
) -> Result<Option<Clip>, sqlx::Error> {
    let q = format!("SELECT {CLIP_COLUMNS} FROM clips WHERE analysis_id = $1");
    sql!(x, c => sqlx::query_as::<_, Clip>(sqlx::AssertSqlSafe(q)).bind(analysis_id).fetch_optional(&mut *c).await)
}

/// Clips of the workspace by id (those of another workspace are simply absent).
pub async fn clips_by_ids(
    x: &mut impl Executor,
    org: Id,
    ids: &[Id],
) -> Result<Vec<Clip>, sqlx::Error> {
    let mut out = Vec::with_capacity(ids.len());
    // At most 100 ids (the route's limit): one indexed lookup each keeps the SQL portable.
    for id in ids {
        if let Some(k) = get_clip(x, org, *id).await? {
            out.push(k);
        }
    }
    Ok(out)
}

/// A workspace's clips, narrowed to a session, a status and an athlete when given; oldest
/// first, or newest first.
#[allow(clippy::too_many_arguments)]
pub async fn list_clips(
    x: &mut impl Executor,
    org: Id,
    session: Option<Id>,
    status: Option<ClipStatus>,
    athlete: Option<Id>,
    newest_first: bool,
    limit: i64,
    offset: i64,
) -> Result<Vec<Clip>, sqlx::Error> {
    let order = if newest_first {
        "created_at DESC, id DESC"
    } else {
        "created_at, id"
    };
    let q = format!(
        "SELECT {CLIP_COLUMNS} FROM clips WHERE org_id = $1 AND ($2 IS NULL OR session_id = $2)
           AND ($3 IS NULL OR status = $3) AND ($4 IS NULL OR athlete_id = $4)
         ORDER BY {order} LIMIT $5 OFFSET $6"
    );
    sql!(x, c => sqlx::query_as::<_, Clip>(sqlx::AssertSqlSafe(q))
        .bind(org).bind(session).bind(status).bind(athlete).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn session_clips(x: &mut impl Executor, session: Id) -> Result<Vec<Clip>, sqlx::Error> {
    let q =
        format!("SELECT {CLIP_COLUMNS} FROM clips WHERE session_id = $1 ORDER BY created_at, id");
    sql!(x, c => sqlx::query_as::<_, Clip>(sqlx::AssertSqlSafe(q)).bind(session).fetch_all(&mut *c).await)
}

/// The fields a status change writes besides the status.
#[derive(Debug, Default)]
pub struct Change {
    pub progress: Option<i64>,
    /// `Some(None)` clears the failure reason.
    pub reason: Option<Option<(String, String)>>,
    pub probe: Option<Value>,
    pub analysis_generation: Option<i64>,
    pub analysis_id: Option<Option<String>>,
    pub analysis_result: Option<Value>,
    pub job_id: Option<Id>,
    pub stats: Option<Value>,
    pub video: Option<(String, i64)>,
    pub overlay: Option<(String, i64)>,
    pub raw: Option<(String, i64, String)>,
}

/// Moves the clip from `from` to `to` with `change`, only if it is still `from`. False when
/// another writer moved it first.
pub async fn set_status(
    x: &mut impl Executor,
    clip: Id,
    from: ClipStatus,
    to: ClipStatus,
    ch: Change,
) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let (set_reason, code, message) = match ch.reason {
        Some(Some((c, m))) => (true, Some(c), Some(m)),
        Some(None) => (true, None, None),
        None => (false, None, None),
    };
    let (set_aid, aid) = match ch.analysis_id {
        Some(a) => (true, a),
        None => (false, None),
    };
    let (video_key, video_size) = ch.video.unzip();
    let (overlay_key, overlay_size) = ch.overlay.unzip();
    let (raw_key, raw_size, raw_type) = match ch.raw {
        Some((k, s, t)) => (Some(k), Some(s), Some(t)),
        None => (None, None, None),
    };
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE clips SET status = $3, updated_at = $4,
            status_changed_at = CASE WHEN status = $3 THEN status_changed_at ELSE $4 END,
            progress = COALESCE($5, progress),
            status_code = CASE WHEN $6 THEN $7 ELSE status_code END,
            status_message = CASE WHEN $6 THEN $8 ELSE status_message END,
            probe = COALESCE($9, probe),
            analysis_generation = COALESCE($10, analysis_generation),
            analysis_id = CASE WHEN $11 THEN $12 ELSE analysis_id END,
            analysis_result = COALESCE($13, analysis_result),
            stats = COALESCE($14, stats),
            video_key = COALESCE($15, video_key), video_size = COALESCE($16, video_size),
            overlay_key = COALESCE($17, overlay_key), overlay_size = COALESCE($18, overlay_size),
            raw_key = COALESCE($19, raw_key), size_bytes = COALESCE($20, size_bytes),
            content_type = COALESCE($21, content_type), job_id = COALESCE($22, job_id)
         WHERE id = $1 AND status = $2"
        )
        .bind(clip)
        .bind(from)
        .bind(to)
        .bind(now)
        .bind(ch.progress)
        .bind(set_reason)
        .bind(code)
        .bind(message)
        .bind(ch.probe.map(Json))
        .bind(ch.analysis_generation)
        .bind(set_aid)
        .bind(aid)
        .bind(ch.analysis_result.map(Json))
        .bind(ch.stats.map(Json))
        .bind(video_key)
        .bind(video_size)
        .bind(overlay_key)
        .bind(overlay_size)
        .bind(raw_key)
        .bind(raw_size)
        .bind(raw_type)
        .bind(ch.job_id)
    )?;
    Ok(n == 1)
}

pub async fn delete_clip(x: &mut impl Executor, org: Id, id: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("DELETE FROM clips WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )?;
    Ok(n == 1)
}

// ---- maneuver labels ----

#[derive(Debug, Clone, FromRow)]
pub struct Label {
    pub id: Id,
    pub org_id: Id,
    pub clip_id: Id,
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

const LABEL_COLUMNS: &str =
    "id, org_id, clip_id, prediction_index, predicted_type, predicted_confidence, verdict,
    corrected_type, start_ms, end_ms, note, labelled_by, created_at, updated_at";

pub async fn labels(x: &mut impl Executor, clip: Id) -> Result<Vec<Label>, sqlx::Error> {
    let q =
        format!("SELECT {LABEL_COLUMNS} FROM clip_labels WHERE clip_id = $1 ORDER BY start_ms, id");
    sql!(x, c => sqlx::query_as::<_, Label>(sqlx::AssertSqlSafe(q)).bind(clip).fetch_all(&mut *c).await)
}

pub async fn get_label(
    x: &mut impl Executor,
    clip: Id,
    id: Id,
) -> Result<Option<Label>, sqlx::Error> {
    let q = format!("SELECT {LABEL_COLUMNS} FROM clip_labels WHERE id = $1 AND clip_id = $2");
    sql!(x, c => sqlx::query_as::<_, Label>(sqlx::AssertSqlSafe(q)).bind(id).bind(clip).fetch_optional(&mut *c).await)
}

/// Inserts the label, or for a prediction that already has one, returns `false` (the caller
/// answers 409: a correction of a correction is a PATCH).
pub async fn insert_label(x: &mut impl Executor, l: &Label) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "INSERT INTO clip_labels (id, org_id, clip_id, prediction_index, predicted_type, predicted_confidence, verdict,
            corrected_type, start_ms, end_ms, note, labelled_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (clip_id, prediction_index) DO NOTHING")
        .bind(l.id).bind(l.org_id).bind(l.clip_id).bind(l.prediction_index).bind(&l.predicted_type)
        .bind(l.predicted_confidence).bind(l.verdict).bind(&l.corrected_type).bind(l.start_ms).bind(l.end_ms)
        .bind(&l.note).bind(l.labelled_by).bind(l.created_at).bind(l.updated_at))?;
    Ok(n == 1)
}

pub async fn update_label(x: &mut impl Executor, l: &Label) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE clip_labels SET verdict = $2, corrected_type = $3, start_ms = $4, end_ms = $5, note = $6,
            labelled_by = $7, updated_at = $8 WHERE id = $1")
        .bind(l.id).bind(l.verdict).bind(&l.corrected_type).bind(l.start_ms).bind(l.end_ms).bind(&l.note)
        .bind(l.labelled_by).bind(l.updated_at))?;
    Ok(())
}

/// The workspace's labels after `after` (keyset on `(updated_at, id)`), for the export.
pub async fn labels_page(
    x: &mut impl Executor,
    org: Id,
    after: Option<(Ts, Id)>,
    limit: i64,
) -> Result<Vec<Label>, sqlx::Error> {
    let (ts, id) = after.unzip();
    let q = format!(
        "SELECT {LABEL_COLUMNS} FROM clip_labels WHERE org_id = $1
           AND ($2 IS NULL OR updated_at > $2 OR (updated_at = $2 AND id > $3))
         ORDER BY updated_at, id LIMIT $4"
    );
    sql!(x, c => sqlx::query_as::<_, Label>(sqlx::AssertSqlSafe(q)).bind(org).bind(ts).bind(id).bind(limit).fetch_all(&mut *c).await)
}

/// Records the job now working on the clip (what clients poll), without a status change.
pub async fn set_job(x: &mut impl Executor, clip: Id, job: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE clips SET job_id = $2, updated_at = $3 WHERE id = $1")
            .bind(clip)
            .bind(job)
            .bind(Ts::now())
    )?;
    Ok(())
}

/// The ids of the session's resumable uploads (finished or not).
pub async fn session_uploads(x: &mut impl Executor, session: Id) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, Id>("SELECT id FROM clip_uploads WHERE session_id = $1")
        .bind(session).fetch_all(&mut *c).await)
}

/// Clips waiting on the analysis backend whose row has not moved since `before` (their poll
/// chain ended without an answer), oldest first.
pub async fn stalled_clips(
    x: &mut impl Executor,
    before: Ts,
    limit: i64,
) -> Result<Vec<Clip>, sqlx::Error> {
    let q = format!(
        "SELECT {CLIP_COLUMNS} FROM clips WHERE status IN ('submitted', 'processing') AND updated_at < $1
         ORDER BY updated_at LIMIT $2"
    );
    sql!(x, c => sqlx::query_as::<_, Clip>(sqlx::AssertSqlSafe(q)).bind(before).bind(limit).fetch_all(&mut *c).await)
}

/// The clips a batch made, by line.
pub async fn batch_clips(
    x: &mut impl Executor,
    org: Id,
    batch: Id,
) -> Result<Vec<Clip>, sqlx::Error> {
    let q = format!(
        "SELECT {CLIP_COLUMNS} FROM clips WHERE org_id = $1 AND batch_id = $2 ORDER BY batch_row"
    );
    sql!(x, c => sqlx::query_as::<_, Clip>(sqlx::AssertSqlSafe(q)).bind(org).bind(batch).fetch_all(&mut *c).await)
}
