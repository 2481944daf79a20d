//! The job system's metrics: their names, labels and the calls that record them, through the
//! `metrics` facade. Without a recorder (`METRICS_ADDR` unset) every call is a no-op. The
//! README's "Metrics" section documents each one; `worker::metrics` serves them.
//!
//! Labels are bounded: `kind` is a job type's or scheduled task's name (the worker's registry),
//! `queue` one of [`Queue`]'s four values.

use ::metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge};
use shared::job::Queue;
use std::time::Duration;

/// Counted where jobs are written (`shared::job::enqueue`).
pub const ENQUEUED: &str = shared::job::ENQUEUED_METRIC;
pub const STARTED: &str = "jobs_started_total";
pub const SUCCEEDED: &str = "jobs_succeeded_total";
pub const FAILED: &str = "jobs_failed_total";
pub const RETRIED: &str = "jobs_retried_total";
pub const RUN_DURATION: &str = "jobs_run_duration_seconds";
pub const START_DELAY: &str = "jobs_start_delay_seconds";
pub const QUEUE_WAITING: &str = "jobs_queue_depth";
pub const QUEUE_DELAYED: &str = "jobs_queue_delayed";
pub const QUEUE_RUNNING: &str = "jobs_queue_running";
pub const QUEUE_OLDEST: &str = "jobs_queue_oldest_waiting_seconds";

/// Registers the help texts (call once, after installing a recorder).
pub fn describe() {
    describe_counter!(
        ENQUEUED,
        "Jobs enqueued (new jobs only; an idempotent duplicate returns the live job and is not counted)"
    );
    describe_counter!(STARTED, "Attempts started by a worker");
    describe_counter!(SUCCEEDED, "Jobs that succeeded");
    describe_counter!(
        FAILED,
        "Jobs that failed for good (a permanent error, or a transient one on the last attempt)"
    );
    describe_counter!(
        RETRIED,
        "Attempts that failed transiently and were queued again with a backoff"
    );
    describe_histogram!(
        RUN_DURATION,
        Unit::Seconds,
        "How long one attempt's handler ran"
    );
    describe_histogram!(
        START_DELAY,
        Unit::Seconds,
        "From when a job was due (enqueued, or its retry's backoff over) to its attempt's start"
    );
    describe_gauge!(QUEUE_WAITING, "Jobs queued and due, waiting for a worker");
    describe_gauge!(
        QUEUE_DELAYED,
        "Jobs queued for later (a retry's backoff, a delayed job)"
    );
    describe_gauge!(QUEUE_RUNNING, "Jobs running");
    describe_gauge!(
        QUEUE_OLDEST,
        Unit::Seconds,
        "How long the longest-waiting due job has waited (0 when none waits)"
    );
}

fn labels(kind: &str, queue: Queue) -> [(&'static str, String); 2] {
    [
        ("kind", kind.to_string()),
        ("queue", queue.as_str().to_string()),
    ]
}

/// An attempt starts, `waited` after the job was due.
pub fn started(kind: &str, queue: Queue, waited: Duration) {
    let l = labels(kind, queue);
    counter!(STARTED, &l).increment(1);
    ::metrics::histogram!(START_DELAY, &l).record(waited.as_secs_f64());
}

/// An attempt's handler returned (whatever the outcome) after `ran`.
pub fn ran(kind: &str, queue: Queue, ran: Duration) {
    ::metrics::histogram!(RUN_DURATION, &labels(kind, queue)).record(ran.as_secs_f64());
}

pub fn succeeded(kind: &str, queue: Queue) {
    counter!(SUCCEEDED, &labels(kind, queue)).increment(1);
}

pub fn failed(kind: &str, queue: Queue) {
    counter!(FAILED, &labels(kind, queue)).increment(1);
}

pub fn retried(kind: &str, queue: Queue) {
    counter!(RETRIED, &labels(kind, queue)).increment(1);
}

/// Sets the queue gauges from one reading of [`crate::monitor::queue_stats`].
pub fn set_queue_gauges(stats: &[crate::monitor::QueueStats], now: shared::db::Ts) {
    for s in stats {
        let q = s.queue.as_str();
        gauge!(QUEUE_WAITING, "queue" => q).set(s.waiting as f64);
        gauge!(QUEUE_DELAYED, "queue" => q).set(s.delayed as f64);
        gauge!(QUEUE_RUNNING, "queue" => q).set(s.running as f64);
        gauge!(QUEUE_OLDEST, "queue" => q).set(s.oldest_waiting_secs(now));
    }
}
