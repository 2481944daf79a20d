//! Switching a workspace's modules on and off.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn modules_toggle_and_disabled_module_routes_answer_module_disabled() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let path = format!("/api/orgs/{}/modules", owner.org_id);
    app.req(Method::PATCH, &path)
        .session(&coach)
        .json(json!({ "modules": { "tv": true } }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "modules": { "kites": true } }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "modules": { "tv": true, "wearable": false } }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["modules"]["tv"], true);
    assert_eq!(r.json["modules"]["wearable"], false);
    let r = app
        .get(&format!("/api/orgs/{}", owner.org_id))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["modules"]["wearable"], false);
}
