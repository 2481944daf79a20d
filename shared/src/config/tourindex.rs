//! The professional tour's athlete index (`TOURINDEX_*`, `docs/competition.md`).

use super::ConfigError;
use super::env::{Env, parse_url};
use std::time::Duration;
use url::Url;

/// JSON search endpoints and HTML pages read tolerantly, at `{base_url}/...`.
#[derive(Clone, Debug)]
pub struct TourindexConfig {
    pub base_url: Url,
    /// The tours the scheduled sync scrapes (`TOURINDEX_TOURS`, comma-separated, lower-cased;
    /// default none).
    pub tours: Vec<String>,
    /// How long one request may take (`TOURINDEX_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// (`TOURINDEX_CACHE_TTL_SECS`, default 600; 0 disables the cache).
    pub cache_ttl: Duration,
    /// Outbound requests per second, per process (`TOURINDEX_RATE_PER_SEC`, default 2: pages
    /// are scraped, so be gentle).
    pub rate_per_sec: u32,
}

impl TourindexConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let Some(base) = env.get("TOURINDEX_BASE_URL") else {
            return Ok(None);
        };
        Ok(Some(TourindexConfig {
            base_url: parse_url("TOURINDEX_BASE_URL", &base)?,
            tours: env.names("TOURINDEX_TOURS"),
            timeout: env.timeout_ms("TOURINDEX_TIMEOUT_MS", 10_000)?,
            cache_ttl: env.secs("TOURINDEX_CACHE_TTL_SECS", 600)?,
            rate_per_sec: env.rate("TOURINDEX_RATE_PER_SEC", 2)?,
        }))
    }
}
