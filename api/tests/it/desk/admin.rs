//! The platform admin console in the browser (issue 39): who may open it (an admin's web
//! session; a member gets a 403 page as the JSON admin routes answer 403), the overview's
//! counts and live activity, workspaces and users with search and their pages, the seat cap
//! override, impersonation with its banner on every kind of page, and the jobs view's retry
//! and cancel, each checked through the JSON API.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use jobs::diagnostics::Probe;
use serde_json::json;
use shared::job::Owner;

/// Every console page a GET opens, with `id` in the paths that take one.
fn console_pages(org: &str, user: &str) -> Vec<String> {
    vec![
        "/admin".into(),
        "/admin/orgs".into(),
        format!("/admin/orgs/{org}"),
        "/admin/users".into(),
        format!("/admin/users/{user}"),
        "/admin/jobs".into(),
    ]
}

#[tokio::test]
async fn the_console_is_for_platform_admins_only() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    let (org, user) = (coach.org_id.to_string(), coach.user_id.to_string());
    for path in console_pages(&org, &user) {
        // No session: the sign-in page, coming back here.
        let r = app.get(&path).send().await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{path}");
        assert!(r.location().starts_with("/signin?next="), "{path}");
        // A member who is no platform admin: a 403 page, as the JSON route's admin_required.
        let r = get(&app, &coach, &path).await;
        assert_page(&r, StatusCode::FORBIDDEN);
        let r = get(&app, &admin, &path).await;
        assert_page(&r, StatusCode::OK);
        assert!(
            r.body.contains("href=\"/admin/jobs\""),
            "{path}: its navigation"
        );
    }
    // A member's posts are refused before anything is done.
    let r = post(
        &app,
        &coach,
        &format!("/admin/users/{user}/impersonate"),
        &[("reason", "x")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &coach,
        &format!("/admin/orgs/{org}/seats"),
        &[("seat_cap", "9")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = app
        .get(&format!("/api/admin/orgs/{org}"))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["seatCapOverride"], serde_json::Value::Null);
    assert_eq!(app.count("impersonations").await, 0);
    // An admin's post without the session's token is refused too.
    let r = app
        .post(&format!("/admin/orgs/{org}/seats"))
        .header("cookie", &cookies_of(&admin))
        .header("sec-fetch-site", "same-origin")
        .form(&[("csrf", "forged"), ("seat_cap", "9")])
        .send()
        .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    // Unknown ids are 404 pages; a malformed one a 404 as on every desk page.
    let none = shared::db::Id::new();
    for path in [
        format!("/admin/orgs/{none}"),
        format!("/admin/users/{none}"),
    ] {
        assert_page(&get(&app, &admin, &path).await, StatusCode::NOT_FOUND);
    }
    let r = get(&app, &admin, "/admin/users/nope").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_overview_shows_the_counts_and_the_latest_activity() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    let r = app
        .post("/api/activity/log")
        .session(&coach)
        .json(json!({ "events": [{ "kind": "page_view", "path": "/athletes/special" }] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let r = get(&app, &admin, "/admin").await;
    assert_page(&r, StatusCode::OK);
    let m = app.get("/api/admin/metrics").session(&admin).send().await;
    assert!(
        r.body
            .contains(&format!("<dt>Users</dt><dd>{}</dd>", m.json["users"])),
        "{}",
        r.body
    );
    assert!(r.body.contains(&format!(
        "<dt>Workspaces</dt><dd>{}</dd>",
        m.json["workspaces"]
    )));
    assert!(r.body.contains("/athletes/special"), "the event's page");
    assert!(
        r.body
            .contains(&format!("href=\"/admin/users/{}\"", coach.user_id)),
        "its person"
    );
    assert!(
        r.body.contains("hx-trigger=\"every 5s\""),
        "the live part is polled"
    );
}

#[tokio::test]
async fn workspaces_and_users_are_searched_paged_and_opened() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    for i in 0..26 {
        let email = format!("surfer{i:02}@example.com");
        user_without_workspace(&app, &email, "A Surfer").await;
    }
    let r = get(&app, &admin, "/admin/users?q=coach%40").await;
    assert_page(&r, StatusCode::OK);
    assert_eq!(
        r.body.matches("<tr class=\"user\">").count(),
        1,
        "{}",
        r.body
    );
    assert!(r.body.contains("coach@example.com"));
    // 28 users: a full page and a next link that keeps the search.
    let r = get(&app, &admin, "/admin/users?q=example").await;
    assert_eq!(r.body.matches("<tr class=\"user\">").count(), 25);
    assert!(
        r.body.contains("q=example&#38;offset=25\" rel=\"next\""),
        "{}",
        r.body
    );
    let r = get(&app, &admin, "/admin/users?q=example&offset=25").await;
    assert_eq!(r.body.matches("<tr class=\"user\">").count(), 3);
    assert!(r.body.contains("rel=\"prev\""));

    let orgs = app.get("/api/admin/orgs").session(&admin).send().await;
    let first = items(&orgs)[0]["id"].as_str().unwrap().to_string();
    let r = get(&app, &admin, "/admin/orgs").await;
    assert_eq!(r.body.matches("<tr class=\"org\">").count(), 2);
    assert!(r.body.contains(&format!("href=\"/admin/orgs/{first}\"")));
    let r = get(&app, &admin, "/admin/orgs?q=no-such-club").await;
    assert!(r.body.contains("Nothing here."));

    // A user's page lists their workspaces; the workspace's lists its members.
    let r = get(&app, &admin, &format!("/admin/users/{}", coach.user_id)).await;
    assert!(
        r.body
            .contains(&format!("href=\"/admin/orgs/{}\"", coach.org_id))
    );
    assert!(
        r.body.contains("action=\"/admin/users/"),
        "the impersonation form"
    );
    let r = get(&app, &admin, &format!("/admin/orgs/{}", coach.org_id)).await;
    assert!(
        r.body
            .contains(&format!("href=\"/admin/users/{}\"", coach.user_id))
    );
    assert!(r.body.contains("coach@example.com"));
    // Another admin cannot be impersonated: no form on their page.
    let r = get(&app, &admin, &format!("/admin/users/{}", admin.user_id)).await;
    assert!(!r.body.contains("/impersonate\""));
}

#[tokio::test]
async fn the_seat_cap_override_is_set_refused_with_its_error_and_cleared() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    let path = format!("/admin/orgs/{}/seats", coach.org_id);
    let api = format!("/api/admin/orgs/{}", coach.org_id);
    for bad in ["lots", "-3"] {
        let r = post(&app, &admin, &path, &[("seat_cap", bad)]).await;
        assert_page(&r, StatusCode::BAD_REQUEST);
        assert!(
            r.body.contains("id=\"e-seat_cap\""),
            "{bad}: beside the field: {}",
            r.body
        );
        assert!(
            r.body.contains(&format!("value=\"{bad}\"")),
            "what was typed stays"
        );
        let w = app.get(&api).session(&admin).send().await;
        assert_eq!(
            w.json["seatCapOverride"],
            serde_json::Value::Null,
            "nothing written"
        );
    }
    let r = post(&app, &admin, &path, &[("seat_cap", "12")]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        r.location(),
        format!("/admin/orgs/{}?done=saved", coach.org_id)
    );
    let w = app.get(&api).session(&admin).send().await;
    assert_eq!(w.json["seatCapOverride"], 12);
    assert_eq!(w.json["seatCap"], 12);
    let r = post(&app, &admin, &path, &[("seat_cap", " ")]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let w = app.get(&api).session(&admin).send().await;
    assert_eq!(w.json["seatCapOverride"], serde_json::Value::Null);
    let none = shared::db::Id::new();
    let r = post(
        &app,
        &admin,
        &format!("/admin/orgs/{none}/seats"),
        &[("seat_cap", "3")],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn impersonation_starts_from_a_users_page_and_its_banner_is_on_every_page() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    let start = format!("/admin/users/{}/impersonate", coach.user_id);
    // Without a reason: the field's error on the user's page, nothing started.
    let r = post(&app, &admin, &start, &[("reason", "  ")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-reason\""), "{}", r.body);
    // Another admin: refused as the API refuses it.
    let other = app.signup("other-admin@example.com").await;
    make_admin(&app, &other).await;
    let r = post(
        &app,
        &admin,
        &format!("/admin/users/{}/impersonate", other.user_id),
        &[("reason", "t")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(r.body.contains("cannot be impersonated"), "{}", r.body);
    assert_eq!(app.count("impersonations").await, 0);

    let r = post(&app, &admin, &start, &[("reason", "support ticket 42")]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/");
    // Home takes the browser to the coach's desk, with the banner.
    let r = get(&app, &admin, "/").await;
    assert_eq!(r.location(), ws_path(&coach, "/"));
    let banner = "action=\"/impersonation/stop\"";
    for path in [
        ws_path(&coach, "/"),
        "/me/notifications".into(),
        "/admin".into(),
        "/admin/jobs".into(),
        ws_path(&coach, "/settings/integrations"),
        // A plain page (no desk layout).
        "/auth/verified".into(),
    ] {
        let r = get(&app, &admin, &path).await;
        assert!(r.status.is_success(), "{path}: {}", r.body);
        assert!(r.body.contains(banner), "{path}: the banner");
        assert!(r.body.contains("You are acting as Coach Kai"), "{path}");
    }
    // The console still acts as the admin (its pages open, the JSON admin routes answer).
    let r = app
        .get("/api/admin/audit?action=admin.impersonation_started")
        .session(&admin)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1, "{}", r.body);
    assert_eq!(items(&r)[0]["data"]["reason"], "support ticket 42");
    // Stop: back at the person's page in the console, the banner gone everywhere.
    let r = post(&app, &admin, "/impersonation/stop", &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), format!("/admin/users/{}", coach.user_id));
    for path in ["/admin", "/me/notifications"] {
        let r = get(&app, &admin, path).await;
        assert!(!r.body.contains(banner), "{path}");
    }
    assert_page(
        &get(&app, &admin, &ws_path(&coach, "/")).await,
        StatusCode::NOT_FOUND,
    );
}

#[tokio::test]
async fn an_impersonated_athlete_sees_the_banner_on_their_own_pages() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let athlete = user_without_workspace(&app, "kai@example.com", "Kai Lenny").await;
    let r = post(
        &app,
        &admin,
        &format!("/admin/users/{}/impersonate", athlete.user_id),
        &[("reason", "ticket 9")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    for path in ["/", "/me/messages", "/me/reviews"] {
        let r = get(&app, &admin, path).await;
        assert_page(&r, StatusCode::OK);
        assert!(
            r.body.contains("You are acting as Kai Lenny"),
            "{path}: {}",
            r.body
        );
        assert!(r.body.contains("action=\"/impersonation/stop\""), "{path}");
    }
}

#[tokio::test]
async fn the_jobs_view_retries_a_failed_job_and_cancels_a_queued_one() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let failing = Probe {
        fail_permanently: true,
        ..Default::default()
    };
    let failed = enqueue_probe(&app, failing, Owner::default()).await.id;
    let w = app.start_worker(&[]).await;
    app.wait_job(failed, |p| p.status == "failed").await;
    w.shutdown().await;
    let queued = enqueue_probe(
        &app,
        Probe {
            marker: Some("q".into()),
            ..Default::default()
        },
        owner_of(&admin),
    )
    .await
    .id;

    let r = get(&app, &admin, "/admin/jobs").await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body
            .contains(&format!("action=\"/admin/jobs/{failed}/retry\"")),
        "{}",
        r.body
    );
    assert!(
        !r.body
            .contains(&format!("action=\"/admin/jobs/{failed}/cancel\""))
    );
    assert!(
        r.body
            .contains(&format!("action=\"/admin/jobs/{queued}/cancel\""))
    );
    assert!(
        r.body
            .contains("<tr class=\"queue\"><th scope=\"row\">default</th>")
    );
    // Filters as the API's: by status, and a bad one said on the page.
    let r = get(&app, &admin, "/admin/jobs?status=failed").await;
    assert!(r.body.contains(&format!("id=\"job-{failed}\"")));
    assert!(!r.body.contains(&format!("id=\"job-{queued}\"")));
    let r = get(&app, &admin, "/admin/jobs?status=exploded").await;
    assert!(r.body.contains("role=\"alert\""), "{}", r.body);

    // Cancel the queued job, back on the filtered list with the note.
    let back = "/admin/jobs?status=queued";
    let r = post(
        &app,
        &admin,
        &format!("/admin/jobs/{queued}/cancel"),
        &[("back", back)],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/admin/jobs?status=queued&done=adm.cancelled");
    let j = app
        .get(&format!("/api/jobs/{queued}"))
        .session(&admin)
        .send()
        .await;
    assert_eq!(j.json["status"], "cancelled");
    // Cancelling again: the API's 409 above the list.
    let r = post(&app, &admin, &format!("/admin/jobs/{queued}/cancel"), &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("role=\"alert\""));
    // Retry the failed one: queued again, audited.
    let r = post(
        &app,
        &admin,
        &format!("/admin/jobs/{failed}/retry"),
        &[("back", "https://evil.example/")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        r.location(),
        "/admin/jobs?done=adm.retried",
        "only a console address"
    );
    let j = app
        .get(&format!("/api/jobs/{failed}"))
        .session(&admin)
        .send()
        .await;
    assert_eq!(j.json["status"], "queued");
    let a = app
        .get("/api/admin/audit?action=job.retried")
        .session(&admin)
        .send()
        .await;
    assert_eq!(items(&a).len(), 1);
    // A queued job cannot be retried: 409 on the page.
    let r = post(&app, &admin, &format!("/admin/jobs/{failed}/retry"), &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    let none = shared::db::Id::new();
    assert_page(
        &post(&app, &admin, &format!("/admin/jobs/{none}/retry"), &[]).await,
        StatusCode::NOT_FOUND,
    );
}
