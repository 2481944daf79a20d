use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn writes_need_their_permission_and_another_workspace_sees_404() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let (session, clip) = uploaded_clip(&app, &coach, b"not really a video").await;
    let body = json!({ "clipId": clip });

    // The viewer reads but may not analyze, probe, store or delete.
    let r = app
        .get(&format!("/api/clips/{clip}"))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["status"], "uploaded");
    for path in [
        "/api/clips/analyze",
        "/api/clips/probe",
        "/api/clips/store",
        "/api/clips/cancel",
    ] {
        app.post(path)
            .session(&viewer)
            .json(body.clone())
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    app.req(axum::http::Method::DELETE, &format!("/api/clips/{clip}"))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    // Another workspace's owner gets 404 everywhere, and nothing moves.
    app.get(&format!("/api/clips/{clip}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!("/api/sessions/{session}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    for path in [
        "/api/clips/analyze",
        "/api/clips/cancel",
        "/api/clips/probe",
    ] {
        app.post(path)
            .session(&other)
            .json(body.clone())
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    app.req(
        axum::http::Method::DELETE,
        &format!("/api/sessions/{session}"),
    )
    .session(&other)
    .send()
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    let s = app
        .get(&format!("/api/clips/status?ids={clip}"))
        .session(&other)
        .send()
        .await;
    assert_eq!(s.json["items"].as_array().unwrap().len(), 0);
    assert_eq!(app.count("clips").await, 1);
    assert_eq!(app.count("job_progress").await, 0, "no job was enqueued");
    let r = app
        .get(&format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["status"], "uploaded");
}

#[tokio::test]
async fn bad_input_is_refused_with_nothing_written() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip) = uploaded_clip(&app, &coach, b"bytes").await;
    app.post("/api/clips/analyze")
        .session(&coach)
        .json(json!({ "clipId": "nope" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.get("/api/clips/status?ids=nope")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let many: Vec<String> = (0..101)
        .map(|_| shared::db::Id::new().to_string())
        .collect();
    app.get(&format!("/api/clips/status?ids={}", many.join(",")))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    // Storing needs a processed clip.
    app.post("/api/clips/store")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_state_conflict");
    assert_eq!(app.count("job_progress").await, 0);
}

#[tokio::test]
async fn cancel_stops_a_clip_and_delete_removes_it_and_queues_its_objects() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip) = uploaded_clip(&app, &coach, b"bytes").await;
    let r = app
        .post("/api/clips/cancel")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["status"], "cancelled");
    assert_eq!(r.json["statusCode"], "cancelled");
    app.post("/api/clips/cancel")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_state_conflict");

    let r = app
        .req(axum::http::Method::DELETE, &format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(app.count("clips").await, 0);
    assert_eq!(app.count("job_progress").await, 1, "one delete-objects job");
    app.get(&format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

/// A member whose role lacks `footage.read` reads none of the footage: every read route is 403,
/// whatever the id.
#[tokio::test]
async fn reads_need_footage_read() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Front desk", "permissions": ["athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let desk = add_member(
        &app,
        owner.org_id,
        "desk@example.com",
        r.json["key"].as_str().unwrap(),
    )
    .await;
    let (session, clip) = uploaded_clip(&app, &owner, b"not really a video").await;
    for path in [
        "/api/clips".to_string(),
        format!("/api/clips/status?ids={clip}"),
        format!("/api/clips/{clip}"),
        format!("/api/clips/{clip}/maneuvers"),
        "/api/sessions".to_string(),
        format!("/api/sessions/{session}"),
        format!("/api/video/sign?clipId={clip}"),
        format!("/api/clips/sidecar?clipId={clip}"),
        "/api/maneuver-labels/export".to_string(),
        "/api/video/check?url=https://videos.example.com/a.mp4".to_string(),
    ] {
        let r = app.get(&path).session(&desk).send().await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{path}: {}", r.body);
        assert_eq!(r.code(), "permission_denied", "{path}");
    }
    // The owner reads them (the same paths are real).
    let r = app
        .get(&format!("/api/clips/{clip}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
}
