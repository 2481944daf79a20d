//! The competition provider (`HEATSOURCE_*`, `docs/competition.md`).

use super::env::{Env, err, parse_url};
use super::{ConfigError, Secret};
use std::time::Duration;
use url::Url;

/// A LiveHeats-style GraphQL API at `{base_url}/api/graphql`, with an OAuth client-credentials
/// token at `{base_url}/oauth/token` for the licensed queries (athlete search and profiles).
#[derive(Clone, Debug)]
pub struct HeatsourceConfig {
    pub base_url: Url,
    /// Both set, or neither: without them only public data (organisations, series, events) is
    /// available and the athlete queries answer "not configured".
    pub client_id: Option<String>,
    pub client_secret: Option<Secret>,
    /// How long one request may take (`HEATSOURCE_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// How long a cached answer is served before it is fetched again
    /// (`HEATSOURCE_CACHE_TTL_SECS`, default 600; 0 disables the cache).
    pub cache_ttl: Duration,
    /// The organisations' short names the scheduled syncs follow (`HEATSOURCE_ORGANISATIONS`,
    /// comma-separated, lower-cased; default none).
    pub organisations: Vec<String>,
    /// Outbound requests per second, per process (`HEATSOURCE_RATE_PER_SEC`, default 5).
    pub rate_per_sec: u32,
}

impl HeatsourceConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let Some(base) = env.get("HEATSOURCE_BASE_URL") else {
            return Ok(None);
        };
        let client_id = env.get("HEATSOURCE_CLIENT_ID");
        let client_secret = env.secret("HEATSOURCE_CLIENT_SECRET");
        if client_id.is_some() != client_secret.is_some() {
            let var = if client_id.is_some() {
                "HEATSOURCE_CLIENT_SECRET"
            } else {
                "HEATSOURCE_CLIENT_ID"
            };
            return Err(err(
                var,
                "HEATSOURCE_CLIENT_ID and HEATSOURCE_CLIENT_SECRET are set together",
            ));
        }
        Ok(Some(HeatsourceConfig {
            base_url: parse_url("HEATSOURCE_BASE_URL", &base)?,
            client_id,
            client_secret,
            timeout: env.timeout_ms("HEATSOURCE_TIMEOUT_MS", 10_000)?,
            cache_ttl: env.secs("HEATSOURCE_CACHE_TTL_SECS", 600)?,
            organisations: env.names("HEATSOURCE_ORGANISATIONS"),
            rate_per_sec: env.rate("HEATSOURCE_RATE_PER_SEC", 5)?,
        }))
    }
}
