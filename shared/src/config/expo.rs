//! Expo push (`EXPO_PUSH_URL`, `EXPO_ACCESS_TOKEN`).

use super::env::{Env, parse_url};
use super::{ConfigError, Secret};
use url::Url;

#[derive(Clone, Debug)]
pub struct ExpoConfig {
    /// `https://exp.host` in production; the adapter appends `/--/api/v2/push/send`.
    pub base_url: Url,
    /// Expo's enhanced push security access token, sent as a bearer token when set.
    pub access_token: Option<Secret>,
}

impl ExpoConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let Some(base) = env.get("EXPO_PUSH_URL") else {
            return Ok(None);
        };
        Ok(Some(ExpoConfig {
            base_url: parse_url("EXPO_PUSH_URL", &base)?,
            access_token: env.secret("EXPO_ACCESS_TOKEN"),
        }))
    }
}
