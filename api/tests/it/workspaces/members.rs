//! Members: password reset mail and the coach directory.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn member_password_reset_mail_and_coach_directory() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let cid = member_id(&app, &coach, &owner).await;
    app.post(&format!("/api/orgs/{}/reset-password", owner.org_id))
        .session(&viewer)
        .json(json!({ "memberId": cid }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .post(&format!("/api/orgs/{}/reset-password", owner.org_id))
        .session(&owner)
        .json(json!({ "memberId": cid }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let mail = app.wait_mail("coach@example.com").await;
    assert!(mail.link_containing("type=reset_password").is_some());
    let r = app
        .get(&format!("/api/orgs/{}/coach-directory", owner.org_id))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let entries = r.json.as_array().unwrap();
    assert_eq!(
        entries.len(),
        2,
        "owner and coach, not the viewer: {entries:?}"
    );
    assert!(
        entries
            .iter()
            .all(|e| e.as_object().unwrap().keys().len() == 2),
        "names only"
    );
}
