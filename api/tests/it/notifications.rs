//! Notifications: the internal send and deliver routes, fan-out jobs, email with one-click
//! unsubscribe, push registration, announcements, and the message notification.

use crate::messaging::{make_admin, open_conversation, post_message, world};
use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use shared::db::Id;
use std::time::Duration;

const SERVICE_KEY: &str = "service-key-for-tests";

/// Waits for a mail to `to` with `subject` (account mail, like verification, arrives too).
async fn wait_subject(app: &TestApp, to: &str, subject: &str) -> testkit::smtp::Mail {
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

async fn send(app: &TestApp, body: Value) -> Resp {
    app.post("/api/notifications/send")
        .bearer(SERVICE_KEY)
        .json(body)
        .send()
        .await
}

async fn job_done(app: &TestApp, r: &Resp) -> jobs::progress::Progress {
    let id: Id = r.json["jobId"].as_str().expect("a job").parse().unwrap();
    app.wait_job(id, |p| p.status != "queued" && p.status != "running")
        .await
}

/// (channel, status, last error) of a notification's deliveries, sorted by channel.
async fn deliveries(app: &TestApp, notification: &str) -> Vec<(String, String, Option<String>)> {
    let mut c = app.state.db.acquire().await.unwrap();
    let id: Id = notification.parse().unwrap();
    shared::repo::notifications::deliveries_of(&mut c, &[id])
        .await
        .unwrap()
        .into_iter()
        .map(|d| (d.channel.to_string(), d.status.to_string(), d.last_error))
        .collect()
}

#[tokio::test]
async fn send_creates_notifications_that_a_job_mails_with_one_click_unsubscribe() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;

    // Bad input: every invalid field at once, nothing written.
    let r = send(
        &app,
        json!({ "userIds": [], "kind": "Bad Kind", "title": " ", "body": "x", "channels": ["sms"], "data": [1] }),
    )
    .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["channels", "data", "kind", "title", "userIds"]);
    let r = send(
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
    let r = send(&app, receipt.clone()).await;
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
                Some("no push token registered".into())
            )
        ]
    );
    // The same dedupe key again: no new notification, no job.
    let r = send(&app, receipt).await;
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
    let r = send(&app, json!({ "userIds": [kai.user_id], "kind": "billing.renewal", "title": "Renewal", "body": "Soon", "channels": ["email"] })).await;
    let billing = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let r = send(&app, json!({ "userIds": [kai.user_id], "kind": "season.report", "title": "Season report", "body": "Ready", "channels": ["email"] })).await;
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
async fn a_new_message_mails_the_other_participant() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let w = world(&app).await;
    let conv = open_conversation(&app, &w).await;
    post_message(&app, &w.coach, &conv, "Dawn patrol at 6?").await;
    let mail = wait_subject(&app, "mia@example.com", "New message from Coach Kai").await;
    assert!(mail.text_body().contains("Dawn patrol at 6?"));
    assert!(mail.header("List-Unsubscribe").is_some());
    post_message(&app, &w.athlete, &conv, "Yes").await;
    wait_subject(&app, "coach@example.com", "New message from Mia Silva").await;
    worker.shutdown().await;
}

