//! Our apalis backend over the job queue table (`jobs::queue`, migration 23), for both
//! databases. apalis stays the runtime: it drives this backend, runs the handler under its
//! concurrency limit, tracks tasks and stops the worker; the backend decides when to look for
//! work, claims it, keeps the worker's lease, and records outcomes.
//!
//! Why our own (issue 14; the measurements are in the README's job-system section): the stock
//! storages made three round trips per fetch (`BEGIN`, the fetch, `COMMIT`), fetched on every
//! wake whatever caused it, recorded each outcome as an UPDATE only between fetches, and kept
//! every finished task in the hot table (whose indexes then slowed every claim and ack). Here:
//!
//! - **Claim**: one statement claims a batch and takes its jobs' progress rows for the attempt
//!   (`jobs::queue::claim`: a data-modifying CTE on PostgreSQL), into a local buffer; each
//!   task is handed to apalis carrying its progress row ([`Claimed`]), so an attempt starts
//!   without another write. apalis asks for a task only when a concurrency slot is free; the
//!   buffer answers, and meanwhile the next claim is already out whenever the buffer has room
//!   and there is a reason to look ([`Wakeups`]; a full batch is one): claiming waited for an
//!   empty buffer before, and the slots idled through every claim's round trip (28k jobs/s
//!   with the claim the critical path).
//! - **Acks**: when the handler returns, its task is submitted to a group commit that writes
//!   acks in batches (`shared::db::group_commit`), off the job's path: the slot is free at
//!   once. A success is recorded with its ack, atomically (`jobs::queue::complete`: the task's
//!   delete and the progress row's `succeeded` in one statement on PostgreSQL); other outcomes
//!   are already in the progress row, and their ack only deletes. A batch lost to a crash
//!   means its tasks are delivered again: a finished job is then acked without running, a
//!   success that was not committed runs again (handlers are idempotent). A handler error (our
//!   own bookkeeping failed) hands the task back a little later instead; a task handed back
//!   unstarted (shutdown) has its progress claim undone.
//! - **Leases**: the worker registers and heartbeats every `heartbeat` into `job_workers`; each
//!   heartbeat hands the tasks of the queue's workers unseen for `lease` (heartbeat × lease
//!   misses) back to the queue. A failed heartbeat or claim ends the worker (apalis's model:
//!   the runtime's supervisor starts a new one, under a new name).
//! - **Close**: a claim in flight is finished, buffered tasks go back to the queue (their
//!   jobs `queued` again, the attempt uncounted), and the worker ends once every submitted ack
//!   is written.
//!
//! On SQLite every write goes through the process's write gate (`Db::begin`): a single writer.

use crate::wakeups::Wakeups;
use apalis_core::backend::finalize::Ephemeral;
use apalis_core::backend::{Backend, BackendConfig};
use apalis_core::task::Task;
use apalis_core::task::builder::TaskBuilder;
use apalis_core::task::task_id::TaskId;
use apalis_core::worker::context::WorkerContext;
use futures::FutureExt;
use futures::future::BoxFuture;
use futures::task::AtomicWaker;
use futures_timer::Delay;
use jobs::queue::{self, Claimed};
use shared::db::Id;
use shared::db::group_commit::GroupCommit;
use shared::db::{Db, Executor, Ts};
use shared::job::Queue;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

/// What the buffer holds beyond the free slots: about this much work at the recent pace
/// (at most `batch - concurrency` tasks). Enough to cover a claim's round trip, so a busy
/// worker never waits for one; little enough that slow jobs are not hoarded by one worker
/// (nor counted as attempts, as a claim counts them, long before they start).
const BUFFER_TIME: Duration = Duration::from_millis(25);
/// How often the pace is re-read.
const PACE_WINDOW: Duration = Duration::from_millis(10);
/// Most tasks one ack statement deletes.
const MAX_ACKS: usize = 1024;
/// How long a task whose handler failed (our bookkeeping, not the job) waits before any worker
/// takes it again.
const RETRY_AFTER: chrono::Duration = chrono::Duration::seconds(1);

