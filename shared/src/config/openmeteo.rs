//! The fallback forecast provider (`OPENMETEO_*`, `docs/forecasts.md`).

use super::env::{Env, err, parse_url};
use super::{ConfigError, Secret};
use std::time::Duration;
use url::Url;

/// Spoken to in the Open-Meteo protocol: the marine API (`{marine_url}/v1/marine`) for waves and
/// the weather API (`{weather_url}/v1/forecast`) for wind, which Open-Meteo serves from
/// different hosts.
#[derive(Clone, Debug)]
pub struct OpenMeteoConfig {
    pub marine_url: Url,
    pub weather_url: Url,
    /// Sent as the `apikey` query parameter when set (Open-Meteo's commercial plans).
    pub api_key: Option<Secret>,
    /// How long one request may take (`OPENMETEO_TIMEOUT_MS`, default 10000).
    pub timeout: Duration,
    /// Outbound requests per second, per process (`OPENMETEO_RATE_PER_SEC`, default 5: the
    /// free plan allows 600 a minute).
    pub rate_per_sec: u32,
}

impl OpenMeteoConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let Some(marine) = env.get("OPENMETEO_MARINE_URL") else {
            return Ok(None);
        };
        let marine_url = parse_url("OPENMETEO_MARINE_URL", &marine)?;
        let weather = env.get("OPENMETEO_WEATHER_URL").ok_or_else(|| {
            err(
                "OPENMETEO_WEATHER_URL",
                "required when OPENMETEO_MARINE_URL is set (wind comes from the weather API)",
            )
        })?;
        Ok(Some(OpenMeteoConfig {
            marine_url,
            weather_url: parse_url("OPENMETEO_WEATHER_URL", &weather)?,
            api_key: env.secret("OPENMETEO_API_KEY"),
            timeout: env.timeout_ms("OPENMETEO_TIMEOUT_MS", 10_000)?,
            rate_per_sec: env.rate("OPENMETEO_RATE_PER_SEC", 5)?,
        }))
    }
}
