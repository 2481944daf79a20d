//! The job queue's SQL: our own `job_queue` table (migration 23), read by the worker's apalis
//! backend (`worker::queue_backend`).
//!
//! A task row says "run job `job_id` on `queue` from `run_at`". It is inserted by [`push`]
//! inside the caller's transaction (so a job exists exactly when the write that needed it
//! committed), claimed in batches by one statement ([`claim`]), and deleted once the job's
//! outcome is in its progress row ([`finish`]): the table holds live tasks only, so it stays as
//! small as the backlog. A worker heartbeats into `job_workers` ([`heartbeat`]); the tasks of a
//! worker not seen for its lease go back to the queue, and a task delivered twice finds its
//! progress row finished and does nothing (`worker::execute`).
//!
//! Times are bound from Rust on both databases (the service's clock), so the same statements
//! serve both; only the claim's row locking and the id lists differ per dialect.

use super::Queue;
use shared::db::{DbConn, Executor, Id, Ts};
use shared::execute;
use sqlx::FromRow;
use sqlx::types::Json;

/// The PostgreSQL channel that wakes `queue`'s workers (`NOTIFY`ed by the table's insert
/// trigger, and by [`release`]).
pub fn channel(queue: Queue) -> String {
    format!("job_queue_{}", queue.as_str())
}

/// Inserts one queue task for job `id`, runnable at `run_at`.
pub async fn push(
    x: &mut impl Executor,
    queue: Queue,
    id: Id,
    run_at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("INSERT INTO job_queue (queue, job_id, run_at) VALUES ($1, $2, $3)")
            .bind(queue)
            .bind(id)
            .bind(run_at)
    )?;
    Ok(())
}

/// A claimed task: its row and its job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromRow)]
pub struct Claimed {
    pub id: i64,
    pub job_id: Id,
}

/// Claims up to `limit` due tasks of `queue` for `worker` and returns them, oldest first: one
/// statement. On PostgreSQL `SKIP LOCKED` lets concurrent claimers take disjoint batches without
/// waiting for each other; SQLite has one writer at a time, so its claim is already exclusive.
pub async fn claim(
    x: &mut impl Executor,
    queue: Queue,
    worker: &str,
    limit: usize,
    now: Ts,
) -> Result<Vec<Claimed>, sqlx::Error> {
    let lock = match x.conn() {
        DbConn::Sqlite(_) => "",
        DbConn::Pg(_) => "FOR UPDATE SKIP LOCKED",
    };
    let q = format!(
        "UPDATE job_queue SET locked_by = $1, locked_at = $2
         WHERE id IN (SELECT id FROM job_queue
                      WHERE queue = $3 AND locked_by IS NULL AND run_at <= $2
                      ORDER BY run_at, id LIMIT $4 {lock})
         RETURNING id, job_id"
    );
    let mut rows = shared::sql!(x, c => sqlx::query_as::<_, Claimed>(sqlx::AssertSqlSafe(q))
        .bind(worker).bind(now).bind(queue).bind(limit as i64)
        .fetch_all(&mut *c).await)?;
    // RETURNING follows no order; ids grow with insertion.
    rows.sort_unstable_by_key(|r| r.id);
    Ok(rows)
}

/// Deletes `worker`'s finished tasks `ids` (an id another worker holds now, after a rescue,
/// is left to that worker). Returns how many went.
pub async fn finish(x: &mut impl Executor, worker: &str, ids: &[i64]) -> Result<u64, sqlx::Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    match x.conn() {
        DbConn::Sqlite(c) => Ok(sqlx::query(
            "DELETE FROM job_queue WHERE id IN (SELECT value FROM json_each($1)) AND locked_by = $2",
        )
        .bind(Json(ids))
        .bind(worker)
        .execute(&mut *c)
        .await?
        .rows_affected()),
        DbConn::Pg(c) => Ok(sqlx::query(
            "DELETE FROM job_queue WHERE id = ANY($1) AND locked_by = $2",
        )
        .bind(ids)
        .bind(worker)
        .execute(&mut *c)
        .await?
        .rows_affected()),
    }
}

/// Hands `worker`'s tasks `ids` back to `queue`, runnable again from `not_before` (or their
/// own `run_at`, if later), and wakes the queue's workers on PostgreSQL.
pub async fn release(
    x: &mut impl Executor,
    queue: Queue,
    worker: &str,
    ids: &[i64],
    not_before: Ts,
) -> Result<u64, sqlx::Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    const SET: &str = "UPDATE job_queue SET locked_by = NULL, locked_at = NULL,
        run_at = CASE WHEN run_at < $3 THEN $3 ELSE run_at END";
    match x.conn() {
        DbConn::Sqlite(c) => Ok(sqlx::query(sqlx::AssertSqlSafe(format!(
            "{SET} WHERE id IN (SELECT value FROM json_each($1)) AND locked_by = $2"
        )))
        .bind(Json(ids))
        .bind(worker)
        .bind(not_before)
        .execute(&mut *c)
        .await?
        .rows_affected()),
        DbConn::Pg(c) => {
            let n = sqlx::query(sqlx::AssertSqlSafe(format!(
                "{SET} WHERE id = ANY($1) AND locked_by = $2"
            )))
            .bind(ids)
            .bind(worker)
            .bind(not_before)
            .execute(&mut *c)
            .await?
            .rows_affected();
            sqlx::query("SELECT pg_notify($1, '')")
                .bind(channel(queue))
                .execute(&mut *c)
                .await?;
            Ok(n)
        }
    }
}

/// Records that `worker` (serving `queue`) is alive at `now`, and hands the tasks of `queue`'s
/// workers not seen since `now - lease` back to the queue (a worker that registered is either
/// heartbeating or presumed dead). Returns how many tasks were handed back. Run in one
/// transaction.
pub async fn heartbeat(
    x: &mut impl Executor,
    queue: Queue,
    worker: &str,
    now: Ts,
    lease: chrono::Duration,
) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO job_workers (name, queue, last_seen) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen"
        )
        .bind(worker)
        .bind(queue)
        .bind(now)
    )?;
    // No index on locked_by (it would be one more index write per claim): this reads the
    // queue's live tasks, which the deletes keep few, once per heartbeat.
    execute!(
        x,
        sqlx::query(
            "UPDATE job_queue SET locked_by = NULL, locked_at = NULL
             WHERE queue = $1 AND locked_by IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM job_workers w
                               WHERE w.name = job_queue.locked_by AND w.last_seen > $2)"
        )
        .bind(queue)
        .bind(now.minus(lease))
    )
}

/// Forgets workers not seen since `before`; returns how many.
pub async fn prune_workers(x: &mut impl Executor, before: Ts) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM job_workers WHERE last_seen < $1").bind(before)
    )
}
