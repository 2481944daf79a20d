//! The Workspace settings pages, part B (audit log, TV devices, coaches, self-enrollment) over
//! form posts with the CSRF token, each checked through the JSON API: who may open them (403
//! page, nothing written), another workspace's TV or coach (404 page), a wrong TV code, the
//! audit log's filters.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

/// A TV that started device-code sign-in: its user code (`XXXX-XXXX`).
async fn tv_code(app: &TestApp, name: &str) -> String {
    let r = app
        .post("/api/tv/signin/start")
        .json(json!({ "name": name }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.json["userCode"].as_str().unwrap().to_string()
}

async fn devices(app: &TestApp, s: &Session) -> Vec<serde_json::Value> {
    let r = app.get("/api/tv/devices").session(s).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.json.as_array().unwrap().clone()
}

#[tokio::test]
async fn pair_rename_and_sign_out_a_tv_through_the_pages() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    enable_tv(&app, &owner).await;
    let page = ws_path(&owner, "/settings/tv");
    let r = get(&app, &owner, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("No TV is signed in."), "{}", r.body);
    // The tabs list the four settings pages the owner may open.
    for tab in [
        "/settings/audit",
        "/settings/tv",
        "/settings/coaches",
        "/settings/enrollment",
    ] {
        assert!(r.body.contains(&ws_path(&owner, tab)), "{tab}");
    }

    // A wrong code: a clear error beside the field, at the API's status, nothing paired.
    let code = tv_code(&app, "Clubhouse TV").await;
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/tv/pair"),
        &[("userCode", "BCDF-GHJK")],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert!(
        r.body.contains("No TV is waiting with this code"),
        "{}",
        r.body
    );
    assert!(r.body.contains("id=\"e-userCode\""), "{}", r.body);
    assert!(
        r.body.contains("value=\"BCDF-GHJK\""),
        "what was typed stays"
    );
    // A code of the wrong shape: the field's own message, 400.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/tv/pair"),
        &[("userCode", "abc")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-userCode"), "{}", r.body);
    assert!(devices(&app, &owner).await.is_empty());

    // The right code (as typed from the screen, any case): paired, named, back to the list.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/settings/tv/pair"),
        &[("userCode", &code.to_lowercase()), ("name", "Lobby")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().starts_with(&page), "{}", r.location());
    let r = get(&app, &owner, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("TV paired") && r.body.contains("Lobby"),
        "{}",
        r.body
    );
    let ds = devices(&app, &owner).await;
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["name"], "Lobby");
    assert_eq!(ds[0]["status"], "claimed");
    let tv = ds[0]["id"].as_str().unwrap().to_string();

    // Rename: an empty name is refused beside that TV's field; then renamed.
    let rename = ws_path(&owner, &format!("/settings/tv/{tv}/rename"));
    let r = post(&app, &owner, &rename, &[("name", "  ")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.body.contains(&format!("id=\"e-name-{tv}\"")),
        "{}",
        r.body
    );
    assert_eq!(devices(&app, &owner).await[0]["name"], "Lobby");
    let r = post(&app, &owner, &rename, &[("name", "Beach bar")]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(devices(&app, &owner).await[0]["name"], "Beach bar");

    // Sign out behind its confirmation page.
    let signout = ws_path(&owner, &format!("/settings/tv/{tv}/signout"));
    let r = get(&app, &owner, &signout).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Sign Beach bar out?"), "{}", r.body);
    assert_eq!(
        devices(&app, &owner).await.len(),
        1,
        "asking changes nothing"
    );
    let r = post(&app, &owner, &signout, &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(devices(&app, &owner).await.is_empty());
    // Signed out already: its pages are gone.
    let r = get(&app, &owner, &signout).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert_eq!(audit_count(&app, "tv.claimed").await, 1);
    assert_eq!(audit_count(&app, "tv.renamed").await, 1);
    assert_eq!(audit_count(&app, "tv.signed_out").await, 1);
}

#[tokio::test]
async fn another_workspaces_tv_or_coach_is_a_404_page_and_nothing_changes() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    enable_tv(&app, &owner).await;
    let other = other_workspace(&app).await;
    enable_tv(&app, &other).await;
    let code = tv_code(&app, "Theirs").await;
    let r = app
        .post("/api/tv/signin/claim")
        .session(&other)
        .json(json!({ "userCode": code }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let theirs = r.json["id"].as_str().unwrap().to_string();
    let r = get(
        &app,
        &owner,
        &ws_path(&owner, &format!("/settings/tv/{theirs}/signout")),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, &format!("/settings/tv/{theirs}/signout")),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, &format!("/settings/tv/{theirs}/rename")),
        &[("name", "Mine now")],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let ds = devices(&app, &other).await;
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["name"], "Theirs");

    // Their owner is no coach of mine: the page, the confirmation and the move are 404 pages.
    let coach = other.user_id.to_string();
    for path in [
        format!("/settings/coaches/{coach}"),
        format!(
            "/settings/coaches/{coach}/reassign?toCoachId={}",
            owner.user_id
        ),
    ] {
        let r = get(&app, &owner, &ws_path(&owner, &path)).await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, &format!("/settings/coaches/{coach}/reassign")),
        &[("toCoachId", &owner.user_id.to_string())],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    // Nor is my workspace's page open to them.
    let r = get(&app, &other, &ws_path(&owner, "/settings/audit")).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert_eq!(audit_count(&app, "coach.athletes_reassigned").await, 0);
}

#[tokio::test]
async fn a_member_without_the_permission_gets_a_403_page_and_nothing_is_written() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    enable_tv(&app, &owner).await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let a = id(&new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Ana", "lastName": "Silva" }),
    )
    .await);
    assign_coach(&app, &owner, &a, coach.user_id).await;
    let code = tv_code(&app, "Clubhouse").await;

    // A viewer: no tv.manage, no audit.read, no org.update, no athletes.update.
    for path in ["/settings/audit", "/settings/tv"] {
        let r = get(&app, &viewer, &ws_path(&viewer, path)).await;
        assert_page(&r, StatusCode::FORBIDDEN);
    }
    let r = post(
        &app,
        &viewer,
        &ws_path(&viewer, "/settings/tv/pair"),
        &[("userCode", &code)],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &viewer,
        &ws_path(&viewer, "/settings/enrollment"),
        &[("enabled", "true")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &viewer,
        &ws_path(
            &viewer,
            &format!("/settings/coaches/{}/reassign", coach.user_id),
        ),
        &[("toCoachId", &owner.user_id.to_string())],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    // What a viewer may read shows no buttons for what they may not do, and only their tabs.
    let r = get(&app, &viewer, &ws_path(&viewer, "/settings/enrollment")).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("Open self-enrollment"), "{}", r.body);
    assert!(
        !r.body.contains(&ws_path(&viewer, "/settings/audit")),
        "no audit tab"
    );
    assert!(
        !r.body.contains(&ws_path(&viewer, "/settings/tv")),
        "no TV tab"
    );
    let r = get(
        &app,
        &viewer,
        &ws_path(&viewer, &format!("/settings/coaches/{}", coach.user_id)),
    )
    .await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Ana Silva"), "{}", r.body);
    assert!(!r.body.contains("Review the move"), "{}", r.body);
    assert!(
        !r.body.contains("Recent activity"),
        "no audit.read: {}",
        r.body
    );
    // A coach reads coaches but not the audit log.
    let r = get(&app, &coach, &ws_path(&coach, "/settings/audit")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    // The TV module off: its page is a 403 even for the owner, and its tab is gone.
    disable_module(&app, owner.org_id, "tv").await;
    let r = get(&app, &owner, &ws_path(&owner, "/settings/tv")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(&app, &owner, &ws_path(&owner, "/settings/audit")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body.contains(&ws_path(&owner, "/settings/tv")),
        "no TV tab"
    );

    assert_eq!(app.count("tv_devices").await, 1, "only the pending TV");
    let r = app.get("/api/club/enrollment").session(&owner).send().await;
    assert_eq!(r.json["enabled"], false, "{}", r.body);
    let r = app
        .get(&format!("/api/coaches/{}/stats", coach.user_id))
        .session(&owner)
        .send()
        .await;
    assert_eq!(r.json["athletes"], 1);
}

#[tokio::test]
async fn open_and_close_self_enrollment_through_the_page() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let page = ws_path(&owner, "/settings/enrollment");
    let r = get(&app, &owner, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Closed"), "{}", r.body);
    let api = app.get("/api/club/enrollment").session(&owner).send().await;
    let url = api.json["pageUrl"].as_str().unwrap();
    assert!(
        r.body.contains(url),
        "the public page's address {url}: {}",
        r.body
    );
    let r = post(&app, &owner, &page, &[("enabled", "true")]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        r.location().contains("done=set.enrollment.opened"),
        "{}",
        r.location()
    );
    let api = app.get("/api/club/enrollment").session(&owner).send().await;
    assert_eq!(api.json["enabled"], true);
    let r = get(&app, &owner, &r.location()).await;
    assert!(
        r.body.contains("Self-enrollment is open.") && r.body.contains("Close self-enrollment"),
        "{}",
        r.body
    );
    // The public page now opens.
    let public = app.get(&format!("/club/{}", owner.org_id)).send().await;
    assert_eq!(public.status, StatusCode::OK);
    let r = post(&app, &owner, &page, &[("enabled", "false")]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app.get("/api/club/enrollment").session(&owner).send().await;
    assert_eq!(api.json["enabled"], false);
    assert_eq!(audit_count(&app, "org.enrollment_changed").await, 2);
    // The athletes module off: the page is a 403 (as the JSON route's policy).
    disable_module(&app, owner.org_id, "athletes").await;
    let r = get(&app, &owner, &page).await;
    assert_page(&r, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_coaches_pages_list_coaches_and_move_a_coachs_athletes() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let kai = add_member(&app, owner.org_id, "kai@example.com", "coach").await;
    let lea = add_member(&app, owner.org_id, "lea@example.com", "coach").await;
    for first in ["Ana", "Bea"] {
        let a = id(&new_athlete(
            &app,
            &owner,
            json!({ "firstName": first, "lastName": "Silva" }),
        )
        .await);
        assign_coach(&app, &owner, &a, kai.user_id).await;
    }
    let r = get(&app, &owner, &ws_path(&owner, "/settings/coaches")).await;
    assert_page(&r, StatusCode::OK);
    let kai_page = ws_path(&owner, &format!("/settings/coaches/{}", kai.user_id));
    assert!(r.body.contains(&kai_page), "{}", r.body);
    assert!(r.body.contains("kai@example.com") && r.body.contains("lea@example.com"));

    let r = get(&app, &owner, &kai_page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Ana Silva") && r.body.contains("Bea Silva"),
        "{}",
        r.body
    );
    assert!(r.body.contains("Recent activity"), "{}", r.body);
    assert!(r.body.contains("Review the move"), "{}", r.body);

    // Not a UUID: beside the field, at the API's 400; the same coach: 400 too.
    let reassign = format!("{kai_page}/reassign");
    let r = get(&app, &owner, &format!("{reassign}?toCoachId=nope")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-toCoachId"), "{}", r.body);
    let r = post(
        &app,
        &owner,
        &reassign,
        &[("toCoachId", &kai.user_id.to_string())],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-toCoachId"), "{}", r.body);
    // The confirmation names both and the count; nothing moves until the post.
    let r = get(
        &app,
        &owner,
        &format!("{reassign}?toCoachId={}", lea.user_id),
    )
    .await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Move all 2 athletes"), "{}", r.body);
    let stats = |who: shared::db::Id| {
        let app = &app;
        let owner = &owner;
        async move {
            app.get(&format!("/api/coaches/{who}/stats"))
                .session(owner)
                .send()
                .await
                .json["athletes"]
                .as_i64()
                .unwrap()
        }
    };
    assert_eq!(stats(kai.user_id).await, 2);
    let r = post(
        &app,
        &owner,
        &reassign,
        &[("toCoachId", &lea.user_id.to_string())],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(stats(kai.user_id).await, 0);
    assert_eq!(stats(lea.user_id).await, 2);
    let r = get(&app, &owner, &r.location()).await;
    assert!(
        r.body.contains("Athletes moved to the other coach."),
        "{}",
        r.body
    );
}

#[tokio::test]
async fn the_audit_log_filters_narrow_the_list() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    enable_tv(&app, &owner).await;
    // Two kinds of entries: the TV module switched on (above), enrollment opened twice.
    let page = ws_path(&owner, "/settings/enrollment");
    for on in ["true", "false"] {
        let r = post(&app, &owner, &page, &[("enabled", on)]).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER);
    }
    let audit = ws_path(&owner, "/settings/audit");
    let rows = |body: &str| body.matches("<tr class=\"entry\">").count();
    let all = get(&app, &owner, &audit).await;
    assert_page(&all, StatusCode::OK);
    assert!(all.body.contains("org.enrollment_changed"), "{}", all.body);
    let total = rows(&all.body);
    assert!(total >= 3, "{}", all.body);
    // Exact action.
    let r = get(
        &app,
        &owner,
        &format!("{audit}?action=org.enrollment_changed"),
    )
    .await;
    assert_page(&r, StatusCode::OK);
    assert_eq!(rows(&r.body), 2, "{}", r.body);
    // A prefix ending in a dot.
    let r = get(&app, &owner, &format!("{audit}?action=org.")).await;
    assert!(rows(&r.body) >= 2 && rows(&r.body) <= total);
    // The same through the JSON API.
    let api = app
        .get(&format!(
            "/api/orgs/{}/audit?action=org.enrollment_changed",
            owner.org_id
        ))
        .session(&owner)
        .send()
        .await;
    assert_eq!(api.json["items"].as_array().unwrap().len(), 2);
    // Days: yesterday and before have nothing; today has all (UTC, no zone cookie).
    let today = chrono::Utc::now().date_naive();
    let yesterday = today.pred_opt().unwrap();
    let r = get(&app, &owner, &format!("{audit}?to={yesterday}")).await;
    assert_eq!(rows(&r.body), 0, "{}", r.body);
    assert!(r.body.contains("No entries match."));
    let r = get(&app, &owner, &format!("{audit}?from={today}&to={today}")).await;
    assert_eq!(rows(&r.body), total, "{}", r.body);
    // A date that is not one: beside the field, 400.
    let r = get(&app, &owner, &format!("{audit}?from=yesterday")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-from"), "{}", r.body);
    // Out of the range both databases store.
    let r = get(&app, &owner, &format!("{audit}?to=1800-01-01")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-to"), "{}", r.body);
    // Actors are named.
    assert!(all.body.contains("Coach Kai"), "{}", all.body);
}
