//! Push notifications through (fake) Expo: device tokens, payloads, failures and retries.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;
use std::time::Duration;

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
    let r = send_notification(&app, json!({ "userIds": [ana.user_id], "kind": "test", "title": "Ping", "body": "Hi", "channels": ["push"] })).await;
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
async fn push_a_message_notification_reaches_expo_with_the_token_and_payload() {
    let app = TestApp::with_env(&[("EXPO_ACCESS_TOKEN", "expo-access-token")]).await;
    app.expo.require_token("expo-access-token");
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;
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
    // Expo has the message; the worker records the delivery once Expo has answered.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let d = deliveries(&app, &nid).await;
        let push = d.iter().find(|d| d.0 == "push").unwrap();
        if push.1 == "sent" {
            break;
        }
        assert_eq!(push.1, "sending", "{d:?}");
        assert!(std::time::Instant::now() < deadline, "{d:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
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

    let r = send_notification(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Ping", "body": "Hi", "channels": ["push"] })).await;
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
    let r = send_notification(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Ping 2", "body": "Hi", "channels": ["push"] })).await;
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
    let r = send_notification(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Retry", "body": "Hi", "channels": ["push"] })).await;
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let d = deliveries(&app, &nid).await;
    assert_eq!(d[0].1, "sent", "{d:?}");
    let statuses: Vec<u16> = app.expo.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [503, 503, 200]);

    // A 400 is not retried: one request, the delivery failed with Expo's answer.
    app.expo.fail_next(400, 1);
    let r = send_notification(&app, json!({ "userIds": [kai.user_id], "kind": "test", "title": "Bad", "body": "Hi", "channels": ["push"] })).await;
    let nid = r.json["notificationIds"][0].as_str().unwrap().to_string();
    assert_eq!(job_done(&app, &r).await.status, "succeeded");
    let d = deliveries(&app, &nid).await;
    assert_eq!(d[0].1, "failed", "{d:?}");
    assert!(d[0].2.as_deref().unwrap().contains("rejected"), "{d:?}");
    assert_eq!(app.expo.requests().len(), 4);
    assert_eq!(app.count("push_tokens").await, 1);
    worker.shutdown().await;
}
