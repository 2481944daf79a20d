//! Firebase Cloud Messaging, HTTP v1 API: `POST {base}/v1/projects/{project}/messages:send`
//! with `{"message": {"token", "notification": {title, body}, "data": {…strings}, "android":
//! {priority, ttl}}}`, one message per request (the v1 API has no batch send).
//!
//! Authentication is Google's for servers: a JWT (RS256, signed with the service account's key;
//! `iss` the account's email, `scope` firebase.messaging, `aud` the token endpoint, one hour)
//! exchanged at the token endpoint (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`)
//! for an access token, cached per account in this process until a minute before it expires.
//! A 401 from the send drops the cached token and tries once more with a new one.
//!
//! Answers: 200 sent; 404 `UNREGISTERED` and 400 `INVALID_ARGUMENT` mean the token is no good
//! ([`Sent::TokenGone`]: the caller deletes it); 429 and 5xx are retried with backoff honouring
//! `Retry-After` ([`super::retry`]), then transient; the token endpoint refusing our JWT
//! (`invalid_grant`, 400/401) or a 403 is permanent ("bad credentials").

use super::http::{ProviderError, Retry, retry_after, send};
use crate::config::FcmConfig;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const PROVIDER: &str = "fcm";
pub const SCOPE: &str = "https://www.googleapis.com/auth/firebase.messaging";
/// A cached access token is renewed this long before it expires.
const RENEW_BEFORE: Duration = Duration::from_secs(60);

/// The RSA key of a PKCS#8 PEM.
pub fn signing_key(pem: &str) -> Result<RsaKeyPair, &'static str> {
    let b64: String = pem
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("-----"))
        .collect();
    let der = STANDARD
        .decode(b64.as_bytes())
        .map_err(|_| "not a PEM key")?;
    RsaKeyPair::from_pkcs8(&der).map_err(|_| "not a PKCS#8 RSA private key")
}

/// One slot per service account; its lock is held while a token is fetched, so concurrent
/// sends wait for that one exchange instead of each making their own.
type Slot = Arc<tokio::sync::Mutex<Option<(String, Instant)>>>;

fn slot(key: String) -> Slot {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<String, Slot>>> = std::sync::OnceLock::new();
    let mut g = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    g.entry(key).or_default().clone()
}

#[derive(Clone)]
pub struct Fcm {
    cfg: FcmConfig,
    key: Arc<RsaKeyPair>,
    http: reqwest::Client,
}

impl std::fmt::Debug for Fcm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fcm({})", self.cfg.project_id)
    }
}

