//! Notifications by email: the send and deliver routes, their jobs, one-click unsubscribe, and
//! the new-message mail.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

#[tokio::test]
async fn send_creates_notifications_that_a_job_mails_with_one_click_unsubscribe() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;

    // Bad input: every invalid field at once, nothing written.
    let r = send_notification(
        &app,
        json!({ "userIds": [], "kind": "Bad Kind", "title": " ", "body": "x", "channels": ["fax"], "data": [1] }),
    )
    .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["channels", "data", "kind", "title", "userIds"]);
    let r = send_notification(
        &app,
        json!({ "userIds": [Id::new()], "kind": "billing.receipt", "title": "t", "body": "b" }),
    )
    .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["userIds"]);
    app.post("/api/notifications/send")
        .session(&kai)
        .json(json!({ "userIds": [kai.user_id], "kind": "x", "title": "t", "body": "b" }))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");
    assert_eq!(app.count("notifications").await, 0, "nothing written");

    let receipt = json!({ "userIds": [kai.user_id], "kind": "billing.receipt", "title": "Your receipt",
                          "body": "Thanks for your payment.", "data": { "amount": 20 }, "dedupeKey": "receipt-1" });
    let r = send_notification(&app, receipt.clone()).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json["duplicates"], 0);
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    let p = job_done(&app, &r).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let mail = wait_subject(&app, "kai@example.com", "Your receipt").await;
    assert!(mail.text_body().contains("Thanks for your payment."));
    let list = mail.header("List-Unsubscribe").expect("List-Unsubscribe");
    let url = list.trim_start_matches('<').trim_end_matches('>');
    assert!(
        url.starts_with("http://app.test/api/notifications/unsubscribe?token="),
        "{url}"
    );
    assert_eq!(
        mail.header("List-Unsubscribe-Post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
    assert_eq!(
        deliveries(&app, &nid).await,
        [
            ("email".into(), "sent".into(), None),
            (
                "push".into(),
                "skipped".into(),
                Some("no push device registered".into())
            )
        ]
    );
    // The same dedupe key again: no new notification, no job.
    let r = send_notification(&app, receipt).await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    assert_eq!(r.json["duplicates"], 1);
    assert!(r.json["jobId"].is_null());
    assert_eq!(app.count("notifications").await, 1);

    // One-click unsubscribe: GET only describes, a bad token is refused, POST unsubscribes.
    let path = url.strip_prefix("http://app.test").unwrap();
    let r = app.get(path).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (
            r.json["category"].as_str(),
            r.json["unsubscribed"].as_bool()
        ),
        (Some("billing"), Some(false))
    );
    app.post(&format!("{path}x"))
        .raw(
            "application/x-www-form-urlencoded",
            b"List-Unsubscribe=One-Click",
        )
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    let r = app
        .post(path)
        .raw(
            "application/x-www-form-urlencoded",
            b"List-Unsubscribe=One-Click",
        )
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["unsubscribed"], true);
    assert_eq!(app.get(path).send().await.json["unsubscribed"], true);

    // Billing mail is now skipped; other categories still go out.
    let r = send_notification(&app, json!({ "userIds": [kai.user_id], "kind": "billing.renewal", "title": "Renewal", "body": "Soon", "channels": ["email"] })).await;
    let billing = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let r = send_notification(&app, json!({ "userIds": [kai.user_id], "kind": "season.report", "title": "Season report", "body": "Ready", "channels": ["email"] })).await;
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    wait_subject(&app, "kai@example.com", "Season report").await;
    assert_eq!(
        deliveries(&app, &billing).await,
        [(
            "email".into(),
            "skipped".into(),
            Some("unsubscribed from billing by email".into())
        )]
    );
    assert!(
        app.smtp
            .messages_to("kai@example.com")
            .iter()
            .all(|m| m.subject() != "Renewal")
    );
    worker.shutdown().await;
}

#[tokio::test]
async fn deliver_drains_due_deliveries_left_behind() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;
    // A notification whose fan-out never ran (say, its job was lost): pending, due.
    {
        let mut tx = app.state.db.begin().await.unwrap();
        let data = json!({});
        shared::repo::notifications::insert(
            &mut tx,
            &shared::repo::notifications::NewNotification {
                user_id: kai.user_id,
                org_id: None,
                kind: "digest.weekly",
                title: "Your week",
                body: "3 sessions",
                data: &data,
                dedupe_key: None,
            },
            &[shared::repo::notifications::Channel::Email],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }
    let r = app
        .post("/api/notifications/deliver")
        .bearer(SERVICE_KEY)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    // A second call while the first is queued is the same job.
    let again = app
        .post("/api/notifications/deliver")
        .bearer(SERVICE_KEY)
        .send()
        .await;
    assert_eq!(again.json["jobId"], r.json["jobId"]);
    assert_eq!(again.json["existing"], true);
    let worker = app.start_worker(&[]).await;
    let p = job_done(&app, &r).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    wait_subject(&app, "kai@example.com", "Your week").await;
    worker.shutdown().await;
}

#[tokio::test]
async fn a_new_message_mails_the_other_participant() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;
    let conv = open_conversation(&app, &w).await;
    post_message(&app, &w.coach, &conv, "Dawn patrol at 6?").await;
    let mail = wait_subject(&app, "mia@example.com", "New message from Coach Kai").await;
    assert!(mail.text_body().contains("Dawn patrol at 6?"));
    assert!(mail.header("List-Unsubscribe").is_some());
    post_message(&app, &w.athlete, &conv, "Yes").await;
    wait_subject(&app, "coach@example.com", "New message from Mia Silva").await;
    worker.shutdown().await;
}
