use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::domain::wearable::samples::Stream;
use shared::domain::wearable::sessions;

#[tokio::test]
async fn an_uploaded_session_is_stored_compactly_and_its_rides_are_derived() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(21, 900.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let r = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["status"], "ready");
    assert_eq!(
        r.json["detectorVersion"],
        shared::domain::wearable::detect::VERSION
    );
    assert_eq!(r.json["samples"]["gps"], s.samples.gps.len());
    let rides = r.json["rides"].as_array().unwrap();
    assert!(
        !rides.is_empty() && rides.len().abs_diff(s.rides.len()) <= 1,
        "{} vs {}",
        rides.len(),
        s.rides.len()
    );
    assert!(rides.iter().all(|x| x["detectorVersion"]
        == shared::domain::wearable::detect::VERSION
        && x["topSpeedKmh"].as_f64().unwrap() > 8.0));
    // Compact: well under 10 bytes per GPS and heart-rate sample.
    let per =
        r.json["storedBytes"].as_f64().unwrap() / (s.samples.gps.len() + s.samples.hr.len()) as f64;
    assert!(per < 10.0, "{per} bytes per sample");
    assert_eq!(audit_count(&app, "wearable_session.upload").await, 1);
}

#[tokio::test]
async fn bad_samples_are_refused_and_nothing_is_written() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let body = json!({ "samples": { "gps": { "t": [1767247200000i64, 1767247201000i64], "lat": [95.0, 1.0], "lon": [1.0, 1.0] } } });
    let r = upload_session(&app, &ca.coach, &ca.athlete_id, body).await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = upload_session(
        &app,
        &ca.coach,
        &ca.athlete_id,
        json!({ "samples": { "gps": { "t": [1], "lat": [1.0, 2.0], "lon": [1.0] } } }),
    )
    .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = upload_session(&app, &ca.coach, &ca.athlete_id, json!({})).await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("wearable_sessions").await, 0);
    assert_eq!(app.count("wearable_chunks").await, 0);
}

#[tokio::test]
async fn the_same_client_session_id_is_the_same_session() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(3, 300.0, 0);
    let body = json!({ "clientSessionId": "watch-1", "samples": samples_json(&s) });
    let a = upload_session(&app, &ca.coach, &ca.athlete_id, body.clone()).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.body);
    let b = upload_session(&app, &ca.coach, &ca.athlete_id, body).await;
    assert_eq!(b.status, StatusCode::OK);
    assert_eq!(a.json["session"]["id"], b.json["session"]["id"]);
    assert_eq!(app.count("wearable_sessions").await, 1);
}

#[tokio::test]
async fn samples_are_read_by_time_window_and_paginated() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(4, 300.0, 10);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let from = s.samples.gps[10].t;
    let to = s.samples.gps[60].t;
    let url = format!("/api/wearable/samples/{id}?stream=gps&from={from}&to={to}&limit=20");
    let r = app.get(&url).session(&ca.coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let t = r.json["gps"]["t"].as_array().unwrap();
    assert_eq!(t.len(), 20);
    assert_eq!(t[0], from);
    assert_eq!(r.json["nextOffset"], 20);
    let r = app
        .get(&format!("{url}&offset=40"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["gps"]["t"].as_array().unwrap().len(), 11);
    assert!(r.json["nextOffset"].is_null());
    let r = app
        .get(&format!("/api/wearable/samples/{id}?stream=imu&limit=5"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["imu"]["ax"].as_array().unwrap().len(), 5);
    let r = app
        .get(&format!("/api/wearable/samples/{id}?stream=sonar"))
        .session(&ca.coach)
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .get(&format!("/api/wearable/samples/{id}?limit=20000"))
        .session(&ca.coach)
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

#[tokio::test]
async fn delete_is_for_the_sessions_coach_or_a_workspace_admin() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(5, 200.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let other_coach = add_member(&app, ca.coach.org_id, "coach2@example.com", "coach").await;
    let r = app
        .req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/sessions/{id}"),
        )
        .session(&other_coach)
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let viewer = add_member(&app, ca.coach.org_id, "viewer@example.com", "viewer").await;
    let r = app
        .req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/sessions/{id}"),
        )
        .session(&viewer)
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/sessions/{id}"),
        )
        .session(&ca.outsider)
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("wearable_sessions").await, 1);
    let admin = add_member(&app, ca.coach.org_id, "admin@example.com", "admin").await;
    let r = app
        .req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/sessions/{id}"),
        )
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(app.count("wearable_sessions").await, 0);
    assert_eq!(app.count("wearable_chunks").await, 0);
    assert_eq!(app.count("wearable_rides").await, 0);
    assert_eq!(audit_count(&app, "wearable_session.delete").await, 1);
}