/// One FCM message.
pub struct FcmMessage<'a> {
    pub token: &'a str,
    pub title: &'a str,
    pub body: &'a str,
    /// FCM data values are strings: other JSON values are sent as their JSON text.
    pub data: &'a Value,
    /// `high` wakes the device; `normal` may wait for it.
    pub high_priority: bool,
    pub ttl: Duration,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Sent {
    /// FCM's message name (`projects/…/messages/…`).
    Ok(String),
    /// The token is unregistered or invalid: delete it. The FCM error code.
    TokenGone(String),
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

impl Fcm {
    pub fn new(cfg: FcmConfig, http: reqwest::Client) -> Result<Fcm, ProviderError> {
        let key =
            signing_key(cfg.private_key_pem.expose()).map_err(|m| ProviderError::Rejected {
                provider: PROVIDER,
                status: 0,
                message: format!("bad credentials: {m}"),
            })?;
        Ok(Fcm {
            cfg,
            key: Arc::new(key),
            http,
        })
    }

    fn cache_key(&self) -> String {
        format!("{} {}", self.cfg.token_url, self.cfg.client_email)
    }

    /// The signed assertion for the token endpoint.
    pub fn assertion(&self, now: i64) -> String {
        let mut header = json!({ "alg": "RS256", "typ": "JWT" });
        if let Some(kid) = &self.cfg.private_key_id {
            header["kid"] = json!(kid);
        }
        let claims = json!({
            "iss": self.cfg.client_email,
            "scope": SCOPE,
            "aud": self.cfg.token_url.as_str(),
            "iat": now,
            "exp": now + 3600,
        });
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let mut sig = vec![0u8; self.key.public_modulus_len()];
        self.key
            .sign(
                &RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                input.as_bytes(),
                &mut sig,
            )
            .expect("RSA signing");
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
    }

    /// A valid access token: the cached one, or a new one from the token endpoint. `refused`
    /// is a token FCM just refused: it is not returned again.
    async fn access_token(&self, refused: Option<&str>) -> Result<String, ProviderError> {
        let slot = slot(self.cache_key());
        let mut cached = slot.lock().await;
        if let Some((t, until)) = cached.as_ref()
            && Instant::now() < *until
            && refused != Some(t.as_str())
        {
            return Ok(t.clone());
        }
        let assertion = self.assertion(chrono::Utc::now().timestamp());
        let form = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            ("assertion", assertion.as_str()),
        ];
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http.post(self.cfg.token_url.clone()).form(&form)
        })
        .await?;
        let status = resp.status().as_u16();
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
        match status {
            200..=299 => {}
            400 | 401 | 403 => {
                return Err(ProviderError::Rejected {
                    provider: PROVIDER,
                    status,
                    message: format!(
                        "bad credentials: the token endpoint refused the service account: {}",
                        text()
                    ),
                });
            }
            _ => {
                return Err(ProviderError::Unavailable {
                    provider: PROVIDER,
                    message: format!("token endpoint status {status}: {}", text()),
                });
            }
        }
        let t: TokenResponse =
            serde_json::from_slice(&bytes).map_err(|e| ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("unexpected token response: {e}"),
            })?;
        let life = Duration::from_secs(t.expires_in.unwrap_or(3600));
        let until = Instant::now() + life.saturating_sub(RENEW_BEFORE);
        *cached = Some((t.access_token.clone(), until));
        Ok(t.access_token)
    }

    /// Sends one message (see the module doc for the answers).
    pub async fn send(&self, m: &FcmMessage<'_>) -> Result<Sent, ProviderError> {
        let url = self
            .cfg
            .base_url
            .join(&format!(
                "v1/projects/{}/messages:send",
                self.cfg.project_id
            ))
            .expect("base URL joins a relative path");
        let data: serde_json::Map<String, Value> = match m.data {
            Value::Object(o) => o
                .iter()
                .map(|(k, v)| {
                    let s = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), Value::String(s))
                })
                .collect(),
            _ => Default::default(),
        };
        let body = json!({ "message": {
            "token": m.token,
            "notification": { "title": m.title, "body": m.body },
            "data": data,
            "android": {
                "priority": if m.high_priority { "high" } else { "normal" },
                "ttl": format!("{}s", m.ttl.as_secs()),
            },
        }});
        let renewed = &std::sync::atomic::AtomicBool::new(false);
        let (url, body) = (&url, &body);
        super::retry::with_backoff(PROVIDER, move || async move {
            let mut token = self.access_token(None).await?;
            loop {
                let resp = self
                    .http
                    .post(url.clone())
                    .bearer_auth(&token)
                    .json(body)
                    .send()
                    .await
                    .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
                let status = resp.status().as_u16();
                let wait = retry_after(resp.headers());
                let bytes = resp
                    .bytes()
                    .await
                    .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
                let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                let code = error_code(&v);
                let message = v["error"]["message"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| String::from_utf8_lossy(&bytes).chars().take(300).collect());
                return match status {
                    200..=299 => Ok(Sent::Ok(v["name"].as_str().unwrap_or_default().to_string())),
                    401 if !renewed.swap(true, std::sync::atomic::Ordering::SeqCst) => {
                        token = self.access_token(Some(&token)).await?;
                        continue;
                    }
                    404 if code == "UNREGISTERED" || code == "NOT_FOUND" => {
                        Ok(Sent::TokenGone(code))
                    }
                    400 if code == "INVALID_ARGUMENT" => Ok(Sent::TokenGone(code)),
                    429 => Err(ProviderError::RateLimited {
                        provider: PROVIDER,
                        retry_after: wait,
                    }),
                    500..=599 => Err(ProviderError::Unavailable {
                        provider: PROVIDER,
                        message: format!("status {status} {code}: {message}"),
                    }),
                    401 | 403 => Err(ProviderError::Rejected {
                        provider: PROVIDER,
                        status,
                        message: format!("bad credentials ({code}): {message}"),
                    }),
                    _ => Err(ProviderError::Rejected {
                        provider: PROVIDER,
                        status,
                        message: format!("{code}: {message}"),
                    }),
                };
            }
        })
        .await
    }
}

/// The FCM error code of an error body: `details[].errorCode` (`UNREGISTERED`, …), else the
/// canonical `status` (`INVALID_ARGUMENT`, `NOT_FOUND`, …).
fn error_code(v: &Value) -> String {
    let details = v["error"]["details"].as_array();
    details
        .into_iter()
        .flatten()
        .find_map(|d| d["errorCode"].as_str())
        .or_else(|| v["error"]["status"].as_str())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_come_from_details_then_status() {
        let v = json!({"error": {"code": 404, "status": "NOT_FOUND", "details": [
            {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}});
        assert_eq!(error_code(&v), "UNREGISTERED");
        let v = json!({"error": {"code": 400, "status": "INVALID_ARGUMENT"}});
        assert_eq!(error_code(&v), "INVALID_ARGUMENT");
        assert_eq!(error_code(&Value::Null), "");
    }

    #[test]
    fn a_pem_that_is_not_a_key_is_refused() {
        assert!(
            signing_key("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----")
                .is_err()
        );
        assert!(signing_key("garbage!").is_err());
    }
}
