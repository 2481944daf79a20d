//! Athletes area tests (issue 5).

use crate::accounts::add_member;
use crate::support::*;
use axum::http::{Method, StatusCode};
use chrono::{Duration, Months, Utc};
use serde_json::{Value, json};
use shared::db::{Id, Ts};

/// A birth date making someone exactly `years` old today (`minus_days` = 1: a day younger).
pub fn born(years: u32, younger_by_days: i64) -> String {
    let today = Utc::now().date_naive();
    (today.checked_sub_months(Months::new(12 * years)).unwrap() + Duration::days(younger_by_days))
        .to_string()
}

pub async fn new_athlete(app: &TestApp, s: &Session, body: Value) -> Value {
    let r = app.post("/api/athletes").session(s).json(body).send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json
}

async fn invite(app: &TestApp, s: &Session, athlete: &str) -> String {
    let r = app
        .post("/api/invite")
        .session(s)
        .json(json!({ "athleteId": athlete }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json["token"].as_str().unwrap().to_string()
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn athletes_crud_with_search_filters_permissions_and_workspace_isolation() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
    let kai = new_athlete(&app, &owner, json!({ "firstName": "Kai", "lastName": "Lenny", "email": "KAI@example.com", "birthDate": "1992-10-06", "stance": "Regular", "level": "pro" })).await;
    assert_eq!(kai["email"], "kai@example.com");
    assert_eq!(kai["stance"], "regular");
    assert_eq!(kai["minor"], false);
    new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Carissa", "lastName": "Moore", "level": "pro" }),
    )
    .await;
    new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Joao", "lastName": "Chianca", "level": "advanced" }),
    )
    .await;

    // Bad input: every invalid field at once, nothing written.
    let before = app.count("athletes").await;
    let r = app
        .post("/api/athletes")
        .session(&owner)
        .json(json!({ "firstName": " ", "lastName": "X", "email": "nope", "birthDate": "2010-13-40", "stance": "sideways" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["birthDate", "email", "firstName", "stance"]);
    let r = app
        .post("/api/athletes")
        .session(&owner)
        .json(json!({ "firstName": "A", "lastName": "B", "birthDate": born(0, 2) }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["birthDate"]);
    assert_eq!(app.count("athletes").await, before, "nothing written");

    // Permission failure: viewers read but do not create.
    app.post("/api/athletes")
        .session(&viewer)
        .json(json!({ "firstName": "A", "lastName": "B" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("athletes").await, before);

    // Search and filters.
    let r = app.get("/api/athletes?q=moo").session(&viewer).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);
    assert_eq!(r.json["items"][0]["firstName"], "Carissa");
    let r = app
        .get("/api/athletes?level=pro&limit=1")
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);
    assert_eq!(r.json["nextOffset"], 1);
    app.get("/api/athletes?status=gone")
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // Read, update, archive.
    let path = format!("/api/athletes/{}", id(&kai));
    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "level": "advanced", "notes": "left knee" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["level"], "advanced");
    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "status": "archived" }))
        .send()
        .await;
    assert_eq!(r.json["status"], "archived");
    let r = app.get("/api/athletes").session(&owner).send().await;
    assert_eq!(
        r.json["items"].as_array().unwrap().len(),
        2,
        "archived are hidden by default"
    );
    let r = app
        .get("/api/athletes?status=archived")
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);

    // Another workspace's athlete is not found, for reads and writes.
    app.get(&path)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::PATCH, &path)
        .session(&other)
        .json(json!({ "level": "pro" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::DELETE, &path)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::DELETE, &path)
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    let r = app.req(Method::DELETE, &path).session(&owner).send().await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    app.get(&path)
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    // The audit log names fields, never minors' values.
    let mut c = app.state.db.acquire().await.unwrap();
    let entries = shared::repo::audit::for_org(&mut c, owner.org_id, 50, 0)
        .await
        .unwrap();
    let upd = entries
        .iter()
        .find(|e| e.action == "athlete.updated")
        .unwrap();
    assert!(!upd.data.0.to_string().contains("left knee"));
    assert!(entries.iter().any(|e| e.action == "athlete.deleted"));
}

