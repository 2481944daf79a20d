//! Claiming an invite: the age of digital consent, birth dates, and the guardian's path for a
//! minor.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn claim_refuses_a_12_year_old_alone_and_a_guardian_creates_the_login() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await;
    let token = athlete_invite(&app, &coach, &id(&a)).await;

    let r = app.get(&format!("/api/invite/lookup/{token}")).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["status"], "valid");
    assert_eq!(r.json["athleteFirstName"], "Mia");
    assert_eq!(r.json["consentAge"], 13);
    assert!(r.json.get("email").is_none() && r.json.get("lastName").is_none());

    let users = app.count("users").await;
    let r = app
        .post("/api/invite/claim")
        .json(json!({ "token": token, "email": "mia@example.com", "password": PASSWORD, "birthDate": born(13, 1) }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "guardian_required");
    assert_eq!(r.json["error"]["details"]["consentAge"], 13);
    assert_eq!(app.count("users").await, users, "nothing written");
    assert_eq!(app.count("web_sessions").await, 1);

    // The guardian: bad input first (no consent, an adult's birth date), nothing written.
    let bad = app
        .post("/api/invite/guardian")
        .json(json!({ "token": token, "guardian": { "name": "Ana Silva", "email": "ana@example.com", "password": PASSWORD, "relationship": "aunt" },
                      "athleteBirthDate": born(30, 0), "consent": false }))
        .send()
        .await;
    bad.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = bad.fields();
    f.sort();
    assert_eq!(f, ["athleteBirthDate", "consent", "guardian.relationship"]);
    assert_eq!(app.count("users").await, users);
    assert_eq!(app.count("guardian_consents").await, 0);

    let r = app
        .post("/api/invite/guardian")
        .json(json!({ "token": token, "guardian": { "name": "Ana Silva", "email": "ana@example.com", "password": PASSWORD, "relationship": "parent" },
                      "athleteBirthDate": born(13, 1), "athleteLogin": { "email": "mia@example.com", "password": PASSWORD }, "consent": true }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert!(r.json["athleteUserId"].is_string());
    assert!(
        r.cookie("sc_session").is_some(),
        "the guardian is signed in"
    );
    assert_eq!(app.count("users").await, users + 2);

    // Consent: who, when, how.
    let r2 = app
        .get(&format!("/api/athletes/{}/guardian-consent", id(&a)))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r2.status, StatusCode::OK, "{}", r2.body);
    assert_eq!(r2.json["active"], true);
    assert_eq!(r2.json["minor"], true);
    assert_eq!(r2.json["consents"][0]["guardianName"], "Ana Silva");
    assert_eq!(r2.json["consents"][0]["method"], "guardian_invite");
    assert!(r2.json["consents"][0]["consentedAt"].is_string());
    let r3 = app
        .get(&format!("/api/athletes/{}", id(&a)))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r3.json["hasLogin"], true);
    assert_eq!(r3.json["birthDate"], born(13, 1));

    // The token is single-use.
    app.post("/api/invite/claim")
        .json(json!({ "token": token, "email": "mia2@example.com", "password": PASSWORD, "birthDate": born(20, 0) }))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "token_used");
    let r = app.get(&format!("/api/invite/lookup/{token}")).send().await;
    assert_eq!(r.json["status"], "used");
    assert!(r.json["athleteFirstName"].is_null());
    // Permissions show the athlete's login and the guardian.
    let r = app
        .get(&format!("/api/athletes/{}/permissions", id(&a)))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["athlete"]["kind"], "athlete");
    assert_eq!(r.json["guardians"][0]["role"], "parent");
    assert!(
        r.json["guardians"][0]["permissions"]
            .as_array()
            .unwrap()
            .contains(&json!("consent.manage"))
    );
}

#[tokio::test]
async fn claim_accepts_a_13_year_old_and_refuses_future_or_malformed_birth_dates() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Tia", "lastName": "Blanco" }),
    )
    .await;
    let token = athlete_invite(&app, &coach, &id(&a)).await;
    let users = app.count("users").await;
    for (bd, code) in [
        (born(0, 3), "out_of_range"),
        ("13/05/2012".to_string(), "invalid"),
        ("".to_string(), "required"),
    ] {
        let r = app
            .post("/api/invite/claim")
            .json(json!({ "token": token, "email": "tia@example.com", "password": PASSWORD, "birthDate": bd }))
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(
            r.json["error"]["details"]["fields"][0]["field"],
            "birthDate"
        );
        assert_eq!(
            r.json["error"]["details"]["fields"][0]["code"], code,
            "{bd}"
        );
        assert_eq!(app.count("users").await, users, "nothing written");
    }
    // Missing or unknown tokens are refused before anything else.
    app.post("/api/invite/claim")
        .json(json!({ "email": "tia@example.com" }))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.post("/api/invite/claim").json(json!({ "token": "sai_nope", "email": "tia@example.com", "password": PASSWORD, "birthDate": born(20, 0) })).send().await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");

    let r = app
        .post("/api/invite/claim")
        .json(json!({ "token": token, "email": "tia@example.com", "password": PASSWORD, "birthDate": born(13, 0) }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["athleteId"], id(&a));
    let s = session_from(&r, "tia@example.com");
    let me = app.get("/api/auth/me").session(&s).send().await;
    assert_eq!(me.status, StatusCode::OK, "{}", me.body);
    // Reuse of the token is refused.
    app.post("/api/invite/claim")
        .json(json!({ "token": token, "email": "other@example.com", "password": PASSWORD, "birthDate": born(13, 0) }))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "token_used");
}

#[tokio::test]
async fn the_age_threshold_follows_the_workspace_country() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .req(Method::PATCH, &format!("/api/orgs/{}", coach.org_id))
        .session(&coach)
        .json(json!({ "country": "DE" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Jonas", "lastName": "Weber" }),
    )
    .await;
    let token = athlete_invite(&app, &coach, &id(&a)).await;
    let r = app.post("/api/invite/claim")
        .json(json!({ "token": token, "email": "jonas@example.com", "password": PASSWORD, "birthDate": born(15, 0) }))
        .send().await;
    r.assert_error(StatusCode::FORBIDDEN, "guardian_required");
    assert_eq!(r.json["error"]["details"]["consentAge"], 16);
    let r = app.post("/api/invite/claim")
        .json(json!({ "token": token, "email": "jonas@example.com", "password": PASSWORD, "birthDate": born(16, 0) }))
        .send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
}

#[tokio::test]
async fn the_roster_birth_date_counts_when_the_claimant_states_an_older_age() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Zoe", "lastName": "Kim", "birthDate": born(11, 0) }),
    )
    .await;
    let token = athlete_invite(&app, &coach, &id(&a)).await;
    app.post("/api/invite/claim")
        .json(json!({ "token": token, "email": "zoe@example.com", "password": PASSWORD, "birthDate": born(25, 0) }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "guardian_required");
}
