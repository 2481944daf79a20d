//! `/api/heatsource/*` reads against the fake provider: answers, the shared TTL cache, every
//! provider failure as a 502, unconfigured as a 503, and who may read.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use testkit::heatsource::Failure;

/// Every read route with a path that exists in the fixture.
const READS: &[&str] = &[
    "/api/heatsource/organisations?shortName=wsl",
    "/api/heatsource/series?shortName=wsl",
    "/api/heatsource/series/100/divisions",
    "/api/heatsource/series/100/athletes?divisionId=10",
    "/api/heatsource/events/200",
    "/api/heatsource/athletes/search?q=kai",
    "/api/heatsource/athletes/a1",
];

#[tokio::test]
async fn heatsource_organisations_series_divisions_and_rankings_are_read() {
    let (app, _fake) = app_with_heatsource(&[]).await;
    let coach = app.signup("coach@example.com").await;

    let r = app
        .get("/api/heatsource/organisations?shortName=WSL")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let org = &items(&r)[0];
    assert_eq!(org["name"], "World Surf League");
    assert_eq!(org["shortName"], "wsl");
    assert_eq!(org["events"][0]["id"], "200");
    let r = app
        .get("/api/heatsource/organisations?shortName=nobody")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(items(&r).is_empty(), "an unknown short name: an empty list");
    let r = app
        .get("/api/heatsource/organisations")
        .session(&coach)
        .send()
        .await;
    assert!(items(&r).is_empty(), "nothing synced yet");

    let r = app
        .get("/api/heatsource/series?shortName=wsl")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r)[0]["name"], "Championship Tour 2026");
    assert_eq!(items(&r)[0]["rankingsDivisions"][1]["name"], "Women");
    app.get("/api/heatsource/series?shortName=nobody")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    let r = app
        .get("/api/heatsource/series/100/divisions")
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        r.json["items"],
        json!([{ "id": "10", "name": "Men" }, { "id": "11", "name": "Women" }])
    );

    let r = app
        .get("/api/heatsource/series/100/athletes?divisionId=10&limit=2")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 2);
    assert_eq!(items(&r)[0]["athlete"]["name"], "Kai Lenny");
    assert_eq!(items(&r)[0]["points"], 10000.0);
    assert_eq!(r.json["nextOffset"], 2);
    let r = app
        .get("/api/heatsource/series/100/athletes?divisionId=10&limit=2&offset=2")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r)[0]["place"], 3);
    assert_eq!(r.json["nextOffset"], json!(null));

    for (path, code) in [
        ("/api/heatsource/series/100/athletes", "validation_failed"),
        ("/api/heatsource/series/999/divisions", "not_found"),
        (
            "/api/heatsource/series/999/athletes?divisionId=10",
            "not_found",
        ),
        (
            "/api/heatsource/organisations?shortName=%20",
            "validation_failed",
        ),
    ] {
        let r = app.get(path).session(&coach).send().await;
        let status = if code == "not_found" {
            StatusCode::NOT_FOUND
        } else {
            StatusCode::BAD_REQUEST
        };
        r.assert_error(status, code);
    }
}

