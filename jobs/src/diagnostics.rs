//! The diagnostics probe's side effect ([`crate::kinds::Probe::effect`]), built the way jobs
//! make their effects exactly-once: the effect and its "already applied" mark are written in
//! one transaction, and the mark is claimed first, so an attempt that finds it claimed
//! applies nothing. The ledger (`probe_effects`) has no unique key on purpose: a second
//! application would be a second row, which is what the chaos tests count.

use shared::db::{Executor, Id, Ts};
use shared::{execute, sql};

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
