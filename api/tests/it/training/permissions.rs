//! Every workspace-scoped training and athlete route: permission and isolation.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use shared::db::{Id, Ts};

/// Every athlete and training route with an `{id}`: a member without the permission gets 403,
/// and another workspace's member gets 404 (their rows are invisible), writing nothing.
#[tokio::test]
async fn every_scoped_route_checks_permission_and_hides_other_workspaces() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(&mut c, sqlx::query("INSERT INTO roles (id, org_id, key, name, permissions, builtin, created_at, updated_at) VALUES ($1, $2, 'nobody', 'Nobody', $3, FALSE, $4, $4)")
        .bind(Id::new()).bind(owner.org_id).bind(sqlx::types::Json(Vec::<String>::new())).bind(Ts::now())).unwrap();
    drop(c);
    let nobody = add_member(&app, owner.org_id, "nobody@example.com", "nobody").await;
    let other = other_workspace(&app).await;
    let a = new_athlete(&app, &owner, json!({ "firstName": "Kai", "lastName": "L" })).await;
    let b = new_athlete(&app, &owner, json!({ "firstName": "Kai", "lastName": "M" })).await;
    let s = new_training_session(&app, &owner, json!({ "title": "S", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z" })).await;
    let r = app
        .post(&format!("/api/athletes/{}/coaches", id(&a)))
        .session(&owner)
        .json(json!({ "userId": owner.user_id }))
        .send()
        .await;
    let sc = id(&r.json);
    app.post(&format!("/api/training-sessions/{}/participants", id(&s)))
        .session(&owner)
        .json(json!({ "athleteId": id(&a) }))
        .send()
        .await;
    let (a, b, s) = (id(&a), id(&b), id(&s));
    let routes: Vec<(Method, String, Value)> = vec![
        (Method::GET, format!("/api/athletes/{a}"), json!({})),
        (
            Method::PATCH,
            format!("/api/athletes/{a}"),
            json!({ "level": "pro" }),
        ),
        (Method::DELETE, format!("/api/athletes/{a}"), json!({})),
        (Method::GET, format!("/api/athletes/{a}/coaches"), json!({})),
        (
            Method::POST,
            format!("/api/athletes/{a}/coaches"),
            json!({ "userId": owner.user_id }),
        ),
        (
            Method::DELETE,
            format!("/api/athletes/{a}/coaches/{sc}"),
            json!({}),
        ),
        (
            Method::GET,
            format!("/api/athletes/{a}/permissions"),
            json!({}),
        ),
        (
            Method::GET,
            format!("/api/athletes/{a}/guardian-consent"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/api/athletes/{a}/guardian-consent"),
            json!({ "guardianName": "G", "relationship": "parent", "method": "paper" }),
        ),
        (
            Method::DELETE,
            format!("/api/athletes/{a}/guardian-consent"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/api/athletes/{a}/merge/{b}"),
            json!({}),
        ),
        (Method::POST, format!("/api/athletes/{a}/resync"), json!({})),
        (
            Method::POST,
            format!("/api/athletes/{a}/publish"),
            json!({ "published": true }),
        ),
        (
            Method::POST,
            "/api/invite".into(),
            json!({ "athleteId": a }),
        ),
        (
            Method::POST,
            "/api/invite/send".into(),
            json!({ "athleteId": a, "email": "x@example.com" }),
        ),
        (
            Method::GET,
            format!("/api/training-sessions/{s}"),
            json!({}),
        ),
        (
            Method::PATCH,
            format!("/api/training-sessions/{s}"),
            json!({ "title": "T" }),
        ),
        (
            Method::DELETE,
            format!("/api/training-sessions/{s}"),
            json!({}),
        ),
        (
            Method::GET,
            format!("/api/training-sessions/{s}/participants"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/api/training-sessions/{s}/participants"),
            json!({ "athleteId": b }),
        ),
        (
            Method::PATCH,
            format!("/api/training-sessions/{s}/participants/{a}"),
            json!({ "status": "attended" }),
        ),
        (
            Method::DELETE,
            format!("/api/training-sessions/{s}/participants/{a}"),
            json!({}),
        ),
        (
            Method::POST,
            "/api/training-sessions/provision-video".into(),
            json!({ "trainingSessionId": s }),
        ),
    ];
    let tables = [
        "athletes",
        "athlete_coaches",
        "athlete_invites",
        "guardian_consents",
        "training_sessions",
        "training_participants",
        "footage_sessions",
        "job_progress",
    ];
    let mut before = vec![];
    for t in tables {
        before.push(app.count(t).await);
    }
    for (m, path, body) in &routes {
        app.req(m.clone(), path)
            .session(&nobody)
            .json(body.clone())
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
        if !path.starts_with("/api/invite") {
            let r = app
                .req(m.clone(), path)
                .session(&other)
                .json(body.clone())
                .send()
                .await;
            r.assert_error(StatusCode::NOT_FOUND, "not_found");
        }
    }
    for (m, path) in [
        (Method::GET, "/api/athletes"),
        (Method::GET, "/api/athletes/export"),
        (Method::GET, "/api/training-sessions"),
        (Method::GET, "/api/club/enrollment"),
    ] {
        app.req(m, path)
            .session(&nobody)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    // A workspace the caller does not belong to, named by header, is not found.
    app.get("/api/athletes")
        .session(&other)
        .header("x-workspace-id", &owner.org_id.to_string())
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let mut after = vec![];
    for t in tables {
        after.push(app.count(t).await);
    }
    assert_eq!(before, after, "nothing written");
}
