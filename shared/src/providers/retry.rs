//! Retries of a push send that the provider asked us to repeat: 429 and 5xx (and a refused
//! connection) are tried again, up to [`ATTEMPTS`] in all, after the provider's `Retry-After`
//! when it gave one (at most [`MAX_WAIT`]: a longer wait is left to the job, which puts the
//! delivery back with that time) or else 250 ms, 500 ms. A timeout is not retried here: the
//! message may have been accepted, and the job's retry decides.

use super::http::ProviderError;
use std::future::Future;
use std::time::Duration;

pub const ATTEMPTS: u32 = 3;
/// The longest `Retry-After` waited for inside one send.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// Runs `attempt` until it succeeds, fails permanently, or [`ATTEMPTS`] are spent.
pub async fn with_backoff<T, F, Fut>(provider: &'static str, attempt: F) -> Result<T, ProviderError>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<T, ProviderError>>,
{
    let mut n = 1;
    loop {
        let e = match attempt().await {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        let retryable = matches!(
            e,
            ProviderError::RateLimited { .. } | ProviderError::Unavailable { .. }
        );
        if !retryable || n >= ATTEMPTS {
            return Err(e);
        }
        let wait = match e.retry_after() {
            Some(w) if w > MAX_WAIT => return Err(e),
            Some(w) => w,
            None => Duration::from_millis(250 << (n - 1)),
        };
        tracing::debug!(
            provider,
            attempt = n,
            wait_ms = wait.as_millis() as u64,
            "retrying: {e}"
        );
        tokio::time::sleep(wait).await;
        n += 1;
    }
}
