//! `forecasts-refresh`: the cells in use (upcoming sessions' spots, cells asked about lately)
//! fetched once per window, so members find them cached; nothing configured fails and says so.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn forecasts_refresh_fetches_the_cells_in_use_once_per_window() {
    let (app, sp, om) = app_with_forecasts(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let other = other_workspace(&app).await;
    let at = |days: i64, hours: i64| {
        (chrono::Utc::now() + chrono::Duration::days(days) + chrono::Duration::hours(hours))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    // Tomorrow at Bells (two workspaces, one cell), in a month at Pipeline (too far ahead).
    for (who, spot, days) in [
        (&coach, "Bells Beach", 1),
        (&other, "Bells Beach", 2),
        (&coach, "Pipeline", 30),
    ] {
        new_training_session(
            &app,
            who,
            json!({ "title": "Dawn", "startsAt": at(days, 0), "endsAt": at(days, 2), "spot": spot }),
        )
        .await;
    }
    let _w = app.start_worker(&[]).await;
    let p = run_cron(&app, "backfill-spots").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    // A member looked at a point off Snapper Rocks; it is cached now.
    let r = app
        .get("/api/surf/forecast?lat=-28.16&lon=153.55")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(sp.calls("forecast"), 0, "no stored spot in that cell yet");
    assert_eq!(om.total_calls(), 2);

    let p = run_cron(&app, "forecasts-refresh").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(
        (
            r["updated"].clone(),
            r["unchanged"].clone(),
            r["failed"].clone()
        ),
        (json!(1), json!(1), json!([])),
        "Bells fetched, the fresh point left alone: {r}"
    );
    assert_eq!(sp.calls("forecast"), 1, "one call for Bells");
    assert_eq!(om.total_calls(), 2);

    // The same window again: nothing to fetch.
    let r = run_cron(&app, "forecasts-refresh").await.result.unwrap().0;
    assert_eq!(
        (r["updated"].clone(), r["unchanged"].clone()),
        (json!(0), json!(2))
    );
    assert_eq!(sp.calls("forecast"), 1);

    // A member's read is served from what the refresh fetched.
    let r = app
        .get("/api/surf/forecast?spot=bells-beach")
        .session(&other)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(sp.calls("forecast"), 1);

    // The next window: both cells fetched again; a failing cell is reported, not fatal.
    expire_provider_cache(&app).await;
    om.down(true);
    let p = run_cron(&app, "forecasts-refresh").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(r["updated"], 1, "{r}");
    assert_eq!(r["failed"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["failed"][0]["permanent"], false);
}

#[tokio::test]
async fn forecasts_refresh_without_providers_fails_and_says_so() {
    let app = TestApp::new().await;
    let _w = app.start_worker(&[]).await;
    let p = run_cron(&app, "forecasts-refresh").await;
    assert_eq!((p.status.as_str(), p.attempts), ("failed", 1));
    let e = p.last_error.unwrap();
    assert!(
        e.contains("forecast") && e.contains("not configured"),
        "{e}"
    );
}
