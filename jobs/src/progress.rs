//! Progress rows: one per job, written by the worker, read by the api.

use serde::Serialize;
use serde_json::Value;
use shared::db::{DbConn, Executor, Id, Ts};
use shared::job::Queue;
use shared::{execute, sql};
use sqlx::FromRow;
use sqlx::types::Json;

shared::text_enum! {
    /// Where a job is in its life (`job_progress.status`). The statements below write these
    /// spellings as SQL literals, as the live-job partial unique index's predicate must.
    pub enum JobStatus {
        /// Waiting for a worker (also between a transient failure and its retry).
        Queued = "queued",
        /// An attempt is under way: written by the worker once the job has run 20 ms, or with
        /// its outcome (a claim alone leaves the row `queued`: `queue::claim`).
        Running = "running",
        Succeeded = "succeeded",
        /// A permanent error, or a transient one on the last attempt.
        Failed = "failed",
        Cancelled = "cancelled",
    }
}

/// Lets tests and checks read `p.status == "succeeded"`; code that decides uses the variants.
impl PartialEq<&str> for JobStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[derive(Debug, Clone, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub id: Id,
    pub kind: String,
    pub queue: Queue,
    pub org_id: Option<Id>,
    pub created_by: Option<Id>,
    pub idempotency_key: Option<String>,
    pub status: JobStatus,
    pub attempts: i64,
    pub max_attempts: i64,
    pub percent: Option<i64>,
    pub message: Option<String>,
    pub payload: Json<Value>,
    pub result: Option<Json<Value>>,
    pub last_error: Option<String>,
    pub cancel_requested: bool,
    pub run_after: Ts,
    pub created_at: Ts,
    pub started_at: Option<Ts>,
    pub finished_at: Option<Ts>,
    pub updated_at: Ts,
}

pub(crate) const COLUMNS: &str = "id, kind, queue, org_id, created_by, idempotency_key, status, attempts, max_attempts, percent, message, payload, result, last_error, cancel_requested, run_after, created_at, started_at, finished_at, updated_at";

pub async fn get(x: &mut impl Executor, id: Id) -> Result<Option<Progress>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM job_progress WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, Progress>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// What one attempt needs from its progress row. The queue's claim (`queue::claim`) reads the
/// progress rows of the tasks it claims in the same statement (or transaction, on SQLite) and
/// returns these fields, so a delivered task carries its job and the attempt starts without
/// another write.
#[derive(Debug, Clone, FromRow)]
pub struct Attempt {
    pub id: Id,
    pub kind: String,
    pub queue: Queue,
    pub org_id: Option<Id>,
    /// As the progress row read at the claim: `queued`, or `running` when an earlier attempt
    /// was marked (the claim does not write the row).
    pub status: JobStatus,
    /// Counting this one.
    pub attempts: i64,
    pub max_attempts: i64,
    pub payload: Json<Value>,
    pub cancel_requested: bool,
    pub run_after: Ts,
}

/// The columns of [`Attempt`], as `job_progress` names them.
pub(crate) const ATTEMPT_COLUMNS: &str =
    "id, kind, queue, org_id, status, attempts, max_attempts, payload, cancel_requested, run_after";

/// Marks an attempt started: `running`, its attempt number, first started at `started`. The
/// claim does not write the progress row (`queue::claim`): the worker marks a job when it has
/// run for a moment or before recording a failure, and a success writes all of this itself.
pub async fn mark_started(
    x: &mut impl Executor,
    id: Id,
    attempt: i64,
    started: Ts,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE job_progress SET status = 'running', attempts = $2, started_at = COALESCE(started_at, $3), updated_at = $4
         WHERE id = $1 AND status IN ('queued', 'running')")
        .bind(id).bind(attempt).bind(started).bind(Ts::now()))?;
    Ok(())
}

/// Reports progress from a running job (percent clamped to 0..=100).
pub async fn report(
    x: &mut impl Executor,
    id: Id,
    percent: Option<i64>,
    message: Option<&str>,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE job_progress SET percent = COALESCE($2, percent), message = COALESCE($3, message), updated_at = $4
         WHERE id = $1 AND status IN ('queued', 'running')")
        .bind(id).bind(percent.map(|p| p.clamp(0, 100))).bind(message).bind(Ts::now()))?;
    Ok(())
}

/// A finished attempt's success, as the deleted task row gave it.
#[derive(Debug, Serialize)]
pub(crate) struct Succeeded<'a> {
    pub id: Id,
    pub result: &'a Value,
    pub attempt: i64,
    /// The task's claim time, as SQLite stores it (the first attempt's start, when the row has
    /// none yet).
    pub claimed_at: Option<String>,
}

/// Records the results of finished attempts on SQLite, one statement for the whole batch
/// (PostgreSQL records them in `queue::complete`'s statement). A job no longer live
/// (cancelled meanwhile) keeps its status.
pub(crate) async fn succeed_many(
    x: &mut impl Executor,
    done: &[Succeeded<'_>],
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE job_progress SET status = 'succeeded', percent = 100, result = d.value -> '$.result', last_error = NULL,
            attempts = d.value ->> '$.attempt', started_at = COALESCE(started_at, d.value ->> '$.claimed_at'),
            finished_at = $2, updated_at = $2
         FROM json_each($1) AS d
         WHERE job_progress.id = d.value ->> '$.id' AND job_progress.status IN ('queued', 'running')")
        .bind(Json(done)).bind(Ts::now()))?;
    Ok(())
}

