//! Platform signup invites: the codes that open sign-up when the signup mode is invite-locked.

use crate::crypto::{hash_token, new_token};
use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};

pub async fn create(
    x: &mut impl Executor,
    email: Option<&str>,
    created_by: Option<Id>,
    ttl: Option<chrono::Duration>,
) -> Result<String, sqlx::Error> {
    let code = new_token("inv_");
    let now = Ts::now();
    execute!(x, sqlx::query(
        "INSERT INTO signup_invites (id, code_hash, email, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(Id::new()).bind(hash_token(&code)).bind(email).bind(created_by).bind(now)
        .bind(ttl.map(|t| now.plus(t))))?;
    Ok(code)
}

/// True if `code` is unused and unexpired (and, when the invite names an email, matches it).
pub async fn is_valid(
    x: &mut impl Executor,
    code: &str,
    email: Option<&str>,
) -> Result<bool, sqlx::Error> {
    let row: Option<(Option<String>,)> = sql!(x, c => sqlx::query_as(
        "SELECT email FROM signup_invites WHERE code_hash = $1 AND used_at IS NULL AND (expires_at IS NULL OR expires_at > $2)")
        .bind(hash_token(code)).bind(Ts::now()).fetch_optional(&mut *c).await)?;
    Ok(match row {
        None => false,
        Some((None,)) => true,
        Some((Some(bound),)) => email.is_none_or(|e| e.eq_ignore_ascii_case(&bound)),
    })
}

/// Uses the code for `user`; false if another sign-up used it first.
pub async fn consume(x: &mut impl Executor, code: &str, user: Id) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(x, sqlx::query(
        "UPDATE signup_invites SET used_at = $2, used_by = $3 WHERE code_hash = $1 AND used_at IS NULL AND (expires_at IS NULL OR expires_at > $2)")
        .bind(hash_token(code)).bind(now).bind(user))?;
    Ok(n == 1)
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SignupInvite {
    pub id: Id,
    pub email: Option<String>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub expires_at: Option<Ts>,
    pub used_at: Option<Ts>,
    pub used_by: Option<Id>,
}

pub async fn create_returning_id(
    x: &mut impl Executor,
    email: Option<&str>,
    created_by: Option<Id>,
    ttl: Option<chrono::Duration>,
) -> Result<(Id, String), sqlx::Error> {
    let code = new_token("inv_");
    let now = Ts::now();
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO signup_invites (id, code_hash, email, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(id).bind(hash_token(&code)).bind(email).bind(created_by).bind(now).bind(ttl.map(|t| now.plus(t))))?;
    Ok((id, code))
}

pub async fn list(
    x: &mut impl Executor,
    limit: i64,
    offset: i64,
) -> Result<Vec<SignupInvite>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, SignupInvite>(
        "SELECT id, email, created_by, created_at, expires_at, used_at, used_by FROM signup_invites ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2")
        .bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Withdraws an unused invite (it expires now). False if used or unknown.
pub async fn revoke(x: &mut impl Executor, id: Id) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(x, sqlx::query("UPDATE signup_invites SET expires_at = $2 WHERE id = $1 AND used_at IS NULL AND (expires_at IS NULL OR expires_at > $2)")
        .bind(id).bind(now))?;
    Ok(n == 1)
}
