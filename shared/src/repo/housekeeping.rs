//! The scheduler's housekeeping queries: deleting what is past its retention across table
//! families (sessions, tokens, OAuth states, rate-limit windows, the audit log) and the
//! database's own upkeep.

use crate::db::{DbConn, Executor, Ts};
use crate::execute;

/// Rows deleted by [`delete_expired_auth`], per table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExpiredAuth {
    pub sessions: u64,
    pub api_tokens: u64,
    pub email_tokens: u64,
    pub oauth_states: u64,
    pub rate_limits: u64,
}

/// Deletes expired web sessions, API tokens and OAuth states; API tokens revoked and emailed
/// tokens used before `spent_before`; rate-limit windows started before `windows_before`.
pub async fn delete_expired_auth(
    x: &mut impl Executor,
    now: Ts,
    spent_before: Ts,
    windows_before: Ts,
) -> Result<ExpiredAuth, sqlx::Error> {
    let sessions = execute!(
        x,
        sqlx::query("DELETE FROM web_sessions WHERE expires_at < $1").bind(now)
    )?;
    let api_tokens = execute!(x, sqlx::query(
        "DELETE FROM api_tokens WHERE expires_at < $1 OR (revoked_at IS NOT NULL AND revoked_at < $2)")
        .bind(now).bind(spent_before))?;
    let email_tokens = execute!(x, sqlx::query(
        "DELETE FROM email_tokens WHERE expires_at < $1 OR (used_at IS NOT NULL AND used_at < $2)")
        .bind(now).bind(spent_before))?;
    let oauth_states = execute!(
        x,
        sqlx::query("DELETE FROM oauth_states WHERE expires_at < $1").bind(now)
    )?;
    let rate_limits = execute!(
        x,
        sqlx::query("DELETE FROM rate_limits WHERE window_start < $1").bind(windows_before)
    )?;
    Ok(ExpiredAuth {
        sessions,
        api_tokens,
        email_tokens,
        oauth_states,
        rate_limits,
    })
}

/// Deletes audit entries created before `before`; returns how many.
pub async fn delete_audit_before(x: &mut impl Executor, before: Ts) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM audit_log WHERE created_at < $1").bind(before)
    )
}

/// The job queue's fixed planner statistics (as written by migration 23): `PRAGMA optimize`
/// may sample the queue table at an unrepresentative moment, so they are put back after it.
const QUEUE_STATISTICS: [&str; 3] = [
    "DELETE FROM sqlite_stat1 WHERE tbl IN ('job_queue', 'job_workers')",
    "INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('job_queue', NULL, '100000'),
        ('job_queue', 'job_queue_due', '100000 25000 2'),
        ('job_workers', 'sqlite_autoindex_job_workers_1', '16 1')",
    // Reloads the statistics into the planner without sampling anything.
    "ANALYZE sqlite_schema",
];

/// SQLite: `PRAGMA optimize` keeps planner statistics current (the job queue's stay fixed:
/// [`QUEUE_STATISTICS`]) and a WAL checkpoint bounds the WAL file. Returns false on
/// PostgreSQL, whose autovacuum does this itself. Needs a pooled connection, not a
/// transaction (a checkpoint cannot run inside one).
pub async fn optimize(x: &mut impl Executor) -> Result<bool, sqlx::Error> {
    match x.conn() {
        DbConn::Sqlite(c) => {
            sqlx::query("PRAGMA optimize").execute(&mut *c).await?;
            for s in QUEUE_STATISTICS {
                sqlx::query(s).execute(&mut *c).await?;
            }
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(&mut *c)
                .await?;
            Ok(true)
        }
        DbConn::Pg(_) => Ok(false),
    }
}
