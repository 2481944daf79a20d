//! Member invites: an emailed, single-use, expiring token that adds its holder to a workspace
//! with a role. Pending invites hold a seat.

use crate::crypto::{hash_token, new_token};
use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use sqlx::FromRow;

pub const TTL: chrono::Duration = chrono::Duration::days(7);

#[derive(Debug, Clone, FromRow)]
pub struct Invite {
    pub id: Id,
    pub org_id: Id,
    pub email: String,
    pub role_id: Id,
    pub role_key: String,
    pub invited_by: Option<Id>,
    pub created_at: Ts,
    pub expires_at: Ts,
    pub accepted_at: Option<Ts>,
    pub accepted_by: Option<Id>,
    pub revoked_at: Option<Ts>,
}

crate::text_enum! {
    /// Where a member invite stands (derived from its times, not stored).
    pub enum InviteStatus {
        Pending = "pending",
        Accepted = "accepted",
        Revoked = "revoked",
        Expired = "expired",
    }
}

impl Invite {
    pub fn status(&self) -> InviteStatus {
        if self.accepted_at.is_some() {
            InviteStatus::Accepted
        } else if self.revoked_at.is_some() {
            InviteStatus::Revoked
        } else if self.expires_at <= Ts::now() {
            InviteStatus::Expired
        } else {
            InviteStatus::Pending
        }
    }
}

const SELECT: &str = "SELECT i.id, i.org_id, i.email, i.role_id, r.key AS role_key, i.invited_by, i.created_at, i.expires_at,
    i.accepted_at, i.accepted_by, i.revoked_at FROM member_invites i JOIN roles r ON r.id = i.role_id";

/// Creates an invite; returns it with its token (sent once, by mail).
pub async fn create(
    x: &mut impl Executor,
    org: Id,
    email: &str,
    role: Id,
    by: Id,
) -> Result<(Id, String), sqlx::Error> {
    let token = new_token("smi_");
    let now = Ts::now();
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO member_invites (id, org_id, email, role_id, token_hash, invited_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
        .bind(id).bind(org).bind(email).bind(role).bind(hash_token(&token)).bind(by).bind(now).bind(now.plus(TTL)))?;
    Ok((id, token))
}

pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Invite>, sqlx::Error> {
    let q = format!("{SELECT} WHERE i.org_id = $1 AND i.id = $2");
    sql!(x, c => sqlx::query_as::<_, Invite>(sqlx::AssertSqlSafe(q)).bind(org).bind(id).fetch_optional(&mut *c).await)
}

pub async fn by_token(x: &mut impl Executor, token: &str) -> Result<Option<Invite>, sqlx::Error> {
    let q = format!("{SELECT} WHERE i.token_hash = $1");
    sql!(x, c => sqlx::query_as::<_, Invite>(sqlx::AssertSqlSafe(q)).bind(hash_token(token)).fetch_optional(&mut *c).await)
}

pub async fn list(
    x: &mut impl Executor,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Invite>, sqlx::Error> {
    let q =
        format!("{SELECT} WHERE i.org_id = $1 ORDER BY i.created_at DESC, i.id LIMIT $2 OFFSET $3");
    sql!(x, c => sqlx::query_as::<_, Invite>(sqlx::AssertSqlSafe(q)).bind(org).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Pending invites of `org` (they hold seats).
pub async fn count_pending(x: &mut impl Executor, org: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM member_invites WHERE org_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2")
        .bind(org).bind(Ts::now()).fetch_one(&mut *c).await)
}

/// Revokes pending invites of `org` to `email` (a re-invite replaces them).
pub async fn revoke_pending_to(
    x: &mut impl Executor,
    org: Id,
    email: &str,
) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE member_invites SET revoked_at = $3 WHERE org_id = $1 AND LOWER(email) = LOWER($2) AND accepted_at IS NULL AND revoked_at IS NULL")
        .bind(org).bind(email).bind(Ts::now()))
}

pub async fn revoke(x: &mut impl Executor, org: Id, id: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "UPDATE member_invites SET revoked_at = $3 WHERE org_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL")
        .bind(org).bind(id).bind(Ts::now()))?;
    Ok(n == 1)
}

/// Marks the invite accepted by `user`, once: false if it was used, revoked or expired meanwhile.
pub async fn accept(x: &mut impl Executor, id: Id, user: Id) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE member_invites SET accepted_at = $2, accepted_by = $3
         WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2"
        )
        .bind(id)
        .bind(now)
        .bind(user)
    )?;
    Ok(n == 1)
}
