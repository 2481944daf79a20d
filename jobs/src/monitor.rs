//! What operators read about the job system: the admin jobs list (`GET /api/admin/jobs`) and
//! per-queue counts (`GET /api/admin/queues` and the metrics' queue gauges).
//!
//! Every read of job state for monitoring goes through this module, so a change of where jobs
//! are stored (another queue backend, finished jobs moved out of the hot table) changes this
//! file and not its callers. The counts read `job_progress` only (not the queue
//! table), over its `(status, run_after)` index: no index is added to the hot table for them,
//! because every index there is one more write per claim and per outcome.

use super::progress::{COLUMNS, JobStatus, Progress};
use shared::db::{Executor, Id, Ts};
use shared::error::Validator;
use shared::job::Queue;
use shared::sql;
use shared::times::{self, TimeKind};
use sqlx::FromRow;

/// Which jobs to list; `None` fields do not filter. Built by [`JobFilter::parse`].
#[derive(Debug, Clone, Default)]
pub struct JobFilter {
    pub status: Option<JobStatus>,
    pub kind: Option<String>,
    pub queue: Option<Queue>,
    /// The owning workspace.
    pub org_id: Option<Id>,
    /// The user who caused the job.
    pub user_id: Option<Id>,
    /// Created at or after.
    pub from: Option<Ts>,
    /// Created before.
    pub to: Option<Ts>,
}

/// A list request's filters as they arrived (strings for the closed sets, so a bad value is a
/// field error rather than a parse failure of the whole query).
#[derive(Debug, Clone, Default)]
pub struct RawJobFilter<'a> {
    pub status: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub queue: Option<&'a str>,
    pub org_id: Option<Id>,
    pub user_id: Option<Id>,
    pub from: Option<Ts>,
    pub to: Option<Ts>,
}

impl JobFilter {
    /// Checks every filter at once: `status` and `queue` are their enums' values
    /// (`invalid_choice`), `kind` a known job kind (`invalid_choice`), `from`/`to` calendar
    /// times (`out_of_range`) with `from` before `to` (`out_of_range` on `to`). Which kinds
    /// exist is the worker's registry (`worker::registry::is_known_kind`).
    pub fn parse(
        raw: &RawJobFilter<'_>,
        is_known_kind: impl Fn(&str) -> bool,
    ) -> shared::Result<JobFilter> {
        times::check_filters(&[("from", raw.from), ("to", raw.to)], TimeKind::Calendar)?;
        let mut v = Validator::new();
        let status = raw
            .status
            .and_then(|s| v.choice_of::<JobStatus>("status", s));
        let queue = raw.queue.and_then(|s| v.choice_of::<Queue>("queue", s));
        let kind = raw.kind.map(|k| k.trim().to_string());
        if let Some(k) = &kind {
            v.check(
                is_known_kind(k),
                "kind",
                "invalid_choice",
                "must be a job kind (e.g. diagnostics.probe) or a scheduled task's (cron.{task})",
            );
        }
        if let (Some(from), Some(to)) = (raw.from, raw.to) {
            v.check(from < to, "to", "out_of_range", "must be after from");
        }
        v.finish()?;
        Ok(JobFilter {
            status,
            kind,
            queue,
            org_id: raw.org_id,
            user_id: raw.user_id,
            from: raw.from,
            to: raw.to,
        })
    }
}

/// Jobs matching `f`, newest first (ties by id, so pages never overlap or skip).
pub async fn list(
    x: &mut impl Executor,
    f: &JobFilter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Progress>, sqlx::Error> {
    // Each filter is "parameter IS NULL OR condition", so one SQL text serves every combination.
    let q = format!(
        "SELECT {COLUMNS} FROM job_progress
         WHERE ($1 IS NULL OR status = $1)
           AND ($2 IS NULL OR kind = $2)
           AND ($3 IS NULL OR queue = $3)
           AND ($4 IS NULL OR org_id = $4)
           AND ($5 IS NULL OR created_by = $5)
           AND ($6 IS NULL OR created_at >= $6)
           AND ($7 IS NULL OR created_at < $7)
         ORDER BY created_at DESC, id DESC LIMIT $8 OFFSET $9"
    );
    sql!(x, c => sqlx::query_as::<_, Progress>(sqlx::AssertSqlSafe(q))
        .bind(f.status).bind(&f.kind).bind(f.queue).bind(f.org_id).bind(f.user_id)
        .bind(f.from).bind(f.to).bind(limit).bind(offset)
        .fetch_all(&mut *c).await)
}

/// One queue's counts now.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueStats {
    pub queue: Queue,
    /// Queued and due: waiting for a worker.
    pub waiting: i64,
    /// Queued for later: a retry's backoff or a delayed job.
    pub delayed: i64,
    pub running: i64,
    /// Failed (permanently, or out of attempts) within the hour before `now`.
    pub failed_last_hour: i64,
    /// Since when the longest-waiting due job has been waiting (its `run_after`).
    pub oldest_waiting_since: Option<Ts>,
}

