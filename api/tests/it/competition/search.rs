//! The multi-source athlete search, provider profiles, and the import that resolves a
//! profile into a roster athlete without duplicates.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use testkit::tourindex::Failure;

fn candidate<'a>(r: &'a Resp, name: &str) -> &'a serde_json::Value {
    r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no candidate {name}: {}", r.body))
}

#[tokio::test]
async fn search_merges_the_same_person_across_roster_and_providers() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let kai = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;

    let r = app
        .get("/api/athlete-search/search?q=kai")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let statuses: Vec<_> = r.json["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["source"].as_str().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [("roster", "ok"), ("heatsource", "ok"), ("tourindex", "ok")]
    );
    // Kai Lenny: the roster athlete, heatsource a1 (US) and tour index ti-1 (USA) are one.
    let c = candidate(&r, "Kai Lenny");
    assert_eq!(c["roster"]["athleteId"], id(&kai));
    let mut sources: Vec<_> = c["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}:{}",
                p["source"].as_str().unwrap(),
                p["id"].as_str().unwrap()
            )
        })
        .collect();
    sources.sort();
    assert_eq!(sources, ["heatsource:a1", "tourindex:ti-1"]);
    assert_eq!(
        r.json["items"][0]["name"], "Kai Lenny",
        "three sources rank first"
    );
    // Kaito Ohashi is another person, found by heatsource only.
    let k = candidate(&r, "Kaito Ohashi");
    assert_eq!(k["roster"], json!(null));
    assert_eq!(k["profiles"].as_array().unwrap().len(), 1);
    let n = r.json["items"].as_array().unwrap().len();
    assert_eq!(n, 2, "{}", r.body);
}

#[tokio::test]
async fn a_slow_provider_is_reported_and_does_not_hold_the_others() {
    let (app, _hs, ti) = app_with_providers(&[
        ("ATHLETE_SEARCH_TIMEOUT_MS", "200"),
        ("TOURINDEX_TIMEOUT_MS", "5000"),
    ])
    .await;
    let coach = app.signup("coach@example.com").await;
    ti.fail(&[Failure::Hang]);
    let started = std::time::Instant::now();
    let r = app
        .get("/api/athlete-search/search?q=molly")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "not held by the hang"
    );
    assert_eq!(r.json["sources"][2]["status"], "timeout", "{}", r.body);
    assert_eq!(r.json["sources"][1]["status"], "ok");
    assert_eq!(r.json["items"][0]["profiles"][0]["id"], "a4");

    // Unconfigured providers are reported as such; the roster still answers.
    let bare = TestApp::new().await;
    let coach = bare.signup("coach@example.com").await;
    new_athlete(
        &bare,
        &coach,
        json!({ "firstName": "Molly", "lastName": "Picklum" }),
    )
    .await;
    let r = bare
        .get("/api/athlete-search/search?q=molly")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["sources"][1]["status"], "not_configured");
    assert_eq!(r.json["sources"][2]["status"], "not_configured");
    assert_eq!(r.json["items"][0]["name"], "Molly Picklum");
    bare.get("/api/athlete-search/search?q=m")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

