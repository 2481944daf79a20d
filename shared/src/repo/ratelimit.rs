//! Fixed-window rate limiting kept in the database, so every api process shares one count.

use crate::db::{Executor, Ts};
use crate::{execute, sql};
use chrono::Duration;

/// Counts one event against `key`; `Err(retry_after_secs)` once the window holds more than `max`.
pub async fn hit(
    x: &mut impl Executor,
    key: &str,
    max: u32,
    window: Duration,
) -> Result<Result<(), u64>, sqlx::Error> {
    let now = Ts::now();
    let (count, start): (i64, Ts) = sql!(x, c => sqlx::query_as(
        "INSERT INTO rate_limits (key, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (key) DO UPDATE SET
            count = CASE WHEN rate_limits.window_start <= $3 THEN 1 ELSE rate_limits.count + 1 END,
            window_start = CASE WHEN rate_limits.window_start <= $3 THEN $2 ELSE rate_limits.window_start END
         RETURNING count, window_start")
        .bind(key).bind(now).bind(now.minus(window)).fetch_one(&mut *c).await)?;
    Ok(verdict(count, max, start, window, now))
}

/// Gives back one event counted by [`hit`]: where only failures count (sign-in, TV claims), an
/// attempt is counted before it is evaluated, so that the count and the check are one atomic
/// step however many attempts race, and a success gives its count back afterwards.
pub async fn release(x: &mut impl Executor, key: &str) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE rate_limits SET count = count - 1 WHERE key = $1 AND count > 0")
            .bind(key)
    )?;
    Ok(())
}

pub async fn clear(x: &mut impl Executor, key: &str) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM rate_limits WHERE key = $1").bind(key)
    )?;
    Ok(())
}

fn verdict(count: i64, max: u32, start: Ts, window: Duration, now: Ts) -> Result<(), u64> {
    if count <= max as i64 {
        Ok(())
    } else {
        let reset = start.plus(window);
        Err((reset.0 - now.0).num_seconds().max(1) as u64)
    }
}
