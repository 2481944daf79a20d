//! Publishing an athlete's public profile.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

#[tokio::test]
async fn publishing_a_minor_needs_consent_and_the_public_profile_is_allow_listed() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let minor = new_athlete(&app, &coach, json!({ "firstName": "Mia", "lastName": "Silva", "email": "mia@example.com", "birthDate": born(12, 0), "notes": "asthma", "stance": "goofy" })).await;
    let adult = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny", "birthDate": "1992-10-06" }),
    )
    .await;
    let p = |a: &Value| format!("/api/athletes/{}/publish", id(a));
    app.post(&p(&adult))
        .session(&viewer)
        .json(json!({ "published": true }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post(&p(&adult))
        .session(&other)
        .json(json!({ "published": true }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&p(&minor))
        .session(&coach)
        .json(json!({ "published": true }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "guardian_consent_required");
    let r = app
        .post(&p(&adult))
        .session(&coach)
        .json(json!({ "published": true, "bio": "x".repeat(1001) }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .post(&p(&adult))
        .session(&coach)
        .json(json!({ "published": true, "bio": "Big waves" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let slug = r.json["publicSlug"].as_str().unwrap().to_string();
    let r = app
        .get(&format!("/api/public/athletes/{slug}"))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["displayName"], "Kai Lenny");
    assert_eq!(r.json["bio"], "Big waves");

    app.post(&format!("/api/athletes/{}/guardian-consent", id(&minor)))
        .session(&coach)
        .json(json!({ "guardianName": "Ana Silva", "relationship": "parent", "method": "email" }))
        .send()
        .await;
    let r = app
        .post(&p(&minor))
        .session(&coach)
        .json(json!({ "published": true }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let slug = r.json["publicSlug"].as_str().unwrap().to_string();
    let r = app
        .get(&format!("/api/public/athletes/{slug}"))
        .send()
        .await;
    assert_eq!(r.json["displayName"], "Mia S.");
    let keys: Vec<&str> = r
        .json
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys.len(), 6, "allow-listed: {keys:?}");
    assert!(
        !r.body.contains("asthma")
            && !r.body.contains("mia@example.com")
            && !r.body.contains("birth")
    );
    // Withdrawing consent takes the profile down.
    app.req(
        Method::DELETE,
        &format!("/api/athletes/{}/guardian-consent", id(&minor)),
    )
    .session(&coach)
    .send()
    .await;
    app.get(&format!("/api/public/athletes/{slug}"))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/public/athletes/nope")
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}
