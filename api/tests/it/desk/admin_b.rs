//! The admin console's signup, reports, announcements and subscriptions pages (issue 39): who may open them
//! (a member gets the 403 page, as the JSON admin routes answer 403), each form's good and bad
//! posts (errors beside the fields, nothing written), the audit entries the domain writes,
//! each checked through the JSON API.

use super::{get, post};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

/// The audit entries with `action`.
async fn audited(app: &TestApp, admin: &Session, action: &str) -> Vec<serde_json::Value> {
    let r = app
        .get(&format!("/api/admin/audit?action={action}"))
        .session(admin)
        .send()
        .await;
    items(&r).clone()
}

#[tokio::test]
async fn the_signup_page_is_for_platform_admins_only() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    let r = get(&app, &coach, "/admin/signup").await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(&app, &admin, "/admin/signup").await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("href=\"/admin/signup\""),
        "in the navigation"
    );
    let none = shared::db::Id::new();
    for (path, fields) in [
        (
            "/admin/signup/mode".to_string(),
            vec![("signup_mode", "waitlist")],
        ),
        (
            "/admin/signup/invites".to_string(),
            vec![("email", "x@example.com")],
        ),
        (format!("/admin/signup/invites/{none}/revoke"), vec![]),
        (format!("/admin/signup/waitlist/{none}/invite"), vec![]),
    ] {
        let r = post(&app, &coach, &path, &fields).await;
        assert_page(&r, StatusCode::FORBIDDEN);
    }
    assert_eq!(app.count("signup_invites").await, 0);
    let s = app.get("/api/admin/settings").session(&admin).send().await;
    assert_eq!(s.json["signupMode"], "open");
}

#[tokio::test]
async fn the_signup_mode_is_set_and_a_bad_one_refused_beside_its_field() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let r = post(
        &app,
        &admin,
        "/admin/signup/mode",
        &[("signup_mode", "closed")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-signup_mode\""), "{}", r.body);
    let s = app.get("/api/admin/settings").session(&admin).send().await;
    assert_eq!(s.json["signupMode"], "open", "nothing written");
    assert!(
        audited(&app, &admin, "admin.settings_changed")
            .await
            .is_empty()
    );

    let r = post(
        &app,
        &admin,
        "/admin/signup/mode",
        &[("signup_mode", "invite-locked")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/admin/signup?done=saved");
    let s = app.get("/api/admin/settings").session(&admin).send().await;
    assert_eq!(s.json["signupMode"], "invite-locked");
    let r = get(&app, &admin, "/admin/signup?done=saved").await;
    assert!(r.body.contains("<option value=\"invite-locked\" selected>"));
    let a = audited(&app, &admin, "admin.settings_changed").await;
    assert_eq!(a[0]["data"]["signupMode"], "invite-locked");
}

#[tokio::test]
async fn signup_invites_are_created_with_their_link_once_refused_and_revoked() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let path = "/admin/signup/invites";
    for (email, days, field) in [
        ("not-an-address", "14", "email"),
        ("", "lots", "expires_in_days"),
        ("", "120", "expires_in_days"),
    ] {
        let r = post(
            &app,
            &admin,
            path,
            &[("email", email), ("expires_in_days", days)],
        )
        .await;
        assert_page(&r, StatusCode::BAD_REQUEST);
        assert!(
            r.body.contains(&format!("id=\"e-{field}\"")),
            "{field}: {}",
            r.body
        );
        assert!(
            r.body.contains(&format!("value=\"{days}\"")),
            "what was typed stays"
        );
    }
    assert_eq!(app.count("signup_invites").await, 0, "nothing written");

    let r = post(
        &app,
        &admin,
        path,
        &[("email", "guest@example.com"), ("expires_in_days", "3")],
    )
    .await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("id=\"created-invite\""), "{}", r.body);
    assert!(r.body.contains("/signup?invite="), "the link, once");
    let mail = app.wait_mail("guest@example.com").await;
    assert!(mail.link_containing("invite=").is_some());
    let api = app.get("/api/admin/invites").session(&admin).send().await;
    let inv = &items(&api)[0];
    assert_eq!(inv["email"], "guest@example.com");
    assert_eq!(inv["status"], "pending");
    let id = inv["id"].as_str().unwrap().to_string();
    assert_eq!(
        audited(&app, &admin, "admin.signup_invite_created")
            .await
            .len(),
        1
    );
    // The list shows it with its revoke button; the link is not shown again.
    let r = get(&app, &admin, "/admin/signup").await;
    assert!(
        r.body
            .contains(&format!("action=\"/admin/signup/invites/{id}/revoke\""))
    );
    assert!(!r.body.contains("/signup?invite="));

    let revoke = format!("/admin/signup/invites/{id}/revoke");
    let r = post(&app, &admin, &revoke, &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/admin/signup?done=adm.revoked");
    let api = app.get("/api/admin/invites").session(&admin).send().await;
    assert_eq!(items(&api)[0]["status"], "expired");
    assert_eq!(
        audited(&app, &admin, "admin.signup_invite_revoked")
            .await
            .len(),
        1
    );
    // Revoked already: the API's 404.
    assert_page(
        &post(&app, &admin, &revoke, &[]).await,
        StatusCode::NOT_FOUND,
    );
}

