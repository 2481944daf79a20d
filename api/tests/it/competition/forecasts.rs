//! Surf spots and forecasts against the two fake providers: the spot search and read, one
//! forecast per grid cell and window, the fallback when the primary fails, a stale forecast
//! when both fail, 502/503 when there is nothing to serve, and the query's checks.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn spot_search_answers_from_the_provider_and_is_cached() {
    let (app, sp, _om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    for _ in 0..2 {
        let r = app
            .get("/api/spotsource/spots/search?q=MANLY")
            .session(&coach)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        let slugs: Vec<&str> = items(&r)
            .iter()
            .map(|s| s["slug"].as_str().unwrap())
            .collect();
        assert_eq!(slugs, ["manly-north", "manly-south"]);
        assert_eq!(items(&r)[0]["latitude"], -33.79);
    }
    assert_eq!(
        sp.calls("search"),
        1,
        "the second search is the cached answer"
    );
    app.get("/api/spotsource/spots/search?q=m")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(sp.calls("search"), 1, "bad input asks nothing");
}

#[tokio::test]
async fn a_spot_is_read_once_stored_and_answered_with_its_forecast_summary() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    for _ in 0..2 {
        let r = app
            .get("/api/surf/spot/bells-beach")
            .session(&coach)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert_eq!(r.json["slug"], "bells-beach");
        assert_eq!(r.json["name"], "Bells Beach");
        assert_eq!(r.json["latitude"], -38.3686);
        let f = &r.json["forecast"];
        assert_eq!(f["source"], "primary", "{}", r.body);
        assert_eq!(f["stale"], false);
        assert_eq!(f["cell"]["key"], "-384:1442");
        assert!(
            f["now"]["waveHeightM"].as_f64().unwrap() > 0.0,
            "{}",
            r.body
        );
        assert_eq!(f["now"]["swell"]["periodS"], 13.0);
        assert_eq!(f["now"]["gustKn"], 14.0);
        let n = &f["next24h"];
        assert!(n["waveHeightMaxM"].as_f64() >= n["waveHeightMinM"].as_f64());
        assert_eq!(r.json["forecastError"], json!(null));
    }
    assert_eq!(sp.calls("spot"), 1, "stored after the first read");
    assert_eq!(sp.calls("forecast"), 1, "one forecast for the window");
    assert_eq!(om.total_calls(), 0, "the fallback is not asked");
    assert_eq!(app.count("spots").await, 1);

    app.get("/api/surf/spot/nowhere-reef")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/surf/forecast?spot=nowhere-reef")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/surf/spot/bad%20slug")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(sp.calls("forecast"), 1);
}

#[tokio::test]
async fn two_spots_and_a_point_in_one_cell_cost_one_provider_call() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let mut cells = Vec::new();
    for path in [
        "/api/surf/forecast?spot=manly-north",
        "/api/surf/forecast?spot=manly-south&hours=24",
        "/api/surf/forecast?lat=-33.795&lon=151.281",
    ] {
        let r = app.get(path).session(&coach).send().await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
        assert_eq!(r.json["source"], "primary");
        assert_eq!(r.json["stale"], false);
        assert_eq!(r.json["forecastPoint"]["spot"], "manly-north", "{path}");
        cells.push(r.json["cell"]["key"].as_str().unwrap().to_string());
        let hours = r.json["hours"].as_array().unwrap();
        let want = if path.contains("hours=24") { 24 } else { 72 };
        assert_eq!(hours.len(), want, "{path}");
        assert!(hours[0]["time"].as_str().unwrap().ends_with(":00:00Z"));
    }
    assert_eq!(cells, ["-338:1512", "-338:1512", "-338:1512"]);
    assert_eq!(sp.calls("forecast"), 1, "one fetch serves the whole cell");
    assert_eq!(om.total_calls(), 0);
    // Another cell is another fetch.
    let r = app
        .get("/api/surf/forecast?spot=snapper-rocks")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(sp.calls("forecast"), 2);
    assert_eq!(app.count("forecast_cells").await, 2, "cells asked about");
}

