//! A member's own watchlist: athletes and events, unique per target, personal, permissions and
//! tenancy.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn watch(app: &TestApp, s: &Session, body: serde_json::Value) -> Resp {
    app.post("/api/watchlist")
        .session(s)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn members_watch_athletes_and_events_once_each() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let mia = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let circuit = circuit_with_rankings(&app, coach.org_id, &[]).await;
    let r = app
        .post(&format!("/api/circuits/{circuit}/events"))
        .session(&coach)
        .json(json!({ "name": "Club Champs", "date": "2026-05-01" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let event = id(&r.json);

    let r = watch(
        &app,
        &coach,
        json!({ "kind": "athlete", "athleteId": mia, "note": "heat 3" }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        (r.json["source"].as_str(), r.json["name"].as_str()),
        (Some("roster"), Some("Mia Silva"))
    );
    assert_eq!(r.json["targetId"], mia.as_str());
    let first = id(&r.json);
    let again = watch(&app, &coach, json!({ "kind": "athlete", "athleteId": mia })).await;
    assert_eq!(
        again.status,
        StatusCode::OK,
        "already watched: the item, unchanged"
    );
    assert_eq!(
        (id(&again.json), again.json["note"].as_str()),
        (first.clone(), Some("heat 3"))
    );

    let r = watch(&app, &coach, json!({ "kind": "athlete", "provider": "heatsource", "externalId": "a1", "name": "Kai Lenny" })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let kai = id(&r.json);
    let r = watch(
        &app,
        &coach,
        json!({ "kind": "event", "circuitEventId": event }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        (r.json["name"].as_str(), r.json["date"].as_str()),
        (Some("Club Champs"), Some("2026-05-01"))
    );
    assert_eq!(r.json["circuitId"], circuit.to_string());
    let r = watch(
        &app,
        &coach,
        json!({ "kind": "event", "provider": "tourindex", "externalId": "e9", "name": "Pipe Pro" }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    // The same provider id as an athlete and as an event are two targets.
    let r = watch(&app, &coach, json!({ "kind": "event", "provider": "heatsource", "externalId": "a1", "name": "Event a1" })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(app.count("watchlist_items").await, 5);

    let r = app.get("/api/watchlist").session(&coach).send().await;
    assert_eq!(items(&r).len(), 5, "{}", r.body);
    let r = app
        .get("/api/watchlist?kind=event&limit=2")
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        (items(&r).len(), r.json["nextOffset"].as_i64()),
        (2, Some(2))
    );
    app.get("/api/watchlist?kind=team")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // A circuit event's manual name shows; a roster athlete's name follows the roster.
    let r = app
        .req(
            Method::PATCH,
            &format!("/api/circuits/{circuit}/events/{event}"),
        )
        .session(&coach)
        .json(json!({ "name": "Club Champs (moved)" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app
        .get("/api/watchlist?kind=event")
        .session(&coach)
        .send()
        .await;
    assert!(
        items(&r).iter().any(|w| w["name"] == "Club Champs (moved)"),
        "{}",
        r.body
    );

    // Edits: the note (null clears), a provider target's name; not a roster athlete's name.
    let one = format!("/api/watchlist/{first}");
    let r = app
        .req(Method::PATCH, &one)
        .session(&coach)
        .json(json!({ "note": null }))
        .send()
        .await;
    assert_eq!(
        (r.status, r.json["note"].clone()),
        (StatusCode::OK, json!(null)),
        "{}",
        r.body
    );
    app.req(Method::PATCH, &one)
        .session(&coach)
        .json(json!({ "name": "Someone" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .req(Method::PATCH, &format!("/api/watchlist/{kai}"))
        .session(&coach)
        .json(json!({ "name": "Kai L.", "note": "big waves" }))
        .send()
        .await;
    assert_eq!(
        (r.json["name"].as_str(), r.json["note"].as_str()),
        (Some("Kai L."), Some("big waves"))
    );

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
    assert_eq!(
        audit_count(&app, "watchlist.added").await,
        5,
        "a repeated add changes nothing"
    );
    assert_eq!(audit_count(&app, "watchlist.updated").await, 2);
    assert_eq!(audit_count(&app, "watchlist.removed").await, 1);
}

#[tokio::test]
async fn bad_targets_are_refused_and_nothing_is_written() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let other = app.signup("other@example.com").await;
    let mia = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let theirs = id(&new_athlete(
        &app,
        &other,
        json!({ "firstName": "Ana", "lastName": "Paz" }),
    )
    .await);
    for (body, field, code) in [
        (
            json!({ "kind": "team", "athleteId": mia }),
            "kind",
            "invalid_choice",
        ),
        (json!({ "kind": "athlete" }), "target", "invalid"),
        (
            json!({ "kind": "event", "athleteId": mia }),
            "target",
            "invalid",
        ),
        (
            json!({ "kind": "athlete", "athleteId": mia, "provider": "heatsource", "externalId": "a1", "name": "K" }),
            "target",
            "invalid",
        ),
        (
            json!({ "kind": "athlete", "provider": "heatsource", "externalId": "a1" }),
            "name",
            "required",
        ),
        (
            json!({ "kind": "athlete", "provider": "heatsource" }),
            "externalId",
            "required",
        ),
        (
            json!({ "kind": "athlete", "provider": "other", "externalId": "a1", "name": "K" }),
            "provider",
            "invalid_choice",
        ),
        (
            json!({ "kind": "athlete", "athleteId": mia, "note": "n".repeat(1001) }),
            "note",
            "too_long",
        ),
    ] {
        let r = watch(&app, &coach, body).await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        let f = &r.json["error"]["details"]["fields"][0];
        assert_eq!(
            (f["field"].as_str(), f["code"].as_str()),
            (Some(field), Some(code)),
            "{}",
            r.body
        );
    }
    watch(
        &app,
        &coach,
        json!({ "kind": "athlete", "athleteId": theirs }),
    )
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    watch(
        &app,
        &coach,
        json!({ "kind": "event", "circuitEventId": theirs }),
    )
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("watchlist_items").await, 0);
}

#[tokio::test]
async fn a_watchlist_is_personal_and_needs_competition_read() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let physio = member_without_competition(&app, &coach).await;
    let other = app.signup("other@example.com").await;
    let mia = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let r = watch(&app, &coach, json!({ "kind": "athlete", "athleteId": mia })).await;
    let one = format!("/api/watchlist/{}", id(&r.json));

    // A viewer (competition.read) keeps their own list: the same target is theirs too.
    let r = watch(
        &app,
        &viewer,
        json!({ "kind": "athlete", "athleteId": mia }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app.get("/api/watchlist").session(&viewer).send().await;
    assert_eq!(items(&r).len(), 1);
    // Another member's item, like another workspace's, does not exist for them.
    for who in [&viewer, &other] {
        app.get(&one)
            .session(who)
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
        app.req(Method::PATCH, &one)
            .session(who)
            .json(json!({ "note": "mine" }))
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
        app.req(Method::DELETE, &one)
            .session(who)
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(
        items(&app.get("/api/watchlist").session(&other).send().await).len(),
        0
    );
    app.get("/api/watchlist")
        .session(&physio)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    watch(
        &app,
        &physio,
        json!({ "kind": "athlete", "athleteId": mia }),
    )
    .await
    .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("watchlist_items").await, 2);
    disable_module(&app, coach.org_id, "competition").await;
    app.get(&one)
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
}
