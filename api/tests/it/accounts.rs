use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::repo::{orgs, signup_invites, users};

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

#[tokio::test]
async fn cookie_session_requires_csrf_for_writes_and_ends_at_signout() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let r = app.signin("kai@example.com", "wrong password!!").await;
    r.assert_error(StatusCode::UNAUTHORIZED, "invalid_credentials");
    let r = app.signin("nobody@example.com", PASSWORD).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "invalid_credentials");

    let r = app.signin("kai@example.com", PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let set_cookie: Vec<_> = r
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    let session_cookie = set_cookie
        .iter()
        .find(|c| c.starts_with("sc_session="))
        .unwrap();
    assert!(session_cookie.contains("HttpOnly") && session_cookie.contains("SameSite=Lax"));
    assert!(
        !session_cookie.contains("Secure"),
        "http public URL: no Secure flag"
    );
    let s = session_from(&r, "kai@example.com");

    let r = app.get("/api/auth/me").cookie_only(&s).send().await;
    assert_eq!(r.status, StatusCode::OK, "reads need no CSRF token");
    let r = app.post("/api/auth/signout").cookie_only(&s).send().await;
    r.assert_error(StatusCode::FORBIDDEN, "csrf_failed");
    let r = app
        .post("/api/auth/signout")
        .cookie_only(&s)
        .header("x-csrf-token", "forged")
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "csrf_failed");
    let r = app.post("/api/auth/signout").session(&s).send().await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let r = app.get("/api/auth/me").session(&s).send().await;
    r.assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}

#[tokio::test]
async fn secure_cookies_when_public_url_is_https() {
    let app = TestApp::with_env(&[("PUBLIC_BASE_URL", "https://coach.example")]).await;
    let r = app
        .post("/api/auth/signup")
        .json(json!({ "email": "kai@example.com", "password": PASSWORD, "name": "Kai" }))
        .send()
        .await;
    let cookies: Vec<_> = r
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    assert_eq!(cookies.len(), 2);
    assert!(
        cookies.iter().all(|c| c.contains("; Secure")),
        "{cookies:?}"
    );
}

#[tokio::test]
async fn failed_signins_are_rate_limited_with_retry_after() {
    let app = TestApp::with_env(&[("LOGIN_MAX_FAILURES", "3")]).await;
    app.signup("kai@example.com").await;
    for _ in 0..3 {
        let r = app.signin("kai@example.com", "wrong password!!").await;
        r.assert_error(StatusCode::UNAUTHORIZED, "invalid_credentials");
    }
    let r = app.signin("kai@example.com", PASSWORD).await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    let retry: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry > 0 && retry <= 900, "{retry}");
    let r = app
        .post("/api/mobile/auth/token")
        .json(json!({ "email": "kai@example.com", "password": PASSWORD }))
        .send()
        .await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
}

#[tokio::test]
async fn phone_tokens_refresh_rotate_and_replay_revokes() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    let (access, refresh) = app.phone_tokens("kai@example.com").await;
    let r = app.get("/api/mobile/auth/me").bearer(&access).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["user"]["email"], "kai@example.com");
    // Bearer also works on the web route; the mobile twin refuses cookies.
    assert_eq!(
        app.get("/api/auth/me").bearer(&access).send().await.status,
        StatusCode::OK
    );
    let r = app.get("/api/mobile/auth/me").session(&s).send().await;
    r.assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");

    let r = app
        .post("/api/mobile/auth/refresh")
        .json(json!({ "refreshToken": refresh }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let access2 = r.json["accessToken"].as_str().unwrap().to_string();
    assert_ne!(access2, access);
    assert_eq!(
        app.get("/api/mobile/auth/me")
            .bearer(&access2)
            .send()
            .await
            .status,
        StatusCode::OK
    );

    // Replaying the used refresh token revokes the whole sign-in.
    let r = app
        .post("/api/mobile/auth/refresh")
        .json(json!({ "refreshToken": refresh }))
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "token_reused");
    let r = app.get("/api/mobile/auth/me").bearer(&access2).send().await;
    r.assert_error(StatusCode::UNAUTHORIZED, "invalid_token");

    let r = app
        .post("/api/mobile/auth/refresh")
        .json(json!({ "refreshToken": "scr_bogus" }))
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}

#[tokio::test]
async fn phone_signout_revokes_its_tokens_only() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let (a1, r1) = app.phone_tokens("kai@example.com").await;
    let (a2, _) = app.phone_tokens("kai@example.com").await;
    let r = app
        .post("/api/mobile/auth/signout")
        .bearer(&a1)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    app.get("/api/mobile/auth/me")
        .bearer(&a1)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    let r = app
        .post("/api/mobile/auth/refresh")
        .json(json!({ "refreshToken": r1 }))
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    assert_eq!(
        app.get("/api/mobile/auth/me")
            .bearer(&a2)
            .send()
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn email_verification_link_works_once() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    let mail = app.wait_mail("kai@example.com").await;
    assert_eq!(mail.subject(), "Confirm your email address");
    let link = mail.link_containing("/auth/callback").unwrap();
    let path = link.strip_prefix("http://app.test").unwrap();
    let r = app.get(path).send().await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "http://app.test/auth/verified");
    let me = app.get("/api/auth/me").session(&s).send().await;
    assert_eq!(me.json["user"]["emailVerified"], true);
    app.get(path)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "token_used");
    app.get("/auth/callback?type=verify_email&token=sce_bogus")
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.get("/auth/callback?type=other&token=x")
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    let r = app
        .post("/api/auth/verify-email/resend")
        .session(&s)
        .send()
        .await;
    r.assert_error(StatusCode::CONFLICT, "already_verified");
}

