//! Training sessions: create, filter, update, delete, the calendar source, and video
//! provisioning.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::db::Ts;

#[tokio::test]
async fn training_sessions_crud_with_filters_permissions_and_isolation() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let a = new_training_session(&app, &owner, json!({ "title": "Dawn patrol", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z",
        "location": "Ericeira", "spot": "Ribeira d'Ilhas", "coachUserId": coach.user_id, "capacity": 6 })).await;
    new_training_session(&app, &coach, json!({ "title": "Evening", "startsAt": "2026-05-02T18:00:00Z", "endsAt": "2026-05-02T19:30:00Z", "location": "Peniche" })).await;
    new_training_session(&app, &owner, json!({ "title": "June camp", "startsAt": "2026-06-10T09:00:00Z", "endsAt": "2026-06-12T17:00:00Z", "location": "ericeira" })).await;

    // Bad input: nothing written.
    let n = app.count("training_sessions").await;
    let r = app.post("/api/training-sessions").session(&owner)
        .json(json!({ "title": "", "startsAt": "2026-05-01T08:00:00Z", "endsAt": "2026-05-01T07:00:00Z", "capacity": 0 })).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["capacity", "endsAt", "title"]);
    app.post("/api/training-sessions")
        .session(&owner)
        .json(json!({ "title": "x", "startsAt": "yesterday", "endsAt": "2026-05-01T07:00:00Z" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app.post("/api/training-sessions").session(&owner)
        .json(json!({ "title": "x", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T07:00:00Z", "coachUserId": other.user_id })).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["coachUserId"]);
    app.post("/api/training-sessions").session(&viewer).json(json!({ "title": "x", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T07:00:00Z" })).send().await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("training_sessions").await, n);

    // Filters: time range (overlap), coach, location.
    let list = |q: &str| {
        app.get(&format!("/api/training-sessions{q}"))
            .session(&viewer)
            .send()
    };
    let r = list("?from=2026-05-01T07:00:00Z&to=2026-05-31T00:00:00Z").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let titles: Vec<&str> = r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Dawn patrol", "Evening"]);
    let r = list(&format!("?coachId={}", coach.user_id)).await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);
    let r = list("?location=Ericeira").await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    list("?from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    list("?from=garbage")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");

    let path = format!("/api/training-sessions/{}", id(&a));
    let r = app.get(&path).session(&viewer).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["session"]["spot"], "Ribeira d'Ilhas");
    assert_eq!(r.json["roster"]["capacity"], 6);
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .json(json!({ "title": "Dawn", "capacity": null }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["session"]["title"], "Dawn");
    assert!(r.json["session"]["capacity"].is_null());
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .json(json!({ "endsAt": "2026-05-01T05:00:00Z" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(
        app.get(&path).session(&owner).send().await.json["session"]["endsAt"],
        "2026-05-01T08:00:00.000Z"
    );
    for m in [Method::GET, Method::PATCH, Method::DELETE] {
        app.req(m, &path)
            .session(&other)
            .json(json!({}))
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    app.req(Method::DELETE, &path)
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(
        app.req(Method::DELETE, &path)
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.get(&path)
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // The calendar's source: sessions overlapping a range.
    let mut c = app.state.db.acquire().await.unwrap();
    let from = Ts::from_datetime("2026-05-01T00:00:00Z".parse().unwrap());
    let to = Ts::from_datetime("2026-07-01T00:00:00Z".parse().unwrap());
    let entries = shared::repo::training::calendar_entries(&mut c, owner.org_id, from, to)
        .await
        .unwrap();
    let titles: Vec<&str> = entries.iter().map(|e| e.title.as_str()).collect();
    assert_eq!(titles, ["Evening", "June camp"]);
    assert!(
        shared::repo::training::calendar_entries(&mut c, other.org_id, from, to)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn provision_video_is_idempotent() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let s = new_training_session(&app, &coach, json!({ "title": "Filmed", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z" })).await;
    let body = json!({ "trainingSessionId": id(&s) });
    app.post("/api/training-sessions/provision-video")
        .session(&viewer)
        .json(body.clone())
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post("/api/training-sessions/provision-video")
        .session(&other)
        .json(body.clone())
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post("/api/training-sessions/provision-video")
        .session(&coach)
        .json(json!({ "trainingSessionId": "nope" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("footage_sessions").await, 0);
    let r1 = app
        .post("/api/training-sessions/provision-video")
        .session(&coach)
        .json(body.clone())
        .send()
        .await;
    assert_eq!(r1.status, StatusCode::CREATED, "{}", r1.body);
    let (r2, r3) = tokio::join!(
        app.post("/api/training-sessions/provision-video")
            .session(&coach)
            .json(body.clone())
            .send(),
        app.post("/api/training-sessions/provision-video")
            .session(&coach)
            .json(body.clone())
            .send()
    );
    for r in [&r2, &r3] {
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert_eq!(r.json["id"], r1.json["id"]);
        assert_eq!(r.json["created"], false);
    }
    assert_eq!(app.count("footage_sessions").await, 1);
}