/// One queue worker's backend settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub queue: Queue,
    /// Tasks the worker runs at once (apalis's concurrency limit).
    pub concurrency: usize,
    /// Most tasks one claim takes: beyond the free slots, up to `batch - concurrency` more
    /// wait in the local buffer, as many as [`BUFFER_TIME`] of work at the recent pace (none
    /// where the batch is the concurrency: those queues claim only what they can start, so
    /// other processes take the rest).
    pub batch: usize,
    pub heartbeat: Duration,
    /// A worker unseen for this long is presumed dead and its tasks go to others.
    pub lease: Duration,
}

type Pending<T> = Option<BoxFuture<'static, Result<T, sqlx::Error>>>;

pub struct QueueBackend {
    db: Db,
    /// Heartbeats go through their own pool (`Db::liveness_pool`): a worker whose jobs hold
    /// every connection of `db` must still say it is alive.
    liveness: Db,
    settings: Settings,
    wakeups: Wakeups,
    /// Something says due tasks may be waiting: claim when the buffer has room.
    dirty: bool,
    buffer: VecDeque<Claimed>,
    /// A claim in flight, and how many tasks it asked for.
    claim: Pending<Vec<Claimed>>,
    asked: usize,
    pace: Pace,
    registered: bool,
    beat: Pending<u64>,
    next_beat: Delay,
    acks: Option<Acks>,
    /// Tasks handed to apalis so far.
    delivered: u64,
}

impl QueueBackend {
    pub fn new(db: Db, liveness: Db, settings: Settings, wakeups: Wakeups) -> Self {
        let next_beat = Delay::new(settings.heartbeat);
        let pace = Pace::new(settings.concurrency);
        QueueBackend {
            db,
            liveness,
            settings,
            wakeups,
            dirty: true,
            buffer: VecDeque::new(),
            claim: None,
            asked: 0,
            pace,
            registered: false,
            beat: None,
            next_beat,
            acks: None,
            delivered: 0,
        }
    }

    fn heartbeat(&self, worker: &WorkerContext) -> BoxFuture<'static, Result<u64, sqlx::Error>> {
        let db = self.liveness.clone();
        let name = worker.name().to_string();
        let queue = self.settings.queue;
        let lease = chrono::Duration::from_std(self.settings.lease).unwrap_or_default();
        async move {
            let mut tx = db.begin().await?;
            let rescued = queue::heartbeat(&mut tx, queue, &name, Ts::now(), lease).await?;
            tx.commit().await?;
            if rescued > 0 {
                tracing::info!(
                    queue = queue.as_str(),
                    rescued,
                    "tasks of a worker presumed dead handed back to the queue"
                );
            }
            Ok::<_, sqlx::Error>(rescued)
        }
        .boxed()
    }

    /// How many tasks to claim now: the free slots (apalis asks only with one free, and
    /// counts the running ones) and the buffer's allowance, less what the buffer holds.
    /// Claiming whenever there is room keeps a claim in flight while tasks run, each sized by
    /// what ran while the last one was out.
    fn room(&self, worker: &WorkerContext) -> usize {
        let s = &self.settings;
        let free = s.concurrency.saturating_sub(worker.task_count()).max(1);
        let allowance = self
            .pace
            .tasks_in(BUFFER_TIME)
            .min(s.batch.saturating_sub(s.concurrency));
        (allowance + free)
            .min(s.batch.max(1))
            .saturating_sub(self.buffer.len())
    }

    fn claim(
        &self,
        worker: &WorkerContext,
        limit: usize,
    ) -> BoxFuture<'static, Result<Vec<Claimed>, sqlx::Error>> {
        let db = self.db.clone();
        let name = worker.name().to_string();
        let queue = self.settings.queue;
        async move {
            let mut w = Writer::open(&db).await?;
            let claimed = queue::claim(&mut w, queue, &name, limit, Ts::now()).await?;
            w.done().await?;
            Ok::<_, sqlx::Error>(claimed)
        }
        .boxed()
    }

    /// Drives a heartbeat in flight, or starts one when due; answers an error that must end
    /// the worker.
    fn poll_beat(
        &mut self,
        cx: &mut Context<'_>,
        worker: &WorkerContext,
    ) -> Result<(), sqlx::Error> {
        loop {
            if let Some(beat) = &mut self.beat {
                let Poll::Ready(r) = beat.poll_unpin(cx) else {
                    return Ok(());
                };
                self.beat = None;
                self.next_beat = Delay::new(self.settings.heartbeat);
                if r? > 0 {
                    self.dirty = true;
                }
                worker.heartbeat(cx); // apalis's heartbeat event
            } else if Pin::new(&mut self.next_beat).poll(cx).is_ready() {
                self.beat = Some(self.heartbeat(worker));
            } else {
                return Ok(());
            }
        }
    }

    /// The task for a claimed row. Its apalis id is the row and a delivery number: apalis
    /// refuses (panics on) a second task with the id of one still running, and a row can come
    /// back to the same worker while it still runs it (a lease that lapsed under a stall).
    fn task(&mut self, c: Claimed) -> Task<Claimed> {
        self.delivered += 1;
        let id = TaskId::from_string(format!("{}.{}", c.id, self.delivered));
        TaskBuilder::new(c).task_id(id).build()
    }
}

