//! The two rows that make a job (`job_progress`, `job_queue`), as an enqueue writes them
//! ([`super::enqueue`]). The worker's reads and updates of the same tables are in the crate
//! `jobs` (`progress`, `queue`).

use super::{JobSpec, Owner, Queue};
use crate::db::{Executor, Id, Ts, is_unique_violation};
use crate::{execute, sql};
use sqlx::types::Json;

/// Inserts a queued progress row; `None` when a live job with the same kind and key exists.
pub async fn insert(
    x: &mut impl Executor,
    spec: &JobSpec,
    owner: Owner,
    run_after: Ts,
) -> Result<Option<Id>, sqlx::Error> {
    let id = Id::new();
    let now = Ts::now();
    // ON CONFLICT with the partial unique index on `live_key` (the key while the job is queued
    // or running; migration 25): the losing one of two concurrent enqueues waits for the
    // winner's commit and then inserts nothing.
    let r = execute!(x, sqlx::query(
        "INSERT INTO job_progress (id, kind, queue, org_id, created_by, idempotency_key, status, attempts, max_attempts,
            payload, cancel_requested, run_after, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'queued', 0, $7, $8, FALSE, $9, $10, $10)
         ON CONFLICT (kind, live_key) WHERE live_key IS NOT NULL DO NOTHING")
        .bind(id).bind(&spec.kind).bind(spec.queue).bind(owner.org_id).bind(owner.user_id)
        .bind(&spec.idempotency_key).bind(spec.max_attempts as i64).bind(Json(&spec.payload))
        .bind(run_after).bind(now));
    match r {
        Ok(1) => Ok(Some(id)),
        Ok(_) => Ok(None),
        Err(e) if is_unique_violation(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The live (queued or running) job of `kind` with idempotency key `key`.
pub async fn live_with_key(
    x: &mut impl Executor,
    kind: &str,
    key: &str,
) -> Result<Option<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, Id>(
        "SELECT id FROM job_progress WHERE kind = $1 AND live_key = $2")
        .bind(kind).bind(key).fetch_optional(&mut *c).await)
}

/// Inserts one queue task for job `id`, runnable at `run_at`; the job has had `attempts`
/// attempts so far (the task's claims count on from there).
pub async fn push(
    x: &mut impl Executor,
    queue: Queue,
    id: Id,
    run_at: Ts,
    attempts: i64,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO job_queue (queue, job_id, run_at, base_attempts) VALUES ($1, $2, $3, $4)"
        )
        .bind(queue)
        .bind(id)
        .bind(run_at)
        .bind(attempts)
    )?;
    Ok(())
}

/// Whether job `id` is queued or running.
pub async fn is_live(x: &mut impl Executor, id: Id) -> Result<bool, sqlx::Error> {
    let live: Option<Id> = sql!(x, c => sqlx::query_scalar(
        "SELECT id FROM job_progress WHERE id = $1 AND status IN ('queued', 'running')")
        .bind(id).fetch_optional(&mut *c).await)?;
    Ok(live.is_some())
}
