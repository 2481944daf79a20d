use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn admin_routes_need_a_platform_admin_and_mirror_for_the_phone() {
    let app = TestApp::new().await;
    let admin = app.signup("admin@example.com").await;
    let coach = app.signup("coach@example.com").await;
    app.get("/api/admin/metrics")
        .session(&admin)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    make_admin(&app, &admin).await;
    let r = app.get("/api/admin/metrics").session(&admin).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["users"], 2);
    assert_eq!(r.json["workspaces"], 2);
    app.get("/api/admin/users")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    let (access, _) = app.phone_tokens("admin@example.com").await;
    let r = app
        .get("/api/mobile/admin/users?q=COACH@")
        .bearer(&access)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);
    app.get("/api/mobile/admin/users")
        .session(&admin)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
    let r = app
        .get(&format!("/api/admin/users/{}", coach.user_id))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["workspaces"][0]["role"], "owner");
    let r = app
        .get("/api/admin/orgs?q=coach")
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    app.get(&format!("/api/admin/orgs/{}", shared::db::Id::new()))
        .session(&admin)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn impersonation_acts_as_the_user_says_so_and_is_audited() {
    let app = TestApp::new().await;
    let admin = app.signup("admin@example.com").await;
    let other_admin = app.signup("admin2@example.com").await;
    let coach = app.signup("coach@example.com").await;
    make_admin(&app, &admin).await;
    make_admin(&app, &other_admin).await;
    let r = app
        .post("/api/admin/impersonate")
        .session(&admin)
        .json(json!({ "userId": other_admin.user_id, "reason": "ticket 1" }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "cannot_impersonate_admin");
    app.post("/api/admin/impersonate")
        .session(&admin)
        .json(json!({ "userId": coach.user_id, "reason": "" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .post("/api/admin/impersonate")
        .session(&admin)
        .json(json!({ "userId": coach.user_id, "reason": "ticket 42" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    let r = app.get("/api/auth/me").session(&admin).send().await;
    assert_eq!(r.json["user"]["email"], "coach@example.com");
    assert_eq!(r.headers["x-impersonated-by"], admin.user_id.to_string());
    assert_eq!(r.headers["x-impersonating"], coach.user_id.to_string());
    let r = app
        .req(Method::PATCH, &format!("/api/orgs/{}", coach.org_id))
        .session(&admin)
        .json(json!({ "name": "Renamed by support" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let mut c = app.state.db.acquire().await.unwrap();
    let e = &shared::repo::audit::for_org(&mut c, coach.org_id, 1, 0)
        .await
        .unwrap()[0];
    assert_eq!(e.action, "org.updated");
    assert_eq!(e.actor_user_id, Some(coach.user_id));
    assert_eq!(
        e.impersonator_user_id,
        Some(admin.user_id),
        "the real admin is recorded"
    );
    // Admin routes still act as the admin; stop ends it.
    let r = app
        .post("/api/admin/impersonate/stop")
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let r = app.get("/api/auth/me").session(&admin).send().await;
    assert_eq!(r.json["user"]["email"], "admin@example.com");
    assert!(!r.headers.contains_key("x-impersonated-by"));
    app.post("/api/admin/impersonate/stop")
        .session(&admin)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "not_impersonating");

    // It expires by itself.
    app.post("/api/admin/impersonate")
        .session(&admin)
        .json(json!({ "userId": coach.user_id, "reason": "ticket 43" }))
        .send()
        .await;
    assert_eq!(
        app.get("/api/auth/me").session(&admin).send().await.json["user"]["email"],
        "coach@example.com"
    );
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE impersonations SET expires_at = $1")
            .bind(shared::db::Ts::now().minus(chrono::Duration::seconds(1)))
    )
    .unwrap();
    auth_tables_changed();
    assert_eq!(
        app.get("/api/auth/me").session(&admin).send().await.json["user"]["email"],
        "admin@example.com"
    );
    let r = app
        .get("/api/admin/audit?action=admin.")
        .session(&admin)
        .send()
        .await;
    let n = r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["action"]
                .as_str()
                .unwrap()
                .starts_with("admin.impersonation_")
        })
        .count();
    assert_eq!(n, 3, "started, stopped, started: {}", r.body);
}

#[tokio::test]
async fn grants_raise_the_seat_cap_and_settings_change_the_signup_mode() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let org = admin.org_id;
    for e in ["a@example.com", "b@example.com"] {
        app.post(&format!("/api/orgs/{org}/members/invite"))
            .session(&admin)
            .json(json!({ "email": e, "role": "coach" }))
            .send()
            .await;
    }
    app.post(&format!("/api/orgs/{org}/members/invite"))
        .session(&admin)
        .json(json!({ "email": "c@example.com", "role": "coach" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "seat_cap_exceeded");
    let r = app
        .post("/api/admin/subscriptions/grant")
        .session(&admin)
        .json(json!({ "orgId": org, "plan": "club", "seats": 0, "reason": "pilot" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("subscriptions").await, 0);
    let r = app
        .post("/api/admin/subscriptions/grant")
        .session(&admin)
        .json(json!({ "orgId": org, "plan": "club", "seats": 10, "reason": "pilot club" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["status"], "granted");
    let r = app
        .post(&format!("/api/orgs/{org}/members/invite"))
        .session(&admin)
        .json(json!({ "email": "c@example.com", "role": "coach" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .get(&format!("/api/admin/orgs/{org}"))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["seatCap"], 10);
    assert_eq!(r.json["plan"], "club");
    let r = app
        .get(&format!("/api/admin/subscriptions?orgId={org}"))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);

    let r = app
        .req(Method::PATCH, "/api/admin/settings")
        .session(&admin)
        .json(json!({ "signupMode": "closed" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .req(Method::PATCH, "/api/admin/settings")
        .session(&admin)
        .json(json!({ "signupMode": "waitlist" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["signupMode"], "waitlist");
    assert_eq!(r.json["schedules"]["tokens-cleanup"], "0 10 * * * *");
    assert_eq!(
        app.get("/api/signup-mode").send().await.json["mode"],
        "waitlist"
    );
}

#[tokio::test]
async fn an_admin_invite_from_the_waitlist_lets_the_email_sign_up_and_invites_can_be_revoked() {
    let app = TestApp::with_env(&[("SIGNUP_MODE", "waitlist")]).await;
    // Sign-up is closed: the admin's account is made directly.
    let admin = user_without_workspace(&app, "admin@example.com", "Admin").await;
    make_admin(&app, &admin).await;
    app.post("/api/waitlist")
        .json(json!({ "email": "surfer@example.com", "name": "Surfer" }))
        .send()
        .await;
    let r = app.get("/api/admin/waitlist").session(&admin).send().await;
    let entry = r.json["items"][0]["id"].as_str().unwrap().to_string();
    let r = app
        .post(&format!("/api/admin/waitlist/{entry}/invite"))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let mail = app.wait_mail("surfer@example.com").await;
    let code = mail
        .link_containing("invite=")
        .unwrap()
        .split("invite=")
        .nth(1)
        .unwrap()
        .to_string();
    assert_eq!(
        app.get(&format!("/api/signup-mode?invite={code}"))
            .send()
            .await
            .json["signupAllowed"],
        true
    );
    let r = app.post("/api/auth/signup").json(json!({ "email": "surfer@example.com", "password": PASSWORD, "name": "Surfer", "invite": code })).send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app.get("/api/admin/waitlist").session(&admin).send().await;
    assert!(r.json["items"][0]["invitedAt"].is_string());
    let r = app.get("/api/admin/invites").session(&admin).send().await;
    assert_eq!(r.json["items"][0]["status"], "used");
    let r = app
        .post("/api/admin/invites")
        .session(&admin)
        .json(json!({ "expiresInDays": 1 }))
        .send()
        .await;
    let id = r.json["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.req(Method::DELETE, &format!("/api/admin/invites/{id}"))
            .session(&admin)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.req(Method::DELETE, &format!("/api/admin/invites/{id}"))
        .session(&admin)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn activity_log_feeds_the_live_page() {
    let app = TestApp::new().await;
    let admin = app.signup("admin@example.com").await;
    let coach = app.signup("coach@example.com").await;
    make_admin(&app, &admin).await;
    let r = app.post("/api/activity/log").session(&coach).json(json!({ "events": [{ "kind": "page_view", "path": "/athletes" }, { "kind": "clip.played", "data": { "clipId": "c1" } }] })).send().await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let r = app
        .post("/api/activity/log")
        .session(&coach)
        .json(json!({ "events": [{ "kind": "bad kind!" }] }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.post("/api/activity/log")
        .session(&coach)
        .json(json!({ "events": [] }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("activity_events").await, 2);
    let r = app
        .get("/api/admin/live-metrics")
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["eventsLast5Minutes"], 2);
    assert_eq!(r.json["activeUsersLast5Minutes"], 1);
    assert_eq!(r.json["recent"][0]["orgId"], coach.org_id.to_string());
    let r = app
        .get(&format!(
            "/api/admin/activity?userId={}&kind=page_view",
            coach.user_id
        ))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);
}

/// `api grant-admin EMAIL`, the only way to a first platform admin: run beside a live `api`
/// on the same data, the account's next sign-in reaches the console; an unknown or malformed
/// address is refused with nothing changed; `revoke-admin` takes it away.
#[tokio::test]
async fn the_grant_admin_command_makes_a_platform_admin_of_an_existing_account() {
    let dir = std::env::temp_dir().join(format!("surfcoach-admin-cli-{}", shared::db::Id::new()));
    let api = ApiProcess::start(&dir).await;
    let http = reqwest::Client::new();
    let (email, password) = ("Owner@Example.com", "correct horse battery staple");
    let r = http
        .post(api.url("/api/auth/signup"))
        .json(&json!({ "email": email, "password": password, "name": "Owner" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let metrics = |token: String| {
        let (http, url) = (http.clone(), api.url("/api/mobile/admin/metrics"));
        async move {
            http.get(url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    let token = || {
        let (http, url) = (http.clone(), api.url("/api/mobile/auth/token"));
        async move {
            let r = http
                .post(url)
                .json(&json!({ "email": email, "password": password, "clientName": "cli test" }))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            r.json::<serde_json::Value>().await.unwrap()["accessToken"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    assert_eq!(metrics(token().await).await, 403);
    let run = |args: &[&str]| api_command(&dir).args(args).output().unwrap();

    for bad in ["nobody@example.com", "not an address"] {
        let out = run(&["grant-admin", bad]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
    }
    let out = run(&["grant-admin"]);
    assert_eq!(out.status.code(), Some(2));
    // The address as typed at sign-up, any case.
    let out = run(&["grant-admin", "owner@example.COM"]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("is a platform admin"));
    assert_eq!(metrics(token().await).await, 200, "{}", api.log());
    let out = run(&["revoke-admin", email]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(metrics(token().await).await, 403);
    drop(api);
    let _ = std::fs::remove_dir_all(&dir);
}
