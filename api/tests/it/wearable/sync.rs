use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_clip_is_aligned_by_its_rides_and_gives_highlights() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(41, 1500.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let d = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    let rides: Vec<(i64, i64)> = d.json["rides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let p = |k: &str| {
                chrono::DateTime::parse_from_rfc3339(r[k].as_str().unwrap())
                    .unwrap()
                    .timestamp_millis()
            };
            (p("start"), p("end"))
        })
        .collect();
    assert!(rides.len() >= 3);
    // The camera's clock runs 41.5 s behind the watch; the clip starts 10 s before ride 1.
    let offset = 41_500i64;
    let clip_start_cam = rides[0].0 - offset - 10_000;
    let (_, clip) = uploaded_clip(&app, &ca.coach, &mp4_bytes(64)).await;
    let cam_rides: Vec<_> = rides[..3].iter().map(|(a, b)| json!({ "start_ms": a - offset - clip_start_cam, "end_ms": b - offset - clip_start_cam })).collect();
    let dur = rides[2].1 - offset - clip_start_cam + 5000;
    set_clip_stats(&app, clip, json!({ "duration_ms": dur, "wave_count": 3, "top_speed_kmh": 20.0, "avg_speed_kmh": 12.0, "rides": cam_rides, "maneuvers": [] })).await;
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE clips SET recorded_at = $1 WHERE id = $2")
            .bind(shared::domain::wearable::sessions::ts_ms(clip_start_cam))
            .bind(clip)
    )
    .unwrap();
    drop(c);
    let r = app
        .post("/api/wearable/sync")
        .session(&ca.coach)
        .json(json!({ "clipId": clip, "sessionId": id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["method"], "rides");
    assert!(
        (r.json["offsetMs"].as_i64().unwrap() - offset).abs() <= 50,
        "{}",
        r.body
    );
    assert!(r.json["confidence"].as_f64().unwrap() > 0.5, "{}", r.body);
    let r = app
        .get(&format!("/api/wearable/highlights?sessionId={id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let first = &items(&r)[0];
    assert_eq!(first["clips"][0]["clipId"], clip.to_string());
    assert_eq!(first["clips"][0]["startMs"], 8000);
    // Clock measurements alone, then a coach's correction.
    let r = app.post("/api/wearable/sync").session(&ca.coach).json(json!({ "clipId": clip, "sessionId": id, "method": "clock", "cameraOffsetMs": 50_000, "cameraRttMs": 80, "watchOffsetMs": 8_000, "watchRttMs": 120 })).send().await;
    assert_eq!(r.json["method"], "clock");
    assert_eq!(r.json["offsetMs"], 42_000);
    let r = app
        .req(axum::http::Method::PATCH, "/api/wearable/sync")
        .session(&ca.coach)
        .json(json!({ "clipId": clip, "offsetMs": 41_400 }))
        .send()
        .await;
    assert_eq!(r.json["method"], "manual");
    assert_eq!(r.json["confidence"], 1.0);
    let r = app
        .get(&format!("/api/wearable/sync?clipId={clip}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(items(&r)[0]["offsetMs"], 41_400);
    let r = app
        .post("/api/wearable/sync")
        .session(&ca.outsider)
        .json(json!({ "clipId": clip, "sessionId": id }))
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .post("/api/wearable/sync")
        .session(&ca.coach)
        .json(json!({ "clipId": clip, "sessionId": id, "method": "clock" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("wearable_syncs").await, 1);
}

/// Schemathesis found it (issue 18): the most negative offset overflowed the range check's
/// `abs()` and answered 500.
#[tokio::test]
async fn the_most_negative_offset_is_refused_not_a_server_error() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    for offset in [i64::MIN, i64::MAX, -604_800_001] {
        let r = app
            .req(axum::http::Method::PATCH, "/api/wearable/sync")
            .session(&coach)
            .json(json!({ "clipId": "0190f000-0000-7000-8000-000000000001", "offsetMs": offset }))
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.fields(), vec!["offsetMs".to_string()], "{}", r.body);
    }
}
