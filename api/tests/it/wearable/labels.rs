use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::domain::wearable::sessions::ts_ms;

#[tokio::test]
async fn labels_give_the_detectors_precision_and_recall() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(31, 1200.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    for (a, b) in &s.rides {
        let r = app.post("/api/wearable/labels").session(&ca.coach).json(json!({ "sessionId": id, "start": ts_ms(*a).to_rfc3339(), "end": ts_ms(*b).to_rfc3339() })).send().await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    let r = app
        .get("/api/wearable/accuracy")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["overall"]["labels"], s.rides.len());
    assert!(
        r.json["overall"]["recall"].as_f64().unwrap() >= 0.8,
        "{}",
        r.body
    );
    assert!(
        r.json["overall"]["precision"].as_f64().unwrap() >= 0.8,
        "{}",
        r.body
    );
    assert_eq!(r.json["sessions"].as_array().unwrap().len(), 1);
    let r = app
        .get(&format!("/api/wearable/labels?sessionId={id}&limit=1"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1);
    let label = items(&r)[0]["id"].as_str().unwrap().to_string();
    let r = app
        .req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/labels?id={label}"),
        )
        .session(&ca.outsider)
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/labels?id={label}"),
        )
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(app.count("wearable_labels").await, s.rides.len() as i64 - 1);
    assert_eq!(audit_count(&app, "wearable_label.delete").await, 1);
}

#[tokio::test]
async fn a_bad_label_is_refused_and_not_written() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(32, 200.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let t0 = s.samples.gps[5].t;
    for (a, b) in [
        (t0 + 5000, t0),
        (t0, t0 + 200_000),
        (t0 - 86_400_000, t0 - 86_390_000),
    ] {
        let r = app.post("/api/wearable/labels").session(&ca.coach).json(json!({ "sessionId": id, "start": ts_ms(a).to_rfc3339(), "end": ts_ms(b).to_rfc3339() })).send().await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    }
    let viewer = add_member(&app, ca.coach.org_id, "viewer@example.com", "viewer").await;
    let r = app.post("/api/wearable/labels").session(&viewer).json(json!({ "sessionId": id, "start": ts_ms(t0).to_rfc3339(), "end": ts_ms(t0 + 5000).to_rfc3339() })).send().await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .post("/api/wearable/labels")
        .session(&viewer)
        .json(json!({ "sessionId": id, "noRides": true }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("wearable_labels").await, 0);
}

#[tokio::test]
async fn a_session_marked_without_rides_counts_its_windows_as_false_rides() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let s = synth(33, 600.0, 0);
    let id = derived_session(&app, &ca.coach, &ca.athlete_id, &s).await;
    let r = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    let found = r.json["rides"].as_array().unwrap().len();
    assert!(found > 0, "{}", r.body);
    assert_eq!(r.json["noRides"], false);
    // Unlabelled: left out of the accuracy.
    let r = app
        .get("/api/wearable/accuracy")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["labelledSessions"], 0, "{}", r.body);

    let t0 = s.samples.gps[5].t;
    let label = |body: serde_json::Value| {
        app.post("/api/wearable/labels")
            .session(&ca.coach)
            .json(body)
            .send()
    };
    let r =
        label(json!({ "sessionId": id, "noRides": true, "start": ts_ms(t0).to_rfc3339() })).await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(
        r.json["error"]["details"]["fields"][0]["code"], "not_allowed",
        "{}",
        r.body
    );
    let r = label(json!({ "sessionId": id, "start": ts_ms(t0).to_rfc3339() })).await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(
        r.json["error"]["details"]["fields"][0]["field"], "end",
        "{}",
        r.body
    );
    assert_eq!(app.count("wearable_labels").await, 0);

    let r = label(json!({ "sessionId": id, "noRides": true })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["noRides"], true);
    let mark = r.json["id"].as_str().unwrap().to_string();
    assert!(r.json["start"].as_str().unwrap() < r.json["end"].as_str().unwrap());
    let r = app
        .get("/api/wearable/accuracy")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(r.json["labelledSessions"], 1, "{}", r.body);
    assert_eq!(r.json["overall"]["labels"], 0);
    assert_eq!(r.json["overall"]["detected"], found);
    assert_eq!(r.json["overall"]["falsePositives"], found);
    assert_eq!(r.json["overall"]["precision"], 0.0);
    let r = app
        .get(&format!("/api/wearable/sessions/{id}"))
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(
        (r.json["noRides"].clone(), r.json["labels"].clone()),
        (json!(true), json!(0))
    );

    // A ride contradicts the mark, and a second mark adds nothing.
    let ride = json!({ "sessionId": id, "start": ts_ms(t0).to_rfc3339(), "end": ts_ms(t0 + 5000).to_rfc3339() });
    let r = label(ride.clone()).await;
    r.assert_error(StatusCode::CONFLICT, "labels_contradict");
    let r = label(json!({ "sessionId": id, "noRides": true })).await;
    r.assert_error(StatusCode::CONFLICT, "already_marked");
    // Another workspace's session is not found.
    let r = app
        .post("/api/wearable/labels")
        .session(&ca.outsider)
        .json(json!({ "sessionId": id, "noRides": true }))
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("wearable_labels").await, 1);

    // Without the mark a ride may be labelled; then the mark contradicts it.
    let del = |who: &Session| {
        app.req(
            axum::http::Method::DELETE,
            &format!("/api/wearable/labels?id={mark}"),
        )
        .session(who)
        .send()
    };
    del(&ca.outsider)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(del(&ca.coach).await.status, StatusCode::NO_CONTENT);
    let r = label(ride).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["noRides"], false);
    let r = label(json!({ "sessionId": id, "noRides": true })).await;
    r.assert_error(StatusCode::CONFLICT, "labels_contradict");
    assert_eq!(app.count("wearable_labels").await, 1);
    assert_eq!(audit_count(&app, "wearable_label.create").await, 2);
}
