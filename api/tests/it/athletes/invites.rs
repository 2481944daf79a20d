//! Athlete invites: creating, hashing, expiring, mailing and looking them up.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::{Id, Ts};

#[tokio::test]
async fn invite_tokens_are_hashed_expire_and_need_athletes_create() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    app.post("/api/invite")
        .session(&viewer)
        .json(json!({ "firstName": "A", "lastName": "B" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let theirs = new_athlete(
        &app,
        &other,
        json!({ "firstName": "Not", "lastName": "Yours" }),
    )
    .await;
    app.post("/api/invite")
        .session(&coach)
        .json(json!({ "athleteId": id(&theirs) }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .post("/api/invite")
        .session(&coach)
        .json(json!({ "firstName": "" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("athlete_invites").await, 0);
    assert_eq!(app.count("athletes").await, 1);

    // An invite can create the athlete.
    let r = app
        .post("/api/invite")
        .session(&coach)
        .json(json!({ "firstName": "Nova", "lastName": "Reis", "email": "nova@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let token = r.json["token"].as_str().unwrap().to_string();
    assert!(r.json["url"].as_str().unwrap().ends_with(&token));
    let mut c = app.state.db.acquire().await.unwrap();
    let plain: i64 = shared::sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM athlete_invites WHERE token_hash = $1")
        .bind(&token).fetch_one(&mut *c).await).unwrap();
    assert_eq!(plain, 0, "only the hash is stored");
    let inv: Id = shared::sql!(&mut c, c => sqlx::query_scalar("SELECT id FROM athlete_invites").fetch_one(&mut *c).await).unwrap();
    shared::repo::athletes::set_invite_expiry(
        &mut c,
        inv,
        Ts::now().minus(chrono::Duration::seconds(1)),
    )
    .await
    .unwrap();
    drop(c);
    app.post("/api/invite/claim")
        .json(json!({ "token": token, "email": "nova@example.com", "password": PASSWORD, "birthDate": born(20, 0) }))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "token_expired");
    app.post("/api/invite/guardian")
        .json(json!({ "token": token }))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "token_expired");
    let r = app.get(&format!("/api/invite/lookup/{token}")).send().await;
    assert_eq!(r.json["status"], "expired");
    app.get("/api/invite/lookup/sai_unknown")
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // Send: mails the link and does not return the secret; a new invite voids the old one.
    let r = app
        .post("/api/invite/send")
        .session(&coach)
        .json(json!({ "firstName": "Ines", "lastName": "Sa", "email": "ines@example.com" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert!(r.json["token"].is_null());
    assert_eq!(r.json["emailSent"], true);
    let mail = app.wait_mail("ines@example.com").await;
    assert!(
        mail.link_containing("/invite/sai_").is_some(),
        "{}",
        mail.text_body()
    );
    let r = app
        .post("/api/invite/send")
        .session(&coach)
        .json(json!({ "firstName": "No", "lastName": "Mail" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

#[tokio::test]
async fn invite_lookup_is_rate_limited() {
    let app = TestApp::new().await;
    for _ in 0..api::areas::athletes::invites::LOOKUPS_PER_WINDOW {
        app.get("/api/invite/lookup/sai_x")
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    let r = app.get("/api/invite/lookup/sai_x").send().await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert!(r.headers.contains_key("retry-after"));
}
