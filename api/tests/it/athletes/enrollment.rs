//! Public club enrollment.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn club_enrollment_is_age_gated_rate_limited_and_only_where_enabled() {
    let app = TestApp::new().await;
    let club = app.signup("club@example.com").await;
    let viewer = add_member(&app, club.org_id, "viewer@example.com", "viewer").await;
    let body = |email: &str, years: u32| json!({ "workspaceId": club.org_id, "firstName": "Rui", "lastName": "Lopes", "email": email, "birthDate": born(years, 0) });
    app.post("/api/club/enroll")
        .json(body("rui@example.com", 20))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::PUT, "/api/club/enrollment")
        .session(&viewer)
        .json(json!({ "enabled": true }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .req(Method::PUT, "/api/club/enrollment")
        .session(&club)
        .json(json!({ "enabled": true }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        app.get("/api/club/enrollment")
            .session(&viewer)
            .send()
            .await
            .json["enabled"],
        true
    );

    let r = app
        .post("/api/club/enroll")
        .json(body("kid@example.com", 12))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "guardian_required");
    let mut bad = body("kid@example.com", 12);
    bad["birthDate"] = json!("2999-01-01");
    app.post("/api/club/enroll")
        .json(bad)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut no_consent = body("kid@example.com", 12);
    no_consent["guardian"] =
        json!({ "name": "Rita", "email": "rita@example.com", "relationship": "parent" });
    let r = app.post("/api/club/enroll").json(no_consent).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["guardian.consent"]);
    assert_eq!(app.count("athletes").await, 0, "nothing written");

    let mut kid = body("kid@example.com", 12);
    kid["guardian"] = json!({ "name": "Rita", "email": "rita@example.com", "relationship": "parent", "consent": true });
    assert_eq!(
        app.post("/api/club/enroll").json(kid).send().await.status,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        app.post("/api/club/enroll")
            .json(body("rui@example.com", 13))
            .send()
            .await
            .status,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        app.post("/api/club/enroll")
            .json(body("rui@example.com", 13))
            .send()
            .await
            .status,
        StatusCode::ACCEPTED,
        "a repeat answers alike"
    );
    assert_eq!(app.count("athletes").await, 2);
    assert_eq!(app.count("guardian_consents").await, 1);
    let r = app
        .get("/api/athletes?status=pending")
        .session(&club)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    assert_eq!(r.json["items"][0]["source"], "enrollment");
    for i in 0..10 {
        let r = app
            .post("/api/club/enroll")
            .json(body(&format!("x{i}@example.com"), 30))
            .send()
            .await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            r.assert_error(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
            return;
        }
    }
    panic!("enrollment was not rate-limited");
}
