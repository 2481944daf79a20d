//! Each person's choice: channels per category, quiet hours in their time zone, SMS for those
//! who verified a phone and chose it, STOP honoured; the one-click unsubscribe lands in the
//! same settings.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

const PHONE: &str = "+351912345678";

fn channels<'a>(r: &'a Resp, category: &str) -> &'a serde_json::Value {
    r.json["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == category)
        .unwrap_or_else(|| panic!("no {category}: {}", r.body))
}

#[tokio::test]
async fn preferences_default_set_and_validate_and_unsubscribe_shows_in_them() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;

    let r = app
        .get("/api/notifications/preferences")
        .session(&kai)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["timeZone"], "UTC");
    assert!(r.json["quietHours"].is_null());
    assert_eq!(r.json["smsPhone"], serde_json::Value::Null);
    let m = channels(&r, "message");
    assert_eq!(
        (m["email"].clone(), m["push"].clone(), m["sms"].clone()),
        (json!(true), json!(true), json!(false))
    );

    for (body, field) in [
        (json!({ "timeZone": "Mars/Olympus" }), "timeZone"),
        (
            json!({ "quietHours": { "start": "25:00", "end": "07:00" } }),
            "quietHours.start",
        ),
        (
            json!({ "quietHours": { "start": "07:00", "end": "07:00" } }),
            "quietHours.end",
        ),
        (
            json!({ "categories": [{ "category": "Bad Name", "email": true, "push": true, "sms": true }] }),
            "categories[0].category",
        ),
    ] {
        let r = app
            .req(Method::PUT, "/api/notifications/preferences")
            .session(&kai)
            .json(body)
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.fields(), [field], "{}", r.body);
    }
    assert_eq!(app.count("notification_settings").await, 0);
    assert_eq!(app.count("notification_choices").await, 0);

    let r = app
        .req(Method::PUT, "/api/notifications/preferences")
        .session(&kai)
        .json(json!({
            "timeZone": "Europe/Lisbon",
            "quietHours": { "start": "22:00", "end": "07:00" },
            "categories": [{ "category": "message", "email": false, "push": true, "sms": true }],
        }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["timeZone"], "Europe/Lisbon");
    assert_eq!(
        r.json["quietHours"],
        json!({ "start": "22:00", "end": "07:00" })
    );
    let m = channels(&r, "message");
    assert_eq!(
        (m["email"].clone(), m["sms"].clone()),
        (json!(false), json!(true))
    );
    // Only what was sent changes: quiet hours stay, `null` removes them.
    let r = app
        .req(Method::PUT, "/api/notifications/preferences")
        .session(&kai)
        .json(json!({ "quietHours": null }))
        .send()
        .await;
    assert!(r.json["quietHours"].is_null(), "{}", r.body);
    assert_eq!(r.json["timeZone"], "Europe/Lisbon");
    assert_eq!(channels(&r, "message")["sms"], true);

    // The mail's one-click unsubscribe is a choice in the same settings.
    let keys = shared::crypto::Keys::new(app.state.cfg.secret_key.expose());
    let link = shared::domain::notifications::unsubscribe::link(
        &keys,
        "http://app.test",
        kai.user_id,
        "announcement",
    );
    let path = link.strip_prefix("http://app.test").unwrap();
    let r = app.post(path).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app
        .get("/api/notifications/preferences")
        .session(&kai)
        .send()
        .await;
    assert_eq!(channels(&r, "announcement")["email"], false);
    assert_eq!(channels(&r, "announcement")["push"], true);
}

