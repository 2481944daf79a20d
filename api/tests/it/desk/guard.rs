//! Who may open a desk page: a web session (else the sign-in page, coming back), a member of
//! the path's workspace (else a 404 page, as for any other workspace's row), with the module on
//! and the permission (else a 403 page); and every post carries the session's CSRF token.

use super::{get, post, ws_path};
use crate::support::*;
use api::auth::Auth;
use axum::http::{Method, StatusCode};

#[tokio::test]
async fn without_a_session_the_desk_sends_the_browser_to_sign_in_and_back() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let here = ws_path(&owner, "/athletes?q=kai");
    let r = app.get(&here).send().await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        r.location(),
        format!(
            "/signin?next={}",
            url::form_urlencoded::byte_serialize(here.as_bytes()).collect::<String>()
        )
    );
    // A forged cookie is no session either.
    let r = app
        .get(&here)
        .header("cookie", "sc_session=scs_forged")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    // Signing in through the page comes back here.
    let r = app
        .post("/signin")
        .form(&[
            ("email", "owner@example.com"),
            ("password", PASSWORD),
            ("next", &here),
        ])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), here);
}

#[tokio::test]
async fn home_sends_a_member_to_the_desk_of_their_workspace() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let r = app
        .get("/")
        .header("cookie", &cookies_of(&owner))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), ws_path(&owner, "/"));
    let r = get(&app, &owner, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("<h1>Dashboard</h1>"), "{}", r.body);
}

#[tokio::test]
async fn another_workspace_is_a_404_page_and_a_missing_permission_or_module_a_403() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let other = other_workspace(&app).await;
    // Not a member of the other workspace: as if it did not exist.
    let r = get(&app, &owner, &ws_path(&other, "/athletes")).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = get(&app, &owner, "/w/not-a-uuid/athletes").await;
    assert_page(&r, StatusCode::NOT_FOUND);
    // A viewer may read the roster but not create athletes.
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let r = get(&app, &viewer, &ws_path(&viewer, "/athletes")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body.contains("/athletes/new"),
        "no create link for a viewer"
    );
    let r = get(&app, &viewer, &ws_path(&viewer, "/athletes/new")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &viewer,
        &ws_path(&viewer, "/athletes/new"),
        &[("firstName", "A"), ("lastName", "B")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert_eq!(app.count("athletes").await, 0);
    // The athletes module switched off: its pages are 403 and the navigation drops it.
    disable_module(&app, owner.org_id, "athletes").await;
    let r = get(&app, &owner, &ws_path(&owner, "/athletes")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(&app, &owner, &ws_path(&owner, "/")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        !r.body.contains(&ws_path(&owner, "/athletes")),
        "{}",
        r.body
    );
}

/// Every state-changing desk route, walked from the registry: a post without the session's
/// CSRF token (as a form or as a file upload), with a forged one, or from another site is
/// refused with 403 before anything is written.
#[tokio::test]
async fn every_desk_post_needs_the_csrf_token_and_this_site() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let athlete = id(&new_athlete(
        &app,
        &owner,
        serde_json::json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await);
    let reg = api::routes::registry();
    let mut checked = 0;
    for r in reg
        .routes
        .iter()
        .filter(|r| matches!(r.auth, Auth::Desk { .. }) || r.area == "web")
    {
        if r.method == Method::GET {
            continue;
        }
        let path = r
            .path
            .replace("{ws}", &owner.org_id.to_string())
            .replace("{id}", &athlete)
            .replace("{other}", &athlete)
            .replace("{sc}", &athlete)
            .replace("{athlete}", &athlete)
            .replace("{event}", &athlete);
        let cookie = cookies_of(&owner);
        let form = |csrf: &str, site: &str| {
            app.post(&path)
                .header("cookie", &cookie)
                .header("sec-fetch-site", site)
                .form(&[("csrf", csrf), ("firstName", "X"), ("lastName", "Y")])
        };
        for (resp, what) in [
            (form("", "same-origin").send().await, "no token"),
            (form("forged", "same-origin").send().await, "a forged token"),
            (form(&owner.csrf, "cross-site").send().await, "another site"),
        ] {
            assert!(
                matches!(
                    resp.status,
                    StatusCode::FORBIDDEN | StatusCode::UNSUPPORTED_MEDIA_TYPE
                ),
                "{} {} with {what}: {}",
                r.method,
                r.path,
                resp.status
            );
        }
        // The same as a file upload without the token.
        let body = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nfirstName,lastName\nA,B\n\r\n--b--\r\n";
        let resp = app
            .post(&path)
            .header("cookie", &cookie)
            .header("sec-fetch-site", "same-origin")
            .raw("multipart/form-data; boundary=b", body.as_bytes())
            .send()
            .await;
        assert!(
            matches!(
                resp.status,
                StatusCode::FORBIDDEN | StatusCode::UNSUPPORTED_MEDIA_TYPE
            ),
            "{} {} as an upload without a token: {}",
            r.method,
            r.path,
            resp.status
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} desk posts checked");
    assert_eq!(app.count("athletes").await, 1, "nothing was written");
    assert_eq!(app.count("athlete_invites").await, 0, "nothing was written");
}

#[tokio::test]
async fn an_impersonating_admin_sees_the_banner_and_stops_from_any_desk_page() {
    let app = TestApp::new().await;
    let admin = app.signup("admin@example.com").await;
    make_admin(&app, &admin).await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .post("/api/admin/impersonate")
        .session(&admin)
        .json(serde_json::json!({ "userId": coach.user_id, "reason": "support ticket 7" }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    // The admin's browser now shows the coach's desk, with the banner and its stop button.
    let r = get(&app, &admin, &ws_path(&coach, "/athletes")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("You are acting as Coach Kai"), "{}", r.body);
    assert!(r.body.contains("action=\"/impersonation/stop\""));
    // The stop button needs the session's token, then ends it.
    let r = app
        .post("/impersonation/stop")
        .header("cookie", &cookies_of(&admin))
        .header("sec-fetch-site", "same-origin")
        .form(&[("csrf", "forged")])
        .send()
        .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = app
        .post("/impersonation/stop")
        .header("cookie", &cookies_of(&admin))
        .header("sec-fetch-site", "same-origin")
        .form(&[("csrf", &admin.csrf)])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = get(&app, &admin, &ws_path(&coach, "/athletes")).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = get(&app, &admin, &ws_path(&admin, "/")).await;
    assert!(!r.body.contains("You are acting as"), "{}", r.body);
}

#[tokio::test]
async fn another_workspaces_athlete_or_session_is_a_404_page_in_my_desk() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let other = other_workspace(&app).await;
    let theirs = id(&new_athlete(
        &app,
        &other,
        serde_json::json!({ "firstName": "Not", "lastName": "Mine" }),
    )
    .await);
    let session = id(&new_training_session(&app, &other, serde_json::json!({ "title": "Theirs", "startsAt": "2030-01-01T06:00:00Z", "endsAt": "2030-01-01T07:00:00Z" })).await);
    for path in [
        format!("/athletes/{theirs}"),
        format!("/athletes/{theirs}/edit"),
        format!("/training/{session}"),
    ] {
        let r = get(&app, &owner, &ws_path(&owner, &path)).await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, &format!("/athletes/{theirs}/delete")),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, &format!("/training/{session}/delete")),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert_eq!(app.count("athletes").await, 1, "nothing was written");
    assert_eq!(
        app.count("training_sessions").await,
        1,
        "nothing was written"
    );
}
