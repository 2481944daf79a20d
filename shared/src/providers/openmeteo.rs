//! The fallback forecast provider, spoken to in the Open-Meteo protocol (`docs/forecasts.md`,
//! PROVIDERS.md). One forecast is two calls, sent at once:
//!
//! - marine: `GET {OPENMETEO_MARINE_URL}/v1/marine?latitude&longitude&hourly=wave_height,
//!   wave_direction,wave_period,swell_wave_height,swell_wave_direction,swell_wave_period,
//!   wind_wave_height,sea_surface_temperature,sea_level_height_msl&timezone=GMT&forecast_days=8`;
//! - weather (wind): `GET {OPENMETEO_WEATHER_URL}/v1/forecast?latitude&longitude&hourly=
//!   wind_speed_10m,wind_direction_10m,wind_gusts_10m&wind_speed_unit=kn&timezone=GMT&
//!   forecast_days=8`.
//!
//! Both answer parallel arrays: `hourly.time[]` (local times without an offset; GMT asked, so
//! UTC) and `hourly.<variable>[]`. A point on land has no sea: its marine values are null,
//! which is an answer, not a failure. Either call failing fails the forecast. The calls are sent
//! once (no retry: every call counts against the budget), paced per process
//! (`OPENMETEO_RATE_PER_SEC`), with `apikey` when a key is configured.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::Value;

use super::forecast::HourRow;
use super::http::{ProviderError, Retry, json_or_error, send};
use super::pace::Pace;
use crate::config::OpenMeteoConfig;

pub const PROVIDER: &str = "openmeteo";

/// Days asked of each API: a forecast fetched at 23:00 still covers the next 7 days.
pub const FORECAST_DAYS: u32 = 8;

const MARINE_VARS: &str = "wave_height,wave_direction,wave_period,swell_wave_height,\
swell_wave_direction,swell_wave_period,wind_wave_height,sea_surface_temperature,\
sea_level_height_msl";
const WIND_VARS: &str = "wind_speed_10m,wind_direction_10m,wind_gusts_10m";

#[derive(Clone, Debug)]
pub struct OpenMeteo {
    cfg: OpenMeteoConfig,
    http: reqwest::Client,
    pace: Pace,
}

impl OpenMeteo {
    pub fn new(cfg: OpenMeteoConfig, http: reqwest::Client) -> Self {
        let pace = Pace::per_sec(cfg.rate_per_sec);
        OpenMeteo { cfg, http, pace }
    }

    fn url(
        &self,
        base: &url::Url,
        path: &str,
        lat: f64,
        lon: f64,
        extra: &[(&str, &str)],
    ) -> url::Url {
        let mut url = base.clone();
        url.path_segments_mut()
            .expect("the configured base URL has a host")
            .pop_if_empty()
            .extend(["v1", path]);
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("latitude", &format!("{lat:.4}"))
                .append_pair("longitude", &format!("{lon:.4}"));
            for (k, v) in extra {
                q.append_pair(k, v);
            }
            q.append_pair("timezone", "GMT")
                .append_pair("forecast_days", &FORECAST_DAYS.to_string());
            if let Some(k) = &self.cfg.api_key {
                q.append_pair("apikey", k.expose());
            }
        }
        url
    }

    async fn hourly(&self, url: url::Url) -> Result<Value, ProviderError> {
        self.pace.wait().await;
        let resp = send(PROVIDER, Retry::Once, || {
            self.http.get(url.clone()).timeout(self.cfg.timeout)
        })
        .await?;
        let v: Value = json_or_error(PROVIDER, resp).await?;
        if v.get("error").and_then(Value::as_bool) == Some(true) {
            return Err(ProviderError::Rejected {
                provider: PROVIDER,
                status: 400,
                message: v
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .chars()
                    .take(300)
                    .collect(),
            });
        }
        v.get("hourly")
            .cloned()
            .filter(|h| h.get("time").and_then(Value::as_array).is_some())
            .ok_or(ProviderError::Unavailable {
                provider: PROVIDER,
                message: "the answer has no hourly times".into(),
            })
    }

    /// The hourly forecast at a point: waves from the marine API, wind from the weather API.
    pub async fn forecast(&self, lat: f64, lon: f64) -> Result<Vec<HourRow>, ProviderError> {
        let marine = self.url(
            &self.cfg.marine_url,
            "marine",
            lat,
            lon,
            &[("hourly", MARINE_VARS)],
        );
        let weather = self.url(
            &self.cfg.weather_url,
            "forecast",
            lat,
            lon,
            &[("hourly", WIND_VARS), ("wind_speed_unit", "kn")],
        );
        let (marine, wind) = tokio::join!(self.hourly(marine), self.hourly(weather));
        let rows = merge(&marine?, &wind?);
        if rows.is_empty() {
            return Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: "the forecast has no readable hours".into(),
            });
        }
        Ok(rows)
    }
}

