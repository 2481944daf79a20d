use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn members_read_their_workspace_and_not_anothers() {
    let app = TestApp::new().await;
    let a = app.signup("a@example.com").await;
    let b = app.signup("b@example.com").await;
    let r = app
        .get(&format!("/api/orgs/{}", a.org_id))
        .session(&a)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["role"], "owner");
    assert_eq!(r.json["type"], "coach");
    assert_eq!(r.json["modules"]["athletes"], true);
    assert_eq!(
        r.json["modules"]["tv"], false,
        "solo coaches start without TVs"
    );
    app.get(&format!("/api/orgs/{}", b.org_id))
        .session(&a)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/orgs/not-a-uuid")
        .session(&a)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app.get("/api/orgs").session(&a).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn update_needs_org_update_and_is_audited() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let path = format!("/api/orgs/{}", owner.org_id);
    let r = app
        .req(Method::PATCH, &path)
        .session(&viewer)
        .json(json!({ "name": "Hacked" }))
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .req(Method::PATCH, &path)
        .session(&other)
        .json(json!({ "name": "Hacked" }))
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let audit_before = app.count("audit_log").await;
    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "type": "pirate", "country": "Portugal" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["country", "type"]);
    assert_eq!(
        app.count("audit_log").await,
        audit_before,
        "nothing written"
    );

    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "name": "Ericeira Surf Club", "type": "club", "country": "pt" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["type"], "club");
    assert_eq!(r.json["country"], "PT");
    let mut c = app.state.db.acquire().await.unwrap();
    let entries = shared::repo::audit::for_org(&mut c, owner.org_id, 10, 0)
        .await
        .unwrap();
    assert_eq!(entries[0].action, "org.updated");
    assert_eq!(entries[0].actor_user_id, Some(owner.user_id));
    assert_eq!(entries[0].data.0["before"]["type"], "coach");
    let r = app.get(&path).session(&viewer).send().await;
    assert_eq!(r.json["name"], "Ericeira Surf Club");
}

#[tokio::test]
async fn create_workspace_and_list_members_paginated() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    for i in 0..3 {
        add_member(&app, owner.org_id, &format!("m{i}@example.com"), "coach").await;
    }
    let path = format!("/api/orgs/{}/members", owner.org_id);
    let r = app
        .get(&format!("{path}?limit=3"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["items"].as_array().unwrap().len(), 3);
    assert_eq!(r.json["nextOffset"], 3);
    let r = app
        .get(&format!("{path}?limit=3&offset=3"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);
    assert_eq!(r.json["nextOffset"], serde_json::Value::Null);
    app.get(&format!("{path}?limit=0"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.get(&format!("{path}?limit=abc"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");

    let r = app
        .post("/api/orgs")
        .session(&owner)
        .json(json!({ "name": "Second", "type": "school" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["role"], "owner");
    let r = app
        .post("/api/orgs")
        .session(&owner)
        .json(json!({ "name": "" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("orgs").await, 2);
}
