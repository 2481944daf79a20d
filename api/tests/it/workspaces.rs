use crate::accounts::add_member;
use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn member_id(app: &TestApp, s: &Session, owner: &Session) -> String {
    let r = app
        .get(&format!("/api/orgs/{}/members", owner.org_id))
        .session(owner)
        .send()
        .await;
    r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["userId"] == s.user_id.to_string())
        .unwrap()["memberId"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn roles_crud_with_builtin_and_in_use_rules() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
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

#[tokio::test]
async fn modules_toggle_and_disabled_module_routes_answer_module_disabled() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let path = format!("/api/orgs/{}/modules", owner.org_id);
    app.req(Method::PATCH, &path)
        .session(&coach)
        .json(json!({ "modules": { "tv": true } }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "modules": { "kites": true } }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .req(Method::PATCH, &path)
        .session(&owner)
        .json(json!({ "modules": { "tv": true, "wearable": false } }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["modules"]["tv"], true);
    assert_eq!(r.json["modules"]["wearable"], false);
    let r = app
        .get(&format!("/api/orgs/{}", owner.org_id))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["modules"]["wearable"], false);
}

#[tokio::test]
async fn invites_are_seat_capped_single_use_and_revocable() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let org = owner.org_id;
    let invite = |email: &str, role: &str| {
        app.post(&format!("/api/orgs/{org}/members/invite"))
            .session(&owner)
            .json(json!({ "email": email, "role": role }))
    };
    let r = invite("not-an-email", "coach").send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    invite("x@example.com", "owner")
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    invite("owner@example.com", "coach")
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "already_member");
    assert_eq!(app.count("member_invites").await, 0);

    let r = invite("a@example.com", "coach").send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["invite"]["status"], "pending");
    let a_id = r.json["invite"]["id"].as_str().unwrap().to_string();
    let r = app
        .post(&format!("/api/orgs/{org}/invite"))
        .session(&owner)
        .json(json!({ "email": "b@example.com", "role": "viewer" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "the alias works too");
    // Free plan: 3 seats = the owner and two pending invites.
    let r = invite("c@example.com", "coach").send().await;
    r.assert_error(StatusCode::CONFLICT, "seat_cap_exceeded");
    assert_eq!(r.json["error"]["details"]["seats"], 3);
    assert_eq!(app.count("member_invites").await, 2, "nothing written");
    // A re-invite of a pending address replaces it and needs no extra seat.
    assert_eq!(
        invite("a@example.com", "viewer").send().await.status,
        StatusCode::CREATED
    );
    let r = app
        .get(&format!("/api/orgs/{org}/invites/{a_id}"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["status"], "revoked");

    // Accept: the mailed link's token, signed in with the invited address, once.
    let mail = app.wait_mail("b@example.com").await;
    let token = mail
        .link_containing("/join/")
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let b = app.signup("b@example.com").await;
    let stranger = app.signup("stranger@example.com").await;
    let r = app
        .get(&format!("/api/orgs/invite/{token}"))
        .session(&b)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["role"], "viewer");
    assert_eq!(r.json["invitedBy"], "Coach Kai");
    app.post(&format!("/api/orgs/invite/{token}/accept"))
        .session(&stranger)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "invite_email_mismatch");
    let r = app
        .post(&format!("/api/orgs/invite/{token}/accept"))
        .session(&b)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["workspaceId"], org.to_string());
    app.post(&format!("/api/orgs/invite/{token}/accept"))
        .session(&b)
        .send()
        .await
        .assert_error(StatusCode::GONE, "invite_used");
    app.get("/api/orgs/invite/smi_bogus")
        .session(&b)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // Revoke frees the seat; a revoked or expired invite cannot be accepted.
    let list = app
        .get(&format!("/api/orgs/{org}/invites"))
        .session(&owner)
        .send()
        .await;
    let pending: Vec<_> = list.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["status"] == "pending")
        .collect();
    assert_eq!(pending.len(), 1);
    let pid = pending[0]["id"].as_str().unwrap();
    assert_eq!(
        app.req(Method::DELETE, &format!("/api/orgs/{org}/invites/{pid}"))
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.req(Method::DELETE, &format!("/api/orgs/{org}/invites/{pid}"))
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "invite_not_pending");
    let r = invite("d@example.com", "coach").send().await;
    assert_eq!(
        r.status,
        StatusCode::CREATED,
        "the revoked invite's seat is free"
    );
    let d_mail = app.wait_mail("d@example.com").await;
    let d_token = d_mail
        .link_containing("/join/")
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let d = app.signup("d@example.com").await;
    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE member_invites SET expires_at = $1 WHERE email = 'd@example.com'")
                .bind(shared::db::Ts::now().minus(chrono::Duration::seconds(1)))
        )
        .unwrap();
    }
    app.post(&format!("/api/orgs/invite/{d_token}/accept"))
        .session(&d)
        .send()
        .await
        .assert_error(StatusCode::GONE, "invite_expired");
    assert_eq!(
        app.count("members").await,
        2 + 3,
        "owner and b here, plus the three signups' own workspaces"
    );
}

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

#[tokio::test]
async fn member_password_reset_mail_and_coach_directory() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let cid = member_id(&app, &coach, &owner).await;
    app.post(&format!("/api/orgs/{}/reset-password", owner.org_id))
        .session(&viewer)
        .json(json!({ "memberId": cid }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .post(&format!("/api/orgs/{}/reset-password", owner.org_id))
        .session(&owner)
        .json(json!({ "memberId": cid }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let mail = app.wait_mail("coach@example.com").await;
    assert!(mail.link_containing("type=reset_password").is_some());
    let r = app
        .get(&format!("/api/orgs/{}/coach-directory", owner.org_id))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let entries = r.json.as_array().unwrap();
    assert_eq!(
        entries.len(),
        2,
        "owner and coach, not the viewer: {entries:?}"
    );
    assert!(
        entries
            .iter()
            .all(|e| e.as_object().unwrap().keys().len() == 2),
        "names only"
    );
}
