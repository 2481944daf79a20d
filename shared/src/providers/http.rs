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
}

impl ProviderError {
    /// Permanent failures are not retried by jobs.
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            ProviderError::NotConfigured(_) | ProviderError::Rejected { .. }
        )
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

/// Reads a response: the body as JSON on 2xx, a typed error otherwise.
pub async fn json_or_error<T: serde::de::DeserializeOwned>(
    provider: &'static str,
    resp: reqwest::Response,
) -> Result<T, ProviderError> {
    let status = resp.status();
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
        if status.is_client_error() {
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
