//! A person's notification settings at `/me/notifications` (issue 41): sign in first, the
//! form saves through the same operation as `PUT /api/notifications/preferences` (checked
//! through the API), an invalid quiet hour is a field error with nothing written, the mail's
//! unsubscribe shows on the page as a box unticked, and the service worker and the page's
//! module are served as script with the pages' headers.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};

const PAGE: &str = "/me/notifications";

/// Whether the page's box for `category` and `channel` is ticked.
fn ticked(body: &str, category: &str, channel: &str) -> bool {
    let id = format!("id=\"c-{category}-{channel}\"");
    let at = body
        .find(&id)
        .unwrap_or_else(|| panic!("no box {category}.{channel}: {body}"));
    let tag = &body[at..at + body[at..].find('>').unwrap()];
    tag.contains(" checked")
}

fn channels(prefs: &Value, category: &str) -> (bool, bool, bool) {
    let c = prefs["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == category)
        .unwrap_or_else(|| panic!("no {category}: {prefs}"));
    (
        c["email"].as_bool().unwrap(),
        c["push"].as_bool().unwrap(),
        c["sms"].as_bool().unwrap(),
    )
}

async fn preferences(app: &TestApp, s: &Session) -> Value {
    let r = app
        .get("/api/notifications/preferences")
        .session(s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.json
}

#[tokio::test]
async fn without_a_session_the_settings_page_sends_the_browser_to_sign_in_and_back() {
    let app = TestApp::new().await;
    let r = app.get(PAGE).send().await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/signin?next=%2Fme%2Fnotifications");
    // A post without a session saves nothing either.
    let r = app
        .post(PAGE)
        .header("sec-fetch-site", "same-origin")
        .form(&[("csrf", "x"), ("timeZone", "UTC")])
        .send()
        .await;
    assert_ne!(r.status, StatusCode::OK);
    assert_eq!(app.count("notification_settings").await, 0);
}

#[tokio::test]
async fn channels_and_quiet_hours_saved_through_the_form_show_in_the_api() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    // A member finds the page from the desk's header.
    let desk = get(&app, &coach, &ws_path(&coach, "/")).await;
    assert!(
        desk.body.contains("href=\"/me/notifications\""),
        "{}",
        desk.body
    );
    let r = get(&app, &coach, PAGE).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("<h1>Notifications</h1>"), "{}", r.body);
    assert!(ticked(&r.body, "message", "email") && ticked(&r.body, "message", "push"));
    assert!(!ticked(&r.body, "message", "sms"));
    // No verified phone: SMS is shown disabled, with why.
    assert!(
        r.body
            .contains("SMS needs a verified phone number: add one in the phone app"),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("data-push data-csrf="),
        "the browser's control"
    );

    let r = post(
        &app,
        &coach,
        PAGE,
        &[
            ("timeZone", "Europe/Lisbon"),
            ("quietHours.start", "22:00"),
            ("quietHours.end", "07:00"),
            ("category", "all"),
            ("all.email", "on"),
            ("all.push", "on"),
            ("category", "message"),
            ("message.push", "on"),
            // Without a verified phone an SMS box cannot turn SMS on.
            ("message.sms", "on"),
            ("category", "announcement"),
            ("announcement.email", "on"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), "/me/notifications?done=saved");

    let p = preferences(&app, &coach).await;
    assert_eq!(p["timeZone"], "Europe/Lisbon");
    assert_eq!(p["quietHours"], json!({ "start": "22:00", "end": "07:00" }));
    assert_eq!(channels(&p, "message"), (false, true, false));
    assert_eq!(channels(&p, "announcement"), (true, false, false));
    assert_eq!(channels(&p, "all"), (true, true, false));

    let r = get(&app, &coach, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Saved."), "{}", r.body);
    assert!(!ticked(&r.body, "message", "email"));
    assert!(ticked(&r.body, "message", "push"));
    assert!(!ticked(&r.body, "announcement", "push"));
    assert!(r.body.contains("<option selected>Europe/Lisbon</option>"));
    assert!(r.body.contains("value=\"22:00\"") && r.body.contains("value=\"07:00\""));

    // Both times emptied: no quiet hours.
    let r = post(
        &app,
        &coach,
        PAGE,
        &[
            ("timeZone", "Europe/Lisbon"),
            ("quietHours.start", ""),
            ("quietHours.end", ""),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let p = preferences(&app, &coach).await;
    assert!(p["quietHours"].is_null(), "{p}");
    assert_eq!(channels(&p, "message"), (false, true, false), "unchanged");
}

#[tokio::test]
async fn invalid_quiet_hours_show_the_field_error_and_write_nothing() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    for (start, end, field) in [
        ("25:00", "07:00", "quietHours.start"),
        ("22:00", "", "quietHours.end"),
        ("07:00", "07:00", "quietHours.end"),
    ] {
        let r = post(
            &app,
            &coach,
            PAGE,
            &[
                ("timeZone", "Europe/Lisbon"),
                ("quietHours.start", start),
                ("quietHours.end", end),
                ("category", "message"),
                ("message.push", "on"),
            ],
        )
        .await;
        assert_page(&r, StatusCode::BAD_REQUEST);
        assert!(
            r.body.contains("Please correct the fields below."),
            "{}",
            r.body
        );
        assert!(
            r.body.contains(&format!(
                "aria-invalid=\"true\" aria-describedby=\"e-{field}\""
            )) && r
                .body
                .contains(&format!("<p class=\"err\" id=\"e-{field}\">")),
            "{start}–{end}: {}",
            r.body
        );
        // What was typed stays in the form.
        assert!(!ticked(&r.body, "message", "email"));
        assert_eq!(r.headers["hx-replace-url"], PAGE);
    }
    let r = post(&app, &coach, PAGE, &[("timeZone", "Mars/Olympus")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-timeZone\""), "{}", r.body);
    assert_eq!(app.count("notification_settings").await, 0);
    assert_eq!(app.count("notification_choices").await, 0);
}

#[tokio::test]
async fn an_unsubscribe_from_a_mail_shows_unticked_on_the_settings_page() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let athlete = &ca.athlete;
    let keys = shared::crypto::Keys::new(app.state.cfg.secret_key.expose());
    let link = shared::domain::notifications::unsubscribe::page_link(
        &keys,
        "http://app.test",
        athlete.user_id,
        "announcement",
    );
    let path = link.strip_prefix("http://app.test").unwrap();
    // The mail's page offers the settings, and its button unsubscribes (no session needed).
    let r = app.get(path).send().await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body
            .contains("<a href=\"/me/notifications\">Choose which notifications you get</a>"),
        "{}",
        r.body
    );
    let r = app
        .post(path)
        .header("sec-fetch-site", "none")
        .form(&[])
        .send()
        .await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("/me/notifications"), "{}", r.body);

    // The athlete's home links to the settings, which show announcements by email off.
    let home = get(&app, athlete, "/").await;
    assert!(
        home.body.contains("href=\"/me/notifications\""),
        "{}",
        home.body
    );
    let r = get(&app, athlete, PAGE).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("aria-current=\"page\">Notifications</a>"),
        "{}",
        r.body
    );
    assert!(!ticked(&r.body, "announcement", "email"), "{}", r.body);
    assert!(ticked(&r.body, "announcement", "push"));
    assert!(ticked(&r.body, "message", "email"));
    assert_eq!(
        channels(&preferences(&app, athlete).await, "announcement"),
        (false, true, false)
    );

    // Ticking it again on the page subscribes again.
    let r = post(
        &app,
        athlete,
        PAGE,
        &[
            ("timeZone", "UTC"),
            ("category", "announcement"),
            ("announcement.email", "on"),
            ("announcement.push", "on"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = app.get(path).send().await;
    assert!(
        !r.body.contains("already unsubscribed"),
        "the mail's page agrees: {}",
        r.body
    );
}

#[tokio::test]
async fn the_service_worker_and_the_push_module_are_script_with_the_assets_headers() {
    let app = TestApp::new().await;
    for path in ["/sw.js", "/assets/js/push.mjs"] {
        let r = app.get(path).send().await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert_eq!(
            r.headers["content-type"], "text/javascript; charset=utf-8",
            "{path}"
        );
        assert_eq!(r.headers["x-content-type-options"], "nosniff", "{path}");
        assert!(r.headers.get("set-cookie").is_none());
    }
    let sw = app.get("/sw.js").send().await;
    let csp = sw.headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe"),
        "{csp}"
    );
    for handler in [
        "\"push\"",
        "\"notificationclick\"",
        "showNotification",
        "openWindow",
    ] {
        assert!(sw.body.contains(handler), "the worker handles {handler}");
    }
    // Served from the root: its scope is the whole site without Service-Worker-Allowed.
    assert!(sw.headers.get("service-worker-allowed").is_none());
    let gz = app
        .get("/sw.js")
        .header("accept-encoding", "gzip")
        .send()
        .await;
    assert_eq!(gz.headers["content-encoding"], "gzip");
}
