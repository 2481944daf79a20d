//! Provider answers cached with a TTL (`provider_cache`), shared by every api process.

use crate::db::{Executor, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::types::Json;

/// The cached value of `key` if it has not expired at `now`.
pub async fn fresh(
    x: &mut impl Executor,
    provider: &str,
    key: &str,
    now: Ts,
) -> Result<Option<Value>, sqlx::Error> {
    let v: Option<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT value FROM provider_cache WHERE provider = $1 AND key = $2 AND expires_at > $3")
        .bind(provider).bind(key).bind(now).fetch_optional(&mut *c).await)?;
    Ok(v.map(|j| j.0))
}

/// When a cached row was fetched and when it expires, without its value.
pub async fn stamp(
    x: &mut impl Executor,
    provider: &str,
    key: &str,
) -> Result<Option<(Ts, Ts)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT fetched_at, expires_at FROM provider_cache WHERE provider = $1 AND key = $2")
        .bind(provider).bind(key).fetch_optional(&mut *c).await)
}

/// A cached row whatever its age: the value, when it was fetched and when it expires.
pub async fn entry(
    x: &mut impl Executor,
    provider: &str,
    key: &str,
) -> Result<Option<(Value, Ts, Ts)>, sqlx::Error> {
    let row: Option<(Json<Value>, Ts, Ts)> = sql!(x, c => sqlx::query_as(
        "SELECT value, fetched_at, expires_at FROM provider_cache WHERE provider = $1 AND key = $2")
        .bind(provider).bind(key).fetch_optional(&mut *c).await)?;
    Ok(row.map(|(v, f, e)| (v.0, f, e)))
}

/// Stores (or replaces) the value of `key`, fetched at `now`, until `expires_at`.
pub async fn put<T: serde::Serialize + Sync>(
    x: &mut impl Executor,
    provider: &str,
    key: &str,
    value: &T,
    now: Ts,
    expires_at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO provider_cache (provider, key, value, fetched_at, expires_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (provider, key) DO UPDATE SET value = excluded.value,
                fetched_at = excluded.fetched_at, expires_at = excluded.expires_at"
        )
        .bind(provider)
        .bind(key)
        .bind(Json(value))
        .bind(now)
        .bind(expires_at)
    )?;
    Ok(())
}

/// Deletes rows that expired before `before`; returns how many.
pub async fn delete_expired(x: &mut impl Executor, before: Ts) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM provider_cache WHERE expires_at < $1").bind(before)
    )
}
