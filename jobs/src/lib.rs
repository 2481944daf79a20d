//! The job queue's runtime: progress rows, the queue table's claims, retries' backoff, the
//! scheduler's ticks, metrics and the admin's reads.
//!
//! What a job is and the one way to enqueue it are `shared::job` (so the domain enqueues inside
//! its own transactions). A job is a row in `job_progress` (kind, payload, status, attempts,
//! percent, message, result, error: the one source of truth the api reads back) plus a task in
//! our queue table (`job_queue`, [`queue`]) that only carries the job id. The worker (crate
//! `worker`) runs tasks through apalis, over its own backend for that table, and records every
//! outcome in the progress row; retries are scheduled by the worker as new queue tasks with a
//! future `run_at`, so a backoff survives restarts.

pub mod cron;
pub mod diagnostics;
pub mod metrics;
pub mod monitor;
pub mod progress;
pub mod queue;

use serde::{Deserialize, Serialize};
use shared::db::Id;
use std::time::Duration;

/// What an apalis task carries: only the job's id; everything else is in the progress row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobRef {
    pub id: Id,
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