/// Tasks handed to apalis per second lately, re-read every [`PACE_WINDOW`] or longer (a worker
/// idle for a while, or running slow jobs, reads as slow: its next claim takes only the free
/// slots, and grows from there).
/// A window opens at a delivery, not before: the time a new worker spent starting is not
/// work, and one delivery over it would read as a pace.
struct Pace {
    since: Option<std::time::Instant>,
    counted: u32,
    /// Deliveries a window needs before it is read: more than one burst of the worker's
    /// slots, so slow jobs that start together do not read as a fast pace.
    sample: u32,
    per_sec: f64,
}

impl Pace {
    fn new(concurrency: usize) -> Pace {
        Pace {
            since: None,
            counted: 0,
            sample: u32::try_from(concurrency)
                .unwrap_or(u32::MAX)
                .saturating_add(1),
            per_sec: 0.0,
        }
    }

    fn count(&mut self) {
        self.count_at(std::time::Instant::now());
    }

    fn count_at(&mut self, now: std::time::Instant) {
        let since = *self.since.get_or_insert(now);
        self.counted += 1;
        let elapsed = now - since;
        if elapsed >= PACE_WINDOW && self.counted >= self.sample {
            self.per_sec = self.counted as f64 / elapsed.as_secs_f64();
            self.since = Some(now);
            self.counted = 0;
        }
    }

    /// About how many tasks run in `span` at this pace.
    fn tasks_in(&self, span: Duration) -> usize {
        self.tasks_in_at(std::time::Instant::now(), span)
    }

    fn tasks_in_at(&self, now: std::time::Instant, span: Duration) -> usize {
        // A window left open long ago means the worker has been idle since.
        let stale = self.since.is_none_or(|s| now - s > PACE_WINDOW * 10);
        let per_sec = if stale { 0.0 } else { self.per_sec };
        (per_sec * span.as_secs_f64()) as usize
    }
}

/// One write: a pooled connection on PostgreSQL (each statement commits by itself: no
/// transaction round trips), a transaction through the write gate on SQLite (and on
/// PostgreSQL where several statements must commit together).
enum Writer {
    Pg(shared::db::Conn),
    Tx(shared::db::Tx),
}

impl Executor for Writer {
    fn conn(&mut self) -> shared::db::DbConn<'_> {
        match self {
            Writer::Pg(c) => c.conn(),
            Writer::Tx(t) => t.conn(),
        }
    }

    // The queue's writes touch nothing the auth cache holds; delegated for completeness.
    fn auth_changed(&mut self, change: shared::db::AuthChange) {
        match self {
            Writer::Pg(c) => c.auth_changed(change),
            Writer::Tx(t) => t.auth_changed(change),
        }
    }
}

impl Writer {
    async fn open(db: &Db) -> Result<Writer, sqlx::Error> {
        Ok(match db {
            Db::Pg(_) => Writer::Pg(db.acquire().await?),
            Db::Sqlite(..) => Writer::Tx(db.begin().await?),
        })
    }

