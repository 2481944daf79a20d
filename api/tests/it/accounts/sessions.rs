//! Signing in: web cookie sessions with CSRF, failed sign-ins, and phone tokens.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_wrong_passwords_never_get_past_the_limit() {
    let app = TestApp::with_env(&[("LOGIN_MAX_FAILURES", "10")]).await;
    app.signup("kai@example.com").await;
    let tries = (0..40).map(|_| app.signin("kai@example.com", "wrong password!!"));
    let answers = futures::future::join_all(tries).await;
    let evaluated = answers
        .iter()
        .filter(|r| r.status == StatusCode::UNAUTHORIZED)
        .count();
    let limited = answers
        .iter()
        .filter(|r| r.status == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!(
        (evaluated, limited),
        (10, 30),
        "exactly the limit is evaluated"
    );
    let r = app.signin("kai@example.com", PASSWORD).await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
}

#[tokio::test]
async fn a_good_password_gives_its_count_back() {
    let app = TestApp::with_env(&[("LOGIN_MAX_FAILURES", "3")]).await;
    app.signup("kai@example.com").await;
    app.signup("lani@example.com").await;
    // Sign-ins from one address: successes never use up the address's failures.
    for _ in 0..5 {
        let r = app.signin("lani@example.com", PASSWORD).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    for _ in 0..2 {
        let r = app.signin("kai@example.com", "wrong password!!").await;
        r.assert_error(StatusCode::UNAUTHORIZED, "invalid_credentials");
    }
    let r = app.signin("kai@example.com", PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
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
async fn bearer_refuses_refresh_tokens_expired_tokens_and_unknown_secrets() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let (access, refresh) = app.phone_tokens("kai@example.com").await;
    // A member route (caller and workspace resolved on one connection) accepts the token.
    let r = app.get("/api/athletes").bearer(&access).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    for token in [refresh.as_str(), "sca_unknown", ""] {
        app.get("/api/athletes")
            .bearer(token)
            .send()
            .await
            .assert_error(
                StatusCode::UNAUTHORIZED,
                if token.is_empty() {
                    "unauthenticated"
                } else {
                    "invalid_token"
                },
            );
    }
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE api_tokens SET expires_at = $2 WHERE token_hash = $1")
            .bind(shared::crypto::hash_token(&access))
            .bind(shared::db::Ts::now().plus(chrono::Duration::seconds(-1)))
    )
    .unwrap();
    drop(c);
    auth_tables_changed();
    app.get("/api/auth/me")
        .bearer(&access)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}

/// Issue 35, item 5: JSON answers are never sniffed and never cached; a route that chose its own
/// cache policy keeps it.
#[tokio::test]
async fn json_answers_say_nosniff_and_no_store() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    let token = app
        .post("/api/mobile/auth/token")
        .json(json!({ "email": "kai@example.com", "password": PASSWORD }))
        .send()
        .await;
    assert_eq!(token.status, StatusCode::OK, "{}", token.body);
    assert!(token.json["expiresIn"].as_i64().unwrap() > 0);
    for r in [
        token,
        app.get("/api/auth/me").session(&s).send().await,
        app.get("/api/auth/me").send().await,
        app.get("/api/no-such-route").send().await,
    ] {
        assert_eq!(r.headers["x-content-type-options"], "nosniff", "{}", r.body);
        assert_eq!(r.headers["cache-control"], "no-store", "{}", r.body);
    }
}
