//! Runs one apalis worker per served queue, over our own queue backend
//! ([`QueueBackend`](crate::queue_backend::QueueBackend)), and stops them gracefully.
//!
//! When a worker looks for work is [`Wakeups`]'s business. A worker that stops heartbeating for
//! `heartbeat × lease_misses` is presumed dead and its tasks go to a live worker; `execute`
//! then re-runs the job from its progress row.
//!
//! An apalis worker ends for good at its first database error (a failed claim or heartbeat),
//! which a database restart causes in every worker at once. So each queue's worker runs under a
//! supervisor that starts a new one, under a new name, after a short backoff; the old one's
//! tasks are presumed dead with it and handed on once its lease expires (`supervise`).

use crate::Deps;
use crate::execute::execute;
use crate::handlers::Runners;
use crate::queue_backend::{Outcome, QueueBackend, Settings};
use crate::wakeups::{Wakeups, pg_notifications};
use apalis::prelude::*;
use jobs::queue::Claimed;
use shared::db::{Db, Ts};
use shared::job::Queue;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinHandle;

/// The running workers of this process.
pub struct Runtime {
    workers: Vec<QueueWorker>,
}

/// One queue's supervised worker: the supervisor task and the context of the apalis worker it
/// runs now (replaced at each restart; shutdown stops whichever is current).
struct QueueWorker {
    shared: Arc<Shared>,
    current: Arc<Mutex<WorkerContext>>,
    supervisor: JoinHandle<()>,
}

/// A unique worker name per process and queue (its lease row in `job_workers`).
fn worker_name(queue: Queue) -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
    format!(
        "{host}-{}-{}-{}",
        std::process::id(),
        queue.as_str(),
        shared::db::Id::new()
    )
}

/// What a queue worker's handler reaches: the process's dependencies and dispatch table (shared by all queues) and its own worker's count of running jobs.
struct Shared {
    deps: Arc<Deps>,
    runners: &'static Runners,
    running: AtomicUsize,
    queue: Queue,
    /// Set at shutdown: tasks delivered from now on are handed back, not started.
    draining: AtomicBool,
}

/// How long a task handed back at shutdown waits before any worker may take it again (so
/// the draining worker does not fetch it straight back).
const RELEASE_DELAY: chrono::Duration = chrono::Duration::seconds(1);

async fn handle(task: Claimed, shared: Data<Arc<Shared>>) -> Result<Outcome, BoxDynError> {
    let Some(job) = task.job else {
        return Ok(Outcome::Recorded); // finished, cancelled or unknown: a duplicate delivery
    };
    // Counted before the draining check (both SeqCst): shutdown sets the flag and then waits
    // for the count, so a task is either seen running or handed back, never neither.
    let _running = Running::start(&shared.running);
    if shared.draining.load(Ordering::SeqCst) {
        return Ok(Outcome::NotStarted(Ts::now().plus(RELEASE_DELAY)));
    }
    execute(&shared.deps, shared.runners, job)
        .await
        .map_err(|e| e.into())
}

/// A task counted as running from `start` until dropped: when it returns, and also when its
/// apalis worker ends under it and drops it mid-run (shutdown waits for the count).
struct Running<'a>(&'a AtomicUsize);