#[tokio::test]
async fn module_switched_off_refuses_athlete_routes() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE orgs SET disabled_modules = $1 WHERE id = $2")
            .bind(sqlx::types::Json(vec!["athletes".to_string()]))
            .bind(owner.org_id)
    )
    .unwrap();
    app.get("/api/athletes")
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
}

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
    let token = invite(&app, &coach, &id(&a)).await;

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
async fn a_12_year_old_claims_alone_once_a_guardians_consent_is_recorded() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Leo", "lastName": "Costa" }),
    )
    .await;
    let path = format!("/api/athletes/{}/guardian-consent", id(&a));
    let body = json!({ "guardianName": "Rita Costa", "guardianEmail": "rita@example.com", "relationship": "parent", "method": "paper", "note": "signed form in the club office" });
    app.post(&path)
        .session(&viewer)
        .json(body.clone())
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app.post(&path).session(&coach).json(json!({ "guardianName": "", "relationship": "parent", "method": "telepathy", "consentedAt": "2999-01-01T00:00:00Z" })).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["consentedAt", "guardianName", "method"]);
    assert_eq!(app.count("guardian_consents").await, 0);
    let r = app.post(&path).session(&coach).json(body).send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        r.json["consents"][0]["recordedBy"],
        coach.user_id.to_string()
    );

    let token = invite(&app, &coach, &id(&a)).await;
    let r = app
        .post("/api/invite/claim")
        .json(json!({ "token": token, "email": "leo@example.com", "password": PASSWORD, "birthDate": born(13, 1) }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    // Withdrawal is recorded, not deleted.
    let r = app.req(Method::DELETE, &path).session(&coach).send().await;
    assert_eq!(r.json["active"], false);
    assert!(r.json["consents"][0]["withdrawnAt"].is_string());
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
    let token = invite(&app, &coach, &id(&a)).await;
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
    let token = invite(&app, &coach, &id(&a)).await;
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
    let token = invite(&app, &coach, &id(&a)).await;
    app.post("/api/invite/claim")
        .json(json!({ "token": token, "email": "zoe@example.com", "password": PASSWORD, "birthDate": born(25, 0) }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "guardian_required");
}

#[tokio::test]
async fn invite_tokens_are_hashed_expire_and_need_athletes_create() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
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

const ROSTER: &str = "first_name,last_name,email,birth_date,stance,level\n\
Kai,Lenny,kai@example.com,1992-10-06,regular,pro\n\
Mia,Silva,,2014-03-02,goofy,beginner\n\
Leo,Costa,leo@example.com,,,\n";

#[tokio::test]
async fn import_reports_every_bad_row_with_its_line_and_writes_nothing() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let bad = "First Name,Last Name,Email,DOB,Stance\n\
Kai,Lenny,kai@example.com,1992-10-06,regular\n\
,Silva,,2014-03-02,goofy\n\
Leo,Costa,not-an-email,2099-01-01,\n\
Ana,Reis,,,switch\n";
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", bad.as_bytes())
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    let d = &r.json["error"]["details"];
    assert_eq!(d["committed"], false);
    assert_eq!(d["mode"], "all_or_nothing");
    assert_eq!(d["rows"], 4);
    let errs: Vec<(u64, String)> = d["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["field"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        errs,
        [
            (3, "first_name".into()),
            (4, "email".into()),
            (4, "birth_date".into()),
            (5, "stance".into())
        ]
    );
    assert_eq!(app.count("athletes").await, 0, "nothing written");
    assert_eq!(app.count("audit_log").await, 1, "only the signup");
    // Missing required columns, wrong media type.
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", b"name,email\nKai,k@example.com\n")
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    assert_eq!(r.json["error"]["details"]["errors"][0]["line"], 1);
    app.post("/api/athletes/import")
        .session(&coach)
        .json(json!({}))
        .send()
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");
    app.post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", b"")
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    app.post("/api/athletes/import")
        .session(&viewer)
        .raw("text/csv", ROSTER.as_bytes())
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("athletes").await, 0);
}

