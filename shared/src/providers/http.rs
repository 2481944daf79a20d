//! The common base for outbound HTTP: one reqwest client (rustls) with timeouts and a user
//! agent, and a typed error that callers map to a response or a job outcome.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("{0} is not configured")]
    NotConfigured(&'static str),
    /// The provider refused the request (4xx): retrying the same request will not help.
    #[error("{provider} rejected the request ({status}): {message}")]
    Rejected {
        provider: &'static str,
        status: u16,
        message: String,
    },
    /// The provider failed or answered nonsense (5xx, bad body): a retry may succeed.
    #[error("{provider} is unavailable: {message}")]
    Unavailable {
        provider: &'static str,
        message: String,
    },
    #[error("{0} timed out")]
    Timeout(&'static str),
    /// The provider asked us to slow down (429): transient; `retry_after` is its `Retry-After`.
    #[error("{provider} is rate limiting requests{}", retry_hint(.retry_after))]
    RateLimited {
        provider: &'static str,
        retry_after: Option<Duration>,
    },
}

fn retry_hint(d: &Option<Duration>) -> String {
    d.map(|d| format!(" (retry after {} s)", d.as_secs()))
        .unwrap_or_default()
}

impl ProviderError {
    /// Permanent failures are not retried by jobs.
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            ProviderError::NotConfigured(_) | ProviderError::Rejected { .. }
        )
    }

    /// How long the provider asked us to wait, when it said (429 with `Retry-After`).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    pub fn from_reqwest(provider: &'static str, e: reqwest::Error) -> Self {
        if e.is_timeout() {
            ProviderError::Timeout(provider)
        } else {
            ProviderError::Unavailable {
                provider,
                message: e.without_url().to_string(),
            }
        }
    }
}

impl From<ProviderError> for crate::error::Error {
    fn from(e: ProviderError) -> Self {
        match e {
            ProviderError::NotConfigured(p) => crate::error::Error::provider_not_configured(p),
            other => crate::error::Error::provider_failed("provider", other.to_string()),
        }
    }
}

/// Builds the shared outbound client. Redirects are not followed: a provider redirect to
/// an unexpected host must not receive our credentials.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .user_agent(concat!("surfcoach/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(20))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("reqwest client with static settings")
}

/// One client for the whole process (callers without an app state, e.g. job handlers).
pub fn shared_client() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(client)
}

/// A client like [`client`] whose requests time out after `timeout` (the notification
/// senders' `NOTIFY_TIMEOUT_MS`), one per distinct timeout for the process.
pub fn client_with_timeout(timeout: Duration) -> reqwest::Client {
    static CLIENTS: std::sync::Mutex<Vec<(Duration, reqwest::Client)>> =
        std::sync::Mutex::new(Vec::new());
    let mut g = CLIENTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, c)) = g.iter().find(|(t, _)| *t == timeout) {
        return c.clone();
    }
    let c = reqwest::Client::builder()
        .user_agent(concat!("surfcoach/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(5).min(timeout))
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("reqwest client with static settings");
    g.push((timeout, c.clone()));
    c
}

/// Whether a request may be sent again when it fails in transit: only calls with no side
/// effect, or whose side effect the provider deduplicates (an `Idempotency-Key`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    Idempotent,
    Once,
}

const ATTEMPTS: u32 = 3;

/// Sends the request `build` makes, retrying an idempotent one (up to 3 attempts, 200 ms then
/// 400 ms apart) when the provider is unreachable, times out, or answers 429/502/503/504.
/// Every attempt is traced with the provider's name, never with the URL's query or body.
pub async fn send(
    provider: &'static str,
    retry: Retry,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, ProviderError> {
    let mut attempt = 1;
    loop {
        let started = std::time::Instant::now();
        let result = build().send().await;
        let transient = match &result {
            Ok(r) => matches!(r.status().as_u16(), 429 | 502 | 503 | 504),
            Err(e) => e.is_timeout() || e.is_connect() || e.is_request(),
        };
        tracing::debug!(
            provider,
            attempt,
            status = result.as_ref().map(|r| r.status().as_u16()).unwrap_or(0),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "provider call"
        );
        if transient && retry == Retry::Idempotent && attempt < ATTEMPTS {
            tokio::time::sleep(std::time::Duration::from_millis(200 * (1 << (attempt - 1)))).await;
            attempt += 1;
            continue;
        }
        return result.map_err(|e| ProviderError::from_reqwest(provider, e));
    }
}

/// A `Retry-After` header: delay-seconds or an HTTP date (RFC 9110 §10.2.3), else `None`.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let secs = (at.timestamp() - chrono::Utc::now().timestamp()).max(0);
    Some(Duration::from_secs(secs as u64))
}