#[tokio::test]
async fn the_waitlist_is_listed_and_a_person_invited_from_it() {
    let app = TestApp::with_env(&[("SIGNUP_MODE", "waitlist")]).await;
    let admin = user_without_workspace(&app, "admin@example.com", "Admin").await;
    make_admin(&app, &admin).await;
    app.post("/api/waitlist")
        .json(json!({ "email": "surfer@example.com", "name": "Surfer Sam" }))
        .send()
        .await;
    let r = app.get("/api/admin/waitlist").session(&admin).send().await;
    let entry = items(&r)[0]["id"].as_str().unwrap().to_string();
    let r = get(&app, &admin, "/admin/signup").await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Surfer Sam"));
    let invite = format!("/admin/signup/waitlist/{entry}/invite");
    assert!(r.body.contains(&format!("action=\"{invite}\"")));

    let r = post(&app, &admin, &invite, &[]).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("id=\"created-invite\""), "{}", r.body);
    app.wait_mail("surfer@example.com").await;
    let r = app.get("/api/admin/waitlist").session(&admin).send().await;
    assert!(items(&r)[0]["invitedAt"].is_string());
    let r = get(&app, &admin, "/admin/signup").await;
    assert!(
        !r.body.contains(&format!("action=\"{invite}\"")),
        "invited once"
    );
    let none = shared::db::Id::new();
    let r = post(
        &app,
        &admin,
        &format!("/admin/signup/waitlist/{none}/invite"),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_invites_are_paged_by_25() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    for _ in 0..26 {
        let r = app
            .post("/api/admin/invites")
            .session(&admin)
            .json(json!({}))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED);
    }
    let r = get(&app, &admin, "/admin/signup").await;
    assert_eq!(r.body.matches("<tr class=\"invite\"").count(), 25);
    assert!(
        r.body
            .contains("href=\"/admin/signup?inv=25\" rel=\"next\""),
        "{}",
        r.body
    );
    let r = get(&app, &admin, "/admin/signup?inv=25").await;
    assert_eq!(r.body.matches("<tr class=\"invite\"").count(), 1);
    assert!(r.body.contains("rel=\"prev\""));
}

