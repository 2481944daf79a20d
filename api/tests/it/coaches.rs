use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

/// An athlete `first` Silva in `s`'s workspace; returns its id.
async fn athlete(app: &TestApp, s: &Session, first: &str) -> String {
    id(&new_athlete(app, s, json!({ "firstName": first, "lastName": "Silva" })).await)
}

#[tokio::test]
async fn coaches_view_lists_reassigns_and_counts() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let kai = add_member(&app, owner.org_id, "kai@example.com", "coach").await;
    let lea = add_member(&app, owner.org_id, "lea@example.com", "coach").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let a = athlete(&app, &owner, "Ana").await;
    let b = athlete(&app, &owner, "Bea").await;
    let c = athlete(&app, &owner, "Cai").await;
    for x in [&a, &b, &c] {
        assign_coach(&app, &owner, x, kai.user_id).await;
    }
    assign_coach(&app, &owner, &c, lea.user_id).await;

    let r = app
        .get(&format!("/api/coaches/{}", kai.user_id))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["athletes"], 3);
    app.get(&format!("/api/coaches/{}", kai.user_id))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!("/api/coaches/{}", other.user_id))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .get(&format!("/api/coaches/{}/athletes?limit=2", kai.user_id))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    assert_eq!(r.json["nextOffset"], 2);

    // Reassign everything from Kai to Lea: Cai was already Lea's, so 3 move and Lea has 3.
    let path = format!("/api/coaches/{}/athletes/reassign", kai.user_id);
    app.post(&path)
        .session(&viewer)
        .json(json!({ "toCoachId": lea.user_id }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post(&path)
        .session(&owner)
        .json(json!({ "toCoachId": other.user_id }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.post(&path)
        .session(&owner)
        .json(json!({ "toCoachId": kai.user_id }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "toCoachId": lea.user_id, "athleteIds": [a] }))
        .send()
        .await;
    assert_eq!(r.json["moved"], 1, "{}", r.body);
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "toCoachId": lea.user_id }))
        .send()
        .await;
    assert_eq!(r.json["moved"], 2);
    let r = app
        .get(&format!("/api/coaches/{}/stats", lea.user_id))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["athletes"], 3);
    let r = app
        .get(&format!("/api/coaches/{}/stats", kai.user_id))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["athletes"], 0);
    let r = app
        .get(&format!("/api/coaches/{}/activity", owner.user_id))
        .session(&owner)
        .send()
        .await;
    assert!(
        r.json["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["action"] == "coach.athletes_reassigned"),
        "{}",
        r.body
    );
    app.get(&format!("/api/coaches/{}/activity", owner.user_id))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    // Renaming: yourself, or with members.manage.
    let r = app
        .req(Method::PATCH, &format!("/api/coaches/{}", kai.user_id))
        .session(&kai)
        .json(json!({ "name": "Kai M." }))
        .send()
        .await;
    assert_eq!(r.json["name"], "Kai M.", "{}", r.body);
    app.req(Method::PATCH, &format!("/api/coaches/{}", lea.user_id))
        .session(&kai)
        .json(json!({ "name": "X" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.req(Method::PATCH, &format!("/api/coaches/{}", lea.user_id))
        .session(&owner)
        .json(json!({ "name": " " }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

#[tokio::test]
async fn team_calendar_shows_training_sessions_in_a_bounded_range() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let other = other_workspace(&app).await;
    let start = chrono::Utc::now() + chrono::Duration::days(2);
    let fmt =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    new_training_session(&app, &owner, json!({
        "title": "Dawn patrol", "startsAt": fmt(start), "endsAt": fmt(start + chrono::Duration::hours(2)), "capacity": 8
    })).await;
    let path = format!("/api/orgs/{}/calendar", owner.org_id);
    let r = app.get(&path).session(&owner).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["trainingSessions"][0]["title"], "Dawn patrol");
    assert_eq!(r.json["trainingSessions"][0]["capacity"], 8);
    let later = fmt(start + chrono::Duration::days(10));
    let r = app
        .get(&format!("{path}?from={later}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["trainingSessions"].as_array().unwrap().len(), 0);
    let r = app
        .get(&format!(
            "{path}?from={}&to={}",
            fmt(start),
            fmt(start + chrono::Duration::days(200))
        ))
        .session(&owner)
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.get(&path)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}
