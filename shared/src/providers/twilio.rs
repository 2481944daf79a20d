//! Twilio: Verify (`POST {base}/v2/Services/{sid}/Verifications` and `…/VerificationCheck`,
//! HTTP Basic with the account SID and auth token) and the signature of inbound webhooks
//! (`X-Twilio-Signature`).
//!
//! Neither Verify call is retried: a start sends an SMS, a check spends one of the code's
//! attempts. Twilio's error body `{"code": 60203, "message": …, "status": 429}` is kept so the
//! caller can map it (60203 too many sends, 60202 too many checks, 20404 no such verification,
//! 21610 the number opted out, 60200 an invalid number).

use super::http::{ProviderError, Retry, send};
use crate::config::TwilioConfig;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;

pub const PROVIDER: &str = "sms (twilio)";

#[derive(Clone, Debug)]
pub struct Twilio {
    cfg: TwilioConfig,
    http: reqwest::Client,
}

/// A Verify resource: `status` is pending, approved, canceled, max_attempts_reached, expired
/// or failed.
#[derive(Clone, Debug, Deserialize)]
pub struct Verification {
    pub status: String,
    #[serde(default)]
    pub valid: bool,
}

/// What a Verify call ended with.
#[derive(Debug)]
pub enum VerifyResult {
    Ok(Verification),
    /// Twilio answered 4xx with its error code.
    Refused {
        status: u16,
        code: i64,
        message: String,
    },
}

/// What a Messages API call ended with.
#[derive(Debug)]
pub enum SmsResult {
    /// Accepted, with the message SID (`SM…`).
    Queued(String),
    Refused {
        status: u16,
        code: i64,
        message: String,
    },
}

#[derive(Deserialize)]
struct SentMessage {
    sid: String,
}

#[derive(Deserialize)]
struct TwilioError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
}

impl Twilio {
    pub fn new(cfg: TwilioConfig, http: reqwest::Client) -> Self {
        Twilio { cfg, http }
    }

    /// Sends a code by SMS to `to` (E.164).
    pub async fn start(&self, to: &str) -> Result<VerifyResult, ProviderError> {
        self.call("Verifications", &[("To", to), ("Channel", "sms")])
            .await
    }

    /// Checks `code` for `to`.
    pub async fn check(&self, to: &str, code: &str) -> Result<VerifyResult, ProviderError> {
        self.call("VerificationCheck", &[("To", to), ("Code", code)])
            .await
    }

    async fn call(&self, what: &str, form: &[(&str, &str)]) -> Result<VerifyResult, ProviderError> {
        let url = self
            .cfg
            .base_url
            .join(&format!(
                "v2/Services/{}/{what}",
                self.cfg.verify_service_sid
            ))
            .expect("base URL joins a relative path");
        let resp = send(PROVIDER, Retry::Once, || {
            self.http
                .post(url.clone())
                .basic_auth(&self.cfg.account_sid, Some(self.cfg.auth_token.expose()))
                .form(form)
        })
        .await?;
        let status = resp.status();
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes)
                .map(VerifyResult::Ok)
                .map_err(|e| ProviderError::Unavailable {
                    provider: PROVIDER,
                    message: format!("unexpected response body: {e}"),
                });
        }
        if status.is_client_error() && status.as_u16() != 401 && status.as_u16() != 403 {
            let e: TwilioError = serde_json::from_slice(&bytes).unwrap_or(TwilioError {
                code: 0,
                message: String::from_utf8_lossy(&bytes).chars().take(300).collect(),
            });
            return Ok(VerifyResult::Refused {
                status: status.as_u16(),
                code: e.code,
                message: e.message,
            });
        }
        let message = String::from_utf8_lossy(&bytes).chars().take(300).collect();
        if status.is_client_error() {
            // Our credentials were refused: a configuration problem, not the user's.
            Err(ProviderError::Rejected {
                provider: PROVIDER,
                status: status.as_u16(),
                message,
            })
        } else {
            Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("status {status}: {message}"),
            })
        }
    }

    /// Whether notification SMS can be sent (a sender is configured).
    pub fn can_send(&self) -> bool {
        self.cfg.from.is_some() || self.cfg.messaging_service_sid.is_some()
    }

    /// Sends a text message (Messages API: `POST {api}/2010-04-01/Accounts/{sid}/Messages.json`
    /// with `To`, `Body` and `MessagingServiceSid` or `From`). A 4xx with Twilio's code (21610:
    /// the number replied STOP; 21211/21614: not a usable number) is `Refused`; 429 and 5xx are
    /// retried with backoff ([`super::retry`]), then transient; 401/403 are our credentials
    /// (permanent). Twilio queues the message: its answer carries the message SID.
    pub async fn send_sms(&self, to: &str, body: &str) -> Result<SmsResult, ProviderError> {
        let url = self
            .cfg
            .api_base_url
            .join(&format!(
                "2010-04-01/Accounts/{}/Messages.json",
                self.cfg.account_sid
            ))
            .expect("base URL joins a relative path");
        let mut form = vec![("To", to), ("Body", body)];
        match (&self.cfg.messaging_service_sid, &self.cfg.from) {
            (Some(mg), _) => form.push(("MessagingServiceSid", mg)),
            (None, Some(from)) => form.push(("From", from)),
            (None, None) => return Err(ProviderError::NotConfigured("sms notifications")),
        }
        let (url, form) = (&url, &form);
        super::retry::with_backoff(PROVIDER, move || async move {
            let resp = self
                .http
                .post(url.clone())
                .basic_auth(&self.cfg.account_sid, Some(self.cfg.auth_token.expose()))
                .form(form)
                .send()
                .await
                .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
            let status = resp.status().as_u16();
            let wait = super::http::retry_after(resp.headers());
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
                200..=299 => {
                    let m: SentMessage =
                        serde_json::from_slice(&bytes).map_err(|e| ProviderError::Unavailable {
                            provider: PROVIDER,
                            message: format!("unexpected response body: {e}"),
                        })?;
                    Ok(SmsResult::Queued(m.sid))
                }
                429 => Err(ProviderError::RateLimited {
                    provider: PROVIDER,
                    retry_after: wait,
                }),
                401 | 403 => Err(ProviderError::Rejected {
                    provider: PROVIDER,
                    status,
                    message: format!("bad credentials: {}", text()),
                }),
                400..=499 => {
                    let e: TwilioError = serde_json::from_slice(&bytes).unwrap_or(TwilioError {
                        code: 0,
                        message: text(),
                    });
                    Ok(SmsResult::Refused {
                        status,
                        code: e.code,
                        message: e.message,
                    })
                }
                _ => Err(ProviderError::Unavailable {
                    provider: PROVIDER,
                    message: format!("status {status}: {}", text()),
                }),
            }
        })
        .await
    }

    pub fn auth_token(&self) -> &str {
        self.cfg.auth_token.expose()
    }
}

