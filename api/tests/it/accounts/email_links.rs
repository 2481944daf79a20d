//! Emailed links: email verification and password reset.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::repo::users;

#[tokio::test]
async fn email_verification_link_works_once() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    let mail = app.wait_mail("kai@example.com").await;
    assert_eq!(mail.subject(), "Confirm your email address");
    // RFC 5322 §3.6.4 and RFC 2045 §4 (issue 35, item 9).
    assert_eq!(mail.header("MIME-Version").as_deref(), Some("1.0"));
    let id = mail.header("Message-ID").unwrap_or_default();
    assert!(
        id.starts_with('<') && id.ends_with('>') && id.contains('@'),
        "{id:?}"
    );
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