#[tokio::test]
async fn import_dry_runs_deduplicates_and_is_idempotent() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Leo", "lastName": "Costa", "email": "LEO@example.com" }),
    )
    .await;
    let r = app
        .post("/api/athletes/import?dryRun=true")
        .session(&coach)
        .raw("text/csv", ROSTER.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (
            r.json["dryRun"].clone(),
            r.json["committed"].clone(),
            r.json["created"].clone(),
            r.json["duplicates"].clone()
        ),
        (json!(true), json!(false), json!(2), json!(1))
    );
    assert_eq!(app.count("athletes").await, 1, "a dry run writes nothing");

    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv; charset=utf-8", ROSTER.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["committed"], true);
    assert_eq!(r.json["created"], 2);
    assert_eq!(r.json["duplicateRows"][0]["line"], 4);
    assert_eq!(app.count("athletes").await, 3);
    // The same file again: everything is a duplicate, nothing is created.
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", ROSTER.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["created"], 0);
    assert_eq!(r.json["duplicates"], 3);
    assert_eq!(app.count("athletes").await, 3);
    // Repeats inside one file are duplicates of the earlier line.
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw(
            "text/csv",
            b"first_name,last_name,email\nA,One,a1@example.com\nA,Again,A1@example.com\n",
        )
        .send()
        .await;
    assert_eq!(r.json["created"], 1);
    assert_eq!(r.json["duplicateRows"][0]["sameAsLine"], 2);
}

#[tokio::test]
async fn large_imports_run_as_a_job_with_progress() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let mut csv = String::from("first_name,last_name,email\n");
    for i in 0..8000 {
        csv.push_str(&format!("Surfer,Number{i},surfer{i}@example.com\n"));
    }
    assert!(csv.len() > api::areas::athletes::import::SYNC_MAX_BYTES);
    let r = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", csv.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    // The same file while the first is queued is the same job.
    let r2 = app
        .post("/api/athletes/import")
        .session(&coach)
        .raw("text/csv", csv.as_bytes())
        .send()
        .await;
    assert_eq!(r2.json["jobId"], r.json["jobId"]);
    assert_eq!(r2.json["existing"], true);
    assert_eq!(app.count("import_uploads").await, 1);
    let w = app.start_worker(&[]).await;
    let p = app
        .wait_job(job, |p| p.status == "succeeded" || p.status == "failed")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(p.percent, Some(100));
    let res = p.result.unwrap().0;
    assert_eq!(res["created"], 8000);
    assert_eq!(res["committed"], true);
    assert_eq!(app.count("athletes").await, 8000);
    assert_eq!(app.count("import_uploads").await, 0);
    let r = app
        .get(&format!("/api/jobs/{job}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["result"]["created"], 8000);
    // A small file can ask for the background too; the second run finds only duplicates.
    let r = app
        .post("/api/athletes/import?background=true")
        .session(&coach)
        .raw(
            "text/csv",
            b"first_name,last_name,email\nSurfer,Number1,surfer1@example.com\n",
        )
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let p = app.wait_job(job, |p| p.status == "succeeded").await;
    assert_eq!(p.result.unwrap().0["duplicates"], 1);
    w.shutdown().await;
}

#[tokio::test]
async fn csv_export_neutralises_formula_cells() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    new_athlete(&app, &coach, json!({ "firstName": "=HYPERLINK(\"http://evil\")", "lastName": "+cmd", "notes": "@SUM(A1) -2" })).await;
    let r = app.get("/api/athletes/export").session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        r.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    assert!(r.body.contains("'=HYPERLINK"), "{}", r.body);
    assert!(r.body.contains("'+cmd"), "{}", r.body);
    assert!(r.body.contains("'@SUM(A1) -2"), "{}", r.body);
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    assert_eq!(
        app.get("/api/athletes/export")
            .session(&viewer)
            .send()
            .await
            .status,
        StatusCode::OK
    );
}

