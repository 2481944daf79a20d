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
