//! The athlete roster: create, search, update, archive, delete, export, and the module switch.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn athletes_crud_with_search_filters_permissions_and_workspace_isolation() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
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
    disable_module(&app, owner.org_id, "athletes").await;
    app.get("/api/athletes")
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
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