/// Puts references of every kind on an athlete (assignment, invite, session, footage, link).
async fn decorate(app: &TestApp, s: &Session, athlete: &str, session_title: &str) -> Value {
    let r = app
        .post(&format!("/api/athletes/{athlete}/coaches"))
        .session(s)
        .json(json!({ "userId": s.user_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    invite(app, s, athlete).await;
    let t = app.post("/api/training-sessions").session(s)
        .json(json!({ "title": session_title, "startsAt": "2026-01-10T08:00:00Z", "endsAt": "2026-01-10T10:00:00Z" })).send().await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.body);
    let r = app
        .post(&format!(
            "/api/training-sessions/{}/participants",
            id(&t.json)
        ))
        .session(s)
        .json(json!({ "athleteId": athlete }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let mut c = app.state.db.acquire().await.unwrap();
    let aid: Id = athlete.parse().unwrap();
    shared::repo::athletes::add_provider_link(
        &mut c,
        s.org_id,
        aid,
        "heatsource",
        &format!("hs-{athlete}"),
    )
    .await
    .unwrap();
    shared::execute!(&mut c, sqlx::query("INSERT INTO footage_sessions (id, org_id, training_session_id, athlete_id, title, status, created_by, created_at, updated_at) VALUES ($1, $2, NULL, $3, 'clip', 'done', NULL, $4, $4)")
        .bind(Id::new()).bind(s.org_id).bind(aid).bind(Ts::now())).unwrap();
    t.json
}

async fn refs(app: &TestApp, athlete: &str) -> Vec<i64> {
    let mut c = app.state.db.acquire().await.unwrap();
    let aid: Id = athlete.parse().unwrap();
    let mut out = vec![];
    for t in [
        "athlete_coaches",
        "athlete_invites",
        "training_participants",
        "footage_sessions",
        "athlete_provider_links",
    ] {
        let q = format!("SELECT COUNT(*) FROM {t} WHERE athlete_id = $1");
        out.push(shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(q.clone())).bind(aid).fetch_one(&mut *c).await).unwrap());
    }
    out
}

#[tokio::test]
async fn merge_moves_every_reference_deletes_b_and_is_audited() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let b = new_athlete(&app, &coach, json!({ "firstName": "Kai", "lastName": "Lenny", "email": "kai@example.com", "birthDate": "1992-10-06" })).await;
    decorate(&app, &coach, &id(&a), "Morning").await;
    decorate(&app, &coach, &id(&b), "Evening").await;
    let theirs = new_athlete(&app, &other, json!({ "firstName": "X", "lastName": "Y" })).await;

    let url = |x: &str, y: &str| format!("/api/athletes/{x}/merge/{y}");
    app.post(&url(&id(&a), &id(&a)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "merge_same_athlete");
    app.post(&url(&id(&a), &id(&theirs)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&url(&id(&theirs), &id(&a)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&url(&id(&a), &id(&b)))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("athletes").await, 3, "nothing merged");

    let r = app
        .post(&url(&id(&a), &id(&b)))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.json["athlete"]["email"], "kai@example.com",
        "empty fields filled from b"
    );
    assert_eq!(r.json["athlete"]["birthDate"], "1992-10-06");
    assert_eq!(r.json["moved"]["trainingSessions"], 1);
    // Same coach on both: one assignment kept. Every other reference moved.
    assert_eq!(refs(&app, &id(&a)).await, [1, 2, 2, 2, 2]);
    assert_eq!(refs(&app, &id(&b)).await, [0, 0, 0, 0, 0]);
    app.get(&format!("/api/athletes/{}", id(&b)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let mut c = app.state.db.acquire().await.unwrap();
    let e = shared::repo::audit::for_org(&mut c, coach.org_id, 100, 0)
        .await
        .unwrap();
    let m = e
        .iter()
        .find(|e| e.action == "athlete.merged")
        .expect("audited");
    assert_eq!(m.data.0["into"], id(&a));
    assert_eq!(m.data.0["merged"], id(&b));
}

#[tokio::test]
async fn a_merge_that_fails_midway_changes_nothing() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let b = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "L." }),
    )
    .await;
    decorate(&app, &coach, &id(&b), "Evening").await;
    let before = refs(&app, &id(&b)).await;
    // Make the last step (deleting b) fail after every reference has been moved.
    let mut c = app.state.db.acquire().await.unwrap();
    if app.tdb.is_postgres() {
        shared::execute!(&mut c, sqlx::query("CREATE FUNCTION no_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$")).unwrap();
        shared::execute!(&mut c, sqlx::query("CREATE TRIGGER no_delete BEFORE DELETE ON athletes FOR EACH ROW EXECUTE FUNCTION no_delete()")).unwrap();
    } else {
        shared::execute!(&mut c, sqlx::query("CREATE TRIGGER no_delete BEFORE DELETE ON athletes BEGIN SELECT RAISE(ABORT, 'boom'); END")).unwrap();
    }
    drop(c);
    let r = app
        .post(&format!("/api/athletes/{}/merge/{}", id(&a), id(&b)))
        .session(&coach)
        .send()
        .await;
    r.assert_error(StatusCode::INTERNAL_SERVER_ERROR, "internal");
    assert_eq!(
        refs(&app, &id(&b)).await,
        before,
        "every reference is still on b"
    );
    assert_eq!(refs(&app, &id(&a)).await, [0, 0, 0, 0, 0]);
    assert_eq!(app.count("athletes").await, 2);
}