#[tokio::test]
async fn concurrent_requests_for_one_cell_make_one_provider_call() {
    let (app, sp, _om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    // Spots known beforehand, so every request goes straight to the cell.
    for slug in ["manly-north", "manly-south"] {
        let r = app
            .get(&format!("/api/surf/spot/{slug}"))
            .session(&coach)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    let before = sp.calls("forecast");
    assert_eq!(before, 1);
    expire_provider_cache(&app).await;
    let paths: Vec<String> = (0..8)
        .map(|i| {
            let slug = if i % 2 == 0 {
                "manly-north"
            } else {
                "manly-south"
            };
            format!("/api/surf/forecast?spot={slug}")
        })
        .collect();
    let answers =
        futures::future::join_all(paths.iter().map(|p| app.get(p).session(&coach).send())).await;
    for r in &answers {
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert_eq!(r.json["stale"], false);
    }
    assert_eq!(
        sp.calls("forecast"),
        before + 1,
        "eight requests, one fetch"
    );
}

#[tokio::test]
async fn the_fallback_answers_when_the_primary_fails() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    sp.fail_forecasts(&[500]);
    let r = app
        .get("/api/surf/forecast?spot=pipeline&hours=48")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["source"], "fallback");
    assert_eq!(r.json["stale"], false);
    let h = &r.json["hours"][0];
    assert!(h["waveHeightM"].as_f64().unwrap() > 0.0, "{}", r.body);
    assert_eq!(h["swell"]["periodS"], 12.5);
    assert_eq!(h["windWave"]["heightM"], 0.2);
    assert_eq!(h["waveDirectionDeg"], 230.0);
    assert_eq!(h["windDirectionDeg"], 90.0);
    assert_eq!(h["seaTempC"], 18.0);
    assert!(h["windSpeedKn"].as_f64().unwrap() < 20.0, "knots asked");
    assert_eq!(r.json["hours"].as_array().unwrap().len(), 48);
    assert_eq!(
        sp.calls("forecast"),
        1,
        "sent once: the fallback is the retry"
    );
    assert_eq!((om.calls("marine"), om.calls("forecast")), (1, 1));
    let asked = om.requests();
    let marine = asked.iter().find(|q| q.api == "marine").unwrap();
    assert_eq!(marine.params["latitude"], "21.6650");
    assert_eq!(marine.params["timezone"], "GMT");
    assert!(marine.params["hourly"].contains("swell_wave_period"));
    assert!(marine.params["hourly"].contains("sea_level_height_msl"));
    let wind = asked.iter().find(|q| q.api == "forecast").unwrap();
    assert_eq!(wind.params["wind_speed_unit"], "kn");
    assert!(wind.params["hourly"].contains("wind_gusts_10m"));

    // The cell is served from the fallback's row for the rest of the window.
    let r = app
        .get("/api/surf/forecast?spot=pipeline")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["source"], "fallback");
    assert_eq!((sp.calls("forecast"), om.total_calls()), (1, 2));
}

#[tokio::test]
async fn a_point_without_a_known_spot_asks_the_fallback_and_land_has_no_waves() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    om.land((-30.0, -20.0), (125.0, 145.0));
    let r = app
        .get("/api/surf/forecast?lat=-25.5&lon=135.0&hours=6")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["source"], "fallback");
    assert_eq!(r.json["spot"], json!(null));
    assert_eq!(r.json["forecastPoint"]["spot"], json!(null));
    let h = &r.json["hours"][0];
    assert_eq!(h["waveHeightM"], json!(null), "land: no sea");
    assert_eq!(h["swell"]["heightM"], json!(null));
    assert!(
        h["windSpeedKn"].as_f64().is_some(),
        "the wind is still there"
    );
    assert_eq!(sp.calls("forecast"), 0, "the primary forecasts spots only");
    assert_eq!(om.total_calls(), 2);
}