/// Records a live job's success from inside the transaction that commits its effects (an
/// import's rows), so that its outcome is exactly what committed: a worker cut off right after
/// cannot leave it to be run out of attempts and reported failed. The task's later ack then
/// finds the row finished and leaves it.
pub async fn succeed(
    x: &mut impl Executor,
    id: Id,
    result: &Value,
    message: &str,
) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "UPDATE job_progress SET status = 'succeeded', percent = 100, message = $3, result = $2,
            last_error = NULL, finished_at = $4, updated_at = $4
         WHERE id = $1 AND status IN ('queued', 'running')")
        .bind(id).bind(Json(result)).bind(message).bind(now))?;
    Ok(())
}

pub async fn fail(x: &mut impl Executor, id: Id, error: &str) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "UPDATE job_progress SET status = 'failed', last_error = $2, finished_at = $3, updated_at = $3
         WHERE id = $1 AND status IN ('queued', 'running')")
        .bind(id).bind(truncate(error)).bind(now))?;
    Ok(())
}

/// Puts a running job back in the queue after a transient failure, not to run before `at`.
/// The caller pushes the queue task in the same transaction.
pub async fn retry_later(
    x: &mut impl Executor,
    id: Id,
    error: &str,
    at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE job_progress SET status = 'queued', last_error = $2, run_after = $3, updated_at = $4
         WHERE id = $1 AND status = 'running'")
        .bind(id).bind(truncate(error)).bind(at).bind(Ts::now()))?;
    Ok(())
}

pub async fn mark_cancelled(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(
        x,
        sqlx::query(
            "UPDATE job_progress SET status = 'cancelled', finished_at = $2, updated_at = $2
         WHERE id = $1 AND status IN ('queued', 'running')"
        )
        .bind(id)
        .bind(now)
    )?;
    Ok(())
}

/// Asks a job to stop: a queued one is cancelled at once; a running one is flagged and its
/// handler stops at its next check. Returns the new status, or `None` when already finished.
///
/// Running means its task is claimed (the progress row reads `queued` until the worker marks
/// it). On PostgreSQL the job's task rows are locked first: a claim in flight finishes before
/// this reads them, and a claim after skips them until this commits, so a job is never both
/// cancelled at once and started. Both read the live tasks without an index on `job_id` (one
/// more index write per claim): a user's cancel pays the scan instead.
pub async fn request_cancel(
    x: &mut impl Executor,
    id: Id,
) -> Result<Option<JobStatus>, sqlx::Error> {
    let now = Ts::now();
    if let DbConn::Pg(c) = x.conn() {
        sqlx::query("SELECT id FROM job_queue WHERE job_id = $1 FOR UPDATE")
            .bind(id)
            .fetch_all(&mut *c)
            .await?;
    }
    let queued = execute!(x, sqlx::query(
        "UPDATE job_progress SET status = 'cancelled', cancel_requested = TRUE, finished_at = $2, updated_at = $2
         WHERE id = $1 AND status = 'queued'
           AND NOT EXISTS (SELECT 1 FROM job_queue WHERE job_id = $1 AND locked_by IS NOT NULL)")
        .bind(id).bind(now))?;
    if queued == 1 {
        return Ok(Some(JobStatus::Cancelled));
    }
    let running = execute!(x, sqlx::query(
        "UPDATE job_progress SET cancel_requested = TRUE, updated_at = $2 WHERE id = $1 AND status IN ('queued', 'running')")
        .bind(id).bind(now))?;
    Ok((running == 1).then_some(JobStatus::Running))
}

pub async fn is_cancel_requested(x: &mut impl Executor, id: Id) -> Result<bool, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, bool>("SELECT cancel_requested FROM job_progress WHERE id = $1")
        .bind(id).fetch_optional(&mut *c).await)
    .map(|v| v.unwrap_or(true))
}

/// Re-queues a failed or cancelled job with fresh attempts (an admin's retry). The caller
/// pushes the queue task in the same transaction. False when the job is not failed/cancelled.
pub async fn requeue(x: &mut impl Executor, id: Id) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(x, sqlx::query(
        "UPDATE job_progress SET status = 'queued', attempts = 0, cancel_requested = FALSE, finished_at = NULL,
            run_after = $2, updated_at = $2
         WHERE id = $1 AND status IN ('failed', 'cancelled')")
        .bind(id).bind(now))?;
    Ok(n == 1)
}

/// Deletes finished jobs older than `before`; returns how many.
pub async fn prune(x: &mut impl Executor, before: Ts) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "DELETE FROM job_progress WHERE status IN ('succeeded', 'failed', 'cancelled') AND finished_at < $1")
        .bind(before))
}

fn truncate(s: &str) -> String {
    s.chars().take(2000).collect()
}
