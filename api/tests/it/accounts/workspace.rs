//! Ensure-org: an account without a workspace gets exactly one.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::repo::orgs;

#[tokio::test]
async fn ensure_org_provisions_once_even_when_called_concurrently() {
    let app = TestApp::new().await;
    // A coach whose account has no workspace (e.g. created before workspaces existed).
    let s = user_without_workspace(&app, "solo@example.com", "Solo").await;
    let r = app
        .get("/api/orgs/00000000-0000-0000-0000-000000000000")
        .session(&s)
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");

    let calls = (0..4).map(|_| {
        app.post("/api/auth/ensure-org")
            .session(&s)
            .json(json!({ "name": "Solo Surf", "type": "club" }))
            .send()
    });
    let results = futures::future::join_all(calls).await;
    let created: Vec<_> = results
        .iter()
        .filter(|r| r.status == StatusCode::CREATED)
        .collect();
    assert_eq!(
        created.len(),
        1,
        "{:?}",
        results.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(
        results
            .iter()
            .all(|r| r.status == StatusCode::CREATED || r.status == StatusCode::OK)
    );
    let mut c = app.state.db.acquire().await.unwrap();
    let ms = orgs::memberships_of(&mut c, s.user_id).await.unwrap();
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].role_key, "owner");
    assert_eq!(ms[0].org_type, "club");
    let r = app
        .post("/api/auth/ensure-org")
        .session(&s)
        .json(json!({}))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["created"], false);
    assert_eq!(r.json["workspace"]["workspaceId"], ms[0].org_id.to_string());

    let r = app
        .post("/api/auth/ensure-org")
        .session(&s)
        .json(json!({ "type": "pirate" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}
