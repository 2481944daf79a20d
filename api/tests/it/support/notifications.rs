//! Notifications: the internal send route, their jobs and deliveries, mail and push devices.

use super::app::{Resp, SERVICE_KEY, Session, TestApp};
use serde_json::{Value, json};
use shared::db::Id;
use std::time::Duration;

/// Waits for a mail to `to` with `subject` (account mail, like verification, arrives too).
pub async fn wait_subject(app: &TestApp, to: &str, subject: &str) -> testkit::smtp::Mail {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(m) = app
            .smtp
            .messages_to(to)
            .into_iter()
            .find(|m| m.subject() == subject)
        {
            return m;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no mail {subject:?} to {to}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Calls the internal send route as the service would.
pub async fn send_notification(app: &TestApp, body: Value) -> Resp {
    app.post("/api/notifications/send")
        .bearer(SERVICE_KEY)
        .json(body)
        .send()
        .await
}

/// Waits until the job a response started (its `jobId`) has finished.
pub async fn job_done(app: &TestApp, r: &Resp) -> jobs::progress::Progress {
    let id: Id = r.json["jobId"].as_str().expect("a job").parse().unwrap();
    app.wait_job(id, |p| p.status != "queued" && p.status != "running")
        .await
}

/// (channel, status, last error) of a notification's deliveries, sorted by channel.
pub async fn deliveries(
    app: &TestApp,
    notification: &str,
) -> Vec<(String, String, Option<String>)> {
    let mut c = app.state.db.acquire().await.unwrap();
    let id: Id = notification.parse().unwrap();
    shared::repo::notifications::deliveries_of(&mut c, &[id])
        .await
        .unwrap()
        .into_iter()
        .map(|d| (d.channel.to_string(), d.status.to_string(), d.last_error))
        .collect()
}

/// Registers an Expo push token for the signed-in user.
pub async fn register_expo(app: &TestApp, s: &Session, token: &str) {
    let r = app
        .post("/api/push/register")
        .session(s)
        .json(json!({ "token": token }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
}

/// Registers an FCM registration token for the signed-in user.
pub async fn register_fcm(app: &TestApp, s: &Session, token: &str) {
    let r = app
        .post("/api/push/register")
        .session(s)
        .json(json!({ "token": token, "platform": "fcm" }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
}

/// A browser of the signed-in user subscribes at the fake push service; returns the
/// subscription (the test holds its private key through the fake).
pub async fn subscribe_browser(app: &TestApp, s: &Session) -> testkit::webpush::FakeSubscription {
    let sub = app.push_service.subscribe();
    let r = app
        .post("/api/push/web-subscriptions")
        .session(s)
        .json(json!({ "endpoint": sub.endpoint, "expirationTime": null, "keys": { "p256dh": sub.p256dh, "auth": sub.auth } }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    sub
}

/// Gives the user a verified phone, as a finished SMS verification would.
pub async fn give_verified_phone(app: &TestApp, user: Id, phone: &str) {
    let mut tx = app.state.db.begin().await.unwrap();
    shared::repo::sms::set_verified(&mut tx, user, phone, shared::db::Ts::now())
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// A notification's delivery on `channel`.
pub async fn delivery(
    app: &TestApp,
    notification: &str,
    channel: &str,
) -> shared::repo::notifications::Delivery {
    let mut c = app.state.db.acquire().await.unwrap();
    let id: Id = notification.parse().unwrap();
    shared::repo::notifications::deliveries_of(&mut c, &[id])
        .await
        .unwrap()
        .into_iter()
        .find(|d| d.channel.as_str() == channel)
        .unwrap_or_else(|| panic!("no {channel} delivery"))
}

/// Sends `kind` to one user on `channels` and waits for its job; returns the notification id.
pub async fn notify_one(app: &TestApp, user: Id, kind: &str, channels: &[&str]) -> String {
    let r = send_notification(
        app,
        json!({ "userIds": [user], "kind": kind, "title": "Swell alert", "body": "Head high at the point", "channels": channels }),
    )
    .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.body);
    let nid = r.json["notificationIds"][0]
        .as_str()
        .expect("created")
        .to_string();
    if !r.json["jobId"].is_null() {
        job_done(app, &r).await;
    }
    nid
}
