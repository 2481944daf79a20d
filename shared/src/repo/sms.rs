//! SMS state: verifications started, verified phones, and opt-outs (STOP/START).

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};

/// Records (or restarts) a verification of `phone` by `user`.
pub async fn start(
    x: &mut impl Executor,
    user: Id,
    phone: &str,
    at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO sms_verifications (user_id, phone, started_at) VALUES ($1, $2, $3)
         ON CONFLICT (user_id, phone) DO UPDATE SET started_at = excluded.started_at"
        )
        .bind(user)
        .bind(phone)
        .bind(at)
    )?;
    Ok(())
}

/// When `user` last started a verification of `phone`.
pub async fn started_at(
    x: &mut impl Executor,
    user: Id,
    phone: &str,
) -> Result<Option<Ts>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT started_at FROM sms_verifications WHERE user_id = $1 AND phone = $2")
        .bind(user).bind(phone).fetch_optional(&mut *c).await)
}

/// Stores `phone` as the user's verified phone and closes the verification.
pub async fn set_verified(
    x: &mut impl Executor,
    user: Id,
    phone: &str,
    at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO user_phones (user_id, phone, verified_at) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET phone = excluded.phone, verified_at = excluded.verified_at")
        .bind(user).bind(phone).bind(at))?;
    execute!(
        x,
        sqlx::query("DELETE FROM sms_verifications WHERE user_id = $1 AND phone = $2")
            .bind(user)
            .bind(phone)
    )?;
    Ok(())
}

/// The user's verified phone and when it was verified.
pub async fn verified_phone(
    x: &mut impl Executor,
    user: Id,
) -> Result<Option<(String, Ts)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT phone, verified_at FROM user_phones WHERE user_id = $1")
        .bind(user).fetch_optional(&mut *c).await)
}

/// Opts `phone` out (idempotent; keeps the first keyword and time).
pub async fn opt_out(
    x: &mut impl Executor,
    phone: &str,
    keyword: &str,
    at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO sms_opt_outs (phone, keyword, opted_out_at) VALUES ($1, $2, $3) ON CONFLICT (phone) DO NOTHING")
        .bind(phone).bind(keyword).bind(at))?;
    Ok(())
}

/// Opts `phone` back in. False when it was not opted out.
pub async fn opt_in(x: &mut impl Executor, phone: &str) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("DELETE FROM sms_opt_outs WHERE phone = $1").bind(phone)
    )?;
    Ok(n > 0)
}

pub async fn is_opted_out(x: &mut impl Executor, phone: &str) -> Result<bool, sqlx::Error> {
    let n: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM sms_opt_outs WHERE phone = $1")
        .bind(phone).fetch_one(&mut *c).await)?;
    Ok(n > 0)
}
