//! A circuit's events with manual edits: overrides that survive the next provider sync until
//! cleared, members' own events, tombstones for deleted synced events, permissions, tenancy.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn manual_edits_survive_syncs_until_cleared_and_deleted_events_stay_deleted() {
    let (app, hs, _ti) = app_with_providers(&[]).await;
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
    let standings = format!("/api/heatsource/circuits/{circuit}/import-standings");
    run_job_route(&app, &coach, &standings, json!({})).await;
    let list = format!("/api/circuits/{circuit}/events");

    let r = app.get(&list).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let ev = items(&r)[0].clone();
    assert_eq!(
        (ev["origin"].clone(), ev["name"].clone()),
        (json!("provider"), json!("Bells Beach Pro"))
    );
    assert_eq!(ev["manualFields"], json!([]));
    let one = format!("{list}/{}", ev["id"].as_str().unwrap());

    let r = app
        .req(Method::PATCH, &one)
        .session(&coach)
        .json(json!({ "name": "Bells (moved)", "date": "2026-04-20" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["name"], "Bells (moved)");
    assert_eq!(r.json["date"], "2026-04-20");
    assert_eq!(r.json["manualFields"], json!(["name", "date"]));
    assert_eq!(r.json["provider"]["name"], "Bells Beach Pro");

    // The provider renames the event and changes its status: the override wins, the rest follows.
    hs.set("/events/200/name", json!("Rip Curl Pro Bells"));
    hs.set("/events/200/status", json!("cancelled"));
    run_job_route(&app, &coach, &standings, json!({})).await;
    let r = app.get(&one).session(&coach).send().await;
    assert_eq!(r.json["name"], "Bells (moved)");
    assert_eq!(r.json["provider"]["name"], "Rip Curl Pro Bells");
    assert_eq!(
        r.json["status"], "cancelled",
        "not overridden: the provider's"
    );

    // Cleared: the provider's value returns.
    let r = app
        .req(Method::PATCH, &one)
        .session(&coach)
        .json(json!({ "name": null }))
        .send()
        .await;
    assert_eq!(r.json["name"], "Rip Curl Pro Bells", "{}", r.body);
    assert_eq!(r.json["manualFields"], json!(["date"]));

    // A member's own event.
    let r = app
        .post(&list)
        .session(&coach)
        .json(json!({ "name": "Club Champs", "date": "2026-05-01", "status": "upcoming" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["origin"], "manual");
    let own = format!("{list}/{}", r.json["id"].as_str().unwrap());
    for (body, field) in [
        (json!({ "date": "2026-05-01" }), "name"),
        (json!({ "name": "X", "date": "01/05/2026" }), "date"),
        (json!({ "name": "X", "status": "Not OK!" }), "status"),
        (json!({ "name": "" }), "name"),
    ] {
        let r = app.post(&list).session(&coach).json(body).send().await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(
            r.json["error"]["details"]["fields"][0]["field"], field,
            "{}",
            r.body
        );
    }
    app.req(Method::PATCH, &own)
        .session(&coach)
        .json(json!({ "name": null }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app.get(&list).session(&coach).send().await;
    assert_eq!(items(&r).len(), 2, "nothing half-written: {}", r.body);

    // Deleting the synced event hides it for good; the own event is deleted outright.
    assert_eq!(
        app.req(Method::DELETE, &one)
            .session(&coach)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.get(&one)
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    run_job_route(&app, &coach, &standings, json!({})).await;
    let r = app.get(&list).session(&coach).send().await;
    assert_eq!(items(&r).len(), 1, "{}", r.body);
    assert_eq!(items(&r)[0]["name"], "Club Champs");
    assert_eq!(
        app.req(Method::DELETE, &own)
            .session(&coach)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(app.count("circuit_events").await, 1, "the tombstone only");

    // A viewer reads but does not edit; another workspace sees nothing.
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    assert_eq!(
        app.get(&list).session(&viewer).send().await.status,
        StatusCode::OK
    );
    app.post(&list)
        .session(&viewer)
        .json(json!({ "name": "Nope" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let other = app.signup("other@example.com").await;
    app.get(&list)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&list)
        .session(&other)
        .json(json!({ "name": "Nope" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}
