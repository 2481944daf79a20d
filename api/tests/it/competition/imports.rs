//! The heatsource job routes (rankings into circuits, standings, bulk-adds, syncs on demand),
//! the tour-index bulk-add and import-results, and the athlete resync against both fakes:
//! idempotent upserts keyed by the provider's ids, per-item reports, permissions, tenancy.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn import_rankings_creates_the_circuit_once_and_updates_what_changed() {
    let (app, hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;

    let body = json!({ "seriesId": "100" });
    let p = run_job_route(
        &app,
        &coach,
        "/api/heatsource/import-rankings",
        body.clone(),
    )
    .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(r["circuitCreated"], true);
    assert_eq!(r["created"], 4, "three men, one woman: {r}");
    let circuit = r["circuitId"].as_str().unwrap().to_string();

    let r = run_job_route(
        &app,
        &coach,
        "/api/heatsource/import-rankings",
        body.clone(),
    )
    .await
    .result
    .unwrap()
    .0;
    assert_eq!(r["circuitId"], circuit.as_str(), "one circuit per series");
    assert_eq!(
        (r["circuitCreated"].clone(), r["unchanged"].clone()),
        (json!(false), json!(4))
    );

    hs.set("/series/100/rankingsByDivision/10/1/points", json!(8000));
    let r = run_job_route(
        &app,
        &coach,
        "/api/heatsource/import-rankings",
        json!({ "seriesId": "100", "divisionId": "10" }),
    )
    .await
    .result
    .unwrap()
    .0;
    assert_eq!(
        (r["updated"].clone(), r["unchanged"].clone()),
        (json!(1), json!(2))
    );

    let r = app.get("/api/circuits").session(&coach).send().await;
    assert_eq!(items(&r)[0]["name"], "Championship Tour 2026");
    let r = app
        .get(&format!("/api/circuits/{circuit}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let ranks = r.json["rankings"].as_array().unwrap();
    assert_eq!(ranks.len(), 4);
    assert_eq!(ranks[0]["divisionName"], "Men");
    assert_eq!(ranks[1]["athleteName"], "Jack Robinson");
    assert_eq!(ranks[1]["points"], 8000.0);

    // An unknown series fails the job permanently; nothing is created.
    let p = run_job_route(
        &app,
        &coach,
        "/api/heatsource/import-rankings",
        json!({ "seriesId": "999" }),
    )
    .await;
    assert_eq!((p.status.as_str(), p.attempts), ("failed", 1), "{p:?}");
    assert_eq!(app.count("circuits").await, 1);

    // Another workspace sees none of it.
    let other = app.signup("other@example.com").await;
    app.get(&format!("/api/circuits/{circuit}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&format!(
        "/api/heatsource/circuits/{circuit}/import-standings"
    ))
    .session(&other)
    .send()
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app.get("/api/circuits").session(&other).send().await;
    assert_eq!(items(&r).len(), 0);
}

#[tokio::test]
async fn standings_bring_events_results_and_rankings_and_bulk_add_enrolls_competitors() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;
    assert_eq!(
        run_cron(&app, "heatsource-orgs-sync").await.status,
        "succeeded"
    );
    let r = run_job_route(
        &app,
        &coach,
        "/api/heatsource/import-rankings",
        json!({ "seriesId": "100" }),
    )
    .await
    .result
    .unwrap()
    .0;
    let circuit = r["circuitId"].as_str().unwrap().to_string();

    // The final's two competitors into the roster and the circuit.
    let bulk = "/api/heatsource/events/200/bulk-add";
    let r = run_job_route(&app, &coach, bulk, json!({ "circuitId": circuit })).await;
    assert_eq!(r.status, "succeeded", "{r:?}");
    assert_eq!(r.result.unwrap().0["created"], 2);
    let r = run_job_route(&app, &coach, bulk, json!({ "circuitId": circuit }))
        .await
        .result
        .unwrap()
        .0;
    assert_eq!(
        (r["created"].clone(), r["unchanged"].clone()),
        (json!(0), json!(2)),
        "{r}"
    );
    assert_eq!(app.count("athletes").await, 2);

    let p = run_job_route(
        &app,
        &coach,
        &format!("/api/heatsource/circuits/{circuit}/import-standings"),
        json!({}),
    )
    .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    // Event 201 is listed by the organisation but gone at the provider.
    assert_eq!(r["failed"][0]["item"], "event 201", "{r}");
    let c = app
        .get(&format!("/api/circuits/{circuit}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(c.json["athleteIds"].as_array().unwrap().len(), 2);
    assert_eq!(c.json["events"][0]["name"], "Bells Beach Pro");
    let kai = c.json["athleteIds"][0].as_str().unwrap().to_string();
    let res = app
        .get(&format!("/api/athletes/{kai}/results"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(res.json[0]["eventName"], "Bells Beach Pro", "{}", res.body);
    assert_eq!(res.json[0]["division"], "Men");
    assert!(res.json[0]["place"] == 1 || res.json[0]["place"] == 2);

    // Permission: a viewer may not start imports; bulk-add needs athletes.create as well.
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    for (path, body) in [
        (
            "/api/heatsource/import-rankings",
            json!({ "seriesId": "100" }),
        ),
        ("/api/heatsource/events/200/bulk-add", json!({})),
        ("/api/heatsource/sync", json!({})),
        ("/api/heatsource/organisations/sync", json!({})),
        ("/api/tourindex/scrape", json!({ "tour": "ct" })),
        ("/api/tourindex/athletes/sync", json!({})),
    ] {
        app.post(path)
            .session(&viewer)
            .json(body)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
}

#[tokio::test]
async fn syncs_on_demand_join_the_scheduled_job_and_unconfigured_is_503() {
    let (app, _hs, _ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let a = app
        .post("/api/heatsource/organisations/sync")
        .session(&coach)
        .send()
        .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let b = app
        .post("/api/heatsource/organisations/sync")
        .session(&coach)
        .send()
        .await;
    assert_eq!(b.json["jobId"], a.json["jobId"], "one queued sync");
    assert_eq!(b.json["existing"], true);
    let _w = app.start_worker(&[]).await;
    let id: shared::db::Id = a.json["jobId"].as_str().unwrap().parse().unwrap();
    let p = app
        .wait_job(id, |p| p.status == "succeeded" || p.status == "failed")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let p = run_job_route(&app, &coach, "/api/heatsource/sync", json!({})).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(app.count("heatsource_events").await, 1);

    let bare = TestApp::new().await;
    let coach = bare.signup("coach@example.com").await;
    for path in [
        "/api/heatsource/organisations/sync",
        "/api/heatsource/sync",
        "/api/tourindex/athletes/sync",
    ] {
        bare.post(path)
            .session(&coach)
            .send()
            .await
            .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    }
    bare.post("/api/heatsource/import-rankings")
        .session(&coach)
        .json(json!({ "seriesId": "100" }))
        .send()
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    assert_eq!(bare.count("job_progress").await, 0);
}

#[tokio::test]
async fn resync_and_import_results_refresh_linked_athletes_from_the_tour_index() {
    let (app, _hs, ti) = app_with_providers(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let _w = app.start_worker(&[]).await;
    let kai = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;

    // Not linked and no profile named: refused, nothing queued.
    app.post("/api/tourindex/import-results")
        .session(&coach)
        .json(json!({ "athleteId": id(&kai) }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "not_provider_linked");
    let p = run_job_route(
        &app,
        &coach,
        "/api/tourindex/import-results",
        json!({ "athleteId": id(&kai), "tourindexId": "ti-1" }),
    )
    .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(r["created"], 3, "the profile and two results: {r}");
    let results = format!("/api/athletes/{}/results", id(&kai));
    let res = app.get(&results).session(&coach).send().await;
    assert_eq!(res.json.as_array().unwrap().len(), 2);

    // The provider changed a place: the resync updates that result only.
    ti.set("/athletes/ti-1/results/1/place", json!("3"));
    let p = run_job_route(
        &app,
        &coach,
        &format!("/api/athletes/{}/resync", id(&kai)),
        json!({}),
    )
    .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(
        (r["updated"].clone(), r["unchanged"].clone()),
        (json!(2), json!(1)),
        "profile and one result: {r}"
    );
    let res = app.get(&results).session(&coach).send().await;
    let bells = res
        .json
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["eventKey"] == "e2")
        .unwrap()
        .clone();
    assert_eq!(bells["place"], 3);

    // The workspace's athletes sync, and the scheduled one for every workspace.
    let p = run_job_route(&app, &coach, "/api/tourindex/athletes/sync", json!({})).await;
    assert_eq!(p.result.unwrap().0["unchanged"], 3);
    let p = run_cron(&app, "tourindex-athletes-sync").await;
    assert_eq!(p.status, "succeeded", "{p:?}");

    // The profile is gone at the provider: the resync reports it and fails (nothing done).
    ti.page("/athletes/ti-1", 404, "gone");
    let p = run_job_route(
        &app,
        &coach,
        &format!("/api/athletes/{}/resync", id(&kai)),
        json!({}),
    )
    .await;
    assert_eq!((p.status.as_str(), p.attempts), ("failed", 1), "{p:?}");

    // Tour-index bulk-add: the event's athletes, Kai already linked.
    let p = run_job_route(&app, &coach, "/api/tourindex/events/e1/bulk-add", json!({})).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = p.result.unwrap().0;
    assert_eq!(
        (r["created"].clone(), r["unchanged"].clone()),
        (json!(2), json!(1)),
        "{r}"
    );
    app.post("/api/tourindex/events/e1/bulk-add")
        .session(&coach)
        .json(json!({ "divisionId": "x" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}