/// Reads a response: the body as JSON on 2xx, a typed error otherwise.
pub async fn json_or_error<T: serde::de::DeserializeOwned>(
    provider: &'static str,
    resp: reqwest::Response,
) -> Result<T, ProviderError> {
    let status = resp.status();
    let wait = retry_after(resp.headers());
    let bytes = resp
        .bytes()
        .await
        .map_err(|e| ProviderError::from_reqwest(provider, e))?;
    if status.is_success() {
        serde_json::from_slice(&bytes).map_err(|e| ProviderError::Unavailable {
            provider,
            message: format!("unexpected response body: {e}"),
        })
    } else {
        let message = String::from_utf8_lossy(&bytes).chars().take(300).collect();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            // A 4xx that is not the request's fault: slow down and retry, never give up on it.
            Err(ProviderError::RateLimited {
                provider,
                retry_after: wait,
            })
        } else if status.is_client_error() {
            Err(ProviderError::Rejected {
                provider,
                status: status.as_u16(),
                message,
            })
        } else {
            Err(ProviderError::Unavailable {
                provider,
                message: format!("status {status}: {message}"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A server that answers 503 to the first `failures` requests, then 200 `{"ok": true}`.
    /// Plain HTTP/1.1 over a socket, one request per connection, so `shared` needs no web
    /// framework even for its tests.
    async fn flaky(failures: u32) -> (String, Arc<AtomicU32>) {
        failing_with(failures, "503 Service Unavailable").await
    }

    /// [`flaky`] with another failure: `failure` is the status line's tail and any extra
    /// headers.
    async fn failing_with(failures: u32, failure: &'static str) -> (String, Arc<AtomicU32>) {
        let hits = Arc::new(AtomicU32::new(0));
        let h = hits.clone();
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = l.accept().await {
                let n = h.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    // Requests here carry no body: the head ends the request.
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match sock.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(k) => head.extend_from_slice(&buf[..k]),
                        }
                    }
                    let (status, body) = if n < failures {
                        (failure, "busy")
                    } else {
                        ("200 OK", r#"{"ok":true}"#)
                    };
                    let resp = format!(
                        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = sock.write_all(resp.as_bytes()).await;
                });
            }
        });
        (url, hits)
    }

    #[tokio::test]
    async fn idempotent_calls_are_retried_on_transient_failures() {
        let (url, hits) = flaky(2).await;
        let c = client();
        let r = send("fake", Retry::Idempotent, || c.get(&url))
            .await
            .unwrap();
        let v: serde_json::Value = json_or_error("fake", r).await.unwrap();
        assert_eq!(v["ok"], true);
        assert_eq!(hits.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn other_calls_are_sent_once_and_fail_typed() {
        let (url, hits) = flaky(5).await;
        let c = client();
        let r = send("fake", Retry::Once, || c.post(&url)).await.unwrap();
        let e = json_or_error::<serde_json::Value>("fake", r)
            .await
            .unwrap_err();
        assert!(matches!(e, ProviderError::Unavailable { .. }), "{e}");
        assert!(!e.is_permanent());
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        // Still failing after three idempotent attempts: the error surfaces.
        let r = send("fake", Retry::Idempotent, || c.get(&url))
            .await
            .unwrap();
        assert_eq!(r.status(), 503);
        assert_eq!(hits.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = reqwest::header::HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", "7".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        h.insert(
            "retry-after",
            "Sun, 06 Nov 1994 08:49:37 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO), "a past date: now");
        h.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
        let e = ProviderError::RateLimited {
            provider: "fake",
            retry_after: Some(Duration::from_secs(7)),
        };
        assert!(!e.is_permanent());
        assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
        assert!(e.to_string().contains("retry after 7 s"), "{e}");
    }

    #[tokio::test]
    async fn a_429_is_rate_limiting_with_its_retry_after_not_a_rejection() {
        let (url, _) = failing_with(1, "429 Too Many Requests\r\nretry-after: 7").await;
        let c = client();
        let resp = c.get(&url).send().await.unwrap();
        let e = json_or_error::<serde_json::Value>("fake", resp)
            .await
            .unwrap_err();
        assert!(matches!(e, ProviderError::RateLimited { .. }), "{e:?}");
        assert!(!e.is_permanent(), "retried by jobs");
        assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
    }

    #[tokio::test]
    async fn unreachable_provider_is_unavailable_not_a_crash() {
        let c = client();
        let e = send("fake", Retry::Idempotent, || c.get("http://127.0.0.1:9/"))
            .await
            .unwrap_err();
        assert!(
            matches!(
                e,
                ProviderError::Unavailable { .. } | ProviderError::Timeout(_)
            ),
            "{e}"
        );
    }
}