/// An Open-Meteo time (`2026-12-01T06:00`, GMT asked), or an RFC 3339 one.
fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
        .map(|t| t.and_utc())
        .ok()
        .or_else(|| DateTime::parse_from_rfc3339(s).ok().map(|t| t.to_utc()))
}

/// The rows of the marine answer's `hourly`, with the wind answer's values for the same hours.
pub fn merge(marine: &Value, wind: &Value) -> Vec<HourRow> {
    let col = |h: &Value, k: &str, i: usize| {
        h.get(k)
            .and_then(Value::as_array)
            .and_then(|a| a.get(i))
            .and_then(Value::as_f64)
    };
    let times = |h: &Value| -> Vec<Option<DateTime<Utc>>> {
        h.get("time")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|t| t.as_str().and_then(parse_time))
            .collect()
    };
    let wind_at: std::collections::HashMap<DateTime<Utc>, usize> = times(wind)
        .into_iter()
        .enumerate()
        .filter_map(|(i, t)| Some((t?, i)))
        .collect();
    let mut rows: Vec<HourRow> = times(marine)
        .into_iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let mut r = HourRow::at(t?);
            r.wave_height_m = col(marine, "wave_height", i);
            r.wave_period_s = col(marine, "wave_period", i);
            r.wave_direction_deg = col(marine, "wave_direction", i);
            r.swell.height_m = col(marine, "swell_wave_height", i);
            r.swell.period_s = col(marine, "swell_wave_period", i);
            r.swell.direction_deg = col(marine, "swell_wave_direction", i);
            r.wind_wave.height_m = col(marine, "wind_wave_height", i);
            r.sea_temp_c = col(marine, "sea_surface_temperature", i);
            r.sea_level_m = col(marine, "sea_level_height_msl", i);
            if let Some(&j) = wind_at.get(&r.time) {
                r.wind_speed_kn = col(wind, "wind_speed_10m", j);
                r.wind_direction_deg = col(wind, "wind_direction_10m", j);
                r.gust_kn = col(wind, "wind_gusts_10m", j);
            }
            Some(r)
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
    fn parallel_arrays_become_rows_with_wind_joined_by_hour_and_nulls_kept() {
        let marine = json!({
            "time": ["2026-12-01T00:00", "2026-12-01T01:00", "bad"],
            "wave_height": [1.2, null, 3.0],
            "swell_wave_period": [11.5, 12.0, 1.0],
            "sea_surface_temperature": [18.2, 18.1, 1.0]
        });
        let wind = json!({
            "time": ["2026-12-01T01:00", "2026-12-01T02:00"],
            "wind_speed_10m": [9.0, 10.0],
            "wind_gusts_10m": [14.0, null]
        });
        let rows = merge(&marine, &wind);
        assert_eq!(rows.len(), 2, "the unreadable time is skipped");
        assert_eq!(rows[0].time.to_rfc3339(), "2026-12-01T00:00:00+00:00");
        assert_eq!(rows[0].wave_height_m, Some(1.2));
        assert_eq!(rows[0].swell.period_s, Some(11.5));
        assert_eq!(rows[0].wind_speed_kn, None, "no wind for that hour");
        assert_eq!(rows[1].wave_height_m, None, "a null stays null (land)");
        assert_eq!(
            (rows[1].wind_speed_kn, rows[1].gust_kn),
            (Some(9.0), Some(14.0))
        );
        assert_eq!(rows[1].sea_temp_c, Some(18.1));
    }
}
