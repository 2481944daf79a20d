//! The surf-spot provider (`SPOTSOURCE_*`, `docs/competition.md`, "spotsource").

use super::env::{Env, parse_url};
use super::{ConfigError, Secret};
use std::time::Duration;
use url::Url;

#[derive(Clone, Debug)]
pub struct SpotsourceConfig {
    pub base_url: Url,
    /// Sent as a bearer token when set.
    pub api_key: Option<Secret>,
    /// How long one request may take (`SPOTSOURCE_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// How long a spot search or spot is served from the cache (`SPOTSOURCE_CACHE_TTL_SECS`,
    /// default 600; 0 disables the cache). Forecasts have their own windows.
    pub cache_ttl: Duration,
}

impl SpotsourceConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let Some(base) = env.get("SPOTSOURCE_BASE_URL") else {
            return Ok(None);
        };
        Ok(Some(SpotsourceConfig {
            base_url: parse_url("SPOTSOURCE_BASE_URL", &base)?,
            api_key: env.secret("SPOTSOURCE_API_KEY"),
            timeout: env.timeout_ms("SPOTSOURCE_TIMEOUT_MS", 10_000)?,
            cache_ttl: env.secs("SPOTSOURCE_CACHE_TTL_SECS", 600)?,
        }))
    }
}
