//! Notes on opponents: CRUD, filters, validation, permissions and tenancy.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn note(app: &TestApp, s: &Session, body: serde_json::Value) -> Resp {
    app.post("/api/opponents")
        .session(s)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn notes_are_written_listed_filtered_edited_and_deleted() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let mia = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let zoe = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Zoe", "lastName": "Lima" }),
    )
    .await);

    let r = note(
        &app,
        &coach,
        json!({ "opponent": { "provider": "heatsource", "externalId": "a2", "name": "Jack Robinson" },
                "athleteId": mia, "body": "  Goes left early.  ",
                "strengths": ["backhand", " backhand ", "paddle power"], "weaknesses": ["small waves"],
                "tags": ["Goofy", "aggressive"] }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["opponent"]["name"], "Jack Robinson");
    assert_eq!(r.json["opponent"]["provider"], "heatsource");
    assert_eq!(r.json["athleteId"], mia.as_str());
    assert_eq!(r.json["body"], "Goes left early.");
    assert_eq!(
        r.json["strengths"],
        json!(["backhand", "paddle power"]),
        "trimmed, duplicates dropped"
    );
    assert_eq!(
        r.json["tags"],
        json!(["goofy", "aggressive"]),
        "tags lower-cased"
    );
    assert_eq!(r.json["createdBy"], coach.user_id.to_string());
    let provider_note = id(&r.json);

    let r = note(
        &app,
        &coach,
        json!({ "opponent": { "athleteId": zoe }, "body": "Teammate, rival" }),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        r.json["opponent"]["name"], "Zoe Lima",
        "a roster opponent's name"
    );
    assert_eq!(r.json["athleteId"], json!(null));
    let roster_note = id(&r.json);

    let r = app.get("/api/opponents").session(&coach).send().await;
    assert_eq!(items(&r).len(), 2, "{}", r.body);
    assert_eq!(
        items(&r)[0]["id"],
        roster_note.as_str(),
        "last changed first"
    );
    for (query, expect) in [
        (format!("athleteId={mia}"), &provider_note),
        (
            "provider=heatsource&externalId=a2".to_string(),
            &provider_note,
        ),
        (format!("opponentAthleteId={zoe}"), &roster_note),
    ] {
        let r = app
            .get(&format!("/api/opponents?{query}"))
            .session(&coach)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        let ids: Vec<_> = items(&r)
            .iter()
            .map(|n| n["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [expect.as_str()], "{query}");
    }
    let r = app
        .get("/api/opponents?limit=1")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["nextOffset"], 1);

    // A roster opponent's name follows the roster.
    let r = app
        .req(Method::PATCH, &format!("/api/athletes/{zoe}"))
        .session(&coach)
        .json(json!({ "lastName": "Lima-Costa" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let one = format!("/api/opponents/{roster_note}");
    let r = app.get(&one).session(&coach).send().await;
    assert_eq!(r.json["opponent"]["name"], "Zoe Lima-Costa");

    // Edit: left out stays, null clears.
    let one = format!("/api/opponents/{provider_note}");
    let r = app
        .req(Method::PATCH, &one)
        .session(&coach)
        .json(json!({ "body": null, "tags": ["left"], "athleteId": null }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["body"], "");
    assert_eq!(r.json["tags"], json!(["left"]));
    assert_eq!(r.json["athleteId"], json!(null));
    assert_eq!(
        r.json["strengths"],
        json!(["backhand", "paddle power"]),
        "left out: unchanged"
    );
    // The opponent is not a field of a change (the document's NotePatch has none).
    let r = app
        .req(Method::PATCH, &one)
        .session(&coach)
        .json(json!({ "opponent": { "athleteId": mia } }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.json["error"]["details"]["fields"][0]["field"], "opponent");
    assert!(r.body.contains("opponent"), "{}", r.body);

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
    app.req(Method::DELETE, &one)
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(audit_count(&app, "opponent_note.created").await, 2);
    assert_eq!(audit_count(&app, "opponent_note.updated").await, 1);
    assert_eq!(audit_count(&app, "opponent_note.deleted").await, 1);
}

#[tokio::test]
async fn bad_notes_are_refused_with_the_field_and_nothing_written() {
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
    let hs = json!({ "provider": "heatsource", "externalId": "a2", "name": "Jack" });
    let many: Vec<String> = (0..21).map(|i| format!("s{i}")).collect();
    // A new note without its opponent: a missing required field of the document's NewNote.
    let r = note(&app, &coach, json!({ "body": "no opponent" })).await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.json["error"]["details"]["fields"][0]["field"], "opponent");
    assert!(r.body.contains("opponent"), "{}", r.body);
    for (body, field, code) in [
        (
            json!({ "opponent": { "athleteId": mia, "provider": "heatsource", "externalId": "a2" } }),
            "opponent",
            "invalid",
        ),
        (
            json!({ "opponent": { "provider": "nope", "externalId": "a2", "name": "J" } }),
            "opponent.provider",
            "invalid_choice",
        ),
        (
            json!({ "opponent": { "provider": "heatsource", "externalId": "a2" } }),
            "opponent.name",
            "required",
        ),
        (
            json!({ "opponent": hs, "tags": ["Not ok!"] }),
            "tags",
            "invalid",
        ),
        (
            json!({ "opponent": hs, "strengths": many }),
            "strengths",
            "out_of_range",
        ),
        (
            json!({ "opponent": hs, "weaknesses": [""] }),
            "weaknesses",
            "invalid",
        ),
        (
            json!({ "opponent": hs, "body": "x".repeat(10_001) }),
            "body",
            "too_long",
        ),
        (
            json!({ "opponent": { "athleteId": mia }, "athleteId": mia }),
            "opponent.athleteId",
            "invalid",
        ),
    ] {
        let r = note(&app, &coach, body).await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        let f = &r.json["error"]["details"]["fields"][0];
        assert_eq!(
            (f["field"].as_str(), f["code"].as_str()),
            (Some(field), Some(code)),
            "{}",
            r.body
        );
    }
    // Another workspace's athlete, as the opponent or as whom the note is for: 404.
    note(&app, &coach, json!({ "opponent": { "athleteId": theirs } }))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    note(&app, &coach, json!({ "opponent": hs, "athleteId": theirs }))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/opponents?externalId=a2")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("opponent_notes").await, 0);
}

#[tokio::test]
async fn notes_need_competition_permissions_and_stay_in_their_workspace() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let physio = member_without_competition(&app, &coach).await;
    let other = app.signup("other@example.com").await;
    let body = json!({ "opponent": { "provider": "tourindex", "externalId": "ti-1", "name": "Kai" }, "body": "x" });
    let r = note(&app, &coach, body.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let one = format!("/api/opponents/{}", id(&r.json));

    assert_eq!(
        app.get("/api/opponents")
            .session(&viewer)
            .send()
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        app.get(&one).session(&viewer).send().await.status,
        StatusCode::OK
    );
    note(&app, &viewer, body.clone())
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    for m in [Method::PATCH, Method::DELETE] {
        app.req(m, &one)
            .session(&viewer)
            .json(json!({ "body": "mine" }))
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    for path in ["/api/opponents", one.as_str()] {
        app.get(path)
            .session(&physio)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }

    // Another workspace: the note does not exist there.
    let r = app.get("/api/opponents").session(&other).send().await;
    assert_eq!(items(&r).len(), 0);
    app.get(&one)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    for m in [Method::PATCH, Method::DELETE] {
        app.req(m, &one)
            .session(&other)
            .json(json!({ "body": "theirs" }))
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    let r = app.get(&one).session(&coach).send().await;
    assert_eq!(r.json["body"], "x", "unchanged");

    disable_module(&app, coach.org_id, "competition").await;
    app.get("/api/opponents")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
}
