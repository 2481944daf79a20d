//! Housekeeping tasks of the scheduler. Their queries live in `shared::repo::housekeeping`
//! and the job crate's `progress`, `queue` and `cron` modules.

use super::Ctx;
use jobs::JobError;
use serde_json::{Value, json};
use shared::db::Ts;
use shared::repo::housekeeping;

/// Expired sessions and tokens, used or expired emailed tokens and OAuth states, and stale
/// rate-limit windows; provider answers cached more than a day past their expiry.
pub async fn tokens_cleanup(ctx: &Ctx) -> Result<Value, JobError> {
    let now = Ts::now();
    let week_ago = now.minus(chrono::Duration::days(7));
    let day_ago = now.minus(chrono::Duration::days(1));
    let mut tx = ctx.deps.db.begin().await?;
    let n = housekeeping::delete_expired_auth(&mut tx, now, week_ago, day_ago).await?;
    let cache = shared::repo::provider_cache::delete_expired(&mut tx, day_ago).await?;
    tx.commit().await?;
    Ok(
        json!({ "sessions": n.sessions, "apiTokens": n.api_tokens, "emailTokens": n.email_tokens, "oauthStates": n.oauth_states, "rateLimits": n.rate_limits, "providerCache": cache }),
    )
}

/// Finished job rows after 30 days; queue workers unseen for a day (finished queue tasks are
/// deleted as they finish); scheduler ticks after 30 days.
pub async fn jobs_prune(ctx: &Ctx) -> Result<Value, JobError> {
    let now = Ts::now();
    let month_ago = now.minus(chrono::Duration::days(30));
    let mut c = ctx.deps.db.acquire().await?;
    let progress = jobs::progress::prune(&mut c, month_ago).await?;
    let ticks = jobs::cron::prune_ticks(&mut c, month_ago).await?;
    let workers = jobs::queue::prune_workers(&mut c, now.minus(chrono::Duration::days(1))).await?;
    Ok(json!({ "jobs": progress, "queueWorkers": workers, "ticks": ticks }))
}

pub async fn audit_retention(ctx: &Ctx) -> Result<Value, JobError> {
    let before = Ts::now().minus(chrono::Duration::days(ctx.deps.worker.audit_retention_days));
    let mut c = ctx.deps.db.acquire().await?;
    let n = housekeeping::delete_audit_before(&mut c, before).await?;
    Ok(json!({ "deleted": n, "before": before }))
}

/// SQLite: refresh planner statistics and truncate the WAL; PostgreSQL: nothing to do.
pub async fn db_maintenance(ctx: &Ctx) -> Result<Value, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    Ok(if housekeeping::optimize(&mut c).await? {
        json!({ "database": "sqlite", "optimized": true })
    } else {
        json!({ "database": "postgres", "optimized": false, "reason": "autovacuum maintains statistics" })
    })
}
