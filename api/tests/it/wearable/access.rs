use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn mobile_twins_take_bearer_tokens_only() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let r = app
        .get("/api/mobile/wearable/my-schedule")
        .session(&ca.athlete)
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
    let (token, _) = app.phone_tokens("mia@example.com").await;
    let r = app
        .get("/api/mobile/wearable/my-schedule")
        .bearer(&token)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app
        .post("/api/mobile/wearable/sessions/live")
        .bearer(&token)
        .json(json!({}))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
}

#[tokio::test]
async fn a_member_without_wearable_manage_cannot_send_for_an_athlete() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let viewer = add_member(&app, ca.coach.org_id, "viewer@example.com", "viewer").await;
    let r = app
        .post("/api/wearable/sessions/live")
        .session(&viewer)
        .json(json!({ "athleteId": ca.athlete_id }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .post("/api/wearable/sessions/live")
        .session(&ca.coach)
        .json(json!({}))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("wearable_sessions").await, 0);
}