    async fn done(self) -> Result<(), sqlx::Error> {
        match self {
            Writer::Pg(_) => Ok(()),
            Writer::Tx(t) => t.commit().await,
        }
    }
}

impl Backend for QueueBackend {
    type Task = Task<Claimed>;
    type Error = sqlx::Error;

    fn poll_ready(
        &mut self,
        cx: &mut Context<'_>,
        worker: &WorkerContext,
    ) -> Poll<Result<(), sqlx::Error>> {
        if !self.registered {
            // Registering is the first heartbeat: a worker claims nothing before its row
            // exists (another worker's heartbeat would hand its tasks straight back).
            if self.beat.is_none() {
                self.beat = Some(self.heartbeat(worker));
            }
            let beat = self.beat.as_mut().expect("set above");
            match beat.poll_unpin(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(r) => {
                    self.beat = None;
                    r?;
                    worker.heartbeat(cx);
                    self.registered = true;
                    self.next_beat = Delay::new(self.settings.heartbeat);
                }
            }
        }
        Poll::Ready(self.poll_beat(cx, worker))
    }

    fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
        worker: &WorkerContext,
    ) -> Poll<Option<Result<Task<Claimed>, sqlx::Error>>> {
        if self.wakeups.poll(cx) {
            self.dirty = true;
        }
        loop {
            if let Some(claim) = &mut self.claim
                && let Poll::Ready(r) = claim.poll_unpin(cx)
            {
                self.claim = None;
                let rows = match r {
                    Ok(rows) => rows,
                    Err(e) => return Poll::Ready(Some(Err(e))),
                };
                // A full claim may have left more behind.
                if rows.len() >= self.asked {
                    self.dirty = true;
                }
                self.buffer.extend(rows);
            }
            // Claim ahead: the next batch is on its way while the buffered tasks run.
            if self.claim.is_none() && self.dirty {
                let room = self.room(worker);
                if room > 0 {
                    self.dirty = false;
                    self.asked = room;
                    self.claim = Some(self.claim(worker, room));
                    continue; // polled at once, so its answer wakes this worker
                }
            }
            return match self.buffer.pop_front() {
                Some(c) => {
                    self.pace.count();
                    Poll::Ready(Some(Ok(self.task(c))))
                }
                None => Poll::Pending,
            };
        }
    }

    fn poll_close(
        &mut self,
        cx: &mut Context<'_>,
        _worker: &WorkerContext,
    ) -> Poll<Result<(), sqlx::Error>> {
        self.beat = None;
        if let Some(claim) = &mut self.claim {
            // Finish it, so its tasks are handed back now rather than after the lease.
            let Poll::Ready(r) = claim.poll_unpin(cx) else {
                return Poll::Pending;
            };
            self.claim = None;
            if let Ok(rows) = r {
                self.buffer.extend(rows);
            }
        }
        let Some(acks) = &self.acks else {
            return Poll::Ready(Ok(()));
        };
        let now = Ts::now();
        for c in self.buffer.drain(..) {
            acks.send(unstarted(c, now));
        }
        acks.poll_flushed(cx).map(Ok)
    }
}

impl BackendConfig for QueueBackend {
    type Args = Claimed;
    type Id = u64;
    type Kind = Ephemeral;
    type Config = Settings;
    type Layer = AckLayer;

    fn config(&self) -> &Settings {
        &self.settings
    }

    fn middleware(&mut self, worker: &mut WorkerContext) -> AckLayer {
        let acks = Acks::start(
            self.db.clone(),
            self.settings.queue,
            worker.name().to_string(),
        );
        self.acks = Some(acks.clone());
        AckLayer { acks }
    }
}

/// What the handler answers for a delivered task (the backend's middleware acks by it).
#[derive(Debug)]
pub enum Outcome {
    /// The job's outcome is in its progress row (or it had none to run: finished, cancelled,
    /// a duplicate): delete the task.
    Recorded,
    /// The job succeeded with this result: record it in its progress row and delete the task,
    /// one atomic write in the next batch of acks (`jobs::queue::complete`).
    Succeeded(Id, serde_json::Value),
    /// Not started (the worker is draining): back to the queue, runnable from the given time,
    /// its claim not counted as an attempt.
    NotStarted(Ts),
}

