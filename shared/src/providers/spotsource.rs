//! The surf-spot provider, `spotsource` (`docs/competition.md`, `docs/forecasts.md`), over
//! HTTP and JSON with `Authorization: Bearer {SPOTSOURCE_API_KEY}` when a key is configured:
//!
//! - `GET {base}/api/spots/search?q=&limit=` answering
//!   `{"spots": [{"slug", "name", "region", "country", "latitude", "longitude"}]}`; entries
//!   without a slug or a name are skipped;
//! - `GET {base}/api/spots/{slug}` answering one such spot (404: no such spot);
//! - `GET {base}/api/spots/{slug}/forecast?hours=N`, the primary forecast: `{"spot", "hours":
//!   [{"time", "waveHeightM", "wavePeriodS", "waveDirectionDeg", "swellHeightM",
//!   "swellPeriodS", "swellDirectionDeg", "windWaveHeightM", "windSpeedKn",
//!   "windDirectionDeg", "gustKn", "seaTempC", "seaLevelM"}]}` from the current hour, UTC;
//!   rows without a readable time are skipped, missing values are null.
//!
//! The search and the spot read are retried on 429/5xx/transport errors like every provider
//! read. The forecast read is sent once: the fallback provider is its retry, and every call
//! counts against the forecast budget (`docs/forecasts.md`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::forecast::{HourRow, Swell, WindWave};
use super::http::{ProviderError, Retry, json_or_error, send};
use crate::config::SpotsourceConfig;

pub const PROVIDER: &str = "spotsource";

/// A surf spot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Spot {
    pub slug: String,
    pub name: String,
    pub region: Option<String>,
    pub country: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct Spotsource {
    cfg: SpotsourceConfig,
    http: reqwest::Client,
}

impl Spotsource {
    pub fn new(cfg: SpotsourceConfig, http: reqwest::Client) -> Self {
        Spotsource { cfg, http }
    }

    /// How long searches and spots are served from the cache.
    pub fn cache_ttl(&self) -> std::time::Duration {
        self.cfg.cache_ttl
    }

    fn url(&self, segments: &[&str]) -> url::Url {
        let mut url = self.cfg.base_url.clone();
        url.path_segments_mut()
            .expect("the configured base URL has a host")
            .pop_if_empty()
            .extend(segments);
        url
    }

    async fn get(&self, url: url::Url, retry: Retry) -> Result<reqwest::Response, ProviderError> {
        send(PROVIDER, retry, || {
            let r = self.http.get(url.clone()).timeout(self.cfg.timeout);
            match &self.cfg.api_key {
                Some(k) => r.bearer_auth(k.expose()),
                None => r,
            }
        })
        .await
    }

    /// Spots whose name matches `query`, at most `limit`.
    pub async fn search(&self, query: &str, limit: u32) -> Result<Vec<Spot>, ProviderError> {
        let mut url = self.url(&["api", "spots", "search"]);
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("limit", &limit.to_string());
        let resp = self.get(url, Retry::Idempotent).await?;
        let v: Value = json_or_error(PROVIDER, resp).await?;
        let spots = v
            .get("spots")
            .and_then(Value::as_array)
            .ok_or(ProviderError::Unavailable {
                provider: PROVIDER,
                message: "the answer has no list of spots".into(),
            })?;
        Ok(spots
            .iter()
            .filter_map(|s| serde_json::from_value::<Spot>(s.clone()).ok())
            .filter(|s| !s.slug.trim().is_empty() && !s.name.trim().is_empty())
            .collect())
    }

    /// One spot; `None` when the provider has no such spot (404).
    pub async fn spot(&self, slug: &str) -> Result<Option<Spot>, ProviderError> {
        let resp = self
            .get(self.url(&["api", "spots", slug]), Retry::Idempotent)
            .await?;
        let v: Value = match json_or_error(PROVIDER, resp).await {
            Ok(v) => v,
            Err(ProviderError::Rejected { status: 404, .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        // The spot itself, or wrapped as `{"spot": {...}}`.
        let v = v.get("spot").cloned().unwrap_or(v);
        let spot: Spot = serde_json::from_value(v).map_err(|e| ProviderError::Unavailable {
            provider: PROVIDER,
            message: format!("unreadable spot: {e}"),
        })?;
        if spot.slug.trim().is_empty() || spot.name.trim().is_empty() {
            return Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: "the spot has no slug or name".into(),
            });
        }
        Ok(Some(spot))
    }

    /// The spot's hourly forecast for the next `hours` hours (sent once, never retried). No
    /// readable hour at all is a failure, so the fallback is asked.
    pub async fn forecast(&self, slug: &str, hours: u32) -> Result<Vec<HourRow>, ProviderError> {
        let mut url = self.url(&["api", "spots", slug, "forecast"]);
        url.query_pairs_mut()
            .append_pair("hours", &hours.to_string());
        let resp = self.get(url, Retry::Once).await?;
        let v: Value = json_or_error(PROVIDER, resp).await?;
        let rows = read_forecast(&v);
        if rows.is_empty() {
            return Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: "the forecast has no readable hours".into(),
            });
        }
        Ok(rows)
    }
}

/// The rows of a primary forecast answer (`{"hours": [...]}`), in time order.
pub fn read_forecast(v: &Value) -> Vec<HourRow> {
    let num = |row: &Value, k: &str| row.get(k).and_then(Value::as_f64);
    let mut rows: Vec<HourRow> = v
        .get("hours")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|row| {
            let time = row.get("time").and_then(Value::as_str)?;
            let time = chrono::DateTime::parse_from_rfc3339(time).ok()?.to_utc();
            Some(HourRow {
                time,
                wave_height_m: num(row, "waveHeightM"),
                wave_period_s: num(row, "wavePeriodS"),
                wave_direction_deg: num(row, "waveDirectionDeg"),
                swell: Swell {
                    height_m: num(row, "swellHeightM"),
                    period_s: num(row, "swellPeriodS"),
                    direction_deg: num(row, "swellDirectionDeg"),
                },
                wind_wave: WindWave {
                    height_m: num(row, "windWaveHeightM"),
                },
                wind_speed_kn: num(row, "windSpeedKn"),
                wind_direction_deg: num(row, "windDirectionDeg"),
                gust_kn: num(row, "gustKn"),
                sea_temp_c: num(row, "seaTempC"),
                sea_level_m: num(row, "seaLevelM"),
            })
        })
        .collect();
    rows.sort_by_key(|r| r.time);
    rows.dedup_by_key(|r| r.time);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forecast_rows_skip_unreadable_times_and_keep_missing_values_null() {
        let v = json!({ "spot": "bells-beach", "hours": [
            { "time": "2026-12-01T07:00:00Z", "waveHeightM": 1.5, "swellPeriodS": 12 },
            { "time": "yesterday", "waveHeightM": 9.0 },
            { "time": "2026-12-01T06:00:00+00:00", "windSpeedKn": 8.5, "gustKn": null }
        ]});
        let rows = read_forecast(&v);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].time.to_rfc3339(), "2026-12-01T06:00:00+00:00");
        assert_eq!(rows[0].wind_speed_kn, Some(8.5));
        assert_eq!(rows[0].gust_kn, None);
        assert_eq!(rows[1].wave_height_m, Some(1.5));
        assert_eq!(rows[1].swell.period_s, Some(12.0));
        assert!(read_forecast(&json!({ "nothing": [] })).is_empty());
    }
}