#[tokio::test]
async fn a_stale_forecast_is_served_when_both_providers_fail() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .get("/api/surf/forecast?spot=bells-beach")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let fetched_at = r.json["fetchedAt"].clone();

    expire_provider_cache(&app).await;
    sp.forecasts_down(true);
    om.down(true);
    for _ in 0..2 {
        let r = app
            .get("/api/surf/forecast?spot=bells-beach")
            .session(&coach)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert_eq!(r.json["stale"], true);
        assert_eq!(r.json["source"], "primary");
        assert_eq!(r.json["fetchedAt"], fetched_at);
        assert!(!r.json["hours"].as_array().unwrap().is_empty());
    }
    assert_eq!(
        sp.calls("forecast"),
        2,
        "one fetch, then one failed attempt"
    );
    assert_eq!(
        om.total_calls(),
        2,
        "the failed attempt asked the fallback once"
    );

    // The spot page says so too.
    let r = app
        .get("/api/surf/spot/bells-beach")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["forecast"]["stale"], true);
    assert_eq!(sp.calls("forecast"), 2, "no new attempt in the window");
}

#[tokio::test]
async fn both_failing_with_nothing_cached_is_a_502_retried_after_a_pause() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    sp.forecasts_down(true);
    om.down(true);
    for _ in 0..2 {
        app.get("/api/surf/forecast?spot=snapper-rocks")
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::BAD_GATEWAY, "forecast_unavailable");
    }
    assert_eq!(
        (sp.calls("forecast"), om.total_calls()),
        (1, 2),
        "the second request waits for the retry pause"
    );
    let r = app
        .get("/api/surf/spot/snapper-rocks")
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "the spot still answers: {}",
        r.body
    );
    assert_eq!(r.json["forecast"], json!(null));
    assert_eq!(r.json["forecastError"]["code"], "forecast_unavailable");

    // The pause over and the providers back: a forecast again.
    expire_provider_cache(&app).await;
    sp.forecasts_down(false);
    om.down(false);
    let r = app
        .get("/api/surf/forecast?spot=snapper-rocks")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["source"], "primary");
    assert_eq!(r.json["stale"], false);
}

#[tokio::test]
async fn unconfigured_forecast_providers_answer_503() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    for path in [
        "/api/surf/forecast?lat=-38.37&lon=144.28",
        "/api/surf/spot/bells-beach",
        "/api/spotsource/spots/search?q=bells",
    ] {
        app.get(path)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    }

    // The primary alone cannot forecast a point with no known spot in its cell.
    let sp = testkit::spotsource::FakeSpotsource::start(None).await;
    let base = sp.base_url();
    let app = TestApp::with_env(&[("SPOTSOURCE_BASE_URL", base.as_str())]).await;
    let coach = app.signup("coach@example.com").await;
    app.get("/api/surf/forecast?lat=10.0&lon=10.0")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    let r = app
        .get("/api/surf/forecast?spot=bells-beach")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["source"], "primary");
}

#[tokio::test]
async fn forecast_queries_are_checked_before_anything_is_asked() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    for (path, field) in [
        ("/api/surf/forecast", "spot"),
        ("/api/surf/forecast?spot=bells-beach&lat=1&lon=1", "spot"),
        ("/api/surf/forecast?lat=1", "lon"),
        ("/api/surf/forecast?lat=91&lon=0", "lat"),
        ("/api/surf/forecast?lat=0&lon=-181", "lon"),
        ("/api/surf/forecast?spot=bells-beach&hours=0", "hours"),
        ("/api/surf/forecast?spot=bells-beach&hours=169", "hours"),
        ("/api/surf/forecast?spot=bells%2Fbeach", "spot"),
    ] {
        let r = app.get(path).session(&coach).send().await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert!(
            r.fields().contains(&field.to_string()),
            "{path}: {}",
            r.body
        );
    }
    app.get("/api/surf/forecast?lat=north&lon=0")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");
    assert_eq!(
        sp.calls("forecast") + sp.calls("spot") + om.total_calls(),
        0
    );
    assert_eq!(app.count("forecast_cells").await, 0, "nothing written");
}