#[tokio::test]
async fn coach_assignments_and_effective_permissions() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let stranger = app.signup("stranger@example.com").await;
    let a = new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let path = format!("/api/athletes/{}/coaches", id(&a));
    app.post(&path)
        .session(&viewer)
        .json(json!({ "userId": coach.user_id }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "userId": stranger.user_id }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["userId"]);
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "userId": coach.user_id, "role": "captain" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("athlete_coaches").await, 0);
    let r = app
        .post(&path)
        .session(&owner)
        .json(json!({ "userId": coach.user_id, "role": "head" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let sc = id(&r.json);
    app.post(&path)
        .session(&owner)
        .json(json!({ "userId": coach.user_id }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "already_assigned");
    app.post(&path)
        .session(&owner)
        .json(json!({ "userId": viewer.user_id }))
        .send()
        .await;
    let r = app.get(&path).session(&viewer).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 2);
    let r = app
        .get(&format!("/api/athletes?coachId={}", coach.user_id))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);

    let r = app
        .get(&format!("/api/athletes/{}/permissions", id(&a)))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.json["athlete"].is_null(), "no login yet");
    let perms = |i: usize| {
        r.json["coaches"][i]["permissions"]
            .as_array()
            .unwrap()
            .clone()
    };
    assert!(
        perms(0).contains(&json!("athletes.delete")),
        "the coach role"
    );
    assert!(
        !perms(1).contains(&json!("athletes.update")),
        "the viewer role"
    );
    assert!(perms(1).contains(&json!("athletes.read")));
    app.get(&format!("/api/athletes/{}/permissions", id(&a)))
        .session(&stranger)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    app.req(Method::DELETE, &format!("{path}/{sc}"))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(
        app.req(Method::DELETE, &format!("{path}/{sc}"))
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.req(Method::DELETE, &format!("{path}/{sc}"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn publishing_a_minor_needs_consent_and_the_public_profile_is_allow_listed() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
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

#[tokio::test]
async fn resync_needs_a_provider_link_and_fails_permanently_until_the_provider_exists() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let url = format!("/api/athletes/{}/resync", id(&a));
    app.post(&url)
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "not_provider_linked");
    app.post(&url)
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("job_progress").await, 0);
    let mut c = app.state.db.acquire().await.unwrap();
    shared::repo::athletes::add_provider_link(
        &mut c,
        coach.org_id,
        id(&a).parse().unwrap(),
        "tourindex",
        "ti-42",
    )
    .await
    .unwrap();
    drop(c);
    let r = app.post(&url).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let w = app.start_worker(&[]).await;
    let p = app.wait_job(job, |p| p.status == "failed").await;
    assert_eq!(p.attempts, 1, "not retried");
    assert!(p.last_error.unwrap().contains("not configured"));
    w.shutdown().await;
}

/// The README's import benchmark: a 100,000-row roster through the API and a worker (staged
/// upload, `athletes.import` job, parse, validate, deduplicate, insert). Run it with
/// `cargo test -p api --test it -- --ignored bench_import --nocapture` (add
/// `TEST_DATABASE_URL=…` for PostgreSQL).
#[tokio::test]
#[ignore]
async fn bench_import_100k_rows() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let rows: usize = std::env::var("BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let mut csv = String::from("first_name,last_name,email,birth_date,stance,level\n");
    for i in 0..rows {
        csv.push_str(&format!(
            "Surfer,Number{i},surfer{i}@example.com,{}-0{}-1{},{},{}\n",
            1980 + i % 30,
            1 + i % 9,
            i % 10,
            ["regular", "goofy"][i % 2],
            ["beginner", "intermediate", "advanced", "pro"][i % 4]
        ));
    }
    let w = app.start_worker(&[]).await;
    for round in ["first", "again (all duplicates)"] {
        let t = std::time::Instant::now();
        let r = app
            .post("/api/athletes/import")
            .session(&coach)
            .raw("text/csv", csv.as_bytes())
            .send()
            .await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
        let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
        let p = loop {
            let mut c = app.state.db.acquire().await.unwrap();
            let p = jobs::progress::get(&mut c, job).await.unwrap().unwrap();
            if p.status == "succeeded" || p.status == "failed" {
                break p;
            }
            drop(c);
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(p.status, "succeeded", "{p:?}");
        let res = p.result.unwrap().0;
        println!(
            "BENCH {} {round}: {} bytes, {rows} rows in {secs:.2} s = {:.0} rows/s (created {}, duplicates {})",
            if app.tdb.is_postgres() {
                "postgres"
            } else {
                "sqlite"
            },
            csv.len(),
            rows as f64 / secs,
            res["created"],
            res["duplicates"]
        );
    }
    assert_eq!(app.count("athletes").await, rows as i64);
    w.shutdown().await;
}

#[tokio::test]
async fn deleting_an_athlete_gives_their_place_to_the_first_waitlisted() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .post("/api/training-sessions")
        .session(&coach)
        .json(json!({ "title": "One place", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z", "capacity": 1 }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let roster = format!(
        "/api/training-sessions/{}/participants",
        r.json["id"].as_str().unwrap()
    );
    let mut ids = vec![];
    for n in ["A", "B", "C"] {
        let a = new_athlete(&app, &coach, json!({ "firstName": n, "lastName": "S" })).await;
        let id = a["id"].as_str().unwrap().to_string();
        let r = app
            .post(&roster)
            .session(&coach)
            .json(json!({ "athleteId": id }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        ids.push(id);
    }
    let r = app
        .req(Method::DELETE, &format!("/api/athletes/{}", ids[0]))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let r = app.get(&roster).session(&coach).send().await;
    let st: Vec<(&str, &str)> = r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["athleteId"].as_str().unwrap(),
                p["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        st,
        [
            (ids[1].as_str(), "registered"),
            (ids[2].as_str(), "waitlisted")
        ]
    );
}
