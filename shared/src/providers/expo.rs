//! Expo push (`POST {base}/--/api/v2/push/send`): messages go out in batches of at most 100,
//! and Expo answers one ticket per message, in order. A ticket with the error
//! `DeviceNotRegistered` means the token is gone: the caller stops sending to it. An ok ticket
//! is kept; its receipt (`POST {base}/--/api/v2/push/getReceipts`, at most 1,000 ids a request)
//! says later whether Apple or Google took the message, and `DeviceNotRegistered` there too
//! means the token is gone (the `push-receipts` task).
//!
//! Sending is not idempotent (a resent batch notifies twice), so a call is never retried here;
//! a 5xx, 429 or timeout is a transient `ProviderError` the notify job retries with backoff,
//! any other 4xx is permanent.

use super::http::{ProviderError, Retry, send};
use crate::config::ExpoConfig;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const PROVIDER: &str = "expo push";

/// Expo accepts at most 100 messages per request.
pub const BATCH: usize = 100;
/// And at most 1,000 receipt ids per request.
pub const RECEIPT_BATCH: usize = 1000;

/// A receipt: `ok`, or `error` with a message and `details.error`.
pub type Receipt = Ticket;

#[derive(Deserialize)]
struct ReceiptsResponse {
    #[serde(default)]
    data: std::collections::HashMap<String, Ticket>,
}

#[derive(Clone, Debug)]
pub struct Expo {
    cfg: ExpoConfig,
    http: reqwest::Client,
}

#[derive(Clone, Debug, Serialize)]
pub struct PushMessage {
    pub to: String,
    pub title: String,
    pub body: String,
    pub data: Value,
    pub sound: &'static str,
}

/// One ticket: `ok` with an id, or `error` with a message and (usually) `details.error`.
#[derive(Clone, Debug, Deserialize)]
pub struct Ticket {
    pub status: String,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub details: Option<TicketDetails>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct TicketDetails {
    #[serde(default)]
    pub error: Option<String>,
}

impl Ticket {
    pub fn is_ok(&self) -> bool {
        self.status == "ok"
    }
    /// The machine-readable error (`DeviceNotRegistered`, `MessageRateExceeded`, …).
    pub fn error(&self) -> Option<&str> {
        self.details.as_ref().and_then(|d| d.error.as_deref())
    }
}

#[derive(Deserialize)]
struct SendResponse {
    #[serde(default)]
    data: Vec<Ticket>,
}

impl Expo {
    pub fn new(cfg: ExpoConfig, http: reqwest::Client) -> Self {
        Expo { cfg, http }
    }

    /// Whether a token has Expo's shape (`ExponentPushToken[…]` or `ExpoPushToken[…]`).
    pub fn is_expo_token(token: &str) -> bool {
        (token.starts_with("ExponentPushToken[") || token.starts_with("ExpoPushToken["))
            && token.ends_with(']')
            && token.len() > "ExpoPushToken[]".len()
    }

    /// The receipts of these tickets (at most [`RECEIPT_BATCH`]); a ticket Expo has no receipt
    /// for yet (or any more: they are kept 24 hours) is absent. Reading is idempotent, so it
    /// is retried on transient failures.
    pub async fn receipts(
        &self,
        ids: &[String],
    ) -> Result<std::collections::HashMap<String, Receipt>, ProviderError> {
        assert!(
            ids.len() <= RECEIPT_BATCH,
            "at most 1,000 receipts per request"
        );
        let url = self
            .cfg
            .base_url
            .join("--/api/v2/push/getReceipts")
            .expect("base URL joins a relative path");
        let body = serde_json::json!({ "ids": ids });
        let resp = send(PROVIDER, Retry::Idempotent, || {
            let mut r = self
                .http
                .post(url.clone())
                .header("Accept", "application/json")
                .json(&body);
            if let Some(t) = &self.cfg.access_token {
                r = r.bearer_auth(t.expose());
            }
            r
        })
        .await?;
        let r: ReceiptsResponse = super::http::json_or_error(PROVIDER, resp).await?;
        Ok(r.data)
    }

    /// Sends one batch (at most [`BATCH`] messages) and returns its tickets, one per message.
    pub async fn send(&self, messages: &[PushMessage]) -> Result<Vec<Ticket>, ProviderError> {
        assert!(messages.len() <= BATCH, "an Expo batch holds at most 100");
        let url = self
            .cfg
            .base_url
            .join("--/api/v2/push/send")
            .expect("base URL joins a relative path");
        let resp = send(PROVIDER, Retry::Once, || {
            let mut r = self
                .http
                .post(url.clone())
                .header("Accept", "application/json")
                .json(messages);
            if let Some(t) = &self.cfg.access_token {
                r = r.bearer_auth(t.expose());
            }
            r
        })
        .await?;
        let status = resp.status();
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
        let text = || {
            String::from_utf8_lossy(&bytes)
                .chars()
                .take(300)
                .collect::<String>()
        };
        if status.is_server_error() || status.as_u16() == 429 {
            return Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("status {status}: {}", text()),
            });
        }
        if !status.is_success() {
            return Err(ProviderError::Rejected {
                provider: PROVIDER,
                status: status.as_u16(),
                message: text(),
            });
        }
        let body: SendResponse =
            serde_json::from_slice(&bytes).map_err(|e| ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("unexpected response body: {e}"),
            })?;
        if body.data.len() != messages.len() {
            return Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!(
                    "{} tickets for {} messages",
                    body.data.len(),
                    messages.len()
                ),
            });
        }
        Ok(body.data)
    }
}