/// What becomes of a task once its handler returned.
#[derive(Debug)]
enum Ack {
    /// Its outcome is recorded: delete it.
    Done(i64),
    /// Its job succeeded: record the result and delete it, atomically.
    Succeeded(queue::Success),
    /// Hand it back to the queue, runnable from then.
    Release(i64, Ts),
    /// Never started: hand it back, runnable from then, its claim uncounted.
    Unstart(i64, Ts),
}

/// The ack of a claimed task handed back without running, runnable from `at`.
fn unstarted(c: Claimed, at: Ts) -> Ack {
    Ack::Unstart(c.id, at)
}

/// A worker's acks: submitted without waiting, written in batches by a group commit.
#[derive(Clone)]
struct Acks {
    commit: GroupCommit<Ack, ()>,
    pending: Arc<Unwritten>,
}

/// Acks submitted and not yet written (or given up), and who waits for none to be left.
#[derive(Default)]
struct Unwritten {
    count: AtomicUsize,
    waker: AtomicWaker,
}

impl Acks {
    fn start(db: Db, queue: Queue, worker: String) -> Acks {
        let pending = Arc::new(Unwritten::default());
        let p = pending.clone();
        let commit = GroupCommit::spawn(MAX_ACKS, move |batch: Vec<Ack>| {
            let (db, worker, p) = (db.clone(), worker.clone(), p.clone());
            async move {
                let n = batch.len();
                write_acks(&db, queue, &worker, batch).await;
                p.count.fetch_sub(n, Ordering::SeqCst);
                p.waker.wake();
                Ok(vec![(); n])
            }
        });
        Acks { commit, pending }
    }