#[tokio::test]
async fn expired_email_links_are_refused() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let mail = app.wait_mail("kai@example.com").await;
    let link = mail.link_containing("/auth/callback").unwrap();
    let mut c = app.state.db.acquire().await.unwrap();
    let past = shared::db::Ts::now().minus(chrono::Duration::minutes(1));
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE email_tokens SET expires_at = $1").bind(past)
    )
    .unwrap();
    let r = app
        .get(link.strip_prefix("http://app.test").unwrap())
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "token_expired");
    let me_verified = users::by_email(&mut c, "kai@example.com")
        .await
        .unwrap()
        .unwrap()
        .email_verified_at;
    assert!(me_verified.is_none());
}

#[tokio::test]
async fn password_reset_by_emailed_link_signs_out_everywhere() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    let (access, _) = app.phone_tokens("kai@example.com").await;
    let r = app
        .post("/api/auth/password/forgot")
        .json(json!({ "email": "nobody@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    let r = app
        .post("/api/auth/password/forgot")
        .json(json!({ "email": "kai@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    let mail = loop {
        let m = app.smtp.messages_to("kai@example.com");
        if let Some(m) = m.into_iter().find(|m| m.subject() == "Reset your password") {
            break m;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert!(app.smtp.messages_to("nobody@example.com").is_empty());
    let link = mail.link_containing("type=reset_password").unwrap();
    let r = app
        .get(link.strip_prefix("http://app.test").unwrap())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let token = link.split("token=").nth(1).unwrap().to_string();
    assert_eq!(
        r.location(),
        format!("http://app.test/auth/reset-password?token={token}")
    );

    // A too-short password is refused and the token stays usable.
    let r = app
        .post("/api/auth/password/reset")
        .json(json!({ "token": token, "password": "short" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let new_password = "a brand new password";
    let r = app
        .post("/api/auth/password/reset")
        .json(json!({ "token": token, "password": new_password }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let r = app
        .post("/api/auth/password/reset")
        .json(json!({ "token": token, "password": new_password }))
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "token_used");

    app.get("/api/auth/me")
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.get("/api/auth/me")
        .bearer(&access)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.signin("kai@example.com", PASSWORD)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_credentials");
    assert_eq!(
        app.signin("kai@example.com", new_password).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn ensure_org_provisions_once_even_when_called_concurrently() {
    let app = TestApp::new().await;
    // A coach whose account has no workspace (e.g. created before workspaces existed).
    let user = {
        let mut c = app.state.db.acquire().await.unwrap();
        let hash = shared::crypto::password::hash(PASSWORD);
        users::insert(&mut c, "solo@example.com", "Solo", &hash)
            .await
            .unwrap()
    };
    let s = session_from(
        &app.signin("solo@example.com", PASSWORD).await,
        "solo@example.com",
    );
    let r = app
        .get("/api/orgs/00000000-0000-0000-0000-000000000000")
        .session(&s)
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");

    let calls = (0..4).map(|_| {
        app.post("/api/auth/ensure-org")
            .session(&s)
            .json(json!({ "name": "Solo Surf", "type": "club" }))
            .send()
    });
    let results = futures::future::join_all(calls).await;
    let created: Vec<_> = results
        .iter()
        .filter(|r| r.status == StatusCode::CREATED)
        .collect();
    assert_eq!(
        created.len(),
        1,
        "{:?}",
        results.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(
        results
            .iter()
            .all(|r| r.status == StatusCode::CREATED || r.status == StatusCode::OK)
    );
    let mut c = app.state.db.acquire().await.unwrap();
    let ms = orgs::memberships_of(&mut c, user.id).await.unwrap();
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].role_key, "owner");
    assert_eq!(ms[0].org_type, "club");
    let r = app
        .post("/api/auth/ensure-org")
        .session(&s)
        .json(json!({}))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["created"], false);
    assert_eq!(r.json["workspace"]["workspaceId"], ms[0].org_id.to_string());

    let r = app
        .post("/api/auth/ensure-org")
        .session(&s)
        .json(json!({ "type": "pirate" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

/// Adds `email` to `org` with a built-in role, as an accepted invite would.
pub async fn add_member(app: &TestApp, org: shared::db::Id, email: &str, role: &str) -> Session {
    let mut c = app.state.db.acquire().await.unwrap();
    let hash = shared::crypto::password::hash(PASSWORD);
    let u = users::insert(&mut c, email, "Member", &hash).await.unwrap();
    let role_id: shared::db::Id = shared::sql!(&mut c, c => sqlx::query_scalar("SELECT id FROM roles WHERE org_id = $1 AND key = $2")
        .bind(org).bind(role).fetch_one(&mut *c).await).unwrap();
    shared::execute!(&mut c, sqlx::query("INSERT INTO members (id, org_id, user_id, role_id, created_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(shared::db::Id::new()).bind(org).bind(u.id).bind(role_id).bind(shared::db::Ts::now())).unwrap();
    drop(c);
    let mut s = session_from(&app.signin(email, PASSWORD).await, email);
    s.org_id = org;
    s
}

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

#[tokio::test]
async fn health_and_time() {
    let app = TestApp::new().await;
    let r = app.get("/api/health").send().await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["database"], "ok");
    let r = app.get("/api/time").send().await;
    let now = r.json["now"].as_str().unwrap();
    assert_eq!(now.len(), "2026-11-22T10:00:00.123Z".len(), "{now}");
    let ms = r.json["unixMs"].as_i64().unwrap();
    let local = chrono::Utc::now().timestamp_millis();
    assert!((local - ms).abs() < 5_000);
    app.state.db.close().await;
    let r = app.get("/api/health").send().await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.json["status"], "degraded");
}
