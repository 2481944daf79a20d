//! TV devices signed in by device code (RFC 8628 shape).

use crate::crypto::hash_token;
use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use sqlx::FromRow;

/// Letters a user types from a TV screen: no vowels (no accidental words), no look-alikes.
pub const USER_CODE_ALPHABET: &[u8] = b"BCDFGHJKLMNPQRSTVWXZ";
pub const CODE_TTL: chrono::Duration = chrono::Duration::minutes(10);
pub const DEFAULT_INTERVAL_SECS: i64 = 5;

crate::text_enum! {
    /// Where a TV's device-code sign-in stands.
    pub enum TvStatus {
        /// Waiting for a member to type the user code.
        Pending = "pending",
        /// Bound to a workspace; its token works until it is signed out.
        Claimed = "claimed",
        /// Refused by the member who typed the code.
        Denied = "denied",
        SignedOut = "signed_out",
    }
}

#[derive(Debug, Clone, FromRow)]
pub struct Device {
    pub id: Id,
    pub org_id: Option<Id>,
    pub name: String,
    pub status: TvStatus,
    pub interval_secs: i64,
    pub last_poll_at: Option<Ts>,
    pub expires_at: Ts,
    pub claimed_by: Option<Id>,
    pub claimed_at: Option<Ts>,
    pub token_delivered: bool,
    pub revoked_at: Option<Ts>,
    pub created_at: Ts,
}

const COLUMNS: &str = "id, org_id, name, status, interval_secs, last_poll_at, expires_at, claimed_by, claimed_at, token_delivered, revoked_at, created_at";

/// Uppercases and drops dashes and spaces: `bcdf-ghjk` and `BCDFGHJK` are the same code.
pub fn normalize_user_code(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

pub async fn create(
    x: &mut impl Executor,
    device_code: &str,
    user_code: &str,
    name: &str,
) -> Result<Device, sqlx::Error> {
    let now = Ts::now();
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO tv_devices (id, org_id, name, device_code_hash, user_code_hash, status, interval_secs, expires_at, token_delivered, created_at)
         VALUES ($1, NULL, $2, $3, $4, $8, $5, $6, FALSE, $7)")
        .bind(id).bind(name).bind(hash_token(device_code)).bind(hash_token(&normalize_user_code(user_code)))
        .bind(DEFAULT_INTERVAL_SECS).bind(now.plus(CODE_TTL)).bind(now).bind(TvStatus::Pending))?;
    by_id(x, id).await.map(|d| d.expect("inserted"))
}

pub async fn by_id(x: &mut impl Executor, id: Id) -> Result<Option<Device>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM tv_devices WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, Device>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

pub async fn by_device_code(
    x: &mut impl Executor,
    code: &str,
) -> Result<Option<Device>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM tv_devices WHERE device_code_hash = $1");
    sql!(x, c => sqlx::query_as::<_, Device>(sqlx::AssertSqlSafe(q)).bind(hash_token(code)).fetch_optional(&mut *c).await)
}

pub async fn pending_by_user_code(
    x: &mut impl Executor,
    code: &str,
) -> Result<Option<Device>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM tv_devices WHERE user_code_hash = $1 AND status = $3 AND expires_at > $2"
    );
    sql!(x, c => sqlx::query_as::<_, Device>(sqlx::AssertSqlSafe(q))
        .bind(hash_token(&normalize_user_code(code))).bind(Ts::now()).bind(TvStatus::Pending).fetch_optional(&mut *c).await)
}

/// The device behind a TV token, if it is still signed in.
pub async fn by_token(x: &mut impl Executor, token: &str) -> Result<Option<Device>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM tv_devices WHERE token_hash = $1 AND status = $2 AND revoked_at IS NULL"
    );
    sql!(x, c => sqlx::query_as::<_, Device>(sqlx::AssertSqlSafe(q)).bind(hash_token(token)).bind(TvStatus::Claimed).fetch_optional(&mut *c).await)
}

pub async fn record_poll(
    x: &mut impl Executor,
    id: Id,
    interval_secs: i64,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE tv_devices SET last_poll_at = $2, interval_secs = $3 WHERE id = $1")
            .bind(id)
            .bind(Ts::now())
            .bind(interval_secs)
    )?;
    Ok(())
}

/// Binds a pending device to a workspace (or denies it). False if it was no longer pending.
pub async fn decide(
    x: &mut impl Executor,
    id: Id,
    org: Id,
    user: Id,
    name: &str,
    approve: bool,
) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(x, sqlx::query(
        "UPDATE tv_devices SET status = $2, org_id = $3, claimed_by = $4, claimed_at = $5, name = $6
         WHERE id = $1 AND status = $7 AND expires_at > $5")
        .bind(id).bind(if approve { TvStatus::Claimed } else { TvStatus::Denied }).bind(org).bind(user).bind(now).bind(name)
        .bind(TvStatus::Pending))?;
    Ok(n == 1)
}

/// Hands out the device's token, once.
pub async fn deliver_token(
    x: &mut impl Executor,
    id: Id,
    token: &str,
) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "UPDATE tv_devices SET token_hash = $2, token_delivered = TRUE WHERE id = $1 AND status = $3 AND token_delivered = FALSE")
        .bind(id).bind(hash_token(token)).bind(TvStatus::Claimed))?;
    Ok(n == 1)
}

pub async fn list_for_org(x: &mut impl Executor, org: Id) -> Result<Vec<Device>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM tv_devices WHERE org_id = $1 AND status = $2 ORDER BY claimed_at DESC, id"
    );
    sql!(x, c => sqlx::query_as::<_, Device>(sqlx::AssertSqlSafe(q)).bind(org).bind(TvStatus::Claimed).fetch_all(&mut *c).await)
}

pub async fn rename(
    x: &mut impl Executor,
    org: Id,
    id: Id,
    name: &str,
) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query(
            "UPDATE tv_devices SET name = $3 WHERE org_id = $1 AND id = $2 AND status = $4"
        )
        .bind(org)
        .bind(id)
        .bind(name)
        .bind(TvStatus::Claimed)
    )?;
    Ok(n == 1)
}

/// Signs the TV out: its token stops working at once.
pub async fn sign_out(x: &mut impl Executor, org: Id, id: Id) -> Result<bool, sqlx::Error> {
    let now = Ts::now();
    let n = execute!(x, sqlx::query(
        "UPDATE tv_devices SET status = $4, revoked_at = $3, token_hash = NULL WHERE org_id = $1 AND id = $2 AND status = $5")
        .bind(org).bind(id).bind(now).bind(TvStatus::SignedOut).bind(TvStatus::Claimed))?;
    Ok(n == 1)
}