#[tokio::test]
async fn fan_out_follows_choices_and_sms_goes_to_the_verified_phone_until_stop() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    register_expo(&app, &kai, "ExponentPushToken[kai]").await;

    // Defaults: push and email; SMS is never assumed.
    let nid = notify_one(&app, kai.user_id, "message.new", &["email", "push", "sms"]).await;
    let chs: Vec<String> = deliveries(&app, &nid)
        .await
        .into_iter()
        .map(|d| d.0)
        .collect();
    assert_eq!(chs, ["email", "push"]);

    // Messages by SMS and push, not email.
    let r = app
        .req(Method::PUT, "/api/notifications/preferences")
        .session(&kai)
        .json(json!({ "categories": [{ "category": "message", "email": false, "push": true, "sms": true }] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    // Email turned off: skipped, and the record says why. SMS chosen, but no verified phone
    // yet: skipped, said so.
    let nid = notify_one(&app, kai.user_id, "message.new", &["email", "push", "sms"]).await;
    let d = deliveries(&app, &nid).await;
    let chs: Vec<&str> = d.iter().map(|d| d.0.as_str()).collect();
    assert_eq!(chs, ["email", "push", "sms"]);
    assert_eq!(d[0].1, "skipped");
    assert_eq!(
        d[0].2.as_deref(),
        Some("unsubscribed from message by email")
    );
    assert_eq!(d[1].1, "sent");
    assert_eq!(d[2].1, "skipped");
    assert_eq!(d[2].2.as_deref(), Some("no verified phone"));

    give_verified_phone(&app, kai.user_id, PHONE).await;
    let nid = notify_one(&app, kai.user_id, "message.new", &["sms"]).await;
    let d = delivery(&app, &nid, "sms").await;
    assert_eq!(d.status.as_str(), "sent", "{d:?}");
    let sent = app.twilio.messages();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["To"], PHONE);
    assert_eq!(sent[0]["From"], TWILIO_FROM);
    assert!(
        sent[0]["Body"].starts_with("Swell alert: Head high"),
        "{:?}",
        sent[0]
    );
    assert!(
        sent[0]["Body"].ends_with("Reply STOP to opt out."),
        "{:?}",
        sent[0]
    );

    // The number replied STOP (Twilio refuses it, 21610): recorded, skipped, and the next one
    // is not even tried.
    app.twilio.opt_out(PHONE);
    let nid = notify_one(&app, kai.user_id, "message.new", &["sms"]).await;
    let d = delivery(&app, &nid, "sms").await;
    assert_eq!(d.status.as_str(), "skipped", "{d:?}");
    assert!(d.last_error.unwrap().contains("21610"));
    assert_eq!(app.count("sms_opt_outs").await, 1);
    let nid = notify_one(&app, kai.user_id, "message.new", &["sms"]).await;
    let d = delivery(&app, &nid, "sms").await;
    assert_eq!(d.last_error.as_deref(), Some("the number replied STOP"));
    assert_eq!(app.twilio.messages().len(), 1);
    worker.shutdown().await;
}

#[tokio::test]
async fn quiet_hours_hold_push_and_sms_until_they_end_in_the_persons_time_zone() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    register_expo(&app, &kai, "ExponentPushToken[kai]").await;
    // Quiet from an hour ago to an hour ahead, in Honolulu's time (UTC-10, no DST).
    let now = chrono::Utc::now() - chrono::Duration::hours(10);
    let at = |h: i64| {
        (now + chrono::Duration::hours(h))
            .format("%H:%M")
            .to_string()
    };
    let r = app
        .req(Method::PUT, "/api/notifications/preferences")
        .session(&kai)
        .json(json!({ "timeZone": "Pacific/Honolulu", "quietHours": { "start": at(-1), "end": at(1) } }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    let nid = notify_one(&app, kai.user_id, "message.new", &["email", "push"]).await;
    let push = delivery(&app, &nid, "push").await;
    assert_eq!(push.status.as_str(), "pending", "{push:?}");
    assert_eq!(push.attempts, 0, "waiting spends no attempt");
    assert!(push.last_error.unwrap().starts_with("quiet hours until"));
    let wait = push.next_attempt_at.0 - chrono::Utc::now();
    assert!(
        wait > chrono::Duration::minutes(58) && wait <= chrono::Duration::minutes(61),
        "until the end of the quiet hours: {wait}"
    );
    assert!(app.expo.delivered().is_empty());
    // Email is not held.
    assert_eq!(delivery(&app, &nid, "email").await.status.as_str(), "sent");

    // The due task leaves it alone until then; once the hours end it goes out.
    let r = app
        .post("/api/cron/notifications-due")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    job_done(&app, &r).await;
    assert_eq!(
        delivery(&app, &nid, "push").await.status.as_str(),
        "pending"
    );
    app.req(Method::PUT, "/api/notifications/preferences")
        .session(&kai)
        .json(json!({ "quietHours": null }))
        .send()
        .await;
    {
        // The hour passes.
        let mut c = app.state.db.acquire().await.unwrap();
        let id = push.id;
        shared::repo::notifications::defer(&mut c, id, "test", shared::db::Ts::now())
            .await
            .unwrap();
    }
    let r = app
        .post("/api/cron/notifications-due")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    job_done(&app, &r).await;
    assert_eq!(delivery(&app, &nid, "push").await.status.as_str(), "sent");
    assert_eq!(app.expo.delivered().len(), 1);
    worker.shutdown().await;
}