impl QueueStats {
    fn empty(queue: Queue) -> QueueStats {
        QueueStats {
            queue,
            waiting: 0,
            delayed: 0,
            running: 0,
            failed_last_hour: 0,
            oldest_waiting_since: None,
        }
    }

    /// Seconds the longest-waiting due job has waited at `now` (0 when none waits).
    pub fn oldest_waiting_secs(&self, now: Ts) -> f64 {
        self.oldest_waiting_since
            .map(|t| ((now.0 - t.0).num_milliseconds().max(0) as f64) / 1000.0)
            .unwrap_or(0.0)
    }
}

#[derive(FromRow)]
struct StatsRow {
    queue: Queue,
    waiting: i64,
    delayed: i64,
    running: i64,
    failed_last_hour: i64,
    oldest_waiting_since: Option<Ts>,
}

/// Every queue's counts at `now`, in `Queue` order (a queue without jobs has zeros). One
/// statement for all queues: the live jobs are those with a queue task (`job_queue` holds
/// live tasks only; a job briefly has two during a retry, hence the grouping), and one whose
/// task is claimed counts as running though its progress row may still read `queued` (a claim
/// does not write it: `queue::claim`). The last hour's failures come through the `failed_at`
/// index (migration 25: no index names `status`, so a job's updates stay heap-only on
/// PostgreSQL).
pub async fn queue_stats(x: &mut impl Executor, now: Ts) -> Result<Vec<QueueStats>, sqlx::Error> {
    let hour_ago = now.minus(chrono::Duration::hours(1));
    let rows: Vec<StatsRow> = sql!(x, c => sqlx::query_as::<_, StatsRow>(
        "SELECT queue,
            COALESCE(SUM(CASE WHEN status = 'queued' AND run_after <= $1 THEN 1 ELSE 0 END), 0) AS waiting,
            COALESCE(SUM(CASE WHEN status = 'queued' AND run_after > $1 THEN 1 ELSE 0 END), 0) AS delayed,
            COALESCE(SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END), 0) AS running,
            COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0) AS failed_last_hour,
            MIN(CASE WHEN status = 'queued' AND run_after <= $1 THEN run_after END) AS oldest_waiting_since
         FROM (SELECT p.queue, CASE WHEN t.claimed = 1 THEN 'running' ELSE p.status END AS status, p.run_after
               FROM job_progress p
               JOIN (SELECT job_id, MAX(CASE WHEN locked_by IS NULL THEN 0 ELSE 1 END) AS claimed
                     FROM job_queue GROUP BY job_id) t ON t.job_id = p.id
               WHERE p.status IN ('queued', 'running')
               UNION ALL
               SELECT queue, status, run_after FROM job_progress WHERE failed_at >= $2) AS j
         GROUP BY queue")
        .bind(now).bind(hour_ago)
        .fetch_all(&mut *c).await)?;
    Ok(Queue::ALL
        .iter()
        .map(|&q| {
            rows.iter()
                .find(|r| r.queue == q)
                .map(|r| QueueStats {
                    queue: q,
                    waiting: r.waiting,
                    delayed: r.delayed,
                    running: r.running,
                    failed_last_hour: r.failed_last_hour,
                    oldest_waiting_since: r.oldest_waiting_since,
                })
                .unwrap_or_else(|| QueueStats::empty(q))
        })
        .collect())
}