#[tokio::test]
async fn the_sessions_coach_deletes_it() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let coach2 = add_member(&app, ca.coach.org_id, "coach2@example.com", "coach").await;
    let s = synth(6, 200.0, 0);
    let id = derived_session(&app, &coach2, &ca.athlete_id, &s).await;
    let r = app
        .req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/sessions/{id}"),
        )
        .session(&coach2)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
}

#[tokio::test]
async fn another_workspace_sees_nothing() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(7, 200.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    for path in [
        format!("/api/wearable/sessions/{id}"),
        format!("/api/wearable/samples/{id}"),
        format!("/api/wearable/labels?sessionId={id}"),
        format!("/api/wearable/highlights?sessionId={id}"),
        format!("/api/wearable/accuracy?sessionId={id}"),
        format!("/api/wearable/sessions/{id}/gpx"),
    ] {
        let r = app.get(&path).session(&ca.outsider).send().await;
        r.assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    let r = app
        .post(&format!("/api/wearable/sessions/{id}/rederive"))
        .session(&ca.outsider)
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    // Nor may it send data for this workspace's athlete.
    let r = upload_session(
        &app,
        &ca.outsider,
        &ca.athlete_id,
        json!({ "samples": samples_json(&s) }),
    )
    .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .get("/api/wearable/sessions")
        .session(&ca.outsider)
        .send()
        .await;
    assert_eq!(items(&r).len(), 0);
}

#[tokio::test]
async fn rederive_records_the_detector_version_and_gpx_exports_the_rides() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    // With IMU, which the export does not read.
    let s = synth(8, 600.0, 20);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let r = app
        .post(&format!("/api/wearable/sessions/{id}/rederive"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = app
        .get(&format!("/api/wearable/sessions/{id}/gpx"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("<name>Ride 1</name>"));
    // Every fix in the session's track (the rides' track after it repeats theirs).
    let track = r.body.split("<name>Rides</name>").next().unwrap();
    assert_eq!(track.matches("<trkpt").count(), s.samples.gps.len());
    assert!(r.body.contains("<gpxtpx:hr>"));
    assert_eq!(audit_count(&app, "wearable_session.rederive").await, 1);
    // The export and the desk's page load the streams they draw, not the IMU.
    let mut c = app.state.db.acquire().await.unwrap();
    let drawn = sessions::load_streams(&mut c, id, &[Stream::Gps, Stream::Hr])
        .await
        .unwrap();
    assert_eq!(drawn.gps.len(), s.samples.gps.len());
    assert_eq!(drawn.hr.len(), s.samples.hr.len());
    assert!(drawn.imu.is_empty() && !s.samples.imu.is_empty());
    let imu = sessions::load_streams(&mut c, id, &[Stream::Imu])
        .await
        .unwrap();
    assert_eq!(imu.imu.len(), s.samples.imu.len());
    assert!(imu.gps.is_empty());
}

#[tokio::test]
async fn the_athlete_sends_their_own_session_and_the_module_switch_holds() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(9, 200.0, 0);
    let r = app
        .post("/api/wearable/sessions")
        .session(&ca.athlete)
        .json(json!({ "samples": samples_json(&s) }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["session"]["athleteId"], ca.athlete_id.as_str());
    assert_eq!(
        r.json["session"]["coachUserId"],
        ca.coach.user_id.to_string()
    );
    disable_module(&app, ca.coach.org_id, "wearable").await;
    let r = app
        .post("/api/wearable/sessions")
        .session(&ca.athlete)
        .json(json!({ "samples": samples_json(&s) }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "module_disabled");
    let r = app
        .get("/api/wearable/sessions")
        .session(&ca.coach)
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "module_disabled");
}
