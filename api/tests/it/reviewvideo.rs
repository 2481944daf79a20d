use crate::support::*;
use axum::http::StatusCode;
use shared::repo::oauth;

fn path_of(url: &str) -> String {
    url.strip_prefix("http://app.test")
        .expect("callback on the public URL")
        .to_string()
}

#[tokio::test]
async fn connect_with_pkce_stores_the_token_encrypted() {
    let app = TestApp::new().await;
    let s = app.signup("kai@example.com").await;
    let r = app.get("/api/auth/reviewvideo").session(&s).send().await;
    assert_eq!(r.status, StatusCode::FOUND, "{}", r.body);
    let authorize = r.location();
    assert!(authorize.starts_with(&format!("{}/oauth/authorize?", app.reviewvideo.base_url())));
    assert!(authorize.contains("code_challenge_method=S256"));
    assert!(
        authorize
            .contains("redirect_uri=http%3A%2F%2Fapp.test%2Fapi%2Fauth%2Freviewvideo%2Fcallback")
    );
    let back = app.reviewvideo.approve(&authorize);
    let r = app.get(&path_of(&back)).session(&s).send().await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        r.location(),
        "http://app.test/settings/integrations?reviewvideo=connected"
    );

    let reqs = app.reviewvideo.token_requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].basic_client_id.as_deref(), Some(RV_CLIENT_ID));
    assert_eq!(
        reqs[0].basic_client_secret.as_deref(),
        Some(RV_CLIENT_SECRET)
    );
    assert!(reqs[0].form.contains_key("code_verifier"));
    let issued = app.reviewvideo.issued_tokens();
    let mut c = app.state.db.acquire().await.unwrap();
    let conn = oauth::connection(&mut c, s.user_id, "reviewvideo")
        .await
        .unwrap()
        .unwrap();
    assert_ne!(conn.access_token_enc, issued[0], "stored encrypted");
    assert!(!conn.access_token_enc.contains(&issued[0]));
    assert_eq!(
        api::areas::reviewvideo::decrypt_token(&app.state, &conn.access_token_enc).unwrap(),
        issued[0]
    );
    assert_eq!(conn.scope, "public private video_files");
    assert_eq!(conn.account.0["name"], "Fake Coach");

    // The callback cannot be replayed.
    let r = app.get(&path_of(&back)).session(&s).send().await;
    r.assert_error(StatusCode::FORBIDDEN, "oauth_state_invalid");
}

#[tokio::test]
async fn connect_without_pkce_when_not_configured_for_it() {
    let app = TestApp::with_env(&[("REVIEWVIDEO_PKCE", "false")]).await;
    let s = app.signup("kai@example.com").await;
    let authorize = app
        .get("/api/auth/reviewvideo")
        .session(&s)
        .send()
        .await
        .location();
    assert!(!authorize.contains("code_challenge"));
    let back = app.reviewvideo.approve(&authorize);
    let r = app.get(&path_of(&back)).session(&s).send().await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        !app.reviewvideo.token_requests()[0]
            .form
            .contains_key("code_verifier")
    );
}

#[tokio::test]
async fn denied_forged_and_foreign_callbacks_are_refused() {
    let app = TestApp::new().await;
    let a = app.signup("a@example.com").await;
    let b = app.signup("b@example.com").await;

    let authorize = app
        .get("/api/auth/reviewvideo")
        .session(&a)
        .send()
        .await
        .location();
    let denied = app.reviewvideo.deny(&authorize);
    let r = app.get(&path_of(&denied)).session(&a).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "oauth_denied");

    let r = app
        .get("/api/auth/reviewvideo/callback?code=abc&state=forged")
        .session(&a)
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "oauth_state_invalid");
    let r = app
        .get("/api/auth/reviewvideo/callback?code=abc")
        .session(&a)
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "oauth_state_invalid");

    // A state issued to A's session does not work in B's.
    let authorize = app
        .get("/api/auth/reviewvideo")
        .session(&a)
        .send()
        .await
        .location();
    let back = app.reviewvideo.approve(&authorize);
    let r = app.get(&path_of(&back)).session(&b).send().await;
    r.assert_error(StatusCode::FORBIDDEN, "oauth_state_invalid");

    // A provider refusing the code (here: already exchanged) is a clear error too.
    assert!(app.reviewvideo.token_requests().is_empty());
    assert_eq!(app.count("provider_connections").await, 0);
}

#[tokio::test]
async fn expired_state_is_refused() {
    let app = TestApp::new().await;
    let s = app.signup("a@example.com").await;
    let authorize = app
        .get("/api/auth/reviewvideo")
        .session(&s)
        .send()
        .await
        .location();
    let back = app.reviewvideo.approve(&authorize);
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE oauth_states SET expires_at = $1")
            .bind(shared::db::Ts::now().minus(chrono::Duration::seconds(1)))
    )
    .unwrap();
    let r = app.get(&path_of(&back)).session(&s).send().await;
    r.assert_error(StatusCode::FORBIDDEN, "oauth_state_invalid");
}

#[tokio::test]
async fn unconfigured_provider_is_a_clear_error() {
    let app = TestApp::with_env(&[
        ("REVIEWVIDEO_BASE_URL", ""),
        ("REVIEWVIDEO_CLIENT_ID", ""),
        ("REVIEWVIDEO_CLIENT_SECRET", ""),
    ])
    .await;
    let s = app.signup("a@example.com").await;
    let r = app.get("/api/auth/reviewvideo").session(&s).send().await;
    r.assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
}