/// Twilio's signature: HMAC-SHA1 (key: the auth token) over the full URL followed by each
/// POST parameter, sorted by name (then value), as name+value with no separators; base64.
pub fn signature(auth_token: &str, url: &str, params: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = params.iter().collect();
    sorted.sort();
    let mut mac =
        Hmac::<sha1::Sha1>::new_from_slice(auth_token.as_bytes()).expect("hmac takes any key");
    mac.update(url.as_bytes());
    for (k, v) in sorted {
        mac.update(k.as_bytes());
        mac.update(v.as_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// The URLs a signature may have been computed over: as given, and without (or with) the
/// scheme's default port, since proxies and Twilio differ in writing it.
pub fn url_variants(url: &url::Url) -> Vec<String> {
    let mut out = vec![url.to_string()];
    let default = match url.scheme() {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    };
    // `Url` drops a default port when parsing, so `url` never shows one: add it as a variant.
    if let (Some(port), None) = (default, url.port()) {
        let mut with = url.to_string();
        let host = url.host_str().unwrap_or_default();
        let authority = format!("{}://{host}", url.scheme());
        if with.starts_with(&authority) {
            with.insert_str(authority.len(), &format!(":{port}"));
            out.push(with);
        }
    }
    out
}

/// Checks `X-Twilio-Signature` in constant time against every URL variant.
pub fn verify_signature(
    auth_token: &str,
    url: &url::Url,
    params: &[(String, String)],
    given: &str,
) -> bool {
    let mut ok = subtle::Choice::from(0u8);
    for u in url_variants(url) {
        let expected = signature(auth_token, &u, params);
        ok |= subtle::ConstantTimeEq::ct_eq(expected.as_bytes(), given.as_bytes());
    }
    ok.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example from Twilio's webhook security documentation.
    #[test]
    fn signature_matches_twilios_documented_example() {
        let params: Vec<(String, String)> = [
            ("CallSid", "CA1234567890ABCDE"),
            ("Caller", "+12349013030"),
            ("Digits", "1234"),
            ("From", "+12349013030"),
            ("To", "+18005551212"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let url = "https://mycompany.com/myapp.php?foo=1&bar=2";
        assert_eq!(
            signature("12345", url, &params),
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        );
        let u = url::Url::parse("https://mycompany.com:443/myapp.php?foo=1&bar=2").unwrap();
        assert!(verify_signature(
            "12345",
            &u,
            &params,
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        ));
        assert!(!verify_signature(
            "12345",
            &u,
            &params,
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ"
        ));
        assert!(!verify_signature(
            "54321",
            &u,
            &params,
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        ));
    }

    #[test]
    fn a_signature_over_the_url_with_the_default_port_is_accepted() {
        let p = vec![("Body".to_string(), "STOP".to_string())];
        let sig = signature("tok", "https://app.test:443/api/notifications/inbound", &p);
        let u = url::Url::parse("https://app.test/api/notifications/inbound").unwrap();
        assert!(verify_signature("tok", &u, &p, &sig));
    }
}
