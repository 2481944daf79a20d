use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn rewind_poll(app: &TestApp) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE tv_devices SET last_poll_at = $1")
            .bind(shared::db::Ts::now().minus(chrono::Duration::minutes(1)))
    )
    .unwrap();
}

#[tokio::test]
async fn device_code_flow_from_start_to_sign_out() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;

    let r = app
        .post("/api/tv/signin/start")
        .json(json!({ "name": "Clubhouse TV" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let device_code = r.json["deviceCode"].as_str().unwrap().to_string();
    let user_code = r.json["userCode"].as_str().unwrap().to_string();
    assert_eq!(user_code.len(), 9);
    assert_eq!(&user_code[4..5], "-");
    assert!(
        user_code
            .chars()
            .filter(|c| *c != '-')
            .all(|c| "BCDFGHJKLMNPQRSTVWXZ".contains(c)),
        "{user_code}"
    );
    assert_eq!(r.json["interval"], 5);
    assert_eq!(
        r.json["verificationUriComplete"],
        format!("http://app.test/tv?code={user_code}")
    );

    let poll = || {
        app.post("/api/tv/signin/poll")
            .json(json!({ "deviceCode": device_code }))
    };
    poll()
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "authorization_pending");
    poll()
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "slow_down");
    let interval: i64 = {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::sql!(&mut c, c => sqlx::query_scalar("SELECT interval_secs FROM tv_devices").fetch_one(&mut *c).await).unwrap()
    };
    assert_eq!(interval, 10, "slow_down adds 5 s");

    // Claiming needs the module on and tv.manage.
    let claim = |s: &Session| {
        app.post("/api/tv/signin/claim")
            .session(s)
            .json(json!({ "userCode": user_code.to_lowercase().replace('-', ""), "name": "Lobby" }))
    };
    claim(&owner)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    enable_tv(&app, &owner).await;
    claim(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .post("/api/tv/signin/claim")
        .session(&owner)
        .json(json!({ "userCode": "BCD" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = claim(&owner).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["name"], "Lobby");
    let device_id = r.json["id"].as_str().unwrap().to_string();
    claim(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    rewind_poll(&app).await;
    let r = poll().send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["scope"], "tv");
    assert_eq!(r.json["workspaceId"], owner.org_id.to_string());
    let token = r.json["accessToken"].as_str().unwrap().to_string();
    assert_eq!(r.headers["cache-control"], "no-store");
    rewind_poll(&app).await;
    poll()
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_grant");

    // The TV token works on TV routes only.
    let r = app.get("/api/tv/me").bearer(&token).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["name"], "Lobby");
    app.get("/api/auth/me")
        .bearer(&token)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.get("/api/tv/devices")
        .bearer(&token)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");

    let r = app.get("/api/tv/devices").session(&owner).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 1);
    let r = app
        .req(Method::PATCH, &format!("/api/tv/devices/{device_id}"))
        .session(&owner)
        .json(json!({ "name": "Gym" }))
        .send()
        .await;
    assert_eq!(r.json["name"], "Gym");
    app.req(Method::PATCH, &format!("/api/tv/devices/{device_id}"))
        .session(&owner)
        .json(json!({ "name": "" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    enable_tv(&app, &other).await;
    app.req(Method::DELETE, &format!("/api/tv/devices/{device_id}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .req(Method::DELETE, &format!("/api/tv/devices/{device_id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    app.get("/api/tv/me")
        .bearer(&token)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}

#[tokio::test]
async fn denied_and_expired_codes_are_refused_and_guessing_or_starting_is_rate_limited() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    enable_tv(&app, &owner).await;
    let start = || app.post("/api/tv/signin/start").json(json!({}));
    let a = start().send().await;
    let b = start().send().await;
    let poll = |code: &serde_json::Value| {
        app.post("/api/tv/signin/poll")
            .json(json!({ "deviceCode": code }))
    };

    let r = app
        .post("/api/tv/signin/claim")
        .session(&owner)
        .json(json!({ "userCode": b.json["userCode"], "approve": false }))
        .send()
        .await;
    assert_eq!(r.json["status"], "denied");
    poll(&b.json["deviceCode"])
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "access_denied");

    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE tv_devices SET expires_at = $1 WHERE status = 'pending'")
                .bind(shared::db::Ts::now().minus(chrono::Duration::seconds(1)))
        )
        .unwrap();
    }
    poll(&a.json["deviceCode"])
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "expired_token");
    app.post("/api/tv/signin/claim")
        .session(&owner)
        .json(json!({ "userCode": a.json["userCode"] }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post("/api/tv/signin/poll")
        .json(json!({ "deviceCode": "tvd_bogus" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_grant");
    app.post("/api/tv/signin/poll")
        .json(json!({}))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_request");

    // Guessing user codes is limited: 10 misses, then 429.
    for _ in 0..9 {
        app.post("/api/tv/signin/claim")
            .session(&owner)
            .json(json!({ "userCode": "BBBB-BBBB" }))
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    let r = app
        .post("/api/tv/signin/claim")
        .session(&owner)
        .json(json!({ "userCode": "BBBB-BBBB" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.body);
    assert!(r.headers.contains_key("retry-after"));

    // Starting is rate-limited per address too.
    let mut limited = false;
    for _ in 0..12 {
        if start().send().await.status == StatusCode::TOO_MANY_REQUESTS {
            limited = true;
        }
    }
    assert!(limited);
}

/// Issue 35, item 8: a stock RFC 8628 client polls form-encoded with the RFC's names and reads
/// RFC 6749's answers: `{"error": …}` while it waits or fails, `access_token` when claimed.
#[tokio::test]
async fn a_stock_device_flow_client_polls_in_the_rfc_dialect() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    enable_tv(&app, &owner).await;
    let started = app
        .post("/api/tv/signin/start")
        .json(json!({}))
        .send()
        .await;
    let device_code = started.json["deviceCode"].as_str().unwrap().to_string();
    let poll = |fields: Vec<(&'static str, String)>| {
        let fields: Vec<(&str, String)> = fields;
        let body = serde_urlencoded::to_string(&fields).unwrap();
        app.post("/api/tv/signin/poll")
            .raw("application/x-www-form-urlencoded", body.as_bytes())
    };
    let grant = || ("grant_type", tv_grant());
    let r = poll(vec![
        grant(),
        ("device_code", device_code.clone()),
        ("client_id", "tv".into()),
    ])
    .send()
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(r.json["error"], "authorization_pending", "{}", r.body);
    assert!(r.json["error_description"].is_string());
    for (fields, code) in [
        (
            vec![grant(), ("device_code", "tvd_bogus".to_string())],
            "invalid_grant",
        ),
        (vec![grant()], "invalid_request"),
        (
            vec![
                ("grant_type", "password".to_string()),
                ("device_code", device_code.clone()),
            ],
            "unsupported_grant_type",
        ),
    ] {
        rewind_poll(&app).await;
        let r = poll(fields).send().await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        assert_eq!(r.json["error"], code, "{}", r.body);
    }
    let r = app
        .post("/api/tv/signin/claim")
        .session(&owner)
        .json(json!({ "userCode": started.json["userCode"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    rewind_poll(&app).await;
    let r = poll(vec![grant(), ("device_code", device_code.clone())])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["token_type"], "Bearer");
    assert_eq!(r.headers["cache-control"], "no-store");
    let token = r.json["access_token"].as_str().unwrap();
    let me = app.get("/api/tv/me").bearer(token).send().await;
    assert_eq!(me.status, StatusCode::OK, "{}", me.body);
    rewind_poll(&app).await;
    let r = poll(vec![grant(), ("device_code", device_code)])
        .send()
        .await;
    assert_eq!(r.json["error"], "invalid_grant", "{}", r.body);
}

fn tv_grant() -> String {
    api::areas::tv::DEVICE_GRANT.to_string()
}
