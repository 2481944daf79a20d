//! Impersonation: a platform admin acting as a user from one of the admin's sign-ins.

use crate::db::{AuthChange, Executor, Id, Ts};
use crate::{execute, sql};
use sqlx::FromRow;

pub const TTL: chrono::Duration = chrono::Duration::minutes(30);

#[derive(Debug, Clone, FromRow)]
pub struct Impersonation {
    pub id: Id,
    pub admin_id: Id,
    pub target_user_id: Id,
    pub expires_at: Ts,
}

pub async fn active(
    x: &mut impl Executor,
    sign_in_ref: &str,
) -> Result<Option<Impersonation>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Impersonation>(
        "SELECT id, admin_id, target_user_id, expires_at FROM impersonations
         WHERE sign_in_ref = $1 AND ended_at IS NULL AND expires_at > $2 ORDER BY started_at DESC LIMIT 1")
        .bind(sign_in_ref).bind(Ts::now()).fetch_optional(&mut *c).await)
}

/// Starts one, ending any other of the same sign-in first.
pub async fn start(
    x: &mut impl Executor,
    admin: Id,
    target: Id,
    sign_in_ref: &str,
    reason: &str,
) -> Result<Impersonation, sqlx::Error> {
    end(x, sign_in_ref).await?;
    let now = Ts::now();
    let i = Impersonation {
        id: Id::new(),
        admin_id: admin,
        target_user_id: target,
        expires_at: now.plus(TTL),
    };
    execute!(x, sqlx::query(
        "INSERT INTO impersonations (id, admin_id, target_user_id, sign_in_ref, reason, started_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)")
        .bind(i.id).bind(admin).bind(target).bind(sign_in_ref).bind(reason).bind(now).bind(i.expires_at))?;
    x.auth_changed(AuthChange::All);
    Ok(i)
}

/// Ends the sign-in's impersonation; returns how many were active.
pub async fn end(x: &mut impl Executor, sign_in_ref: &str) -> Result<u64, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE impersonations SET ended_at = $2 WHERE sign_in_ref = $1 AND ended_at IS NULL"
        )
        .bind(sign_in_ref)
        .bind(Ts::now())
    )?;
    if n > 0 {
        x.auth_changed(AuthChange::All);
    }
    Ok(n)
}
