//! Twilio Verify and inbound SMS (`TWILIO_BASE_URL` and the three credentials).

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
        }))
    }
}