#[tokio::test]
async fn heatsource_event_comes_with_heats_results_and_competitors() {
    let (app, _fake) = app_with_heatsource(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .get("/api/heatsource/events/200")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["name"], "Bells Beach Pro");
    assert_eq!(r.json["organisation"]["shortName"], "wsl");
    assert_eq!(
        r.json["location"]["formattedAddress"],
        "Bells Beach, Victoria, Australia"
    );
    let div = &r.json["eventDivisions"][0];
    assert_eq!(div["division"]["name"], "Men");
    assert_eq!(div["heats"][0]["round"], "Final");
    assert_eq!(
        div["heats"][0]["result"][0],
        json!({ "athleteId": "a1", "total": 17.5, "place": 1 })
    );
    assert_eq!(
        div["heats"][0]["competitors"][1]["athlete"]["name"],
        "Jack Robinson"
    );
    app.get("/api/heatsource/events/404")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn heatsource_athletes_are_searched_and_read_with_the_client_credentials() {
    let (app, fake) = app_with_heatsource(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .get("/api/heatsource/athletes/search?q=%20KAI%20&limit=1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r)[0]["name"], "Kai Lenny");
    assert_eq!(r.json["nextOffset"], 1);
    let r = app
        .get("/api/heatsource/athletes/search?q=kai&offset=1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r)[0]["name"], "Kaito Ohashi");
    assert_eq!(
        fake.count("athleteSearch"),
        1,
        "one provider search, paged here"
    );
    assert_eq!(fake.requests()[0].variables["query"], "kai");

    let r = app
        .get("/api/heatsource/athletes/a2")
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        r.json,
        json!({ "id": "a2", "name": "Jack Robinson", "image": null, "nationality": "AU" })
    );
    app.get("/api/heatsource/athletes/nobody")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(fake.token_requests(), 1, "one token for every query");

    for q in ["", "k", &"k".repeat(101)] {
        app.get(&format!("/api/heatsource/athletes/search?q={q}"))
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    }
    assert_eq!(fake.count("athleteSearch"), 1, "bad input asks nothing");
}

#[tokio::test]
async fn heatsource_answers_are_served_from_the_shared_cache_until_they_expire() {
    let (app, fake) = app_with_heatsource(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let other = other_workspace(&app).await;
    for s in [&coach, &coach, &other] {
        for path in READS {
            let r = app.get(path).session(s).send().await;
            assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
        }
    }
    // organisations and series share one cached answer; every other read has its own.
    for field in [
        "organisationByShortName",
        "event",
        "athleteSearch",
        "athlete",
    ] {
        assert_eq!(fake.count(field), 1, "{field}: one fetch for three reads");
    }
    assert_eq!(fake.count("series"), 2, "divisions and rankings");
    assert_eq!(app.count("provider_cache").await, 6);

    // The provider changes a field: the cached answer holds until it expires.
    fake.set("/events/200/name", json!("Rip Curl Pro Bells Beach"));
    let r = app.get(READS[4]).session(&coach).send().await;
    assert_eq!(r.json["name"], "Bells Beach Pro");
    expire_provider_cache(&app).await;
    let r = app.get(READS[4]).session(&coach).send().await;
    assert_eq!(r.json["name"], "Rip Curl Pro Bells Beach");
    assert_eq!(fake.count("event"), 2);
    assert_eq!(app.count("provider_cache").await, 6, "replaced, not added");
}

#[tokio::test]
async fn heatsource_cache_ttl_zero_fetches_every_time() {
    let (app, fake) = app_with_heatsource(&[("HEATSOURCE_CACHE_TTL_SECS", "0")]).await;
    let coach = app.signup("coach@example.com").await;
    for name in ["Bells", "Bells Beach Pro 2026"] {
        fake.set("/events/200/name", json!(name));
        let r = app.get(READS[4]).session(&coach).send().await;
        assert_eq!(r.json["name"], name);
    }
    assert_eq!(fake.count("event"), 2);
    assert_eq!(app.count("provider_cache").await, 0);
}

#[tokio::test]
async fn heatsource_provider_failures_are_502_and_never_cached() {
    let (app, fake) = app_with_heatsource(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let event = READS[4];
    for failures in [
        vec![Failure::Status(500)],
        vec![Failure::Status(429); 3],
        vec![Failure::Hang; 3],
        vec![Failure::Malformed],
        vec![Failure::Graphql("INTERNAL_SERVER_ERROR")],
        vec![Failure::Graphql("BAD_USER_INPUT")],
    ] {
        fake.fail(&failures);
        app.get(event)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::BAD_GATEWAY, "provider_failed");
    }
    assert_eq!(app.count("provider_cache").await, 0, "no failure is cached");

    // A field of the wrong type: refused, not passed on.
    fake.set("/events/200/eventDivisions", json!({ "not": "a list" }));
    let r = app.get(event).session(&coach).send().await;
    r.assert_error(StatusCode::BAD_GATEWAY, "provider_failed");
    assert!(!r.body.contains("not a list"));

    // One 429 is retried: the reader sees the answer.
    fake.set("/events/200/eventDivisions", json!([]));
    fake.fail(&[Failure::Status(429)]);
    let r = app.get(event).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(app.count("provider_cache").await, 1);
}

#[tokio::test]
async fn heatsource_unconfigured_answers_503_on_every_read() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    for path in READS {
        app.get(path)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    }
}

#[tokio::test]
async fn heatsource_athletes_without_client_credentials_answer_503() {
    let (app, fake) = app_with_heatsource(&[
        ("HEATSOURCE_CLIENT_ID", ""),
        ("HEATSOURCE_CLIENT_SECRET", ""),
    ])
    .await;
    let coach = app.signup("coach@example.com").await;
    for path in &READS[5..] {
        app.get(path)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    }
    assert!(fake.requests().is_empty());
    let r = app.get(READS[4]).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "public data still answers");
}

#[tokio::test]
async fn heatsource_reads_need_competition_read_in_an_enabled_module() {
    let (app, fake) = app_with_heatsource(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Physio", "permissions": ["athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let physio = add_member(&app, owner.org_id, "physio@example.com", "physio").await;

    let r = app.get(READS[4]).session(&viewer).send().await;
    assert_eq!(r.status, StatusCode::OK, "viewers read competition data");
    for path in READS {
        app.get(path)
            .session(&physio)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
        let r = app.get(path).send().await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}");
    }
    disable_module(&app, owner.org_id, "competition").await;
    for path in READS {
        app.get(path)
            .session(&owner)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    }
    assert_eq!(
        fake.count("event"),
        1,
        "refused reads ask the provider nothing"
    );
}
