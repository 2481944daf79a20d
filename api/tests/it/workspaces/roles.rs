//! Roles: built-in and custom ones, and the owner rules.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn roles_crud_with_builtin_and_in_use_rules() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let roles = format!("/api/orgs/{}/roles", owner.org_id);

    let r = app.get(&roles).session(&owner).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 4);
    let r = app
        .post(&roles)
        .session(&owner)
        .json(json!({ "name": "Assistant", "permissions": ["athletes.read", "fly.kites"] }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("roles").await, 8, "nothing written");
    app.post(&roles)
        .session(&viewer)
        .json(json!({ "name": "X", "permissions": [] }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post(&format!("/api/orgs/{}/roles", other.org_id))
        .session(&owner)
        .json(json!({ "name": "X", "permissions": [] }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    let r = app
        .post(&roles)
        .session(&owner)
        .json(
            json!({ "name": "Assistant Coach", "permissions": ["athletes.read", "training.read"] }),
        )
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["key"], "assistant-coach");
    let role_id = r.json["id"].as_str().unwrap().to_string();
    app.post(&roles)
        .session(&owner)
        .json(json!({ "name": "Assistant Coach", "permissions": [] }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "role_exists");

    let vid = member_id(&app, &viewer, &owner).await;
    let r = app
        .req(
            Method::PATCH,
            &format!("/api/orgs/{}/members/{vid}", owner.org_id),
        )
        .session(&owner)
        .json(json!({ "role": "assistant-coach" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["role"], "assistant-coach");
    let role_path = format!("{roles}/{role_id}");
    let r = app
        .req(Method::DELETE, &role_path)
        .session(&owner)
        .send()
        .await;
    r.assert_error(StatusCode::CONFLICT, "role_in_use");
    assert_eq!(r.json["error"]["details"]["members"], 1);

    let r = app
        .req(Method::PATCH, &role_path)
        .session(&owner)
        .json(json!({ "permissions": ["athletes.read"] }))
        .send()
        .await;
    assert_eq!(r.json["permissions"], json!(["athletes.read"]));
    let builtin: Vec<serde_json::Value> = app
        .get(&roles)
        .session(&owner)
        .send()
        .await
        .json
        .as_array()
        .unwrap()
        .clone();
    let owner_role = builtin.iter().find(|r| r["key"] == "owner").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let coach_role = builtin.iter().find(|r| r["key"] == "coach").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.req(Method::PATCH, &format!("{roles}/{owner_role}"))
        .session(&owner)
        .json(json!({ "permissions": [] }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "role_builtin");
    app.req(Method::DELETE, &format!("{roles}/{coach_role}"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "role_builtin");

    app.req(
        Method::PATCH,
        &format!("/api/orgs/{}/members/{vid}", owner.org_id),
    )
    .session(&owner)
    .json(json!({ "role": "viewer" }))
    .send()
    .await;
    let r = app
        .req(Method::DELETE, &role_path)
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    app.req(Method::DELETE, &role_path)
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn the_last_owner_stays_and_only_owners_make_owners() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let admin = add_member(&app, owner.org_id, "admin@example.com", "admin").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let org = owner.org_id;
    let oid = member_id(&app, &owner, &owner).await;
    let aid = member_id(&app, &admin, &owner).await;
    let cid = member_id(&app, &coach, &owner).await;

    app.req(Method::PATCH, &format!("/api/orgs/{org}/members/{oid}"))
        .session(&owner)
        .json(json!({ "role": "admin" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "last_owner");
    app.req(Method::DELETE, &format!("/api/orgs/{org}/members/{oid}"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "last_owner");
    app.req(Method::PATCH, &format!("/api/orgs/{org}/members/{oid}"))
        .session(&admin)
        .json(json!({ "role": "viewer" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "owner_required");
    app.req(Method::PATCH, &format!("/api/orgs/{org}/members/{cid}"))
        .session(&admin)
        .json(json!({ "role": "owner" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "owner_required");
    app.req(Method::PATCH, &format!("/api/orgs/{org}/members/{cid}"))
        .session(&coach)
        .json(json!({ "role": "admin" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.req(Method::PATCH, &format!("/api/orgs/{org}/members/{cid}"))
        .session(&owner)
        .json(json!({ "role": "nope" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // Transfer: the coach becomes owner, the old owner admin.
    app.post(&format!("/api/orgs/{org}/transfer-ownership"))
        .session(&admin)
        .json(json!({ "memberId": cid }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "owner_required");
    let r = app
        .post(&format!("/api/orgs/{org}/transfer-ownership"))
        .session(&owner)
        .json(json!({ "memberId": cid }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app
        .get(&format!("/api/orgs/{org}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["role"], "owner");
    let r = app
        .get(&format!("/api/orgs/{org}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["role"], "admin");
    // Now the old owner may leave; an admin cannot remove the owner.
    app.req(Method::DELETE, &format!("/api/orgs/{org}/members/{cid}"))
        .session(&admin)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "owner_required");
    assert_eq!(
        app.req(Method::DELETE, &format!("/api/orgs/{org}/members/{aid}"))
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.req(Method::DELETE, &format!("/api/orgs/{org}/members/{oid}"))
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT,
        "leaving"
    );
    assert_eq!(app.count("members").await, 1);
    let mut c = app.state.db.acquire().await.unwrap();
    let log = shared::repo::audit::for_org(&mut c, org, 50, 0)
        .await
        .unwrap();
    let actions: Vec<&str> = log.iter().map(|e| e.action.as_str()).collect();
    assert!(
        actions.contains(&"org.ownership_transferred")
            && actions.contains(&"member.left")
            && actions.contains(&"member.removed"),
        "{actions:?}"
    );
}
