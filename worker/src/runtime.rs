//! Runs one apalis worker per served queue over the service's own database, and stops them
//! gracefully.
//!
//! Wake-ups: on PostgreSQL the worker listens for apalis's NOTIFY (a job starts within
//! milliseconds) with a polling backstop for delayed jobs; on SQLite it polls (`WORKER_POLL_MS`).
//! apalis's stock interval strategy can lose a wake-up (measured: 25 s stalls), so
//! [`RearmingInterval`] is used instead. A worker that stops heartbeating for
//! `heartbeat × lease_misses` is presumed dead and apalis hands its tasks to a live worker;
//! `execute` then re-runs the job from its progress row.

use crate::Deps;
use crate::execute::execute;
use apalis::prelude::*;
use apalis_postgres::{PostgresStorage, Pubsub};
use apalis_sqlite::SqliteStorage;
use jobs::{JobRef, Queue};
use shared::db::Db;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::task::JoinHandle;

/// The running workers of this process.
pub struct Runtime {
    workers: Vec<(WorkerContext, JoinHandle<()>)>,
}

/// A unique worker name per process and queue (apalis refuses or, on PostgreSQL, silently
/// shares a reused name).
fn worker_name(queue: Queue) -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
    format!(
        "{host}-{}-{}-{}",
        std::process::id(),
        queue.name(),
        jobs::queue::new_task_id()
    )
}

async fn handle(r: JobRef, deps: Data<Arc<Deps>>) -> Result<(), BoxDynError> {
    execute(&deps, r.id).await.map_err(|e| e.into())
}

macro_rules! spawn_worker {
    ($ctx:expr, $backend:expr, $deps:expr, $concurrency:expr) => {{
        let w = WorkerBuilder::new(&$ctx)
            .backend($backend)
            .data($deps.clone())
            .concurrency($concurrency)
            .build(handle);
        tokio::spawn(async move {
            if let Err(e) = w.run().await {
                tracing::error!(error = %e, "worker stopped with an error");
            }
        })
    }};
}

impl Runtime {
    pub async fn start(deps: Arc<Deps>) -> anyhow::Result<Runtime> {
        let cfg = deps.worker.clone();
        let mut workers = vec![];
        for (&queue, &concurrency) in &cfg.concurrency {
            let ctx = WorkerContext::new(&worker_name(queue));
            let handle = match &deps.db {
                Db::Sqlite(pool) => {
                    let config = apalis_sqlite::Config::default()
                        .queue(queue.name())
                        .batch_size(concurrency)
                        .heartbeat_interval(cfg.heartbeat)
                        .missed_heartbeats(cfg.lease_misses as usize);
                    let strategy = Strategy::new().apply(RearmingInterval::new(cfg.poll));
                    let backend = SqliteStorage::<JobRef>::new(pool)
                        .with_config(config)
                        .poll_with_strategy(strategy);
                    spawn_worker!(ctx, backend, deps, concurrency)
                }
                Db::Pg(pool) => {
                    let config = apalis_postgres::Config::default()
                        .queue(queue.name())
                        .batch_size(concurrency)
                        .heartbeat_interval(cfg.heartbeat)
                        .missed_heartbeats(cfg.lease_misses as usize);
                    let strategy = Strategy::new()
                        .stream(Pubsub::new(pool.clone(), queue.name().to_string()))
                        .apply(RearmingInterval::new(cfg.poll));
                    let backend = PostgresStorage::<JobRef>::new(pool)
                        .with_config(config)
                        .poll_with_strategy(strategy);
                    spawn_worker!(ctx, backend, deps, concurrency)
                }
            };
            tracing::info!(queue = queue.name(), concurrency, "worker started");
            workers.push((ctx, handle));
        }
        Ok(Runtime { workers })
    }

    /// Stops taking jobs, waits up to `deadline` for running ones, then releases the rest (they
    /// run again elsewhere once this worker's lease expires).
    pub async fn shutdown(self, deadline: Duration) {
        let until = tokio::time::Instant::now() + deadline;
        for (ctx, handle) in self.workers {
            // A worker still registering when the signal comes ignores a first stop: keep
            // asking until it has stopped.
            while !handle.is_finished() && tokio::time::Instant::now() < until {
                if let Err(e) = ctx.stop() {
                    tracing::debug!(error = %e, "stop request not taken yet");
                }
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                    _ = tokio::time::sleep_until(until) => {}
                }
            }
            if !handle.is_finished() {
                tracing::warn!(
                    ?deadline,
                    worker = ctx.name(),
                    "jobs still running at the shutdown deadline; released to other workers"
                );
                handle.abort();
            }
        }
    }
}

/// Like apalis's interval strategy, but it polls each new timer at once so its waker is
/// registered (the stock strategy creates the next timer without polling it, and then only the
/// 30 s heartbeat wakes the worker).
pub struct RearmingInterval {
    period: Duration,
    delay: futures_timer::Delay,
}

impl RearmingInterval {
    pub fn new(period: Duration) -> Self {
        RearmingInterval {
            period,
            delay: futures_timer::Delay::new(period),
        }
    }
}

impl PollStrategy for RearmingInterval {
    fn poll_drive(&mut self, cx: &mut Context<'_>, _: &PollSnapshot) -> Poll<Option<()>> {
        use std::future::Future;
        if std::pin::Pin::new(&mut self.delay).poll(cx).is_ready() {
            self.delay = futures_timer::Delay::new(self.period);
            let _ = std::pin::Pin::new(&mut self.delay).poll(cx);
            return Poll::Ready(Some(()));
        }
        Poll::Pending
    }
}
