//! The built-in scheduler (tokio-cron-scheduler) that replaces external cron callers.
//!
//! Every worker process runs it; a tick fires exactly once however many do. Each firing works
//! out which tick it belongs to (the schedule's latest occurrence, so processes whose clocks or
//! timers differ by a little agree) and inserts `(schedule, tick)` into `cron_ticks`; only the
//! process whose insert wins enqueues the job, in the same transaction.

use crate::Deps;
use chrono::{DateTime, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds};
use shared::db::{Id, Ts};
use shared::job::scheduled::CronTask;
use shared::job::{Owner, enqueue_spec};
use std::sync::Arc;
use tokio_cron_scheduler::{Job, JobScheduler};

pub fn parse_cron(expr: &str) -> Result<Cron, String> {
    CronParser::builder()
        .seconds(Seconds::Required)
        .build()
        .parse(expr)
        .map_err(|e| e.to_string())
}

/// The effective schedule of every task: (task, expression or None when switched off).
pub fn effective(deps_cfg: &crate::config::WorkerConfig) -> Vec<(CronTask, Option<String>)> {
    CronTask::ALL
        .iter()
        .map(|&t| {
            let expr = match deps_cfg.schedule_overrides.get(&t) {
                Some(v) => v.clone(),
                None => Some(t.info().default_schedule.to_string()),
            };
            (t, expr)
        })
        .collect()
}

/// The tick a firing at `now` belongs to: the latest occurrence at or before `now` (plus 50 ms
/// for a timer that fires a hair early). Schedulers fire late by up to their polling period,
/// never a whole period early, so every process maps a firing to the same tick.
pub fn tick_of(cron: &Cron, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    use chrono::SubsecRound;
    // croner keeps the start time's sub-second part; cron ticks are whole seconds.
    cron.find_previous_occurrence(&(now + chrono::Duration::milliseconds(50)), true)
        .ok()
        .map(|t| t.trunc_subsecs(0))
}

/// Fires `task`'s tick once across all processes. Returns the job id when this call won.
pub async fn fire(
    deps: &Deps,
    task: CronTask,
    tick: DateTime<Utc>,
) -> Result<Option<Id>, sqlx::Error> {
    let tick = Ts::from_datetime(tick);
    let mut tx = deps.db.begin().await?;
    if !jobs::cron::claim_tick(&mut tx, task, tick, Id::new()).await? {
        return Ok(None);
    }
    let enqueued = enqueue_spec(&mut tx, &task.spec(), Owner::default(), Ts::now()).await?;
    jobs::cron::set_tick_job(&mut tx, task, tick, enqueued.id).await?;
    tx.commit().await?;
    Ok(Some(enqueued.id))
}

pub struct Scheduler {
    inner: JobScheduler,
}

impl Scheduler {
    pub async fn start(deps: Arc<Deps>) -> anyhow::Result<Scheduler> {
        let inner = JobScheduler::new().await?;
        for (task, expr) in effective(&deps.worker) {
            let Some(expr) = expr else { continue };
            let cron = parse_cron(&expr).map_err(|e| anyhow::anyhow!("{task}: {e}"))?;
            let deps = deps.clone();
            let job = Job::new_async(expr.as_str(), move |_, _| {
                let deps = deps.clone();
                let cron = cron.clone();
                Box::pin(async move {
                    let Some(tick) = tick_of(&cron, Utc::now()) else {
                        return;
                    };
                    match fire(&deps, task, tick).await {
                        Ok(Some(id)) => {
                            tracing::info!(task = task.as_str(), %tick, job_id = %id, "scheduled task enqueued")
                        }
                        Ok(None) => {
                            tracing::debug!(task = task.as_str(), %tick, "tick already fired by another worker")
                        }
                        Err(e) => {
                            tracing::error!(task = task.as_str(), error = %e, "could not fire a scheduled task")
                        }
                    }
                })
            })?;
            inner.add(job).await?;
        }
        inner.start().await?;
        Ok(Scheduler { inner })
    }

    pub async fn shutdown(mut self) {
        if let Err(e) = self.inner.shutdown().await {
            tracing::warn!(error = %e, "scheduler shutdown");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_firings_map_to_their_tick() {
        let cron = parse_cron("0 */5 * * * *").unwrap();
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        let tick = at("2026-11-22T10:05:00Z");
        assert_eq!(tick_of(&cron, at("2026-11-22T10:05:00.000Z")), Some(tick));
        assert_eq!(tick_of(&cron, at("2026-11-22T10:05:00.900Z")), Some(tick));
        assert_eq!(
            tick_of(&cron, at("2026-11-22T10:04:59.980Z")),
            Some(tick),
            "a hair early"
        );
        assert_eq!(tick_of(&cron, at("2026-11-22T10:09:59Z")), Some(tick));
    }
}
