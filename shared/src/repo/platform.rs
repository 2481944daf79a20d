//! Platform-wide counts for the admin dashboard. They span several table families, so they
//! live together here rather than one per module.

use crate::db::{Executor, Ts};
use crate::sql;

/// The dashboard's counts at one moment.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub users: i64,
    pub users_verified: i64,
    /// Users created at or after the `since` given to [`counts`].
    pub users_since: i64,
    pub workspaces: i64,
    pub members: i64,
    /// Waitlist entries not yet invited.
    pub waitlist_pending: i64,
    /// Web sessions not expired at `now`.
    pub active_sessions: i64,
    /// (job status, count), by status.
    pub jobs_by_status: Vec<(String, i64)>,
}

pub async fn counts(x: &mut impl Executor, now: Ts, since: Ts) -> Result<Counts, sqlx::Error> {
    let users: i64 =
        sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM users").fetch_one(&mut *c).await)?;
    let users_verified: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE email_verified_at IS NOT NULL").fetch_one(&mut *c).await)?;
    let users_since: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE created_at >= $1").bind(since).fetch_one(&mut *c).await)?;
    let workspaces: i64 =
        sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM orgs").fetch_one(&mut *c).await)?;
    let members: i64 =
        sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM members").fetch_one(&mut *c).await)?;
    let waitlist_pending: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM waitlist WHERE invited_at IS NULL").fetch_one(&mut *c).await)?;
    let active_sessions: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM web_sessions WHERE expires_at > $1").bind(now).fetch_one(&mut *c).await)?;
    let jobs_by_status: Vec<(String, i64)> = sql!(x, c => sqlx::query_as("SELECT status, COUNT(*) FROM job_progress GROUP BY status ORDER BY status").fetch_all(&mut *c).await)?;
    Ok(Counts {
        users,
        users_verified,
        users_since,
        workspaces,
        members,
        waitlist_pending,
        active_sessions,
        jobs_by_status,
    })
}
