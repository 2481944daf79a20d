//! One attempt of one job: run the handler on the progress row the queue's claim took
//! (`jobs::queue::claim`), record the outcome.
//!
//! Every outcome ends in the progress row. A success is recorded together with its task's ack,
//! by the queue backend's batched write (`jobs::queue::complete`), so the job's slot is free
//! at once; failures, retries and cancellations are written here, then acked. Handlers are
//! idempotent, so a task delivered twice (a worker killed after the work, before its ack)
//! finds the row finished and does nothing, and a job re-run after a crash (its success not
//! yet committed) starts over. Transient failures are retried by writing the
//! row back to `queued` and pushing a new queue task with a future `run_at`, in one
//! transaction: the backoff waits in the database, so a restart neither loses nor hurries it.

use crate::Deps;
use crate::handlers::{Ctx, Runners};
use crate::queue_backend::Outcome;
use futures::FutureExt;
use jobs::JobError;
use jobs::progress::{self, Attempt};
use serde_json::Value;
use shared::db::Ts;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

/// Runs one attempt of `job` (claimed with its queue task, this attempt counted on the task)
/// with its kind's runner. An `Err` means our own bookkeeping failed (the database is
/// unreachable); the task is then handed back and delivered again.
pub async fn execute(
    deps: &Arc<Deps>,
    runners: &Runners,
    job: Attempt,
) -> Result<Outcome, sqlx::Error> {
    let id = job.id;
    // A connection only for these two rare outcomes: acquiring one pings it on PostgreSQL, a
    // round trip every job would pay.
    if job.cancel_requested {
        progress::mark_cancelled(&mut deps.db.acquire().await?, id).await?;
        return Ok(Outcome::Recorded);
    }
    if job.attempts > job.max_attempts {
        // Only a crash between claim and outcome gets here (each crash re-delivers the task).
        let mut c = deps.db.acquire().await?;
        progress::mark_started(&mut c, id, job.attempts, Ts::now()).await?;
        progress::fail(
            &mut c,
            id,
            &format!(
                "gave up after {} attempts: the worker stopped mid-run each time",
                job.max_attempts
            ),
        )
        .await?;
        jobs::metrics::failed(&job.kind, job.queue);
        return Ok(Outcome::Recorded);
    }
    let waited = (Ts::now().0 - job.run_after.0).to_std().unwrap_or_default();
    jobs::metrics::started(&job.kind, job.queue, waited);
    // Attached to the futures with `instrument`: a span guard held across `.await` can be
    // entered on another thread and made tracing-subscriber panic (seen under load).
    let span = tracing::info_span!("job", job_id = %id, kind = %job.kind, attempt = job.attempts);
    let ctx = Ctx {
        deps: deps.clone(),
        job_id: id,
        org_id: job.org_id,
        attempt: job.attempts as u32,
        max_attempts: job.max_attempts as u32,
    };
    let began = std::time::Instant::now();
    let started = Ts::now();
    let run =
        AssertUnwindSafe(runners.dispatch(&ctx, &job.kind, job.payload.0.clone())).catch_unwind();
    let outcome = marked_if_slow(deps, &job, started, run)
        .instrument(span.clone())
        .await
        .unwrap_or_else(|_| Err(JobError::Transient("the job handler panicked".into())));
    jobs::metrics::ran(&job.kind, job.queue, began.elapsed());
    record(deps, &job, started, outcome).instrument(span).await
}

/// How long a job runs before its progress row is marked `running`. The claim leaves the row
/// as it was (`jobs::queue::claim`), and most jobs finish sooner: their success is then the
/// row's only write. A client polling a job sees `running` within this time.
const MARK_AFTER: std::time::Duration = std::time::Duration::from_millis(20);

/// Runs `run`, marking the job `running` if it is still going after [`MARK_AFTER`] (the mark
/// runs beside the job; if it fails, the outcome's write still says how the job ended).
async fn marked_if_slow<T>(
    deps: &Deps,
    job: &Attempt,
    started: Ts,
    run: impl std::future::Future<Output = T>,
) -> T {
    let mut run = std::pin::pin!(run);
    tokio::select! {
        biased;
        out = &mut run => out,
        () = tokio::time::sleep(MARK_AFTER) => {
            let mark = async {
                let mut c = deps.db.acquire().await?;
                progress::mark_started(&mut c, job.id, job.attempts, started).await
            };
            let (out, marked) = tokio::join!(run, mark);
            if let Err(e) = marked {
                tracing::warn!(error = %e, "marking a job running failed");
            }
            out
        }
    }
}

/// Records a failure, retry or cancellation in the progress row (marked started first: the
/// attempt is counted there); a success is handed to the queue backend, which records it with
/// the task's ack (one batched write, off the job's path).
async fn record(
    deps: &Deps,
    job: &Attempt,
    started: Ts,
    outcome: Result<Value, JobError>,
) -> Result<Outcome, sqlx::Error> {
    match outcome {
        Ok(result) => {
            jobs::metrics::succeeded(&job.kind, job.queue);
            // Debug: a line per success would be most of the log (and of the worker's CPU per
            // short job); successes are counted in the metrics, failures logged as warnings.
            tracing::debug!("job succeeded");
            return Ok(Outcome::Succeeded(job.id, result));
        }
        Err(JobError::Cancelled) => {
            let mut c = deps.db.acquire().await?;
            progress::mark_started(&mut c, job.id, job.attempts, started).await?;
            progress::mark_cancelled(&mut c, job.id).await?;
            tracing::info!("job cancelled");
        }
        Err(JobError::Permanent(e)) => {
            let mut c = deps.db.acquire().await?;
            progress::mark_started(&mut c, job.id, job.attempts, started).await?;
            progress::fail(&mut c, job.id, &e).await?;
            jobs::metrics::failed(&job.kind, job.queue);
            tracing::warn!(error = %e, "job failed permanently");
        }
        Err(e) => match e.retry_delay(job.attempts as u32, deps.worker.backoff_base) {
            Some(delay) if job.attempts < job.max_attempts => {
                let at = Ts::now().plus(chrono::Duration::from_std(delay).unwrap_or_default());
                let e = e.to_string();
                let mut tx = deps.db.begin().await?;
                progress::mark_started(&mut tx, job.id, job.attempts, started).await?;
                progress::retry_later(&mut tx, job.id, &e, at).await?;
                shared::job::push(&mut tx, job.queue, job.id, at, job.attempts).await?;
                tx.commit().await?;
                jobs::metrics::retried(&job.kind, job.queue);
                tracing::warn!(error = %e, retry_at = %at.to_rfc3339(), "job failed; will retry");
            }
            _ => {
                let mut c = deps.db.acquire().await?;
                progress::mark_started(&mut c, job.id, job.attempts, started).await?;
                progress::fail(&mut c, job.id, &format!("out of attempts; last error: {e}"))
                    .await?;
                jobs::metrics::failed(&job.kind, job.queue);
                tracing::warn!(error = %e, "job failed after its last attempt");
            }
        },
    }
    Ok(Outcome::Recorded)
}
