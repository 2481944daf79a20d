//! Cross-source identity: match candidates for a roster athlete with explained scores, and the
//! link decisions (confirm, reject, remove), their conflicts, permissions and tenancy.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

fn match_path(athlete: &str) -> String {
    format!("/api/identity/match?athleteId={athlete}")
}

fn candidate<'a>(r: &'a Resp, source: &str, id: &str) -> Option<&'a Value> {
    items(r)
        .iter()
        .find(|c| c["source"] == source && c["externalId"] == id)
}

/// `(field, outcome, contribution)` of each explanation line.
fn lines(c: &Value) -> Vec<(String, String, f64)> {
    c["explanation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_string(),
                e["outcome"].as_str().unwrap().to_string(),
                e["contribution"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn line(field: &str, outcome: &str, contribution: f64) -> (String, String, f64) {
    (field.into(), outcome.into(), contribution)
}

fn sources(r: &Resp) -> Vec<(String, String)> {
    r.json["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["source"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.into(), b.into())
}

async fn decide(app: &TestApp, who: &Session, body: Value) -> Resp {
    app.post("/api/identity/links")
        .session(who)
        .json(body)
        .send()
        .await
}

async fn remove(app: &TestApp, who: &Session, path: &str) -> Resp {
    app.req(Method::DELETE, path).session(who).send().await
}

fn remove_path(athlete: &str, source: &str, external: &str) -> String {
    format!("/api/identity/links?athleteId={athlete}&source={source}&externalId={external}")
}

#[tokio::test]
async fn match_finds_both_providers_then_explains_the_cross_source_evidence_after_a_link() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;
    for task in ["heatsource-orgs-sync", "heatsource-sync", "tourindex-sync"] {
        assert_eq!(run_cron(&app, task).await.status, "succeeded", "{task}");
    }
    let kai = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny", "birthDate": "1992-10-08" }),
    )
    .await;
    let kai = id(&kai);

    // No link yet: both providers are asked; the same name is the whole evidence.
    let r = app.get(&match_path(&kai)).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["athlete"]["name"], "Kai Lenny");
    assert_eq!(
        sources(&r),
        [pair("heatsource", "ok"), pair("tourindex", "ok")]
    );
    let hs = candidate(&r, "heatsource", "a1").expect("heatsource a1");
    assert_eq!(hs["score"], 0.6, "{}", r.body);
    assert_eq!(hs["confidence"], "medium");
    assert_eq!(lines(hs)[0], line("name", "exact", 0.6));
    assert_eq!(hs["foundIn"], json!(["search", "events"]));
    let ti = candidate(&r, "tourindex", "ti-1").expect("tourindex ti-1");
    assert_eq!(ti["foundIn"], json!(["search", "directory", "events"]));
    assert_eq!(ti["score"], 0.6);
    assert!(
        candidate(&r, "tourindex", "ti-2").is_none(),
        "unrelated names are not candidates: {}",
        r.body
    );
    assert_eq!(r.json["nextOffset"], json!(null));

    // Confirm heatsource a1: linked through the import (profile and results stored).
    let r = decide(
        &app,
        &coach,
        json!({ "athleteId": kai, "source": "heatsource", "externalId": "a1", "score": 0.6 }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["status"], "linked");
    assert_eq!(r.json["name"], "Kai Lenny");
    assert_eq!(r.json["country"], "US");
    let results = app
        .get(&format!("/api/athletes/{kai}/results"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        results.json[0]["eventName"], "Bells Beach Pro",
        "{}",
        results.body
    );

    // Now heatsource is not asked (one profile per provider), and the tour index's Kai Lenny
    // is corroborated by the linked profile: the country (US = USA) and an event both
    // providers report (Bells Beach Pro, 2026-04-12).
    let r = app.get(&match_path(&kai)).session(&coach).send().await;
    assert_eq!(
        sources(&r),
        [pair("heatsource", "linked"), pair("tourindex", "ok")]
    );
    assert!(candidate(&r, "heatsource", "a1").is_none());
    let ti = candidate(&r, "tourindex", "ti-1").expect("ti-1");
    assert_eq!(
        lines(ti),
        [
            line("name", "exact", 0.6),
            line("country", "same", 0.1),
            line("events", "shared", 0.1),
        ],
        "{}",
        r.body
    );
    assert_eq!(ti["score"], 0.8);
    assert_eq!(ti["confidence"], "high");

    // Once the tour index's profile has been read (and cached), its birth date counts too.
    let p = app
        .get("/api/athlete-search/tourindex/ti-1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(p.status, StatusCode::OK, "{}", p.body);
    let r = app.get(&match_path(&kai)).session(&coach).send().await;
    let ti = candidate(&r, "tourindex", "ti-1").expect("ti-1");
    assert!(
        lines(ti).contains(&line("birthDate", "same", 0.2)),
        "{}",
        r.body
    );
    assert_eq!(ti["score"], 1.0);
    assert_eq!(items(&r)[0]["externalId"], "ti-1", "best first");
}

#[tokio::test]
async fn confirming_links_once_and_a_profile_held_by_another_athlete_is_409() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let kai = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let twin = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let body = json!({ "athleteId": kai, "source": "heatsource", "externalId": "a1" });

    let r = decide(&app, &coach, body.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = decide(&app, &coach, body.clone()).await;
    assert_eq!(r.status, StatusCode::OK, "already linked: {}", r.body);
    assert_eq!(audit_count(&app, "identity.link_confirmed").await, 1);
    assert_eq!(audit_count(&app, "athlete.provider_linked").await, 1);

    // The twin cannot take the profile; the twin's match says who holds it.
    decide(
        &app,
        &coach,
        json!({ "athleteId": twin, "source": "heatsource", "externalId": "a1" }),
    )
    .await
    .assert_error(StatusCode::CONFLICT, "already_linked");
    let r = app.get(&match_path(&twin)).session(&coach).send().await;
    assert_eq!(
        candidate(&r, "heatsource", "a1").unwrap()["linkedAthleteId"],
        kai.as_str()
    );
    // Kai has a heatsource profile already: another one is refused.
    decide(
        &app,
        &coach,
        json!({ "athleteId": kai, "source": "heatsource", "externalId": "a2" }),
    )
    .await
    .assert_error(StatusCode::CONFLICT, "athlete_already_linked");
    assert_eq!(
        app.count("athlete_provider_links").await,
        1,
        "nothing written"
    );

    // Bad input: each field named.
    let r = decide(
        &app,
        &coach,
        json!({ "athleteId": kai, "source": "myspace", "externalId": "", "decision": "maybe", "score": 3 }),
    )
    .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut fields = r.fields();
    fields.sort();
    assert_eq!(fields, ["decision", "externalId", "score", "source"]);
    decide(
        &app,
        &coach,
        json!({ "athleteId": twin, "source": "tourindex", "externalId": "ti-404" }),
    )
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");

    // The workspace's links, and one athlete's.
    let r = app.get("/api/identity/links").session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1);
    assert_eq!(items(&r)[0]["athleteId"], kai.as_str());
    assert_eq!(items(&r)[0]["athleteName"], "Kai Lenny");
    assert_eq!(items(&r)[0]["source"], "heatsource");
    let r = app
        .get(&format!("/api/identity/links?athleteId={twin}"))
        .session(&coach)
        .send()
        .await;
    assert!(items(&r).is_empty(), "{}", r.body);
    app.get("/api/identity/links?status=maybe")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

#[tokio::test]
async fn a_rejected_candidate_is_not_suggested_again_until_the_rejection_is_removed() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let kai = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let reject = json!({ "athleteId": kai, "source": "tourindex", "externalId": "ti-1",
                         "decision": "reject", "name": "Kai Lenny", "score": 0.6 });

    let r = decide(&app, &coach, reject.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        (
            r.json["status"].clone(),
            r.json["name"].clone(),
            r.json["score"].clone()
        ),
        (json!("rejected"), json!("Kai Lenny"), json!(0.6))
    );
    assert_eq!(
        decide(&app, &coach, reject.clone()).await.status,
        StatusCode::OK
    );
    assert_eq!(audit_count(&app, "identity.link_rejected").await, 1);

    let r = app.get(&match_path(&kai)).session(&coach).send().await;
    assert!(candidate(&r, "tourindex", "ti-1").is_none(), "{}", r.body);
    assert!(candidate(&r, "heatsource", "a1").is_some());
    let r = app
        .get(&format!(
            "/api/identity/links?athleteId={kai}&status=rejected"
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1, "{}", r.body);
    assert_eq!(items(&r)[0]["externalId"], "ti-1");

    // Removing the rejection: offered again.
    let path = remove_path(&kai, "tourindex", "ti-1");
    assert_eq!(
        remove(&app, &coach, &path).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(audit_count(&app, "identity.rejection_removed").await, 1);
    let r = app.get(&match_path(&kai)).session(&coach).send().await;
    assert!(candidate(&r, "tourindex", "ti-1").is_some(), "{}", r.body);
    remove(&app, &coach, &path)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // A linked profile cannot be rejected; confirming a rejected one forgets the rejection.
    decide(&app, &coach, reject.clone()).await;
    let r = decide(
        &app,
        &coach,
        json!({ "athleteId": kai, "source": "tourindex", "externalId": "ti-1" }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(app.count("identity_rejections").await, 0);
    decide(&app, &coach, reject)
        .await
        .assert_error(StatusCode::CONFLICT, "link_exists");
    assert_eq!(app.count("identity_rejections").await, 0, "nothing written");
}

#[tokio::test]
async fn removing_a_link_removes_the_results_it_brought() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let kai = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let r = decide(
        &app,
        &coach,
        json!({ "athleteId": kai, "source": "tourindex", "externalId": "ti-1" }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let results = format!("/api/athletes/{kai}/results");
    let r = app.get(&results).session(&coach).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 2, "{}", r.body);

    let r = app
        .req(Method::DELETE, &remove_path(&kai, "tourindex", "ti-1"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(app.count("athlete_provider_links").await, 0);
    let r = app.get(&results).session(&coach).send().await;
    assert_eq!(r.json, json!([]));
    assert_eq!(audit_count(&app, "identity.link_removed").await, 1);
    app.req(Method::DELETE, &remove_path(&kai, "tourindex", "ti-1"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn identity_routes_need_their_permissions_and_stay_in_the_workspace() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let kai = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let confirm = json!({ "athleteId": kai, "source": "heatsource", "externalId": "a1" });

    // A viewer reads, does not decide.
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    for path in [match_path(&kai), "/api/identity/links".to_string()] {
        let r = app.get(&path).session(&viewer).send().await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
    }
    decide(&app, &viewer, confirm.clone())
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.req(Method::DELETE, &remove_path(&kai, "heatsource", "a1"))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    // Another workspace cannot see or decide about our athlete.
    let other = other_workspace(&app).await;
    app.get(&match_path(&kai))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!("/api/identity/links?athleteId={kai}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    decide(&app, &other, confirm.clone())
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let mut reject = confirm.clone();
    reject["decision"] = json!("reject");
    decide(&app, &other, reject)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("athlete_provider_links").await, 0);
    assert_eq!(app.count("identity_rejections").await, 0);
    // Our link is not in their list, nor theirs in ours.
    assert_eq!(
        decide(&app, &coach, confirm).await.status,
        StatusCode::CREATED
    );
    let r = app.get("/api/identity/links").session(&other).send().await;
    assert!(items(&r).is_empty(), "{}", r.body);
    app.req(Method::DELETE, &remove_path(&kai, "heatsource", "a1"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("athlete_provider_links").await, 1);

    // The athlete is required; the module must be on.
    app.get("/api/identity/match")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    disable_module(&app, coach.org_id, "competition").await;
    app.get(&match_path(&kai))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
}

#[tokio::test]
async fn a_provider_that_is_down_is_reported_and_local_data_still_answers() {
    let (app, hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;
    assert_eq!(run_cron(&app, "tourindex-sync").await.status, "succeeded");
    let kai = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    hs.fail(&[testkit::heatsource::Failure::Status(500)]);
    let r = app.get(&match_path(&kai)).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(sources(&r)[0], pair("heatsource", "failed"));
    assert!(candidate(&r, "tourindex", "ti-1").is_some(), "{}", r.body);
}
