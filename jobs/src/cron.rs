//! The scheduler's tick bookkeeping for the scheduled tasks (`shared::job::scheduled`):
//! one `cron_ticks` row per (task, tick), so a tick fires once however many worker processes
//! run the scheduler.

use shared::db::{Executor, Id, Ts};
use shared::execute;
use shared::job::scheduled::CronTask;

/// Records `task`'s `tick` as fired by job `job_id`. False when another process recorded it
/// first (the caller then enqueues nothing).
pub async fn claim_tick(
    x: &mut impl Executor,
    task: CronTask,
    tick: Ts,
    job_id: Id,
) -> Result<bool, sqlx::Error> {
    let won = execute!(x, sqlx::query(
        "INSERT INTO cron_ticks (schedule, tick, job_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING")
        .bind(task).bind(tick).bind(job_id).bind(Ts::now()))?;
    Ok(won == 1)
}

/// Points a claimed tick at the job that actually runs it (an idempotent enqueue may return
/// a job already queued).
pub async fn set_tick_job(
    x: &mut impl Executor,
    task: CronTask,
    tick: Ts,
    job_id: Id,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE cron_ticks SET job_id = $1 WHERE schedule = $2 AND tick = $3")
            .bind(job_id)
            .bind(task)
            .bind(tick)
    )?;
    Ok(())
}

/// Deletes tick records created before `before`; returns how many.
pub async fn prune_ticks(x: &mut impl Executor, before: Ts) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM cron_ticks WHERE created_at < $1").bind(before)
    )
}
