//! Sign-up: the account, its workspace and owner membership, bad input, and the invite-locked and
//! waitlist modes.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::repo::signup_invites;

#[tokio::test]
async fn signup_creates_account_workspace_owner_and_signs_in() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    assert_eq!(app.count("users").await, 1);
    assert_eq!(app.count("orgs").await, 1);
    assert_eq!(app.count("members").await, 1);
    assert_eq!(app.count("roles").await, 4, "built-in roles");
    let me = app.get("/api/auth/me").session(&s).send().await;
    assert_eq!(me.status, StatusCode::OK, "{}", me.body);
    assert_eq!(me.json["user"]["email"], "kai@example.com");
    assert_eq!(me.json["user"]["emailVerified"], false);
    assert_eq!(me.json["workspaces"][0]["role"], "owner");
    assert_eq!(
        me.json["workspaces"][0]["workspaceName"],
        "Coach Kai's workspace"
    );
    assert_eq!(me.json["defaultWorkspaceId"], s.org_id.to_string());
    let mail = app.wait_mail("kai@example.com").await;
    assert!(
        mail.link_containing("/auth/callback?type=verify_email")
            .is_some()
    );
    let audit = app.count("audit_log").await;
    assert_eq!(audit, 1);
}

#[tokio::test]
async fn signup_rejects_bad_input_and_writes_nothing() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/auth/signup")
        .json(json!({ "email": "not-an-email", "password": "short", "name": "  ", "workspaceType": "pirate" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut fields = r.fields();
    fields.sort();
    assert_eq!(fields, ["email", "name", "password", "workspaceType"]);

    let r = app
        .post("/api/auth/signup")
        .raw("application/json", b"{\"email\": ")
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "invalid_json");

    let r = app
        .post("/api/auth/signup")
        .json(json!({ "email": "a@b.co", "name": "A" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["password"]);

    let r = app
        .post("/api/auth/signup")
        .json(json!({ "email": 42, "password": PASSWORD, "name": "A" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["email"]);

    let r = app
        .post("/api/auth/signup")
        .raw("text/plain", b"hello")
        .send()
        .await;
    r.assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");

    for t in ["users", "orgs", "members", "web_sessions", "audit_log"] {
        assert_eq!(app.count(t).await, 0, "{t} written");
    }
}

#[tokio::test]
async fn signup_with_taken_email_conflicts_and_keeps_the_first_account() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let r = app
        .post("/api/auth/signup")
        .json(json!({ "email": "KAI@example.com", "password": PASSWORD, "name": "Other" }))
        .send()
        .await;
    r.assert_error(StatusCode::CONFLICT, "email_taken");
    assert_eq!(app.count("users").await, 1);
    assert_eq!(app.count("orgs").await, 1);
}

#[tokio::test]
async fn invite_locked_mode_needs_a_single_use_invite() {
    let app = TestApp::with_env(&[("SIGNUP_MODE", "invite-locked")]).await;
    let r = app.get("/api/signup-mode").send().await;
    assert_eq!(
        r.json,
        json!({ "mode": "invite-locked", "inviteValid": null, "signupAllowed": false })
    );
    let body = |invite: Option<&str>, email: &str| json!({ "email": email, "password": PASSWORD, "name": "Kai", "invite": invite });
    let r = app
        .post("/api/auth/signup")
        .json(body(None, "a@example.com"))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "invite_required");
    let r = app
        .post("/api/auth/signup")
        .json(body(Some("inv_bogus"), "a@example.com"))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "invite_invalid");
    assert_eq!(app.count("users").await, 0);

    let code = {
        let mut c = app.state.db.acquire().await.unwrap();
        signup_invites::create(&mut c, None, None, None)
            .await
            .unwrap()
    };
    let r = app
        .get(&format!("/api/signup-mode?invite={code}"))
        .send()
        .await;
    assert_eq!(r.json["inviteValid"], true);
    assert_eq!(r.json["signupAllowed"], true);
    let r = app
        .post("/api/auth/signup")
        .json(body(Some(&code), "a@example.com"))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post("/api/auth/signup")
        .json(body(Some(&code), "b@example.com"))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "invite_invalid");
    assert_eq!(app.count("users").await, 1);
    let r = app
        .get(&format!("/api/signup-mode?invite={code}"))
        .send()
        .await;
    assert_eq!(r.json["inviteValid"], false);
}

#[tokio::test]
async fn waitlist_mode_refuses_signup_and_records_requests_once() {
    let app = TestApp::with_env(&[("SIGNUP_MODE", "waitlist")]).await;
    let r = app
        .post("/api/auth/signup")
        .json(json!({ "email": "a@example.com", "password": PASSWORD, "name": "Kai" }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "signup_waitlist_only");
    for _ in 0..2 {
        let r = app
            .post("/api/waitlist")
            .json(json!({ "email": "A@example.com", "name": "Kai", "note": "club of 40" }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        assert_eq!(r.json["status"], "received");
    }
    assert_eq!(app.count("waitlist").await, 1);
    let r = app
        .post("/api/waitlist")
        .json(json!({ "email": "nope" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("waitlist").await, 1);
    // An admin's setting overrides the configured default.
    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::repo::settings::set(&mut c, "signup_mode", &json!("open"))
            .await
            .unwrap();
    }
    let r = app.get("/api/signup-mode").send().await;
    assert_eq!(r.json["mode"], "open");
    app.signup("a@example.com").await;
}
