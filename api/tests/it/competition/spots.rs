//! `backfill-spots` against the fake spot provider: each distinct session spot name resolved
//! once, ambiguous and unknown names reported, the result on the session.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use testkit::spotsource::FakeSpotsource;

#[tokio::test]
async fn backfill_spots_resolves_each_session_spot_name_once() {
    let fake = FakeSpotsource::start(Some("spot-key")).await;
    let base = fake.base_url();
    let app = TestApp::with_env(&[
        ("SPOTSOURCE_BASE_URL", base.as_str()),
        ("SPOTSOURCE_API_KEY", "spot-key"),
    ])
    .await;
    let coach = app.signup("coach@example.com").await;
    let other = app.signup("other@example.com").await;
    let mut bells = None;
    for (who, spot, location) in [
        (&coach, Some("Bells Beach"), Some("Torquay")),
        (&other, Some("bells  BEACH"), None),
        (&coach, Some("Manly"), None),
        (&coach, Some("Nowhere Reef"), None),
        (&coach, None, Some("Pipeline")),
    ] {
        let s = new_training_session(
            &app,
            who,
            json!({ "title": "Dawn", "startsAt": "2026-12-01T06:00:00Z", "endsAt": "2026-12-01T08:00:00Z",
                    "spot": spot, "location": location }),
        )
        .await;
        bells.get_or_insert(s["id"].as_str().unwrap().to_string());
    }
    let bells = bells.unwrap();
    let _w = app.start_worker(&[]).await;

    let p = run_cron(&app, "backfill-spots").await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(
        r["created"], 2,
        "Bells Beach (asked once for both spellings) and Pipeline: {r}"
    );
    let mut failed: Vec<String> = r["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}: {}",
                f["item"].as_str().unwrap(),
                f["error"].as_str().unwrap()
            )
        })
        .collect();
    failed.sort();
    assert_eq!(
        failed,
        ["spot Manly: ambiguous", "spot Nowhere Reef: no_match"]
    );
    assert_eq!(fake.queries().len(), 4);

    let s = app
        .get(&format!("/api/training-sessions/{bells}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(s.status, StatusCode::OK, "{}", s.body);
    assert_eq!(s.json["spotDetails"]["slug"], "bells-beach");
    assert_eq!(s.json["spotDetails"]["latitude"], -38.3686);

    // Checked names are not asked again within 30 days.
    let r = run_cron(&app, "backfill-spots").await.result.unwrap().0;
    assert_eq!(
        (r["created"].clone(), r["failed"].clone()),
        (json!(0), json!([]))
    );
    assert_eq!(fake.queries().len(), 4);

    // The provider down: the job fails and records nothing, so the next run asks again.
    new_training_session(
        &app,
        &coach,
        json!({ "title": "Noon", "startsAt": "2026-12-02T12:00:00Z", "endsAt": "2026-12-02T13:00:00Z",
                "spot": "Snapper Rocks" }),
    )
    .await;
    fake.fail(&[401]);
    let p = run_cron(&app, "backfill-spots").await;
    assert_eq!(p.status, "failed", "{p:?}");
    let r = run_cron(&app, "backfill-spots").await.result.unwrap().0;
    assert_eq!(r["created"], 1, "{r}");
}

#[tokio::test]
async fn backfill_spots_without_the_provider_fails_and_says_so() {
    let app = TestApp::new().await;
    let _w = app.start_worker(&[]).await;
    let p = run_cron(&app, "backfill-spots").await;
    assert_eq!((p.status.as_str(), p.attempts), ("failed", 1));
    let e = p.last_error.unwrap();
    assert!(
        e.contains("spotsource") && e.contains("not configured"),
        "{e}"
    );
}
