//! The workspace settings pages over form posts, checked through the JSON API: members (role,
//! remove), roles (the matrix, create, delete), invites (the seats and their cap, revoke),
//! modules (off: its navigation entry and pages go); who may open and post them, and another
//! workspace's rows.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

async fn api_get(app: &TestApp, s: &Session, path: &str) -> Value {
    let r = app.get(path).session(s).send().await;
    assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
    r.json
}

async fn members_of(app: &TestApp, owner: &Session) -> Vec<Value> {
    api_get(app, owner, &format!("/api/orgs/{}/members", owner.org_id)).await["items"]
        .as_array()
        .unwrap()
        .clone()
}

async fn role_of(app: &TestApp, owner: &Session, email: &str) -> Option<String> {
    members_of(app, owner)
        .await
        .iter()
        .find(|m| m["email"] == email)
        .map(|m| m["role"].as_str().unwrap().to_string())
}

async fn roles_of(app: &TestApp, owner: &Session) -> Vec<Value> {
    api_get(app, owner, &format!("/api/orgs/{}/roles", owner.org_id))
        .await
        .as_array()
        .unwrap()
        .clone()
}

async fn role_id(app: &TestApp, owner: &Session, key: &str) -> String {
    roles_of(app, owner)
        .await
        .iter()
        .find(|r| r["key"] == key)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The 303 of a post that worked, to `rest` of the desk with its note.
fn assert_done(r: &Resp, s: &Session, rest: &str, note: &str) {
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), ws_path(s, &format!("{rest}?done={note}")));
}

