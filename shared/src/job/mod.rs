//! What a durable job is and the one way to enqueue it.
//!
//! A job type is a serde payload that implements [`Job`]: its stable name, queue, retry policy
//! and idempotency key sit beside the payload, in its area's `jobs` module
//! (`domain::<area>::jobs`). A domain operation enqueues with [`enqueue`] inside its own
//! transaction, so a job exists exactly when the write that needed it committed. The worker
//! (crate `worker`) registers each type's run with one line and records every outcome in the
//! job's progress row; the crate `jobs` holds the queue's runtime (claims, progress, retries,
//! the scheduler's tasks).
//!
//! A job is a row in `job_progress` (the one source of truth the api reads back) plus a task
//! in `job_queue` that only carries the job id ([`rows`]).

use crate::db::{Executor, Id, Ts};
mod rows;
pub mod scheduled;

pub use rows::{is_live, live_with_key, push};
use serde::Serialize;
use serde_json::Value;

crate::text_enum! {
    /// The queues a worker serves, each with its own concurrency (see `WORKER_CONCURRENCY`).
    /// The spelling is `job_queue.queue` and `job_progress.queue`.
    pub enum Queue {
        /// Short database work: clean-ups, imports of small files, fan-out.
        Default = "default",
        /// Calls to external providers (analysis backend, heat and tour providers, forecasts).
        Providers = "providers",
        /// Video and file work (downloads, probes, storage copies).
        Media = "media",
        /// Mail, push and SMS delivery.
        Notify = "notify",
    }
}

/// A job type: a serde payload with a stable name, a queue, a retry policy and an idempotency
/// key derived from the payload.
pub trait Job: Serialize + Send + Sync {
    /// Stable name, stored in every row; never rename one that has been deployed.
    const KIND: &'static str;
    const QUEUE: Queue;
    /// Attempts including the first; a transient failure after the last one fails the job.
    const MAX_ATTEMPTS: u32 = 5;
    /// Whether `POST /api/jobs/{id}/cancel` may cancel it.
    const CANCELLABLE: bool = false;

    /// Jobs with the same kind and key are one job while it is queued or running: enqueueing
    /// again returns the live one. `None`: every enqueue is a new job.
    fn idempotency_key(&self) -> Option<String>;

    fn spec(&self) -> JobSpec {
        JobSpec {
            kind: Self::KIND.to_string(),
            queue: Self::QUEUE,
            max_attempts: Self::MAX_ATTEMPTS,
            idempotency_key: self.idempotency_key(),
            payload: serde_json::to_value(self).expect("job payloads serialize"),
        }
    }
}

/// A job ready to enqueue: what [`Job::spec`] produces, and what a scheduled task builds
/// (`jobs::cron`), whose kind is a value rather than a type.
#[derive(Clone, Debug)]
pub struct JobSpec {
    pub kind: String,
    pub queue: Queue,
    pub max_attempts: u32,
    pub idempotency_key: Option<String>,
    pub payload: Value,
}

/// Who a job belongs to: its workspace (whose members may read it) and the user who caused it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Owner {
    pub org_id: Option<Id>,
    pub user_id: Option<Id>,
}

impl Owner {
    pub fn new(org_id: Id, user_id: Option<Id>) -> Owner {
        Owner {
            org_id: Some(org_id),
            user_id,
        }
    }
}

/// A job enqueued: its id, and whether a live job with the same key was returned instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enqueued {
    pub id: Id,
    /// True when a live job with the same idempotency key already existed and was returned.
    pub existing: bool,
}

/// The metric counting new jobs (`jobs::metrics` describes it).
pub const ENQUEUED_METRIC: &str = "jobs_enqueued_total";

/// Enqueues `job` in the caller's transaction: inserts the progress row and the queue task.
/// With an idempotency key whose job is still queued or running, returns that job instead.
pub async fn enqueue(
    tx: &mut impl Executor,
    job: &impl Job,
    owner: Owner,
) -> Result<Enqueued, sqlx::Error> {
    enqueue_spec(tx, &job.spec(), owner, Ts::now()).await
}

/// Like [`enqueue`], not to start before `run_after`.
pub async fn enqueue_at(
    tx: &mut impl Executor,
    job: &impl Job,
    owner: Owner,
    run_after: Ts,
) -> Result<Enqueued, sqlx::Error> {
    enqueue_spec(tx, &job.spec(), owner, run_after).await
}

/// What [`enqueue`] does, for a job whose type is a value (a scheduled task).
pub async fn enqueue_spec(
    tx: &mut impl Executor,
    spec: &JobSpec,
    owner: Owner,
    run_after: Ts,
) -> Result<Enqueued, sqlx::Error> {
    match rows::insert(tx, spec, owner, run_after).await? {
        Some(id) => {
            rows::push(tx, spec.queue, id, run_after, 0).await?;
            // Counted when written: a transaction rolled back after this still counted it.
            metrics::counter!(
                ENQUEUED_METRIC,
                "kind" => spec.kind.clone(),
                "queue" => spec.queue.as_str()
            )
            .increment(1);
            Ok(Enqueued {
                id,
                existing: false,
            })
        }
        None => {
            let key = spec.idempotency_key.as_deref().unwrap_or_default();
            let id = rows::live_with_key(tx, &spec.kind, key)
                .await?
                .ok_or_else(|| sqlx::Error::Protocol("deduplicated job vanished".into()))?;
            Ok(Enqueued { id, existing: true })
        }
    }
}
