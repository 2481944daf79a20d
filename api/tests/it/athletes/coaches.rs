//! Coach assignments and each person's effective permissions on an athlete.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn coaches_are_assigned_once_by_permitted_members_and_each_persons_permissions_are_listed() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let stranger = app.signup("stranger@example.com").await;
    let a = new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let path = format!("/api/athletes/{}/coaches", id(&a));
    app.post(&path)
        .session(&viewer)
        .json(json!({ "userId": coach.user_id }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "userId": stranger.user_id }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["userId"]);
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "userId": coach.user_id, "role": "captain" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("athlete_coaches").await, 0);
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "userId": coach.user_id, "role": "head" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let sc = id(&r.json);
    app.post(&path)
        .session(&owner)
        .json(json!({ "userId": coach.user_id }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "already_assigned");
    app.post(&path)
        .session(&owner)
        .json(json!({ "userId": viewer.user_id }))
        .send()
        .await;
    let r = app.get(&path).session(&viewer).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 2);
    let r = app
        .get(&format!("/api/athletes?coachId={}", coach.user_id))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);

    let r = app
        .get(&format!("/api/athletes/{}/permissions", id(&a)))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.json["athlete"].is_null(), "no login yet");
    let perms = |i: usize| {
        r.json["coaches"][i]["permissions"]
            .as_array()
            .unwrap()
            .clone()
    };
    assert!(
        perms(0).contains(&json!("athletes.delete")),
        "the coach role"
    );
    assert!(
        !perms(1).contains(&json!("athletes.update")),
        "the viewer role"
    );
    assert!(perms(1).contains(&json!("athletes.read")));
    app.get(&format!("/api/athletes/{}/permissions", id(&a)))
        .session(&stranger)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    app.req(Method::DELETE, &format!("{path}/{sc}"))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(
        app.req(Method::DELETE, &format!("{path}/{sc}"))
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.req(Method::DELETE, &format!("{path}/{sc}"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}
