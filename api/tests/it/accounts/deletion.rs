//! Deleting an account: the password check, solo and shared workspaces, web and phone.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn delete_account_needs_password_and_deletes_solo_workspaces() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    let r = app
        .post("/api/auth/delete-account")
        .session(&s)
        .json(json!({ "password": "not my password" }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "password_mismatch");
    assert_eq!(app.count("users").await, 1);

    let r = app
        .post("/api/auth/delete-account")
        .session(&s)
        .json(json!({ "password": PASSWORD }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["deletedWorkspaces"], json!([s.org_id.to_string()]));
    for t in ["users", "orgs", "members", "roles", "web_sessions"] {
        assert_eq!(app.count(t).await, 0, "{t} left behind");
    }
    app.get("/api/auth/me")
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    // The email is free again.
    app.signup("kai@example.com").await;
}

#[tokio::test]
async fn delete_account_refuses_sole_owner_of_shared_workspace_and_leaves_co_owned_ones() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let r = app
        .post("/api/auth/delete-account")
        .session(&owner)
        .json(json!({ "password": PASSWORD }))
        .send()
        .await;
    r.assert_error(StatusCode::CONFLICT, "ownership_transfer_required");
    assert_eq!(
        r.json["error"]["details"]["workspaces"][0]["id"],
        owner.org_id.to_string()
    );
    assert_eq!(app.count("users").await, 2);
    assert_eq!(app.count("members").await, 2);

    // A plain member leaves the shared workspace; their own solo workspace goes.
    let r = app
        .post("/api/auth/ensure-org")
        .session(&coach)
        .json(json!({}))
        .send()
        .await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "already a member: nothing created"
    );
    let r = app
        .post("/api/auth/delete-account")
        .session(&coach)
        .json(json!({ "password": PASSWORD }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["leftWorkspaces"], json!([owner.org_id.to_string()]));
    assert_eq!(app.count("members").await, 1);
    assert_eq!(app.count("orgs").await, 1);
}

#[tokio::test]
async fn signup_signin_ensure_org_delete_account_end_to_end() {
    let app = TestApp::new().await;
    let s = app.signup("e2e@example.com").await;
    let web = session_from(
        &app.signin("e2e@example.com", PASSWORD).await,
        "e2e@example.com",
    );
    let (access, _) = app.phone_tokens("e2e@example.com").await;
    let r = app
        .post("/api/mobile/auth/ensure-org")
        .bearer(&access)
        .json(json!({}))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["workspace"]["workspaceId"], s.org_id.to_string());
    let r = app
        .req(Method::POST, "/api/mobile/auth/delete-account")
        .bearer(&access)
        .json(json!({ "password": PASSWORD }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    app.get("/api/auth/me")
        .session(&web)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.get("/api/mobile/auth/me")
        .bearer(&access)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}
