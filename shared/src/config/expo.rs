//! Expo push (`EXPO_PUSH_URL`, `EXPO_ACCESS_TOKEN`, `EXPO_RECEIPT_DELAY_SECS`).

use super::env::{Env, parse_url};
use super::{ConfigError, Secret};
use url::Url;

#[derive(Clone, Debug)]
pub struct ExpoConfig {
    /// `https://exp.host` in production; the adapter appends `/--/api/v2/push/send`.
    pub base_url: Url,
    /// Expo's enhanced push security access token, sent as a bearer token when set.
    pub access_token: Option<Secret>,
    /// How old a ticket is before its receipt is asked for (Expo: about 15 minutes).
    pub receipt_delay: std::time::Duration,
}

impl ExpoConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let Some(base) = env.get("EXPO_PUSH_URL") else {
            return Ok(None);
        };
        Ok(Some(ExpoConfig {
            base_url: parse_url("EXPO_PUSH_URL", &base)?,
            access_token: env.secret("EXPO_ACCESS_TOKEN"),
            receipt_delay: env.secs("EXPO_RECEIPT_DELAY_SECS", 900)?,
        }))
    }
}
