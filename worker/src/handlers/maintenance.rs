//! Housekeeping tasks of the scheduler.

use super::Ctx;
use jobs::JobError;
use serde_json::{Value, json};
use shared::db::{Db, Ts};
use shared::execute;

/// Expired sessions and tokens, used or expired emailed tokens and OAuth states, and stale
/// rate-limit windows.
pub async fn tokens_cleanup(ctx: &Ctx) -> Result<Value, JobError> {
    let now = Ts::now();
    let week_ago = now.minus(chrono::Duration::days(7));
    let day_ago = now.minus(chrono::Duration::days(1));
    let mut tx = ctx.deps.db.begin().await?;
    let sessions = execute!(
        &mut tx,
        sqlx::query("DELETE FROM web_sessions WHERE expires_at < $1").bind(now)
    )?;
    let tokens = execute!(&mut tx, sqlx::query(
        "DELETE FROM api_tokens WHERE expires_at < $1 OR (revoked_at IS NOT NULL AND revoked_at < $2)")
        .bind(now).bind(week_ago))?;
    let email_tokens = execute!(&mut tx, sqlx::query(
        "DELETE FROM email_tokens WHERE expires_at < $1 OR (used_at IS NOT NULL AND used_at < $2)")
        .bind(now).bind(week_ago))?;
    let oauth_states = execute!(
        &mut tx,
        sqlx::query("DELETE FROM oauth_states WHERE expires_at < $1").bind(now)
    )?;
    let rate_limits = execute!(
        &mut tx,
        sqlx::query("DELETE FROM rate_limits WHERE window_start < $1").bind(day_ago)
    )?;
    tx.commit().await?;
    Ok(
        json!({ "sessions": sessions, "apiTokens": tokens, "emailTokens": email_tokens, "oauthStates": oauth_states, "rateLimits": rate_limits }),
    )
}

/// Finished job rows after 30 days; apalis's finished queue rows after a day; scheduler ticks
/// after 30 days.
pub async fn jobs_prune(ctx: &Ctx) -> Result<Value, JobError> {
    let now = Ts::now();
    let month_ago = now.minus(chrono::Duration::days(30));
    let mut c = ctx.deps.db.acquire().await?;
    let progress = jobs::progress::prune(&mut c, month_ago).await?;
    let ticks = execute!(
        &mut c,
        sqlx::query("DELETE FROM cron_ticks WHERE created_at < $1").bind(month_ago)
    )?;
    let done_before = now.minus(chrono::Duration::days(1));
    let queue_rows = match &ctx.deps.db {
        Db::Sqlite(p) => sqlx::query(
            "DELETE FROM Jobs WHERE status IN ('Done', 'Killed', 'Failed') AND done_at < $1",
        )
        .bind(done_before.0.timestamp())
        .execute(p)
        .await?
        .rows_affected(),
        Db::Pg(p) => sqlx::query(
            "DELETE FROM apalis.jobs WHERE status IN ('Done', 'Killed', 'Failed') AND done_at < $1",
        )
        .bind(done_before.0)
        .execute(p)
        .await?
        .rows_affected(),
    };
    Ok(json!({ "jobs": progress, "queueRows": queue_rows, "ticks": ticks }))
}

pub async fn audit_retention(ctx: &Ctx) -> Result<Value, JobError> {
    let before = Ts::now().minus(chrono::Duration::days(ctx.deps.worker.audit_retention_days));
    let mut c = ctx.deps.db.acquire().await?;
    let n = execute!(
        &mut c,
        sqlx::query("DELETE FROM audit_log WHERE created_at < $1").bind(before)
    )?;
    Ok(json!({ "deleted": n, "before": before }))
}

/// SQLite only: `PRAGMA optimize` keeps planner statistics current (a plain ANALYZE gives the
/// queue table a bad plan, see STACK-NOTES) and a WAL checkpoint bounds the WAL file.
/// PostgreSQL's autovacuum does this itself.
pub async fn db_maintenance(ctx: &Ctx) -> Result<Value, JobError> {
    match &ctx.deps.db {
        Db::Sqlite(p) => {
            sqlx::query("PRAGMA optimize").execute(p).await?;
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(p)
                .await?;
            Ok(json!({ "database": "sqlite", "optimized": true }))
        }
        Db::Pg(_) => Ok(
            json!({ "database": "postgres", "optimized": false, "reason": "autovacuum maintains statistics" }),
        ),
    }
}
