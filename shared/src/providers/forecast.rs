//! The one forecast shape both forecast providers are read into (`docs/forecasts.md`): hourly
//! rows in UTC, metres, seconds, degrees (the direction the waves or wind come from), knots and
//! degrees Celsius. Every value is optional: a provider that has no value for an hour (a point
//! on land has no waves) leaves it `null`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One hour of forecast.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HourRow {
    /// The hour's start, UTC.
    #[schema(value_type = String, format = DateTime)]
    pub time: DateTime<Utc>,
    /// Significant height of the combined sea (swell and wind waves), metres.
    pub wave_height_m: Option<f64>,
    /// Period of the combined sea, seconds.
    pub wave_period_s: Option<f64>,
    /// Where the combined sea comes from, degrees (0 = north).
    pub wave_direction_deg: Option<f64>,
    pub swell: Swell,
    pub wind_wave: WindWave,
    /// Wind at 10 m, knots.
    pub wind_speed_kn: Option<f64>,
    /// Where the wind comes from, degrees.
    pub wind_direction_deg: Option<f64>,
    /// Gusts at 10 m, knots.
    pub gust_kn: Option<f64>,
    /// Sea surface temperature, °C.
    pub sea_temp_c: Option<f64>,
    /// Sea level against mean sea level (tides and surge), metres.
    pub sea_level_m: Option<f64>,
}

/// The swell part of the sea.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Swell {
    pub height_m: Option<f64>,
    pub period_s: Option<f64>,
    pub direction_deg: Option<f64>,
}

/// The locally wind-driven part of the sea.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WindWave {
    pub height_m: Option<f64>,
}

impl HourRow {
    /// An hour with no values yet.
    pub fn at(time: DateTime<Utc>) -> Self {
        HourRow {
            time,
            ..Default::default()
        }
    }
}
