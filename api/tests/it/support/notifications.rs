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
        .map(|d| (d.channel, d.status, d.last_error))
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
