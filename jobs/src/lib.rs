//! Durable jobs: what a job is, how it is enqueued, and its progress row.
//!
//! A job is a row in `job_progress` (kind, payload, status, attempts, percent, message, result,
//! error: the one source of truth the api reads back) plus a task in our queue table
//! (`job_queue`, [`queue`]) that only carries the job id. Both are written in the caller's
//! transaction, so a job exists exactly when the write that needed it committed. The worker
//! (crate `worker`) runs tasks through apalis, over its own backend for that table, and records
//! every outcome in the progress row; retries are scheduled by the worker as new queue tasks
//! with a future `run_at`, so a backoff survives restarts.

pub mod billing;
pub mod cron;
pub mod diagnostics;
pub mod footage;
pub mod kinds;
pub mod metrics;
pub mod monitor;
pub mod notify;
pub mod progress;
pub mod queue;
pub mod reviews;
pub mod wearable;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Executor, Id, Ts};
use std::time::Duration;

shared::text_enum! {
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

/// A job ready to enqueue (what [`Job::spec`] produces; scheduled jobs build it directly).
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

/// What an apalis task carries: only the job's id; everything else is in the progress row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobRef {
    pub id: Id,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enqueued {
    pub id: Id,
    /// True when a live job with the same idempotency key already existed and was returned.
    pub existing: bool,
}

/// Enqueues `spec` in the caller's transaction: inserts the progress row and the queue task.
/// With an idempotency key whose job is still queued or running, returns that job instead.
pub async fn enqueue(
    tx: &mut impl Executor,
    spec: &JobSpec,
    owner: Owner,
) -> Result<Enqueued, sqlx::Error> {
    enqueue_at(tx, spec, owner, Ts::now()).await
}

/// Like [`enqueue`], not to start before `run_after`.
pub async fn enqueue_at(
    tx: &mut impl Executor,
    spec: &JobSpec,
    owner: Owner,
    run_after: Ts,
) -> Result<Enqueued, sqlx::Error> {
    match progress::insert(tx, spec, owner, run_after).await? {
        Some(id) => {
            queue::push(tx, spec.queue, id, run_after, 0).await?;
            // Counted when written: a transaction rolled back after this still counted it.
            crate::metrics::enqueued(&spec.kind, spec.queue);
            Ok(Enqueued {
                id,
                existing: false,
            })
        }
        None => {
            let key = spec.idempotency_key.as_deref().unwrap_or_default();
            let id = progress::live_with_key(tx, &spec.kind, key)
                .await?
                .ok_or_else(|| sqlx::Error::Protocol("deduplicated job vanished".into()))?;
            Ok(Enqueued { id, existing: true })
        }
    }
}

/// Exponential backoff after attempt `n` (1-based): base, 2×base, 4×base, … capped at 1 hour.
/// The base is 10 s in production (`WORKER_BACKOFF_BASE_MS`).
pub fn backoff(attempt: u32, base: Duration) -> Duration {
    let factor = 1u32 << attempt.saturating_sub(1).min(16);
    base.saturating_mul(factor).min(Duration::from_secs(3600))
}

/// How a job handler fails.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Bad input, a provider's 4xx, a provider not configured: retrying cannot help.
    #[error("{0}")]
    Permanent(String),
    /// A timeout, a 5xx, a lost connection: retried with backoff.
    #[error("{0}")]
    Transient(String),
    /// Like `Transient`, but the provider said how long to wait (a 429's `Retry-After`): the
    /// retry comes no sooner than that, nor sooner than the backoff.
    #[error("{message}")]
    TransientAfter { message: String, after: Duration },
    /// The job saw its cancellation request and stopped.
    #[error("cancelled")]
    Cancelled,
}

impl JobError {
    /// The earliest a retry may run, from the attempt that just failed (1-based) and the
    /// backoff base; `None` when the error is not retried.
    pub fn retry_delay(&self, attempt: u32, base: Duration) -> Option<Duration> {
        match self {
            JobError::Transient(_) => Some(backoff(attempt, base)),
            JobError::TransientAfter { after, .. } => Some(
                backoff(attempt, base)
                    .max(*after)
                    .min(Duration::from_secs(3600)),
            ),
            JobError::Permanent(_) | JobError::Cancelled => None,
        }
    }
}

impl From<sqlx::Error> for JobError {
    fn from(e: sqlx::Error) -> Self {
        JobError::Transient(format!("database: {e}"))
    }
}

impl From<shared::providers::ProviderError> for JobError {
    fn from(e: shared::providers::ProviderError) -> Self {
        match e.retry_after() {
            _ if e.is_permanent() => JobError::Permanent(e.to_string()),
            Some(after) => JobError::TransientAfter {
                message: e.to_string(),
                after,
            },
            None => JobError::Transient(e.to_string()),
        }
    }
}

/// A domain operation's error as a job outcome: a busy database, a provider outage or an
/// internal failure may pass, so they are retried; anything else (bad input, not found, a
/// conflict, a provider not configured) would fail the same way again.
impl From<shared::Error> for JobError {
    fn from(e: shared::Error) -> Self {
        use shared::ErrorKind::*;
        let transient = matches!(e.kind, Internal | ProviderFailed)
            || (e.kind == Unavailable && e.code != "provider_not_configured");
        if transient {
            JobError::Transient(e.to_string())
        } else {
            JobError::Permanent(e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn domain_errors_become_permanent_or_transient_by_kind() {
        use super::JobError;
        let e: JobError = shared::Error::not_found("athlete").into();
        assert!(matches!(e, JobError::Permanent(_)));
        let e: JobError = shared::Error::provider_not_configured("sms").into();
        assert!(matches!(e, JobError::Permanent(_)));
        let e: JobError = shared::Error::unavailable("unavailable", "busy", 1).into();
        assert!(matches!(e, JobError::Transient(_)));
    }

    #[test]
    fn a_retry_after_delays_the_retry_but_never_below_the_backoff() {
        use super::JobError;
        use shared::providers::ProviderError;
        use std::time::Duration;
        let base = Duration::from_secs(10);
        let limited = |after| ProviderError::RateLimited {
            provider: "model",
            retry_after: after,
        };
        let e: JobError = limited(Some(Duration::from_secs(90))).into();
        assert_eq!(e.retry_delay(1, base), Some(Duration::from_secs(90)));
        assert_eq!(e.retry_delay(5, base), Some(Duration::from_secs(160)));
        let e: JobError = limited(Some(Duration::from_secs(86_400))).into();
        assert_eq!(e.retry_delay(1, base), Some(Duration::from_secs(3600)));
        let e: JobError = limited(None).into();
        assert!(matches!(e, JobError::Transient(_)));
        assert_eq!(e.retry_delay(2, base), Some(Duration::from_secs(20)));
        assert_eq!(JobError::Permanent("no".into()).retry_delay(1, base), None);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let base = std::time::Duration::from_secs(10);
        assert_eq!(super::backoff(1, base).as_secs(), 10);
        assert_eq!(super::backoff(2, base).as_secs(), 20);
        assert_eq!(super::backoff(4, base).as_secs(), 80);
        assert_eq!(super::backoff(30, base).as_secs(), 3600);
    }
}