impl<'a> Running<'a> {
    fn start(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Running(count)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// First wait before a failed worker is started again; doubles up to [`RESTART_MAX`], and
/// starts over once a worker has run for [`RESTART_RESET`].
const RESTART_FIRST: Duration = Duration::from_millis(250);
/// Short: after a database restart, a worker is running jobs again within about this long.
const RESTART_MAX: Duration = Duration::from_secs(1);
const RESTART_RESET: Duration = Duration::from_secs(30);

/// Runs one apalis worker for `shared.queue` until it stops; answers its error, if any.
async fn run_once(
    shared: &Arc<Shared>,
    ctx: WorkerContext,
    concurrency: usize,
    batch: usize,
) -> Result<(), apalis::prelude::WorkerError> {
    let cfg = &shared.deps.worker;
    let db = &shared.deps.db;
    let liveness = &shared.deps.liveness;
    let wakeups = match liveness {
        Db::Pg(pool) => Wakeups::notified(pg_notifications(pool.clone(), shared.queue), cfg.poll),
        Db::Sqlite(..) => Wakeups::polling(cfg.poll),
    };
    let settings = Settings {
        queue: shared.queue,
        concurrency,
        batch,
        heartbeat: cfg.heartbeat,
        lease: cfg.heartbeat * cfg.lease_misses,
    };
    WorkerBuilder::new(&ctx)
        .backend(QueueBackend::new(
            db.clone(),
            liveness.clone(),
            settings,
            wakeups,
        ))
        .data(shared.clone())
        .concurrency(concurrency)
        .build(handle)
        .run()
        .await
}

/// Keeps a worker running for `shared.queue`: a worker that ends with an error (its database
/// went away) is replaced by a new one, under a new name, after a backoff, until shutdown.
async fn supervise(
    shared: Arc<Shared>,
    current: Arc<Mutex<WorkerContext>>,
    first: WorkerContext,
    concurrency: usize,
    batch: usize,
) {
    let mut ctx = first;
    let mut backoff = RESTART_FIRST;
    loop {
        let started = tokio::time::Instant::now();
        let outcome = run_once(&shared, ctx, concurrency, batch).await;
        if shared.draining.load(Ordering::SeqCst) {
            return;
        }
        match outcome {
            Ok(()) => return, // stopped on request
            Err(e) => {
                if started.elapsed() >= RESTART_RESET {
                    backoff = RESTART_FIRST;
                }
                tracing::error!(
                    queue = shared.queue.as_str(),
                    error = %e,
                    restart_in = ?backoff,
                    "worker stopped with an error; starting a new one"
                );
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(RESTART_MAX);
        ctx = WorkerContext::new(&worker_name(shared.queue));
        *current.lock().expect("worker context lock") = ctx.clone();
        if shared.draining.load(Ordering::SeqCst) {
            return;
        }
    }
}

impl Runtime {
    pub async fn start(deps: Arc<Deps>) -> anyhow::Result<Runtime> {
        let cfg = deps.worker.clone();
        let runners = crate::handlers::registry();
        let mut workers = vec![];
        for (&queue, &concurrency) in &cfg.concurrency {
            let batch = cfg.fetch_batch.get(&queue).copied().unwrap_or(concurrency);
            let ctx = WorkerContext::new(&worker_name(queue));
            let shared = Arc::new(Shared {
                deps: deps.clone(),
                runners,
                running: AtomicUsize::new(0),
                queue,
                draining: AtomicBool::new(false),
            });
            let current = Arc::new(Mutex::new(ctx.clone()));
            let supervisor = tokio::spawn(supervise(
                shared.clone(),
                current.clone(),
                ctx,
                concurrency,
                batch,
            ));
            tracing::info!(
                queue = queue.as_str(),
                concurrency,
                fetch_batch = batch,
                "worker started"
            );
            workers.push(QueueWorker {
                shared,
                current,
                supervisor,
            });
        }
        Ok(Runtime { workers })
    }

    /// Stops taking jobs, waits up to `deadline` for running ones, then releases the rest (they
    /// run again elsewhere once this worker's lease expires).
    ///
    /// Running jobs finish while apalis still drives the workers, and only then are the workers
    /// stopped: a stopping apalis worker no longer polls a claim or heartbeat already under
    /// way, and on SQLite that transaction's write lock then blocked the running jobs' own
    /// writes (measured with the stock storages: shutdown hung for the 10 s busy timeout, again
    /// and again). Meanwhile a newly
    /// delivered task is handed back to the queue rather than started.
    pub async fn shutdown(self, deadline: Duration) {
        let until = tokio::time::Instant::now() + deadline;
        for w in &self.workers {
            w.shared.draining.store(true, Ordering::SeqCst);
        }
        while self
            .workers
            .iter()
            .any(|w| w.shared.running.load(Ordering::SeqCst) > 0)
            && tokio::time::Instant::now() < until
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for w in self.workers {
            let handle = w.supervisor;
            // A worker still registering when the signal comes ignores a first stop: keep
            // asking until it has stopped.
            while !handle.is_finished() && tokio::time::Instant::now() < until {
                let ctx = w.current.lock().expect("worker context lock").clone();
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
                    worker = w.current.lock().expect("worker context lock").name(),
                    "jobs still running at the shutdown deadline; released to other workers"
                );
                handle.abort();
            }
        }
    }
}
