//! Guardian consent recorded by the workspace, and what it lets a minor do.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn a_12_year_old_claims_alone_once_a_guardians_consent_is_recorded() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Leo", "lastName": "Costa" }),
    )
    .await;
    let path = format!("/api/athletes/{}/guardian-consent", id(&a));
    let body = json!({ "guardianName": "Rita Costa", "guardianEmail": "rita@example.com", "relationship": "parent", "method": "paper", "note": "signed form in the club office" });
    app.post(&path)
        .session(&viewer)
        .json(body.clone())
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app.post(&path).session(&coach).json(json!({ "guardianName": "", "relationship": "parent", "method": "telepathy", "consentedAt": "2999-01-01T00:00:00Z" })).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["consentedAt", "guardianName", "method"]);
    assert_eq!(app.count("guardian_consents").await, 0);
    let r = app.post(&path).session(&coach).json(body).send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        r.json["consents"][0]["recordedBy"],
        coach.user_id.to_string()
    );

    let token = athlete_invite(&app, &coach, &id(&a)).await;
    let r = app
        .post("/api/invite/claim")
        .json(json!({ "token": token, "email": "leo@example.com", "password": PASSWORD, "birthDate": born(13, 1) }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    // Withdrawal is recorded, not deleted.
    let r = app.req(Method::DELETE, &path).session(&coach).send().await;
    assert_eq!(r.json["active"], false);
    assert!(r.json["consents"][0]["withdrawnAt"].is_string());
}