#[tokio::test]
async fn import_links_or_creates_once_and_stores_results() {
    let (app, _hs, ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let athletes_before = app.count("athletes").await;

    let r = app
        .get("/api/athlete-search/tourindex/ti-2")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["name"], "Molly Picklum");
    app.get("/api/athlete-search/nowhere/ti-2")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // New to the roster: created (201), linked, results stored.
    let body = json!({ "source": "tourindex", "id": "ti-2" });
    let r = app
        .post("/api/athlete-search/import")
        .session(&coach)
        .json(body.clone())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        (r.json["created"].clone(), r.json["linked"].clone()),
        (json!(true), json!(true))
    );
    let molly = r.json["athleteId"].as_str().unwrap().to_string();
    let a = app
        .get(&format!("/api/athletes/{molly}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        (a.json["firstName"].clone(), a.json["lastName"].clone()),
        (json!("Molly"), json!("Picklum"))
    );
    assert_eq!(a.json["birthDate"], "2002-08-01");
    let res = app
        .get(&format!("/api/athletes/{molly}/results"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.json[0]["eventKey"], "e1");
    assert_eq!(res.json[0]["place"], 2);

    // Again: the same athlete, nothing new.
    let r = app
        .post("/api/athlete-search/import")
        .session(&coach)
        .json(body)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["athleteId"], molly.as_str());
    assert_eq!(
        (r.json["created"].clone(), r.json["linked"].clone()),
        (json!(false), json!(false))
    );
    assert_eq!(app.count("athletes").await, athletes_before + 1);

    // A roster athlete of the same name is linked rather than duplicated.
    let kai = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "kai", "lastName": "LENNY" }),
    )
    .await;
    let r = app
        .post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "heatsource", "id": "a1" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["athleteId"], id(&kai));
    assert_eq!(r.json["linked"], true);
    // ... and the same person on the other provider joins them too.
    let r = app
        .post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "tourindex", "id": "ti-1" }))
        .send()
        .await;
    assert_eq!(r.json["athleteId"], id(&kai), "{}", r.body);

    // Two roster athletes with the name: the member must choose.
    for _ in 0..2 {
        new_athlete(
            &app,
            &coach,
            json!({ "firstName": "Jack", "lastName": "Robinson" }),
        )
        .await;
    }
    let n = app.count("athletes").await;
    app.post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "heatsource", "id": "a2" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "ambiguous_match");
    assert_eq!(app.count("athletes").await, n, "nothing written");

    // Linking a profile already linked to someone else is refused.
    app.post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "tourindex", "id": "ti-2", "athleteId": id(&kai) }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "already_linked");

    // A provider that does not know the id, or is down.
    app.post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "tourindex", "id": "nobody" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    ti.fail(&[Failure::Status(500)]);
    app.post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "tourindex", "id": "ti-4" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_GATEWAY, "provider_failed");
}

#[tokio::test]
async fn import_is_refused_without_permission_and_across_workspaces() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let other = app.signup("other@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let theirs = new_athlete(
        &app,
        &other,
        json!({ "firstName": "Their", "lastName": "Athlete" }),
    )
    .await;
    let n = app.count("athletes").await;

    app.post("/api/athlete-search/import")
        .session(&viewer)
        .json(json!({ "source": "tourindex", "id": "ti-2" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "tourindex", "id": "ti-2", "athleteId": id(&theirs) }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post("/api/athlete-search/import")
        .session(&coach)
        .json(json!({ "source": "tourindex", "id": "ti-2", "circuitId": shared::db::Id::new() }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("athletes").await, n);
    assert_eq!(app.count("athlete_provider_links").await, 0);
    app.get(&format!("/api/athletes/{}/results", id(&theirs)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn the_new_competition_reads_need_competition_read_in_an_enabled_module() {
    let (app, _hs, ti) = app_with_providers(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Physio", "permissions": ["athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let physio = add_member(&app, owner.org_id, "physio@example.com", "physio").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let reads = [
        "/api/tourindex/athletes/search?q=kai",
        "/api/tourindex/athletes/ti-1",
        "/api/tourindex/live-search?q=kai",
        "/api/athlete-search/search?q=kai",
        "/api/athlete-search/tourindex/ti-1",
        "/api/discover",
        "/api/circuits",
    ];
    for path in reads {
        let r = app.get(path).session(&viewer).send().await;
        assert_eq!(r.status, StatusCode::OK, "viewers read {path}: {}", r.body);
    }
    let asked = ti.requests().len();
    for path in reads {
        app.get(path)
            .session(&physio)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    disable_module(&app, owner.org_id, "competition").await;
    for path in reads {
        app.get(path)
            .session(&owner)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    }
    assert_eq!(
        ti.requests().len(),
        asked,
        "refused reads ask the provider nothing"
    );
}
