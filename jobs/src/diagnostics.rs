//! The diagnostics probe ([`Probe`]), a job that exercises the whole queue, and its side effect ([`Probe::effect`]), built the way jobs
//! make their effects exactly-once: the effect and its "already applied" mark are written in
//! one transaction, and the mark is claimed first, so an attempt that finds it claimed
//! applies nothing. The ledger (`probe_effects`) has no unique key on purpose: a second
//! application would be a second row, which is what the chaos tests count.

use serde::{Deserialize, Serialize};
use shared::db::{Executor, Id, Ts};
use shared::job::{Job, Queue};
use shared::{execute, sql};

/// Queue diagnostics: runs through the whole machinery (enqueue, worker, progress, retries)
/// and does nothing else. Operators use it to check a deployment's queue end to end; the
/// benchmark and the worker's process tests use it as their workload.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Probe {
    /// Sleep this long while running (reporting progress and honouring cancellation).
    pub sleep_ms: u64,
    /// Burn this much CPU time first, on a blocking thread (the benchmark's CPU-bound jobs).
    pub cpu_ms: u64,
    /// Fail transiently on the first N attempts.
    pub fail_attempts: u32,
    /// Fail permanently.
    pub fail_permanently: bool,
    /// Echoed in the result.
    pub marker: Option<String>,
    /// Deduplicate on this key.
    pub key: Option<String>,
    /// Apply this side effect exactly once, before sleeping: a ledger row written with its
    /// "already applied" mark in one transaction (`diagnostics`). A re-run after a crash
    /// during the sleep finds the mark and applies nothing; the chaos tests count the rows.
    pub effect: Option<String>,
}

impl Job for Probe {
    const KIND: &'static str = "diagnostics.probe";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 3;
    const CANCELLABLE: bool = true;

    fn idempotency_key(&self) -> Option<String> {
        self.key.clone()
    }
}

/// Claims effect `key` for `job`; false when it was claimed before (by an earlier attempt of
/// this job, or another job with the same key). Run it in the transaction that applies the
/// effect: the claim then commits with the effect or not at all, and a concurrent claimant
/// waits for that outcome (the primary key).
pub async fn claim_effect(x: &mut impl Executor, key: &str, job: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query(
            "INSERT INTO probe_effect_keys (effect_key, job_id, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (effect_key) DO NOTHING"
        )
        .bind(key)
        .bind(job)
        .bind(Ts::now())
    )?;
    Ok(n == 1)
}

/// The effect itself: one more ledger row for `key`, naming the job and attempt that wrote it.
pub async fn append_effect(
    x: &mut impl Executor,
    key: &str,
    job: Id,
    attempt: i64,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO probe_effects (id, effect_key, job_id, attempt, created_at) VALUES ($1, $2, $3, $4, $5)"
        )
        .bind(Id::new())
        .bind(key)
        .bind(job)
        .bind(attempt)
        .bind(Ts::now())
    )?;
    Ok(())
}

/// What the ledger holds for the effect keys starting with `prefix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectCounts {
    /// Ledger rows: one per application.
    pub rows: i64,
    /// Distinct keys applied.
    pub distinct: i64,
    /// Rows written by an attempt after the first (the first attempt died before its effect).
    pub by_later_attempts: i64,
}

pub async fn effect_counts(
    x: &mut impl Executor,
    prefix: &str,
) -> Result<EffectCounts, sqlx::Error> {
    let (rows, distinct, by_later_attempts): (i64, i64, i64) = sql!(x, c => sqlx::query_as(
        "SELECT COUNT(*), COUNT(DISTINCT effect_key), COUNT(*) FILTER (WHERE attempt > 1)
         FROM probe_effects WHERE effect_key LIKE $1 || '%'")
        .bind(prefix).fetch_one(&mut *c).await)?;
    Ok(EffectCounts {
        rows,
        distinct,
        by_later_attempts,
    })
}