#[tokio::test]
async fn push_tokens_move_between_accounts_and_push_without_a_provider_fails_clearly() {
    let app = TestApp::with_env(&[("EXPO_PUSH_URL", "")]).await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    let ana = app.signup("ana@example.com").await;
    let token = "ExponentPushToken[abc123]";

    for (body, field) in [
        (json!({ "token": "ExponentPushToken[" }), "token"),
        (json!({ "token": "fcm-token-without-platform" }), "platform"),
        (json!({ "token": token, "platform": "pager" }), "platform"),
    ] {
        let r = app
            .post("/api/push/register")
            .session(&kai)
            .json(body)
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.fields(), [field]);
    }
    assert_eq!(app.count("push_tokens").await, 0);

    let r = app
        .post("/api/push/register")
        .session(&kai)
        .json(json!({ "token": token, "deviceName": "Kai's phone" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["platform"], "expo");
    assert_eq!(r.json["movedFromAnotherAccount"], false);
    let r = app
        .post("/api/push/register")
        .session(&kai)
        .json(json!({ "token": token }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    // Ana signs in on Kai's phone: the token is hers now.
    let (ana_phone, _) = app.phone_tokens("ana@example.com").await;
    let r = app
        .post("/api/push/register")
        .bearer(&ana_phone)
        .json(json!({ "token": token }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["movedFromAnotherAccount"], true);
    assert_eq!(app.count("push_tokens").await, 1);
    app.req(Method::DELETE, "/api/push/register")
        .session(&kai)
        .json(json!({ "token": token }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // No push provider is configured: the delivery fails and says so; nothing crashes.
    let r = send(&app, json!({ "userIds": [ana.user_id], "kind": "test", "title": "Ping", "body": "Hi", "channels": ["push"] })).await;
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let d = deliveries(&app, &nid).await;
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), ("push", "failed"));
    assert!(
        d[0].2.as_deref().unwrap().contains("not configured"),
        "{d:?}"
    );

    let r = app
        .req(Method::DELETE, "/api/push/register")
        .session(&ana)
        .json(json!({ "token": token }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(app.count("push_tokens").await, 0);
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
async fn admins_announce_to_a_workspace_through_a_job() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let w = world(&app).await;
    let admin = app.signup("admin@example.com").await;
    make_admin(&app, &admin).await;
    app.post("/api/admin/notifications")
        .session(&w.coach)
        .json(json!({ "title": "Hi", "body": "All" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    let r = app
        .post("/api/admin/notifications")
        .session(&admin)
        .json(json!({ "title": "", "body": "All" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["title"]);
    app.post("/api/admin/notifications")
        .session(&admin)
        .json(json!({ "title": "Hi", "body": "All", "orgId": Id::new() }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("job_progress").await, 0, "nothing enqueued");

    let (access, _) = app.phone_tokens("admin@example.com").await;
    let r = app
        .post("/api/mobile/admin/notifications")
        .bearer(&access)
        .json(json!({ "title": "Contest on Saturday", "body": "Sign up by Friday", "orgId": w.coach.org_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let p = job_done(&app, &r).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(p.result.as_ref().unwrap().0["recipients"], 1, "{p:?}");
    wait_subject(&app, "coach@example.com", "Contest on Saturday").await;
    assert!(
        app.smtp
            .messages_to("outsider@example.com")
            .iter()
            .all(|m| m.subject() != "Contest on Saturday")
    );
    let r = app
        .get("/api/admin/notifications?kind=announcement&status=sent")
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1, "{}", r.body);
    worker.shutdown().await;
}

/// Registers `token` (Expo) for the session's user.
async fn register_expo(app: &TestApp, s: &Session, token: &str) {
    let r = app
        .post("/api/push/register")
        .session(s)
        .json(json!({ "token": token }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
}

#[tokio::test]
async fn push_a_message_notification_reaches_expo_with_the_token_and_payload() {
    let app = TestApp::with_env(&[("EXPO_ACCESS_TOKEN", "expo-access-token")]).await;
    app.expo.require_token("expo-access-token");
    let worker = app.start_worker(&[]).await;
    let w = world(&app).await;
    let token = "ExponentPushToken[athlete-phone]";
    register_expo(&app, &w.athlete, token).await;
    let conv = open_conversation(&app, &w).await;
    post_message(&app, &w.coach, &conv, "Paddle out at 7").await;

    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let m = loop {
        if let Some(m) = app.expo.delivered().into_iter().next() {
            break m;
        }
        assert!(std::time::Instant::now() < deadline, "no push reached Expo");
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert_eq!(m["to"], token);
    assert_eq!(m["data"]["kind"], "message.new");
    assert_eq!(m["data"]["conversationId"], conv.as_str());
    assert!(m["data"]["notificationId"].is_string(), "{m}");
    assert!(
        m["body"].as_str().unwrap().contains("Paddle out at 7"),
        "{m}"
    );
    assert_eq!(m["title"], "New message from Coach Kai");
    let reqs = app.expo.requests();
    assert_eq!(reqs.len(), 1, "one batch: {reqs:?}");
    assert_eq!(
        reqs[0].authorization.as_deref(),
        Some("Bearer expo-access-token")
    );
    let nid = m["data"]["notificationId"].as_str().unwrap().to_string();
    let d = deliveries(&app, &nid).await;
    let push = d.iter().find(|d| d.0 == "push").unwrap();
    assert_eq!(push.1, "sent", "{d:?}");
    worker.shutdown().await;
}

#[tokio::test]
async fn push_device_not_registered_removes_only_that_token() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    let (old, new) = (
        "ExponentPushToken[old-phone]",
        "ExponentPushToken[new-phone]",
    );
    register_expo(&app, &kai, old).await;
    register_expo(&app, &kai, new).await;
    app.expo.unregister(old);

    let r = send(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Ping", "body": "Hi", "channels": ["push"] })).await;
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    assert_eq!(deliveries(&app, &nid).await[0].1, "sent");
    let mut c = app.state.db.acquire().await.unwrap();
    let left: Vec<String> = shared::repo::notifications::push_tokens_of(&mut c, kai.user_id)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.token)
        .collect();
    assert_eq!(left, [new]);
    drop(c);

    // The only token left is gone too: the delivery is skipped and no token remains.
    app.expo.unregister(new);
    let r = send(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Ping 2", "body": "Hi", "channels": ["push"] })).await;
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let d = deliveries(&app, &nid).await;
    assert_eq!(d[0].1, "skipped", "{d:?}");
    assert!(
        d[0].2.as_deref().unwrap().contains("DeviceNotRegistered"),
        "{d:?}"
    );
    assert_eq!(app.count("push_tokens").await, 0);
    worker.shutdown().await;
}

#[tokio::test]
async fn push_a_5xx_is_retried_and_a_4xx_is_permanent() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    register_expo(&app, &kai, "ExponentPushToken[kai]").await;

    // Two outages, then Expo answers: the delivery goes out on the third attempt.
    app.expo.fail_next(503, 2);
    let r = send(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Retry", "body": "Hi", "channels": ["push"] })).await;
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let d = deliveries(&app, &nid).await;
    assert_eq!(d[0].1, "sent", "{d:?}");
    let statuses: Vec<u16> = app.expo.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [503, 503, 200]);

    // A 400 is not retried: one request, the delivery failed with Expo's answer.
    app.expo.fail_next(400, 1);
    let r = send(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Bad", "body": "Hi", "channels": ["push"] })).await;
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let d = deliveries(&app, &nid).await;
    assert_eq!(d[0].1, "failed", "{d:?}");
    assert!(d[0].2.as_deref().unwrap().contains("rejected"), "{d:?}");
    assert_eq!(app.expo.requests().len(), 4);
    assert_eq!(app.count("push_tokens").await, 1);
    worker.shutdown().await;
}
