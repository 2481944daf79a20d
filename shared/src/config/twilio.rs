//! Twilio Verify and inbound SMS (`TWILIO_BASE_URL` and the three credentials), and SMS
//! notifications through the Messages API (`TWILIO_API_BASE_URL`, `TWILIO_FROM` or
//! `TWILIO_MESSAGING_SERVICE_SID`).

use super::env::{Env, parse_url};
use super::{ConfigError, Secret};
use url::Url;

#[derive(Clone, Debug)]
pub struct TwilioConfig {
    /// `https://verify.twilio.com` in production.
    pub base_url: Url,
    pub account_sid: String,
    /// Basic auth password of the API calls and the key of the webhook signature.
    pub auth_token: Secret,
    /// The Verify service (`VA…`).
    pub verify_service_sid: String,
    /// The Messages API, `https://api.twilio.com` (`/2010-04-01/Accounts/{sid}/Messages.json`).
    pub api_base_url: Url,
    /// The sender of notification SMS: a number (`TWILIO_FROM`, E.164) or a Messaging Service
    /// (`TWILIO_MESSAGING_SERVICE_SID`, `MG…`, preferred when both are set). Neither: SMS
    /// notifications fail "not configured".
    pub from: Option<String>,
    pub messaging_service_sid: Option<String>,
}

impl TwilioConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        const BASE: &str = "TWILIO_BASE_URL";
        let Some(base) = env.get(BASE) else {
            return Ok(None);
        };
        Ok(Some(TwilioConfig {
            base_url: parse_url(BASE, &base)?,
            account_sid: env.required("TWILIO_ACCOUNT_SID", BASE)?,
            auth_token: env.required_secret("TWILIO_AUTH_TOKEN", BASE)?,
            verify_service_sid: env.required("TWILIO_VERIFY_SERVICE_SID", BASE)?,
            api_base_url: parse_url(
                "TWILIO_API_BASE_URL",
                &env.get("TWILIO_API_BASE_URL")
                    .unwrap_or_else(|| "https://api.twilio.com".into()),
            )?,
            from: env.get("TWILIO_FROM"),
            messaging_service_sid: env.get("TWILIO_MESSAGING_SERVICE_SID"),
        }))
    }
}
