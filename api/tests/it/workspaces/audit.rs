//! The workspace audit log.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn audit_log_is_readable_filtered_and_paginated() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    for name in ["One", "Two", "Three"] {
        app.req(Method::PATCH, &format!("/api/orgs/{}", owner.org_id))
            .session(&owner)
            .json(json!({ "name": name }))
            .send()
            .await;
    }
    let path = format!("/api/orgs/{}/audit", owner.org_id);
    app.get(&path)
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .get(&format!("{path}?action=org.updated&limit=2"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    assert_eq!(r.json["nextOffset"], 2);
    assert_eq!(
        r.json["items"][0]["data"]["after"]["name"], "Three",
        "newest first"
    );
    let r = app
        .get(&format!("{path}?action=org."))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 3);
    let future = (chrono::Utc::now() + chrono::Duration::hours(1))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let r = app
        .get(&format!("{path}?from={future}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 0);
    app.get(&format!("{path}?from=yesterday"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");
}