#[tokio::test]
async fn change_a_members_role_and_remove_them_behind_the_confirmation() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let coach_id = member_id(&app, &coach, &owner).await;
    let owner_id = member_id(&app, &owner, &owner).await;

    let r = get(&app, &owner, &ws_path(&owner, "/settings")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), ws_path(&owner, "/settings/members"));
    let r = get(&app, &owner, &ws_path(&owner, "/settings/members")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("coach@example.com") && r.body.contains("owner@example.com"),
        "{}",
        r.body
    );
    assert!(
        r.body.contains(&format!("id=\"role-{coach_id}\"")),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("aria-current=\"page\">Members</a>"),
        "{}",
        r.body
    );

    // The coach becomes a viewer; the API says so and the domain wrote its audit entry.
    let role_path = |m: &str| ws_path(&owner, &format!("/settings/members/{m}/role"));
    let r = post(&app, &owner, &role_path(&coach_id), &[("role", "viewer")]).await;
    assert_done(&r, &owner, "/settings/members", "set.members.role_changed");
    assert_eq!(
        role_of(&app, &owner, "coach@example.com").await.unwrap(),
        "viewer"
    );
    assert_eq!(audit_count(&app, "member.role_changed").await, 1);
    let r = get(&app, &owner, &r.location()).await;
    assert!(r.body.contains("Role changed."), "{}", r.body);

    // An unknown role is refused beside the member's picker, at the API's 400.
    let r = post(&app, &owner, &role_path(&coach_id), &[("role", "nope")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.body.contains(&format!("id=\"e-role-{coach_id}\"")),
        "{}",
        r.body
    );
    // The last owner stays owner: the domain's rule, shown as its error.
    let r = post(&app, &owner, &role_path(&owner_id), &[("role", "coach")]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("needs an owner"), "{}", r.body);
    assert_eq!(
        role_of(&app, &owner, "owner@example.com").await.unwrap(),
        "owner"
    );
    assert_eq!(
        audit_count(&app, "member.role_changed").await,
        1,
        "nothing written"
    );

    // An admin may manage members but not the owner: refused on the confirmation page.
    let admin = add_member(&app, owner.org_id, "admin@example.com", "admin").await;
    let remove_path = |s: &Session, m: &str| ws_path(s, &format!("/settings/members/{m}/remove"));
    let r = post(&app, &admin, &remove_path(&admin, &owner_id), &[]).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(r.body.contains("nly an owner"), "{}", r.body);
    assert!(role_of(&app, &owner, "owner@example.com").await.is_some());

    // Remove, behind the confirmation page.
    let r = get(&app, &owner, &remove_path(&owner, &coach_id)).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("coach@example.com"), "{}", r.body);
    assert!(
        r.body
            .contains(&format!("action=\"{}\"", remove_path(&owner, &coach_id)))
    );
    let r = post(&app, &owner, &remove_path(&owner, &coach_id), &[]).await;
    assert_done(&r, &owner, "/settings/members", "set.members.removed");
    assert!(role_of(&app, &owner, "coach@example.com").await.is_none());
    assert_eq!(audit_count(&app, "member.removed").await, 1);
    // Gone: its confirmation page is a 404 page now.
    let r = get(&app, &owner, &remove_path(&owner, &coach_id)).await;
    assert_page(&r, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn roles_create_tick_permissions_in_the_matrix_and_delete() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let r = get(&app, &owner, &ws_path(&owner, "/settings/roles")).await;
    assert_page(&r, StatusCode::OK);
    // The owner column is read-only; the others are editable.
    let owner_role = role_id(&app, &owner, "owner").await;
    let coach_role = role_id(&app, &owner, "coach").await;
    assert!(r.body.contains(&format!(
        "id=\"p-{owner_role}-athletes.read\" name=\"perm.{owner_role}\" value=\"athletes.read\""
    )));
    assert!(
        r.body
            .split(&format!("id=\"p-{owner_role}-athletes.read\""))
            .nth(1)
            .unwrap()
            .split('>')
            .next()
            .unwrap()
            .contains("disabled"),
        "the owner's boxes are disabled"
    );
    assert!(r.body.contains(&format!("name=\"name.{coach_role}\"")));
    assert!(!r.body.contains(&format!("name=\"name.{owner_role}\"")));

    // Create: field errors beside the field, a taken key is the domain's 409.
    let new = ws_path(&owner, "/settings/roles/new");
    let r = post(&app, &owner, &new, &[("name", "  ")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-new-name\""), "{}", r.body);
    let r = post(&app, &owner, &new, &[("name", "Video team")]).await;
    assert_done(&r, &owner, "/settings/roles", "set.roles.created");
    let r = post(&app, &owner, &new, &[("name", "Video  Team")]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("id=\"e-new-name\""), "{}", r.body);
    assert_eq!(audit_count(&app, "role.created").await, 1);
    let video = role_id(&app, &owner, "video-team").await;

    // The matrix: tick two permissions of the new role and rename it; the coach column is
    // sent unchanged, so only the video role is written.
    let coach_perms: Vec<String> = roles_of(&app, &owner)
        .await
        .iter()
        .find(|r| r["key"] == "coach")
        .unwrap()["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    let (pv, pc, nv, nc) = (
        format!("perm.{video}"),
        format!("perm.{coach_role}"),
        format!("name.{video}"),
        format!("name.{coach_role}"),
    );
    let mut fields: Vec<(&str, &str)> = vec![
        ("role", &video),
        (&nv, "Video crew"),
        (&pv, "footage.read"),
        (&pv, "footage.upload"),
        ("role", &coach_role),
        (&nc, "Coach"),
    ];
    for p in &coach_perms {
        fields.push((&pc, p));
    }
    let save = ws_path(&owner, "/settings/roles");
    let r = post(&app, &owner, &save, &fields).await;
    assert_done(&r, &owner, "/settings/roles", "set.roles.saved");
    let roles = roles_of(&app, &owner).await;
    let v = roles.iter().find(|r| r["key"] == "video-team").unwrap();
    assert_eq!(v["name"], "Video crew");
    assert_eq!(v["permissions"], json!(["footage.read", "footage.upload"]));
    assert_eq!(
        audit_count(&app, "role.updated").await,
        1,
        "only the changed role"
    );

    // A refused column (an empty name, an unknown permission) writes nothing at all.
    let r = post(
        &app,
        &owner,
        &save,
        &[
            ("role", &video),
            (&nv, "Video crew"),
            (&pv, "footage.delete"),
            ("role", &coach_role),
            (&nc, " "),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.body.contains(&format!("id=\"e-n-{coach_role}\"")),
        "{}",
        r.body
    );
    let r = post(
        &app,
        &owner,
        &save,
        &[("role", &video), (&nv, "Video crew"), (&pv, "root.all")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    // The owner role cannot be edited, even by a forged form: the domain's 409.
    let no = format!("name.{owner_role}");
    let r = post(&app, &owner, &save, &[("role", &owner_role), (&no, "Boss")]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert_eq!(
        audit_count(&app, "role.updated").await,
        1,
        "nothing written"
    );
    let v = roles_of(&app, &owner).await;
    assert_eq!(
        v.iter().find(|r| r["key"] == "video-team").unwrap()["permissions"],
        json!(["footage.read", "footage.upload"])
    );

    // Delete: a built-in role and a role someone holds are refused on the confirmation page.
    let del = |id: &str| ws_path(&owner, &format!("/settings/roles/{id}/delete"));
    let r = post(&app, &owner, &del(&coach_role), &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("uilt-in roles cannot"), "{}", r.body);
    let holder = add_member(&app, owner.org_id, "crew@example.com", "video-team").await;
    let r = post(&app, &owner, &del(&video), &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("use this role"), "{}", r.body);
    let holder_id = member_id(&app, &holder, &owner).await;
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, &format!("/settings/members/{holder_id}/role")),
        &[("role", "viewer")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let r = get(&app, &owner, &del(&video)).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Delete the role Video crew"), "{}", r.body);
    let r = post(&app, &owner, &del(&video), &[]).await;
    assert_done(&r, &owner, "/settings/roles", "set.roles.deleted");
    assert!(
        !roles_of(&app, &owner)
            .await
            .iter()
            .any(|r| r["key"] == "video-team")
    );
    assert_eq!(audit_count(&app, "role.deleted").await, 1);
}

#[tokio::test]
async fn invites_show_the_seats_and_the_cap_refuses_one_more_with_nothing_written() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let page_path = ws_path(&owner, "/settings/invites");
    let r = get(&app, &owner, &page_path).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("1 of 3 seats used"), "{}", r.body);

    let r = post(
        &app,
        &owner,
        &page_path,
        &[("email", "not-an-email"), ("role", "coach")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-email\""), "{}", r.body);
    assert!(
        r.body.contains("value=\"not-an-email\""),
        "the field keeps what was typed"
    );
    let r = post(
        &app,
        &owner,
        &page_path,
        &[("email", "a@example.com"), ("role", "coach")],
    )
    .await;
    assert_done(&r, &owner, "/settings/invites", "set.invites.sent");
    app.wait_mail("a@example.com").await;
    let r = post(
        &app,
        &owner,
        &page_path,
        &[("email", "b@example.com"), ("role", "viewer")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = get(&app, &owner, &page_path).await;
    assert!(r.body.contains("3 of 3 seats used"), "{}", r.body);
    assert!(r.body.contains("a@example.com") && r.body.contains("pending"));

    // The cap: the domain's error on the page, at its 409, and nothing written.
    let r = post(
        &app,
        &owner,
        &page_path,
        &[("email", "c@example.com"), ("role", "coach")],
    )
    .await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("All 3 seats are taken"), "{}", r.body);
    assert!(r.body.contains("value=\"c@example.com\""));
    assert_eq!(app.count("member_invites").await, 2);
    assert_eq!(audit_count(&app, "invite.created").await, 2);

    // Revoke frees the seat.
    let list = api_get(&app, &owner, &format!("/api/orgs/{}/invites", owner.org_id)).await;
    let a = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["email"] == "a@example.com")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let revoke = ws_path(&owner, &format!("/settings/invites/{a}/revoke"));
    let r = post(&app, &owner, &revoke, &[]).await;
    assert_done(&r, &owner, "/settings/invites", "set.invites.revoked");
    let i = api_get(
        &app,
        &owner,
        &format!("/api/orgs/{}/invites/{a}", owner.org_id),
    )
    .await;
    assert_eq!(i["status"], "revoked");
    assert_eq!(audit_count(&app, "invite.revoked").await, 1);
    // Revoked twice: the domain's 409 on the page.
    let r = post(&app, &owner, &revoke, &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    let r = get(&app, &owner, &page_path).await;
    assert!(r.body.contains("2 of 3 seats used"), "{}", r.body);
}

#[tokio::test]
async fn a_module_switched_off_leaves_the_navigation_and_its_pages_403() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let modules = ws_path(&owner, "/settings/modules");
    let r = get(&app, &owner, &modules).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("id=\"m-athletes\""), "{}", r.body);
    let r = get(&app, &owner, &ws_path(&owner, "/")).await;
    assert!(
        r.body
            .contains(&format!("href=\"{}\"", ws_path(&owner, "/athletes")))
    );
    assert!(r.body.contains(&format!(
        "href=\"{}\">Workspace",
        ws_path(&owner, "/settings")
    )));

    // Every module listed, all ticked but athletes (tv starts off and stays off).
    let org = api_get(&app, &owner, &format!("/api/orgs/{}", owner.org_id)).await;
    let mut fields = vec![];
    for (k, on) in org["modules"].as_object().unwrap() {
        fields.push(("module", k.as_str()));
        if on.as_bool().unwrap() && k != "athletes" {
            fields.push(("on", k.as_str()));
        }
    }
    let r = post(&app, &owner, &modules, &fields).await;
    assert_done(&r, &owner, "/settings/modules", "set.modules.saved");
    let org = api_get(&app, &owner, &format!("/api/orgs/{}", owner.org_id)).await;
    assert_eq!(org["modules"]["athletes"], false);
    assert_eq!(org["modules"]["training"], true);
    assert_eq!(org["modules"]["tv"], false);
    assert_eq!(audit_count(&app, "org.modules_changed").await, 1);
    let r = get(&app, &owner, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body
            .contains(&format!("href=\"{}\"", ws_path(&owner, "/athletes"))),
        "{}",
        r.body
    );
    assert!(r.body.contains("Modules saved."));
    let r = get(&app, &owner, &ws_path(&owner, "/athletes")).await;
    assert_page(&r, StatusCode::FORBIDDEN);

    // Saved again unchanged: nothing written. Then back on.
    let r = post(&app, &owner, &modules, &fields).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(audit_count(&app, "org.modules_changed").await, 1);
    let r = post(
        &app,
        &owner,
        &modules,
        &[("module", "athletes"), ("on", "athletes")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let r = get(&app, &owner, &ws_path(&owner, "/athletes")).await;
    assert_page(&r, StatusCode::OK);
    // Not a module: the domain's field error on the page, nothing written.
    let r = post(&app, &owner, &modules, &[("module", "nope")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert_eq!(audit_count(&app, "org.modules_changed").await, 2);
}

#[tokio::test]
async fn without_the_permission_a_settings_page_or_post_is_a_403_page_and_nothing_is_written() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let owner_id = member_id(&app, &owner, &owner).await;
    let coach_role = role_id(&app, &owner, "coach").await;
    // A viewer reads members, roles and invites, without a form to change them; no modules tab.
    let r = get(&app, &viewer, &ws_path(&viewer, "/settings/members")).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("/role\""), "no role forms: {}", r.body);
    assert!(
        !r.body.contains("/settings/modules"),
        "no modules tab: {}",
        r.body
    );
    let r = get(&app, &viewer, &ws_path(&viewer, "/settings/roles")).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("Save roles") && !r.body.contains("/settings/roles/new"));
    let r = get(&app, &viewer, &ws_path(&viewer, "/settings/invites")).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("Send invite"));
    for path in [
        "/settings/modules".to_string(),
        format!("/settings/members/{owner_id}/remove"),
        format!("/settings/roles/{coach_role}/delete"),
    ] {
        let r = get(&app, &viewer, &ws_path(&viewer, &path)).await;
        assert_page(&r, StatusCode::FORBIDDEN);
    }
    let audits = app.count("audit_log").await;
    for (path, fields) in [
        (
            format!("/settings/members/{owner_id}/role"),
            vec![("role", "viewer")],
        ),
        (format!("/settings/members/{owner_id}/remove"), vec![]),
        (
            "/settings/roles".into(),
            vec![("role", coach_role.as_str()), ("name.x", "X")],
        ),
        ("/settings/roles/new".into(), vec![("name", "Spy")]),
        (format!("/settings/roles/{coach_role}/delete"), vec![]),
        (
            "/settings/invites".into(),
            vec![("email", "x@example.com"), ("role", "coach")],
        ),
        ("/settings/modules".into(), vec![("module", "athletes")]),
    ] {
        let r = post(&app, &viewer, &ws_path(&viewer, &path), &fields).await;
        assert_page(&r, StatusCode::FORBIDDEN);
    }
    assert_eq!(app.count("audit_log").await, audits, "nothing written");
    assert_eq!(app.count("member_invites").await, 0);
    assert_eq!(roles_of(&app, &owner).await.len(), 4);
    assert_eq!(
        role_of(&app, &owner, "owner@example.com").await.unwrap(),
        "owner"
    );

    // A role with no settings permission: no Workspace section, and /settings is a 403 page.
    let r = app
        .post(&format!("/api/orgs/{}/roles", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Filmer", "permissions": ["footage.read"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let filmer = add_member(&app, owner.org_id, "filmer@example.com", "filmer").await;
    let r = get(&app, &filmer, &ws_path(&filmer, "/")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body.contains(&ws_path(&filmer, "/settings")),
        "{}",
        r.body
    );
    let r = get(&app, &filmer, &ws_path(&filmer, "/settings")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    // One with modules.manage only is led to the modules tab.
    let r = app
        .req(Method::POST, &format!("/api/orgs/{}/roles", owner.org_id))
        .session(&owner)
        .json(json!({ "name": "Ops", "permissions": ["modules.manage"] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let ops = add_member(&app, owner.org_id, "ops@example.com", "ops").await;
    let r = get(&app, &ops, &ws_path(&ops, "/settings")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), ws_path(&ops, "/settings/modules"));
}

#[tokio::test]
async fn another_workspaces_member_role_or_invite_is_a_404_page_and_nothing_is_written() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let other = other_workspace(&app).await;
    let their_member = member_id(&app, &other, &other).await;
    let r = app
        .post(&format!("/api/orgs/{}/roles", other.org_id))
        .session(&other)
        .json(json!({ "name": "Theirs", "permissions": [] }))
        .send()
        .await;
    let their_role = r.json["id"].as_str().unwrap().to_string();
    let r = app
        .post(&format!("/api/orgs/{}/members/invite", other.org_id))
        .session(&other)
        .json(json!({ "email": "x@example.com", "role": "coach" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let their_invite = r.json["invite"]["id"].as_str().unwrap().to_string();
    let audits = app.count("audit_log").await;
    for path in [
        format!("/settings/members/{their_member}/remove"),
        format!("/settings/roles/{their_role}/delete"),
    ] {
        let r = get(&app, &owner, &ws_path(&owner, &path)).await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    let mut name = String::from("name.");
    name.push_str(&their_role);
    for (path, fields) in [
        (
            format!("/settings/members/{their_member}/role"),
            vec![("role", "viewer")],
        ),
        (format!("/settings/members/{their_member}/remove"), vec![]),
        (format!("/settings/roles/{their_role}/delete"), vec![]),
        (
            "/settings/roles".to_string(),
            vec![("role", their_role.as_str()), (name.as_str(), "Mine")],
        ),
        (format!("/settings/invites/{their_invite}/revoke"), vec![]),
    ] {
        let r = post(&app, &owner, &ws_path(&owner, &path), &fields).await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    // Their workspace's settings pages are not mine either.
    let r = get(&app, &owner, &ws_path(&other, "/settings/members")).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert_eq!(app.count("audit_log").await, audits, "nothing written");
    let i = api_get(
        &app,
        &other,
        &format!("/api/orgs/{}/invites/{their_invite}", other.org_id),
    )
    .await;
    assert_eq!(i["status"], "pending");
}

#[test]
fn the_settings_tabs_and_module_names_are_in_the_catalogue() {
    use api::areas::desk::i18n::Catalogue;
    use api::areas::desk::settings::{TABS, modules};
    for t in TABS {
        assert!(Catalogue::has(t.label), "{} missing from en.txt", t.label);
    }
    for m in shared::authz::Module::ALL {
        assert!(
            Catalogue::has(modules::label(*m)),
            "{m:?} has no name in en.txt"
        );
    }
}
