//! Every device gets its push: browsers by Web Push (the fake push service decrypts each
//! message with the browser's key and checks the VAPID JWT), Android phones by FCM HTTP v1
//! (the fake checks the service account's JWT), Expo receipts read later.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn web_push_reaches_the_browser_encrypted_to_its_keys_and_a_gone_subscription_is_removed() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;

    // The page asks for the VAPID key first; it is the same on every call (kept in DATA_DIR).
    let r = app.get("/api/push/vapid-public-key").send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let vapid = r.json["publicKey"].as_str().unwrap().to_string();
    assert_eq!(vapid.len(), 87, "65 bytes, base64url: {vapid}");
    let again = app.get("/api/push/vapid-public-key").send().await;
    assert_eq!(again.json["publicKey"], vapid.as_str());

    // Bad subscriptions are refused and nothing is stored.
    let good = app.push_service.subscribe();
    for (body, field) in [
        (
            json!({ "endpoint": "https://evil.example/push/1", "keys": { "p256dh": good.p256dh, "auth": good.auth } }),
            "endpoint",
        ),
        (
            json!({ "endpoint": good.endpoint, "keys": { "p256dh": "BAAA", "auth": good.auth } }),
            "keys",
        ),
        (
            json!({ "endpoint": good.endpoint, "keys": { "p256dh": good.p256dh, "auth": "c2hvcnQ" } }),
            "keys",
        ),
    ] {
        let r = app
            .post("/api/push/web-subscriptions")
            .session(&kai)
            .json(body)
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.fields(), [field], "{}", r.body);
    }
    assert_eq!(app.count("web_push_subscriptions").await, 0);

    let browser = subscribe_browser(&app, &kai).await;
    assert_eq!(app.count("web_push_subscriptions").await, 1);

    let nid = notify_one(&app, kai.user_id, "message.new", &["push"]).await;
    let d = delivery(&app, &nid, "push").await;
    assert_eq!(d.status.as_str(), "sent", "{d:?}");
    let got = app.push_service.received();
    assert_eq!(got.len(), 1, "{:?}", app.push_service.attempts());
    let m = &got[0];
    assert_eq!(m.subscription, browser.id);
    assert_eq!(
        m.vapid_key, vapid,
        "signed with the key the page subscribed with"
    );
    assert_eq!(m.vapid_sub, "mailto:no-reply@app.test");
    let payload = m.json();
    assert_eq!(payload["title"], "Swell alert");
    assert_eq!(payload["body"], "Head high at the point");
    assert_eq!(payload["notificationId"], nid.as_str());
    assert_eq!(payload["kind"], "message.new");
    // A message is urgent and stale after a day; an announcement waits, a week.
    assert_eq!((m.ttl, m.urgency.as_deref()), (86_400, Some("high")));
    let devices = d.devices.unwrap().0;
    assert_eq!(devices[0]["platform"], "web");
    assert_eq!(devices[0]["status"], "sent");
    notify_one(&app, kai.user_id, "announcement", &["push"]).await;
    let m = app.push_service.received().pop().unwrap();
    assert_eq!((m.ttl, m.urgency.as_deref()), (604_800, Some("low")));

    // The browser's subscription expired: 410, the delivery is skipped, the row removed.
    app.push_service.expire(browser.id);
    let nid = notify_one(&app, kai.user_id, "test", &["push"]).await;
    let d = delivery(&app, &nid, "push").await;
    assert_eq!(d.status.as_str(), "skipped", "{d:?}");
    assert!(d.last_error.as_deref().unwrap().contains("410"), "{d:?}");
    assert_eq!(app.count("web_push_subscriptions").await, 0);

    // Removing: only one's own.
    let other = subscribe_browser(&app, &kai).await;
    let ana = app.signup("ana@example.com").await;
    app.req(Method::DELETE, "/api/push/web-subscriptions")
        .session(&ana)
        .json(json!({ "endpoint": other.endpoint }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .req(Method::DELETE, "/api/push/web-subscriptions")
        .session(&kai)
        .json(json!({ "endpoint": other.endpoint }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(app.count("web_push_subscriptions").await, 0);
    worker.shutdown().await;
}

#[tokio::test]
async fn fcm_exchanges_a_signed_jwt_once_and_removes_unregistered_and_invalid_tokens() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    register_fcm(&app, &kai, "fcm-pixel").await;
    register_fcm(&app, &kai, "fcm-tablet").await;

    let nid = notify_one(&app, kai.user_id, "message.new", &["push"]).await;
    assert_eq!(delivery(&app, &nid, "push").await.status.as_str(), "sent");
    let got = app.fcm.delivered();
    let mut tokens: Vec<&str> = got.iter().map(|m| m["token"].as_str().unwrap()).collect();
    tokens.sort();
    assert_eq!(tokens, ["fcm-pixel", "fcm-tablet"]);
    let m = &got[0];
    assert_eq!(m["notification"]["title"], "Swell alert");
    assert_eq!(m["data"]["kind"], "message.new");
    assert_eq!(m["data"]["notificationId"], nid.as_str());
    assert_eq!(m["android"]["priority"], "high");
    assert_eq!(m["android"]["ttl"], "86400s");
    let tokens_before = app.fcm.token_requests();
    assert!(tokens_before >= 1);

    // The access token is cached: no new exchange for the next notification.
    notify_one(&app, kai.user_id, "test", &["push"]).await;
    assert_eq!(app.fcm.token_requests(), tokens_before);
    // FCM stops accepting it (401): one new exchange, and the message still goes out.
    app.fcm.revoke_tokens();
    let nid = notify_one(&app, kai.user_id, "test", &["push"]).await;
    assert_eq!(delivery(&app, &nid, "push").await.status.as_str(), "sent");
    assert_eq!(app.fcm.token_requests(), tokens_before + 1);

    // UNREGISTERED and INVALID_ARGUMENT: both tokens are removed, the delivery skipped.
    app.fcm.unregister("fcm-pixel");
    app.fcm.invalid("fcm-tablet");
    let nid = notify_one(&app, kai.user_id, "test", &["push"]).await;
    let d = delivery(&app, &nid, "push").await;
    assert_eq!(d.status.as_str(), "skipped", "{d:?}");
    let err = d.last_error.unwrap();
    assert!(
        err.contains("UNREGISTERED") && err.contains("INVALID_ARGUMENT"),
        "{err}"
    );
    assert_eq!(app.count("push_tokens").await, 0);
    worker.shutdown().await;
}

#[tokio::test]
async fn expo_receipts_are_fetched_in_batches_and_device_not_registered_removes_the_token() {
    let app = TestApp::with_env(&[("EXPO_RECEIPT_DELAY_SECS", "0")]).await;
    let worker = app.start_worker(&[]).await;
    let kai = app.signup("kai@example.com").await;
    let (gone, kept) = ("ExponentPushToken[uninstalled]", "ExponentPushToken[kept]");
    register_expo(&app, &kai, gone).await;
    register_expo(&app, &kai, kept).await;
    app.expo.unregister_after_ticket(gone);

    let nid = notify_one(&app, kai.user_id, "test", &["push"]).await;
    assert_eq!(delivery(&app, &nid, "push").await.status.as_str(), "sent");
    assert_eq!(app.count("push_tickets").await, 2);
    // 2,500 more tickets Expo has no receipt for yet: they stay, asked for 1,000 at a time.
    {
        let mut c = app.state.db.acquire().await.unwrap();
        for i in 0..2500 {
            shared::repo::notifications::add_ticket(&mut c, &format!("zz-{i:05}"), kept, None)
                .await
                .unwrap();
        }
    }
    let r = app
        .post("/api/cron/push-receipts")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let p = job_done(&app, &r).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let sizes = app.expo.receipt_requests();
    assert_eq!(sizes, [1000, 1000, 502], "batches of at most 1,000");
    let mut c = app.state.db.acquire().await.unwrap();
    let left: Vec<String> = shared::repo::notifications::push_tokens_of(&mut c, kai.user_id)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.token)
        .collect();
    assert_eq!(left, [kept]);
    drop(c);
    assert_eq!(
        app.count("push_tickets").await,
        2500,
        "answered tickets are done"
    );
    worker.shutdown().await;
}