/// An open report of the coach's message by the athlete: (admin, coach, report id).
async fn reported(app: &TestApp) -> (Session, Session, String) {
    let w = coach_and_athlete(app).await;
    let admin = platform_admin(app).await;
    let conv = open_conversation(app, &w).await;
    let m = post_message(app, &w.coach, &conv, "rude words").await;
    let r = app
        .post(&format!(
            "/api/messages/{}/report",
            m["id"].as_str().unwrap()
        ))
        .session(&w.athlete)
        .json(json!({ "reason": "harassment", "details": "not ok" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    (admin, w.coach, r.json["id"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn reports_are_listed_for_admins_only() {
    let app = TestApp::new().await;
    let (admin, coach, rid) = reported(&app).await;
    assert_page(
        &get(&app, &coach, "/admin/reports").await,
        StatusCode::FORBIDDEN,
    );
    let r = post(
        &app,
        &coach,
        &format!("/admin/reports/{rid}"),
        &[("status", "dismissed")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(&app, &admin, "/admin/reports").await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("href=\"/admin/reports\""),
        "in the navigation"
    );
    assert!(r.body.contains("rude words"), "{}", r.body);
    assert!(r.body.contains(&format!("action=\"/admin/reports/{rid}\"")));
    let r = get(&app, &admin, "/admin/reports?status=resolved").await;
    assert!(!r.body.contains("rude words"));
    let r = get(&app, &admin, "/admin/reports?status=bogus").await;
    assert!(r.body.contains("role=\"alert\""), "the filter's error");
    let api = app
        .get("/api/admin/message-reports")
        .session(&admin)
        .send()
        .await;
    assert_eq!(items(&api)[0]["status"], "open", "nothing decided");
}

#[tokio::test]
async fn a_report_is_refused_beside_its_fields_then_resolved_removing_the_message() {
    let app = TestApp::new().await;
    let (admin, _, rid) = reported(&app).await;
    let path = format!("/admin/reports/{rid}");
    let long = "x".repeat(1001);
    for (fields, id) in [
        (
            vec![("status", "dismissed"), ("remove_message", "1")],
            "e-remove-",
        ),
        (
            vec![("status", "resolved"), ("note", long.as_str())],
            "e-note-",
        ),
    ] {
        let r = post(&app, &admin, &path, &fields).await;
        assert_page(&r, StatusCode::BAD_REQUEST);
        assert!(r.body.contains(&format!("id=\"{id}{rid}\"")), "{}", r.body);
    }
    let api = app
        .get("/api/admin/message-reports")
        .session(&admin)
        .send()
        .await;
    assert_eq!(items(&api)[0]["status"], "open", "nothing written");

    let back = "/admin/reports?status=open";
    let r = post(
        &app,
        &admin,
        &path,
        &[
            ("status", "resolved"),
            ("note", "abusive"),
            ("remove_message", "1"),
            ("back", back),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        r.location(),
        "/admin/reports?status=open&done=adm.report_resolved"
    );
    let api = app
        .get("/api/admin/message-reports")
        .session(&admin)
        .send()
        .await;
    let rep = &items(&api)[0];
    assert_eq!(rep["status"], "resolved");
    assert_eq!(rep["messageRemoved"], true);
    assert_eq!(rep["resolutionNote"], "abusive");
    assert_eq!(
        audited(&app, &admin, "admin.message_report_resolved")
            .await
            .len(),
        1
    );
    // Closed already: the API's 409 above the list.
    let r = post(&app, &admin, &path, &[("status", "dismissed")]).await;
    assert_page(&r, StatusCode::CONFLICT);
    let none = shared::db::Id::new();
    let r = post(
        &app,
        &admin,
        &format!("/admin/reports/{none}"),
        &[("status", "dismissed")],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_announcement_is_sent_as_a_job_and_bad_ones_refused_beside_their_fields() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    assert_page(
        &get(&app, &coach, "/admin/announcements").await,
        StatusCode::FORBIDDEN,
    );
    let path = "/admin/announcements";
    let r = post(&app, &coach, path, &[("title", "Hi"), ("body", "All")]).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = get(&app, &admin, path).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("href=\"/admin/announcements\""),
        "in the navigation"
    );

    let none = shared::db::Id::new().to_string();
    for (fields, field) in [
        (vec![("title", " "), ("body", "Swell")], "title"),
        (vec![("title", "Hi"), ("body", "")], "body"),
        (
            vec![("title", "Hi"), ("body", "Swell"), ("org_id", "nope")],
            "org_id",
        ),
        (
            vec![
                ("title", "Hi"),
                ("body", "Swell"),
                ("org_id", none.as_str()),
            ],
            "org_id",
        ),
    ] {
        let r = post(&app, &admin, path, &fields).await;
        assert_page(&r, StatusCode::BAD_REQUEST);
        assert!(
            r.body.contains(&format!("id=\"e-{field}\"")),
            "{field}: {}",
            r.body
        );
    }
    assert!(
        audited(&app, &admin, "admin.announcement_sent")
            .await
            .is_empty(),
        "nothing sent"
    );

    let org = coach.org_id.to_string();
    let r = post(
        &app,
        &admin,
        path,
        &[
            ("title", "Big swell"),
            ("body", "Stay safe"),
            ("org_id", org.as_str()),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/admin/announcements?done=adm.announced");
    let a = audited(&app, &admin, "admin.announcement_sent").await;
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["data"]["title"], "Big swell");
    let jobs = app
        .get("/api/admin/jobs?kind=notifications.announce")
        .session(&admin)
        .send()
        .await;
    assert_eq!(items(&jobs).len(), 1, "{}", jobs.body);
}

#[tokio::test]
async fn the_subscriptions_page_lists_paid_subscriptions_beside_grants_for_admins_only() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let admin = platform_admin(&app).await;
    let payer = app.signup("payer@example.com").await;
    let partner = app.signup("partner@example.com").await;
    paid_subscription(&app, &fake, &payer, 7).await;
    let r = app
        .post("/api/admin/subscriptions/grant")
        .session(&admin)
        .json(json!({ "orgId": partner.org_id, "plan": "partner", "seats": 20, "reason": "pilot club" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);

    let path = "/admin/subscriptions";
    assert_page(&get(&app, &payer, path).await, StatusCode::FORBIDDEN);
    let org = partner.org_id.to_string();
    let form = [
        ("org_id", org.as_str()),
        ("plan", "club"),
        ("seats", "5"),
        ("reason", "x"),
    ];
    let r = post(&app, &payer, "/admin/subscriptions/grant", &form).await;
    assert_page(&r, StatusCode::FORBIDDEN);

    let r = get(&app, &admin, path).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("href=\"/admin/subscriptions\""),
        "in the navigation"
    );
    assert_eq!(r.body.matches("<tr class=\"sub\"").count(), 2, "{}", r.body);
    for s in [&payer, &partner] {
        let o = app
            .get(&format!("/api/admin/orgs/{}", s.org_id))
            .session(&admin)
            .send()
            .await;
        // As the page escapes it.
        let name = o.json["name"].as_str().unwrap().replace('\'', "&#39;");
        assert!(
            r.body
                .contains(&format!("<a href=\"/admin/orgs/{}\">{name}</a>", s.org_id)),
            "{}",
            r.body
        );
    }
    assert!(r.body.contains(">Paid<") && r.body.contains(">Grant<"));
    assert!(r.body.contains("pilot club"));

    // The filters: a status, a workspace; a bad workspace id beside its field.
    let r = get(&app, &admin, "/admin/subscriptions?status=granted").await;
    assert_eq!(r.body.matches("<tr class=\"sub\"").count(), 1);
    assert!(r.body.contains("pilot club"));
    let r = get(&app, &admin, &format!("{path}?org={}", payer.org_id)).await;
    assert_eq!(r.body.matches("<tr class=\"sub\"").count(), 1);
    assert!(!r.body.contains("pilot club"));
    let r = get(&app, &admin, &format!("{path}?org=nope")).await;
    assert!(r.body.contains("id=\"e-org\""), "{}", r.body);
    worker.shutdown().await;
}

#[tokio::test]
async fn a_grant_from_the_form_is_listed_and_audited_and_bad_fields_refused_beside_them() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    let org = coach.org_id.to_string();
    let none = shared::db::Id::new().to_string();
    let path = "/admin/subscriptions/grant";
    let good = |k: &'static str, v: &'static str| {
        let mut f = vec![
            ("org_id", org.clone()),
            ("plan", "club".to_string()),
            ("seats", "12".to_string()),
            ("until", String::new()),
            ("reason", "partner club".to_string()),
        ];
        for x in &mut f {
            if x.0 == k {
                x.1 = v.to_string();
            }
        }
        f
    };
    let mut bad = vec![
        (good("seats", "0"), "seats"),
        (good("seats", "many"), "seats"),
        (good("plan", " "), "plan"),
        (good("reason", ""), "reason"),
        (good("until", "2001-01-01"), "until"),
        (good("until", "soon"), "until"),
        (good("org_id", "nope"), "org_id"),
    ];
    let mut unknown = good("org_id", "");
    unknown[0].1 = none.clone();
    bad.push((unknown, "org_id"));
    for (fields, field) in &bad {
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = post(&app, &admin, path, &fields).await;
        assert_page(&r, StatusCode::BAD_REQUEST);
        assert!(
            r.body.contains(&format!("id=\"e-{field}\"")),
            "{field}: {}",
            r.body
        );
    }
    assert_eq!(app.count("subscriptions").await, 0, "nothing written");
    assert!(
        audited(&app, &admin, "admin.subscription_granted")
            .await
            .is_empty()
    );

    let fields = good("until", "2099-06-30");
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = post(&app, &admin, path, &fields).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/admin/subscriptions?done=adm.granted");
    let a = audited(&app, &admin, "admin.subscription_granted").await;
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["data"]["seats"], 12);
    let r = app
        .get(&format!("/api/admin/subscriptions?orgId={org}"))
        .session(&admin)
        .send()
        .await;
    let rows = items(&r);
    assert_eq!(rows.len(), 1, "{}", r.body);
    assert_eq!(rows[0]["source"], "grant");
    assert_eq!(rows[0]["plan"], "club");
    assert_eq!(rows[0]["seats"], 12);
    assert!(
        rows[0]["currentPeriodEnd"]
            .as_str()
            .unwrap()
            .starts_with("2099-06-30T23:59"),
        "{}",
        r.body
    );

    let r = get(&app, &admin, "/admin/subscriptions?done=adm.granted").await;
    assert!(r.body.contains("The grant is made"), "{}", r.body);
    assert_eq!(r.body.matches("<tr class=\"sub\"").count(), 1);
    assert!(r.body.contains("2099-06-30 23:59"), "{}", r.body);
}

#[tokio::test]
async fn the_subscriptions_are_paged_by_25() {
    let app = TestApp::new().await;
    let admin = platform_admin(&app).await;
    let coach = app.signup("coach@example.com").await;
    for _ in 0..26 {
        let r = app
            .post("/api/admin/subscriptions/grant")
            .session(&admin)
            .json(json!({ "orgId": coach.org_id, "plan": "club", "seats": 3, "reason": "pilot" }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED);
    }
    let r = get(&app, &admin, "/admin/subscriptions?status=granted").await;
    assert_eq!(r.body.matches("<tr class=\"sub\"").count(), 25);
    assert!(
        r.body
            .contains("href=\"/admin/subscriptions?status=granted&#38;offset=25\" rel=\"next\""),
        "{}",
        r.body
    );
    let r = get(
        &app,
        &admin,
        "/admin/subscriptions?status=granted&offset=25",
    )
    .await;
    assert_eq!(r.body.matches("<tr class=\"sub\"").count(), 1);
    assert!(r.body.contains("rel=\"prev\""));
}
