use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::domain::wearable::derive;

#[tokio::test]
async fn a_live_wearer_is_listed_and_a_silent_session_ends_on_its_own() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let r = app
        .post("/api/wearable/sessions/live")
        .session(&ca.athlete)
        .json(json!({ "device": "Fenix 7", "clientSessionId": "live-1" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let id = r.json["session"]["id"].as_str().unwrap().to_string();
    let s = synth(12, 120.0, 0);
    let r = app
        .post("/api/wearable/sessions/live")
        .session(&ca.athlete)
        .json(json!({ "sessionId": id, "samples": samples_json(&s) }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["session"]["samples"]["gps"], s.samples.gps.len());
    let r = app
        .get("/api/wearable/who-is-surfing")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1);
    assert_eq!(items(&r)[0]["athleteName"], "Mia Silva");
    let r = app
        .get("/api/wearable/roster")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(items(&r)[0]["liveSessionId"], id.as_str());
    // The watch goes quiet: three minutes later the expiry check ends the session.
    let mut c = app.state.db.acquire().await.unwrap();
    let past = shared::db::Ts::now().minus(chrono::Duration::minutes(3));
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE wearable_sessions SET last_seen_at = $1").bind(past)
    )
    .unwrap();
    drop(c);
    let org = ca.coach.org_id;
    let out = derive::expire(&app.state.db, org, id.parse().unwrap())
        .await
        .unwrap();
    assert_eq!(out, "ended");
    let r = app
        .get("/api/wearable/who-is-surfing")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 0);
    let r = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["status"], "processing");
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = app
        .post("/api/wearable/sessions/live")
        .session(&ca.athlete)
        .json(json!({ "sessionId": id }))
        .send()
        .await;
    r.assert_error(StatusCode::CONFLICT, "session_not_live");
}

#[tokio::test]
async fn my_schedule_shows_the_wearers_sessions_today() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let now = chrono::Utc::now();
    let t = new_training_session(&app, &ca.coach, json!({ "title": "Dawn patrol", "startsAt": now.to_rfc3339(), "endsAt": (now + chrono::Duration::minutes(30)).to_rfc3339() })).await;
    let r = app
        .post(&format!("/api/training-sessions/{}/participants", id(&t)))
        .session(&ca.coach)
        .json(json!({ "athleteId": ca.athlete_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .get("/api/wearable/my-schedule")
        .session(&ca.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let items = r.json["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["role"], "athlete");
    let r = app
        .get("/api/wearable/my-schedule")
        .session(&ca.outsider)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 0);
    let r = app
        .get("/api/wearable/my-schedule?tzOffsetMinutes=9999")
        .session(&ca.athlete)
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

/// A live session in many small batches, one sent twice and one late, is derived a chunk at a
/// time: each sample once, the rides the whole session in memory gives, the stream rewritten
/// into full chunks.
#[tokio::test]
async fn a_live_session_in_many_batches_is_derived_like_the_whole_session() {
    use shared::domain::wearable::codec;
    use shared::domain::wearable::samples::{SampleColumns, Samples};
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let r = app
        .post("/api/wearable/sessions/live")
        .session(&ca.athlete)
        .json(json!({ "clientSessionId": "live-batches" }))
        .send()
        .await;
    let id = r.json["session"]["id"].as_str().unwrap().to_string();
    let s = synth(21, 1800.0, 0).samples;
    let batch = |k: usize| Samples {
        gps: s.gps.iter().skip(k * 60).take(60).copied().collect(),
        hr: s.hr.iter().skip(k * 60).take(60).copied().collect(),
        imu: Vec::new(),
    };
    let batches = s.gps.len().max(s.hr.len()).div_ceil(60);
    let mut order: Vec<usize> = (0..batches).collect();
    order.swap(7, 8);
    order.insert(4, 3);
    for k in order {
        let r = app
            .post("/api/wearable/sessions/live")
            .session(&ca.athlete)
            .json(json!({ "sessionId": id, "samples": SampleColumns::from_samples(&batch(k)) }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    let r = app
        .post("/api/wearable/sessions/live")
        .session(&ca.athlete)
        .json(json!({ "sessionId": id, "end": true }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let d = derive::derive(&app.state.db, ca.coach.org_id, id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    // The whole session in memory, as stored (the chunks quantise positions to 1e-7°).
    let mut stored = Samples::default();
    for c in codec::encode_all(&s) {
        codec::decode(c.stream, &c.data, &mut stored).unwrap();
    }
    let whole = shared::domain::wearable::detect::detect(&stored, true);
    assert!(whole.rides.len() >= 3);
    assert_eq!(d, whole);
    let r = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    // Each sample once.
    assert_eq!(r.json["samples"]["gps"], s.gps.len(), "{}", r.body);
    assert_eq!(r.json["samples"]["hr"], s.hr.len());
    let mut c = app.state.db.acquire().await.unwrap();
    let gps_chunks: i64 = shared::sql!(&mut c, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM wearable_chunks WHERE stream = 'gps'").fetch_one(&mut *c).await)
    .unwrap();
    assert_eq!(gps_chunks as usize, s.gps.len().div_ceil(900));
}