    fn send(&self, ack: Ack) {
        self.pending.count.fetch_add(1, Ordering::SeqCst);
        if self.commit.submit(ack).is_err() {
            self.pending.count.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn poll_flushed(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.pending.waker.register(cx.waker());
        if self.pending.count.load(Ordering::SeqCst) == 0 {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Writes one batch of acks, retrying through a database outage for about half a minute. After
/// that they are given up: their tasks run again once the worker's lease lapses (it failed
/// too by then), and find their jobs finished, or run again (handlers are idempotent) where the
/// success was in the lost batch.
async fn write_acks(db: &Db, queue: Queue, worker: &str, batch: Vec<Ack>) {
    let n = batch.len();
    let (mut done, mut succeeded, mut back, mut unstarted) = (vec![], vec![], vec![], vec![]);
    for a in batch {
        match a {
            Ack::Done(id) => done.push(id),
            Ack::Succeeded(s) => succeeded.push(s),
            Ack::Release(id, at) => back.push((id, at)),
            Ack::Unstart(id, at) => {
                back.push((id, at));
                unstarted.push(id);
            }
        }
    }
    // Hand-backs (rare: shutdown, our own failures) write more than one statement: one
    // transaction then. Deletes and successes are one statement on PostgreSQL.
    let several = !back.is_empty();
    let mut wait = Duration::from_millis(50);
    for attempt in 1.. {
        let r = async {
            let mut w = if several {
                Writer::Tx(db.begin().await?)
            } else {
                Writer::open(db).await?
            };
            queue::complete(&mut w, worker, &done, &succeeded).await?;
            // Before the release, which clears the lock these match on.
            queue::uncount(&mut w, worker, &unstarted).await?;
            for (id, at) in &back {
                queue::release(&mut w, queue, worker, &[*id], *at).await?;
            }
            w.done().await?;
            Ok::<_, sqlx::Error>(())
        }
        .await;
        match r {
            Ok(()) => return,
            Err(e) if attempt < 12 => {
                tracing::warn!(error = %e, attempt, "writing finished tasks failed; retrying");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(4));
            }
            Err(e) => {
                tracing::error!(error = %e, tasks = n, "giving up on finished tasks: they run again after the lease");
                return;
            }
        }
    }
}

/// The queue row of a task id made by [`QueueBackend::task`].
fn row_of(id: &TaskId) -> Option<i64> {
    id.as_string()?.split('.').next()?.parse().ok()
}

/// The backend's middleware: acks each task when its handler returns.
#[derive(Clone)]
pub struct AckLayer {
    acks: Acks,
}

impl<S> tower::Layer<S> for AckLayer {
    type Service = AckService<S>;

    fn layer(&self, inner: S) -> AckService<S> {
        AckService {
            inner,
            acks: self.acks.clone(),
        }
    }
}

#[derive(Clone)]
pub struct AckService<S> {
    inner: S,
    acks: Acks,
}

impl<S> tower::Service<Task<Claimed>> for AckService<S>
where
    S: tower::Service<Task<Claimed>, Response = Outcome>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, task: Task<Claimed>) -> Self::Future {
        let row = task.ctx().task_id().and_then(row_of);
        let acks = self.acks.clone();
        let run = self.inner.call(task);
        async move {
            let mut r = run.await;
            // A task dropped mid-run (its worker ended) is not acked: its lease hands it on.
            if let Some(row) = row {
                acks.send(match &mut r {
                    Ok(Outcome::Recorded) => Ack::Done(row),
                    Ok(Outcome::Succeeded(job_id, result)) => Ack::Succeeded(queue::Success {
                        task: row,
                        job_id: *job_id,
                        result: std::mem::take(result),
                    }),
                    Ok(Outcome::NotStarted(at)) => Ack::Unstart(row, *at),
                    Err(_) => Ack::Release(row, Ts::now().plus(RETRY_AFTER)),
                });
            }
            r
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pace_counts_deliveries_from_the_first_and_forgets_an_idle_spell() {
        let t0 = std::time::Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut p = Pace::new(4);
        // A new worker's first burst is no pace yet, however long it took to start (a
        // window opened at its start read one delivery over 12 ms as 83 a second).
        for _ in 0..4 {
            p.count_at(ms(12));
        }
        assert_eq!(p.tasks_in_at(ms(13), BUFFER_TIME), 0);
        // One delivery a millisecond: about 1,000 a second, 25 in the buffer's 25 ms.
        for n in 1..=20 {
            p.count_at(ms(12 + n));
        }
        let busy = p.tasks_in_at(ms(33), BUFFER_TIME);
        assert!((20..=40).contains(&busy), "{busy}");
        // Idle for a while: no allowance until deliveries come again.
        assert_eq!(p.tasks_in_at(ms(300), BUFFER_TIME), 0);
        // Slow jobs on four slots, finishing two and two 12 ms apart: 4 a second (not the
        // 166 of two deliveries over 12 ms).
        let mut p = Pace::new(4);
        for burst in 0..3 {
            let at = 1_000 * burst;
            p.count_at(ms(at));
            p.count_at(ms(at));
            p.count_at(ms(at + 12));
            p.count_at(ms(at + 12));
            assert_eq!(p.tasks_in_at(ms(at + 13), BUFFER_TIME), 0, "burst {burst}");
        }
    }

    #[tokio::test]
    async fn a_task_id_names_its_row_and_differs_per_delivery() {
        let dir = std::env::temp_dir().join(format!("queue-backend-{}", shared::db::Id::new()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}/t.db", dir.display());
        let db = Db::connect(&url, &Default::default()).await.unwrap();
        let settings = Settings {
            queue: Queue::Default,
            concurrency: 2,
            batch: 4,
            heartbeat: Duration::from_secs(1),
            lease: Duration::from_secs(2),
        };
        let mut b = QueueBackend::new(
            db.clone(),
            db,
            settings,
            Wakeups::polling(Duration::from_secs(1)),
        );
        let c = Claimed {
            id: 42,
            job_id: shared::db::Id::new(),
            job: None,
        };
        let (t1, t2) = (b.task(c.clone()), b.task(c.clone()));
        let (id1, id2) = (t1.ctx().task_id().unwrap(), t2.ctx().task_id().unwrap());
        assert_ne!(
            id1, id2,
            "a second delivery of one row is another apalis task"
        );
        assert_eq!((row_of(id1), row_of(id2)), (Some(42), Some(42)));
        assert_eq!(t1.args.job_id, c.job_id);
        assert_eq!(row_of(&TaskId::from_string("nope")), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
