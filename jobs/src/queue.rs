//! The queue table is apalis's (`Jobs` on SQLite, `apalis.jobs` on PostgreSQL). We insert its
//! tasks ourselves, inside the caller's transaction, because apalis pushes through its own pool.
//! The column layout is that of apalis-sqlite/apalis-postgres 1.0.0 (pinned with `=`); the
//! job system's tests exercise these inserts against the real worker on both databases.

use super::{JobRef, Queue};
use shared::db::{DbConn, Executor, Id, Ts};
use ulid::Ulid;

/// Our own attempts and backoff live in `job_progress`; apalis may re-deliver a task a few
/// times when the worker's own bookkeeping fails (a database blip), never more.
const APALIS_MAX_ATTEMPTS: i64 = 3;

/// apalis decodes task ids as ULIDs.
pub fn new_task_id() -> String {
    Ulid::from(uuid::Uuid::now_v7().as_u128()).to_string()
}

/// Inserts one queue task for job `id`, runnable at `run_at`.
pub async fn push(
    x: &mut impl Executor,
    queue: Queue,
    id: Id,
    run_at: Ts,
) -> Result<(), sqlx::Error> {
    let payload = serde_json::to_vec(&JobRef { id }).expect("JobRef serializes");
    let task_id = new_task_id();
    let immediate = run_at <= Ts::now();
    match x.conn() {
        DbConn::Sqlite(c) => {
            sqlx::query(
                "INSERT INTO Jobs (job, id, job_type, status, attempts, max_attempts, run_at, priority, metadata)
                 VALUES ($1, $2, $3, 'Pending', 0, $4, $5, 0, '{}')",
            )
            .bind(payload)
            .bind(task_id)
            .bind(queue.as_str())
            .bind(APALIS_MAX_ATTEMPTS)
            // apalis-sqlite keeps run_at in whole unix seconds: round a delayed job up so it
            // never starts early, an immediate one down so it does not wait for the next second.
            .bind(if immediate {
                run_at.0.timestamp()
            } else {
                (run_at.0.timestamp_micros() + 999_999).div_euclid(1_000_000)
            })
            .execute(&mut *c)
            .await?;
        }
        DbConn::Pg(c) => {
            sqlx::query(
                "INSERT INTO apalis.jobs (id, job_type, job, status, attempts, max_attempts, run_at, priority, metadata)
                 VALUES ($1, $2, $3, 'Pending', 0, $4, COALESCE($5, now()), 0, ''::hstore)",
            )
            .bind(task_id)
            .bind(queue.as_str())
            .bind(payload)
            .bind(APALIS_MAX_ATTEMPTS as i32)
            // apalis's insert trigger NOTIFYs workers only when run_at <= now(), and now() is the
            // transaction's start: an immediate job must take the database's now() to wake them.
            .bind((!immediate).then_some(run_at.0))
            .execute(&mut *c)
            .await?;
        }
    }
    Ok(())
}

/// Deletes apalis's finished queue rows (done, killed, failed) finished before `before`;
/// returns how many. Our progress rows keep the outcome; these rows only feed apalis.
pub async fn prune_finished(x: &mut impl Executor, before: Ts) -> Result<u64, sqlx::Error> {
    let n = match x.conn() {
        DbConn::Sqlite(c) => {
            sqlx::query(
                "DELETE FROM Jobs WHERE status IN ('Done', 'Killed', 'Failed') AND done_at < $1",
            )
            // apalis-sqlite keeps times in unix seconds.
            .bind(before.0.timestamp())
            .execute(&mut *c)
            .await?
            .rows_affected()
        }
        DbConn::Pg(c) => sqlx::query(
            "DELETE FROM apalis.jobs WHERE status IN ('Done', 'Killed', 'Failed') AND done_at < $1",
        )
        .bind(before.0)
        .execute(&mut *c)
        .await?
        .rows_affected(),
    };
    Ok(n)
}

/// Creates apalis's tables (its own migrations, tracked apart from ours), then swaps its
/// `lock_by` index for a partial one over live tasks. apalis's ack joins on the task id but
/// filters on `lock_by`, and with an index over every row a worker ever locked the planner
/// walks all of them: measured 636 µs per ack at 30,000 finished tasks, 35 µs with the
/// partial index (which still serves the orphan re-enqueue, the only query that looks up
/// tasks by worker alone).
pub async fn setup(db: &shared::db::Db) -> Result<(), sqlx::Error> {
    match db {
        shared::db::Db::Sqlite(p, _) => {
            apalis_sqlite::SqliteStorage::<()>::setup(p)
                .await
                .map_err(|e| sqlx::Error::Protocol(format!("apalis setup: {e}")))?;
            // apalis's setup switches one pooled connection to synchronous=OFF; restore ours.
            sqlx::query("PRAGMA synchronous = NORMAL")
                .execute(p)
                .await?;
            for s in [
                "DROP INDEX IF EXISTS LIdx",
                "CREATE INDEX IF NOT EXISTS jobs_live_lock_by ON Jobs (lock_by) WHERE status IN ('Queued', 'Running')",
            ] {
                sqlx::query(s).execute(p).await?;
            }
        }
        shared::db::Db::Pg(p) => {
            apalis_postgres::PostgresStorage::<()>::setup(p)
                .await
                .map_err(|e| sqlx::Error::Protocol(format!("apalis setup: {e}")))?;
            for s in [
                "DROP INDEX IF EXISTS apalis.lidx",
                "DROP INDEX IF EXISTS apalis.idx_apalis_jobs_lock_by",
                "CREATE INDEX IF NOT EXISTS jobs_live_lock_by ON apalis.jobs (lock_by) WHERE status IN ('Queued', 'Running')",
            ] {
                sqlx::query(s).execute(p).await?;
            }
        }
    }
    Ok(())
}
