//! The sender's view of their notifications: counts per channel, and each recipient's
//! deliveries per channel and device with masked tokens; only the sender, only in the
//! workspace.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use shared::db::Id;

const PHONE: &str = "+351912345678";
const EXPO: &str = "ExponentPushToken[mia-phone-0001]";

/// Sets `s`'s channels for the `session` category.
async fn choose(app: &TestApp, s: &Session, email: bool, sms: bool) {
    let r = app
        .req(Method::PUT, "/api/notifications/preferences")
        .session(s)
        .json(json!({ "categories": [{ "category": "session", "email": email, "push": true, "sms": sms }] }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
}

fn counts<'a>(send: &'a Value, channel: &str) -> &'a Value {
    send["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == channel)
        .unwrap_or_else(|| panic!("no {channel} in {send}"))
}

#[tokio::test]
async fn senders_see_counts_per_channel_and_masked_devices_of_their_own_sends_only() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;
    let ben = app.signup("ben@example.com").await;
    let org = w.coach.org_id;

    // Mia: a phone (Expo) and a browser, email, and SMS to a number that replied STOP.
    register_expo(&app, &w.athlete, EXPO).await;
    let browser = subscribe_browser(&app, &w.athlete).await;
    choose(&app, &w.athlete, true, true).await;
    give_verified_phone(&app, w.athlete.user_id, PHONE).await;
    app.twilio.opt_out(PHONE);
    // Ben: no push device, and email off for the category.
    choose(&app, &ben, false, false).await;

    // senderId must be a member of orgId; nothing is written otherwise.
    let base = json!({ "userIds": [w.athlete.user_id, ben.user_id], "kind": "session.reminder",
                       "title": "Session at 7", "body": "Bring the 6'2\"" });
    let with = |extra: Value| {
        let mut b = base.clone();
        b.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        b
    };
    for bad in [
        json!({ "senderId": w.coach.user_id }),
        json!({ "senderId": w.outsider.user_id, "orgId": org }),
    ] {
        let r = send_notification(&app, with(bad)).await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.fields(), ["senderId"]);
    }
    assert_eq!(app.count("notifications").await, 0);
    assert_eq!(app.count("notification_sends").await, 0);

    let r = send_notification(
        &app,
        with(json!({ "senderId": w.coach.user_id, "orgId": org })),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(job_done(&app, &r).await.status, "succeeded");

    let r = app
        .get("/api/notifications/sent")
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1, "{}", r.body);
    let send = &items(&r)[0];
    assert_eq!(send["kind"], "session.reminder");
    assert_eq!(send["recipients"], 2);
    let zero = json!({ "pending": 0, "sent": 0, "failed": 0, "skippedByPreference": 0, "optedOut": 0, "skipped": 0 });
    let expect = |channel: &str, set: Value| {
        let mut e = zero.clone();
        e.as_object_mut()
            .unwrap()
            .extend(set.as_object().unwrap().clone());
        e["channel"] = json!(channel);
        e
    };
    assert_eq!(
        counts(send, "email"),
        &expect("email", json!({ "sent": 1, "skippedByPreference": 1 }))
    );
    assert_eq!(
        counts(send, "push"),
        &expect("push", json!({ "sent": 1, "skipped": 1 }))
    );
    assert_eq!(
        counts(send, "sms"),
        &expect("sms", json!({ "optedOut": 1 }))
    );

    // One recipient and channel per row, paginated; devices by kind and mask only.
    let url = send["deliveriesUrl"].as_str().unwrap().to_string();
    let r = app
        .get(&format!("{url}?limit=2"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 2);
    assert_eq!(r.json["nextOffset"], 2);
    let r = app
        .get(&format!("{url}?limit=10"))
        .session(&w.coach)
        .send()
        .await;
    let rows: Vec<(String, String, String, Value)> = items(&r)
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["channel"].as_str().unwrap().to_string(),
                d["status"].as_str().unwrap().to_string(),
                d["skipReason"].clone(),
            )
        })
        .collect();
    assert_eq!(items(&r).len(), 5, "{}", r.body);
    let mia = "Mia Silva".to_string();
    let ben_name = rows.iter().find(|r| r.0 != mia).unwrap().0.clone();
    assert!(
        rows.contains(&(
            ben_name.clone(),
            "email".into(),
            "skipped".into(),
            json!("preference")
        )),
        "{rows:?}"
    );
    assert!(
        rows.contains(&(
            ben_name,
            "push".into(),
            "skipped".into(),
            json!("no_device")
        )),
        "{rows:?}"
    );
    assert!(
        rows.contains(&(
            mia.clone(),
            "sms".into(),
            "skipped".into(),
            json!("opted_out")
        )),
        "{rows:?}"
    );
    assert!(
        rows.contains(&(mia.clone(), "email".into(), "sent".into(), Value::Null)),
        "{rows:?}"
    );
    let push = items(&r)
        .iter()
        .find(|d| d["name"] == mia.as_str() && d["channel"] == "push")
        .unwrap();
    assert_eq!(push["status"], "sent");
    let mut devices: Vec<(String, String)> = push["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["platform"].as_str().unwrap().into(),
                d["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    devices.sort();
    assert_eq!(
        devices,
        [
            ("expo".into(), "sent".into()),
            ("web".into(), "sent".into())
        ]
    );
    assert!(
        r.body.contains("\"…-0001]\""),
        "the token's end: {}",
        r.body
    );
    assert!(!r.body.contains(EXPO), "never the token: {}", r.body);
    assert!(
        !r.body.contains(&browser.endpoint),
        "never the endpoint: {}",
        r.body
    );
    assert!(
        !r.body.contains(PHONE) && !r.body.contains("912345678"),
        "never the number: {}",
        r.body
    );

    // Nobody else sees it: the workspace's admin, another workspace's owner (404), and their
    // own lists do not show it.
    let admin = add_member(&app, org, "admin@example.com", "admin").await;
    for other in [&admin, &w.outsider] {
        let r = app
            .get("/api/notifications/sent")
            .session(other)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert!(items(&r).is_empty(), "{}", r.body);
        app.get(&url)
            .session(other)
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    app.get(&format!("/api/notifications/sent/{}/deliveries", Id::new()))
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    worker.shutdown().await;
}

#[tokio::test]
async fn a_message_is_a_send_of_its_author() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let conv = open_conversation(&app, &w).await;
    post_message(&app, &w.coach, &conv, "Dawn patrol tomorrow?").await;
    let r = app
        .get("/api/notifications/sent")
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1, "{}", r.body);
    let send = &items(&r)[0];
    assert_eq!(send["kind"], "message.new");
    assert_eq!(send["title"], "New message from Coach Kai");
    assert_eq!(send["recipients"], 1);
    assert_eq!(counts(send, "email")["pending"], 1);
    assert_eq!(counts(send, "push")["pending"], 1);
    let url = send["deliveriesUrl"].as_str().unwrap();
    let r = app.get(url).session(&w.coach).send().await;
    assert_eq!(items(&r).len(), 2, "{}", r.body);
    assert_eq!(items(&r)[0]["userId"], w.athlete.user_id.to_string());
    assert_eq!(items(&r)[0]["name"], "Mia Silva");
}
