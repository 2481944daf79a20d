//! Coaching feedback: rows and queries. Every row is one version of one subject (a clip, a
//! session's batch, an athlete's progress); a new row takes the subject's next version, so
//! earlier versions stay.

use crate::db::{Executor, Id, Ts};
use crate::model::reviews::FeedbackKind;
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct Feedback {
    pub id: Id,
    pub org_id: Id,
    pub kind: FeedbackKind,
    /// What the versions are versions of: `clip:{id}`, `batch:{session}`, `progress:{athlete}`.
    pub subject: String,
    pub version: i64,
    pub session_id: Option<Id>,
    pub clip_id: Option<Id>,
    pub athlete_id: Option<Id>,
    pub input: Json<Value>,
    pub output: Option<Json<Value>>,
    pub model: Option<String>,
    pub model_version: Option<String>,
    pub job_id: Option<Id>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

const COLUMNS: &str = "id, org_id, kind, subject, version, session_id, clip_id, athlete_id, input,
    output, model, model_version, job_id, created_by, created_at";

/// Inserts `f` as the next version of its subject (its `version` is ignored) and returns it
/// as stored. Two writers of the same subject at once: one fails with a unique violation.
pub async fn insert_next(x: &mut impl Executor, f: &Feedback) -> Result<Feedback, sqlx::Error> {
    let version: i64 = sql!(x, c => sqlx::query_scalar(
        "INSERT INTO coaching_feedback (id, org_id, kind, subject, version, session_id, clip_id, athlete_id,
            input, output, model, model_version, job_id, created_by, created_at)
         VALUES ($1, $2, $3, $4,
            (SELECT COALESCE(MAX(version), 0) + 1 FROM coaching_feedback WHERE org_id = $2 AND subject = $4),
            $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         RETURNING version")
        .bind(f.id).bind(f.org_id).bind(f.kind).bind(&f.subject).bind(f.session_id).bind(f.clip_id)
        .bind(f.athlete_id).bind(&f.input).bind(&f.output).bind(&f.model).bind(&f.model_version)
        .bind(f.job_id).bind(f.created_by).bind(f.created_at).fetch_one(&mut *c).await)?;
    Ok(Feedback {
        version,
        ..f.clone()
    })
}

/// The feedback, read through its workspace.
pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Feedback>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM coaching_feedback WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Feedback>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

/// What job `job` stored, in subject order.
pub async fn by_job(x: &mut impl Executor, org: Id, job: Id) -> Result<Vec<Feedback>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM coaching_feedback WHERE org_id = $1 AND job_id = $2 ORDER BY subject"
    );
    sql!(x, c => sqlx::query_as::<_, Feedback>(sqlx::AssertSqlSafe(q)).bind(org).bind(job).fetch_all(&mut *c).await)
}

/// What a feedback list may be narrowed to.
#[derive(Debug, Default, Clone, Copy)]
pub struct Filter {
    pub session: Option<Id>,
    pub clip: Option<Id>,
    pub athlete: Option<Id>,
    pub kind: Option<FeedbackKind>,
    /// Only the newest version of each subject.
    pub latest: bool,
}

/// Newest first.
pub async fn list(
    x: &mut impl Executor,
    org: Id,
    f: Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Feedback>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM coaching_feedback f WHERE org_id = $1
           AND ($2 IS NULL OR session_id = $2) AND ($3 IS NULL OR clip_id = $3)
           AND ($4 IS NULL OR athlete_id = $4) AND ($5 IS NULL OR kind = $5)
           AND (NOT $6 OR NOT EXISTS (SELECT 1 FROM coaching_feedback n
                WHERE n.org_id = f.org_id AND n.subject = f.subject AND n.version > f.version))
         ORDER BY created_at DESC, id DESC LIMIT $7 OFFSET $8"
    );
    sql!(x, c => sqlx::query_as::<_, Feedback>(sqlx::AssertSqlSafe(q)).bind(org).bind(f.session)
        .bind(f.clip).bind(f.athlete).bind(f.kind).bind(f.latest).bind(limit).bind(offset)
        .fetch_all(&mut *c).await)
}

/// Writes a row's output and the model that wrote it (a progress row's narrative).
pub async fn set_output(
    x: &mut impl Executor,
    id: Id,
    output: &Value,
    model: Option<&str>,
    model_version: Option<&str>,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "UPDATE coaching_feedback SET output = $2, model = COALESCE($3, model),
                model_version = COALESCE($4, model_version) WHERE id = $1"
        )
        .bind(id)
        .bind(Json(output))
        .bind(model)
        .bind(model_version)
    )?;
    Ok(())
}

/// The keypoints of every review of a footage session (dismissed suggestions left out), by
/// clip and time: what the coach noted, given to the model with the clips' stats.
pub async fn session_keypoints(
    x: &mut impl Executor,
    org: Id,
    session: Id,
) -> Result<Vec<crate::repo::reviews::Keypoint>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, crate::repo::reviews::Keypoint>(
        "SELECT k.id, k.org_id, k.review_id, k.clip_id, k.at_ms, k.end_ms, k.body, k.drawing, k.maneuver_type,
            k.origin, k.suggestion_key, k.dismissed_at, k.created_by, k.created_at, k.updated_at
         FROM review_keypoints k JOIN reviews r ON r.id = k.review_id
         WHERE r.org_id = $1 AND r.session_id = $2 AND k.dismissed_at IS NULL
         ORDER BY k.clip_id, k.at_ms, k.id")
        .bind(org).bind(session).fetch_all(&mut *c).await)
}

/// The footage sessions an athlete appears in (the session's athlete, or a clip's),
/// with at least one analysed clip, created in `[from, to)`, newest first.
pub async fn athlete_sessions(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    from: Option<Ts>,
    to: Option<Ts>,
    limit: i64,
) -> Result<Vec<crate::repo::footage::Session>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, crate::repo::footage::Session>(
        "SELECT s.id, s.org_id, s.training_session_id, s.athlete_id, s.title, s.status, s.created_by,
            s.created_at, s.updated_at
         FROM footage_sessions s
         WHERE s.org_id = $1
           AND (s.athlete_id = $2 OR EXISTS (SELECT 1 FROM clips k WHERE k.session_id = s.id AND k.athlete_id = $2))
           AND EXISTS (SELECT 1 FROM clips k WHERE k.session_id = s.id AND k.stats IS NOT NULL)
           AND ($3 IS NULL OR s.created_at >= $3) AND ($4 IS NULL OR s.created_at < $4)
         ORDER BY s.created_at DESC, s.id DESC LIMIT $5")
        .bind(org).bind(athlete).bind(from).bind(to).bind(limit).fetch_all(&mut *c).await)
}
