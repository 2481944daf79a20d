//! The forecast budget, simulated: 400 spots along forty surf coasts, each asked for every
//! hour of a day, against the fakes, with the domain's clock moved hour by hour. A healthy
//! primary costs one call per cell and window; a failing primary three per cell and window
//! (primary, then the fallback's marine and weather calls). Either way a day stays under
//! 10,000 calls.

use crate::support::*;
use chrono::{DurationRound, Utc};
use futures::StreamExt;
use serde_json::json;
use shared::db::Ts;
use shared::domain::forecasts::{self, Cell, ForecastQuery, Target};
use std::collections::HashSet;

/// Forty surf regions (a point on each coast), ten spots along each, 2-3 km apart.
fn spots() -> Vec<(String, f64, f64)> {
    let regions = [
        (-38.37, 144.28),
        (-28.16, 153.55),
        (-33.79, 151.29),
        (-31.95, 115.75),
        (-34.05, 151.15),
        (-37.80, 174.87),
        (-43.53, 172.75),
        (21.66, -158.05),
        (20.93, -156.70),
        (36.95, -122.02),
        (33.66, -118.00),
        (32.80, -117.26),
        (34.40, -119.70),
        (45.85, -123.96),
        (43.65, -1.44),
        (43.48, -1.56),
        (38.96, -9.42),
        (39.60, -9.07),
        (37.10, -8.67),
        (30.54, -9.71),
        (28.08, -15.45),
        (50.41, -5.09),
        (54.48, -8.28),
        (-8.81, 115.09),
        (-8.72, 115.17),
        (-0.95, 100.35),
        (-34.04, 24.93),
        (-33.92, 18.38),
        (-29.86, 31.04),
        (9.93, -85.88),
        (8.63, -83.15),
        (13.48, -89.38),
        (15.86, -97.07),
        (-12.16, -77.03),
        (-23.00, -43.40),
        (-27.60, -48.43),
        (35.30, 139.48),
        (9.80, 126.16),
        (11.03, 124.00),
        (64.15, -21.95),
    ];
    let mut out = Vec::new();
    for (r, (lat, lon)) in regions.iter().enumerate() {
        for i in 0..10 {
            // Along the coast: north-south steps with a little east-west wobble.
            let la = lat + f64::from(i) * 0.025;
            let lo = lon + f64::from(i % 3) * 0.015;
            out.push((format!("sim-{r}-{i}"), la, lo));
        }
    }
    out
}

/// Asks every spot's forecast once an hour for `hours` hours from `midnight` (two at a time),
/// asserting each is answered fresh.
async fn ask_hourly(
    app: &TestApp,
    f: forecasts::Forecasters<'_>,
    midnight: chrono::DateTime<Utc>,
    hours: i64,
) {
    let all = spots();
    for hour in 0..hours {
        let now = Ts::from_datetime(midnight + chrono::Duration::minutes(hour * 60 + 17));
        let answers: Vec<_> = futures::stream::iter(all.iter())
            .map(|(slug, _, _)| {
                let q = ForecastQuery {
                    target: Target::Spot(slug.clone()),
                    hours: 24,
                };
                let db = app.state.db.clone();
                async move { forecasts::forecast(&db, f, &q, now).await }
            })
            .buffer_unordered(2)
            .collect()
            .await;
        for a in answers {
            let a = a.expect("every request answered");
            assert!(!a.stale && !a.hours.is_empty());
        }
    }
}

#[tokio::test]
async fn four_hundred_spots_asked_every_hour_stay_under_ten_thousand_calls_a_day() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let all = spots();
    assert_eq!(all.len(), 400);
    for (slug, lat, lon) in &all {
        sp.add_spot(json!({ "slug": slug, "name": slug, "latitude": lat, "longitude": lon }));
    }
    let cells: HashSet<Cell> = all.iter().map(|(_, la, lo)| Cell::of(*la, *lo)).collect();
    let cells = cells.len();
    assert!((120..400).contains(&cells), "{cells} cells");
    let f = app.state.forecasters();
    assert_eq!(f.window_hours, 3);
    let today = Utc::now()
        .duration_trunc(chrono::Duration::days(1))
        .unwrap();

    // A healthy primary all day: one call per cell and window, and each spot read once.
    ask_hourly(&app, f, today, 24).await;
    let forecast_calls = sp.calls("forecast");
    assert_eq!(forecast_calls, cells * 8, "one per cell and 3-hour window");
    assert_eq!(sp.calls("spot"), 400, "each spot read once, then stored");
    assert_eq!(om.total_calls(), 0);
    let day_one = forecast_calls + sp.calls("spot");
    assert!(day_one < 10_000, "{day_one} calls");

    // The primary down the next morning: each attempt asks it, then both fallback APIs, once
    // per cell and window (two windows here; a whole day has four times as many).
    sp.forecasts_down(true);
    ask_hourly(&app, f, today + chrono::Duration::days(1), 6).await;
    let morning = sp.calls("forecast") - forecast_calls + om.total_calls();
    assert_eq!(morning, cells * 2 * 3);
    assert_eq!(
        morning * 4,
        forecasts::calls_per_day_bound(cells as u64, 3) as usize
    );
    assert!(morning * 4 < 10_000, "{} calls a day", morning * 4);
    assert_eq!(sp.calls("spot"), 400, "spots are not read again");
    assert!(
        forecasts::calls_per_day_bound(400, 3) < 10_000,
        "even 400 cells"
    );
}
