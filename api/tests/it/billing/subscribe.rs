//! The platform subscription: checkout, monthly prices only, modification in place, the portal,
//! who may do it, and an unconfigured processor.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn subscribe_opens_a_monthly_checkout_and_grants_nothing_yet() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let r = subscribe(&app, &owner, "price_team_monthly", 8).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["action"], "checkout");
    assert!(
        r.json["checkoutUrl"]
            .as_str()
            .unwrap()
            .starts_with("https://checkout.payments.test/")
    );
    let sent = fake.received("/v1/checkout/sessions");
    assert_eq!(sent.len(), 1);
    let s = &sent[0];
    assert_eq!(s.get("mode"), Some("subscription"));
    assert_eq!(s.get("line_items[0][price]"), Some("price_team_monthly"));
    assert_eq!(s.get("line_items[0][quantity]"), Some("8"));
    assert_eq!(
        s.get("client_reference_id"),
        Some(owner.org_id.to_string().as_str())
    );
    assert_eq!(
        s.get("subscription_data[metadata][org_id]"),
        Some(owner.org_id.to_string().as_str())
    );
    assert!(
        s.get("success_url")
            .unwrap()
            .contains("{CHECKOUT_SESSION_ID}")
    );
    assert!(
        s.idempotency_key.is_some(),
        "every create carries an Idempotency-Key"
    );
    assert!(fake.received("/v1/customers")[0].idempotency_key.is_some());
    // Granted by the webhook, never by the request or the redirect.
    let b = billing_status(&app, &owner).await;
    assert_eq!(b["plan"], "free");
    assert_eq!(b["seats"], 3);
    assert_eq!(audit_count(&app, "billing.checkout_started").await, 1);
}

#[tokio::test]
async fn a_retried_subscribe_replays_the_same_session() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let send = || {
        app.post("/api/billing/subscribe")
            .session(&owner)
            .header("idempotency-key", "click-1")
            .json(json!({ "priceId": "price_team_monthly", "seats": 5 }))
            .send()
    };
    let a = send().await;
    let b = send().await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.json["sessionId"], b.json["sessionId"]);
    // Without a key, the same request on the same day replays too.
    let c = subscribe(&app, &owner, "price_team_monthly", 5).await;
    let d = subscribe(&app, &owner, "price_team_monthly", 5).await;
    assert_eq!(c.json["sessionId"], d.json["sessionId"]);
    assert_eq!(fake.session_count(), 2, "one session per distinct request");
    assert_eq!(
        fake.received("/v1/customers").len(),
        1,
        "one customer per workspace"
    );
    // A malformed key is refused before anything is sent.
    let r = app
        .post("/api/billing/subscribe")
        .session(&owner)
        .header("idempotency-key", &"k".repeat(256))
        .json(json!({ "priceId": "price_team_monthly", "seats": 5 }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(fake.session_count(), 2);
}

#[tokio::test]
async fn only_monthly_prices_are_accepted_and_nothing_is_written_otherwise() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    for (price, seats, code) in [
        ("price_team_yearly", 5, "price_not_monthly"),
        ("price_team_quarterly", 5, "price_not_monthly"),
        ("price_once", 5, "price_not_monthly"),
        ("price_retired", 5, "price_unavailable"),
        ("price_unknown", 5, "validation_failed"),
        ("price_team_monthly", 0, "validation_failed"),
        ("price_team_monthly", 10_001, "validation_failed"),
    ] {
        let r = subscribe(&app, &owner, price, seats).await;
        r.assert_error(StatusCode::BAD_REQUEST, code);
    }
    let r = app
        .post("/api/billing/subscribe")
        .session(&owner)
        .json(json!({ "priceId": "price_team_monthly" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(fake.session_count(), 0);
    assert_eq!(app.count("billing_customers").await, 0);
    assert_eq!(app.count("subscriptions").await, 0);
    assert_eq!(audit_count(&app, "billing.checkout_started").await, 0);
}

#[tokio::test]
async fn an_existing_subscription_is_modified_not_duplicated() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let sub = paid_subscription(&app, &fake, &owner, 5).await;
    let b = billing_status(&app, &owner).await;
    assert_eq!(
        (b["plan"].as_str(), b["seats"].as_i64()),
        (Some("team"), Some(5))
    );
    assert_eq!(b["status"], "active");

    let r = subscribe(&app, &owner, "price_club_monthly", 12).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["action"], "updated");
    assert_eq!(r.json["subscriptionId"], sub.as_str());
    assert_eq!(fake.session_count(), 1, "no second checkout");
    let upd = fake.received(&format!("/v1/subscriptions/{sub}"));
    assert_eq!(upd.len(), 1);
    assert_eq!(upd[0].get("items[0][quantity]"), Some("12"));
    assert!(upd[0].idempotency_key.is_some());
    // Applied when the processor says so.
    assert_eq!(billing_status(&app, &owner).await["seats"], 5);
    let ev = fake.event(
        "customer.subscription.updated",
        &fake.subscription(&sub).unwrap(),
    );
    deliver_applied(&app, &fake, &ev).await;
    let b = billing_status(&app, &owner).await;
    assert_eq!(
        (b["plan"].as_str(), b["seats"].as_i64()),
        (Some("club"), Some(12))
    );
    assert_eq!(app.count("subscriptions").await, 1);

    let r = subscribe(&app, &owner, "price_club_monthly", 12).await;
    assert_eq!(r.json["action"], "unchanged", "{}", r.body);
    worker.shutdown().await;
}

#[tokio::test]
async fn billing_needs_the_billing_permission_and_members_read_it() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let admin = add_member(&app, owner.org_id, "admin@example.com", "admin").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    for s in [&admin, &viewer] {
        subscribe(&app, s, "price_team_monthly", 5)
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
        app.post("/api/billing/portal")
            .session(s)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    assert_eq!(fake.session_count(), 0);
    let b = billing_status(&app, &viewer).await;
    assert_eq!(b["plan"], "free");
    assert_eq!(b["status"], "free");
    assert_eq!(b["canManage"], false);
    assert_eq!(b["used"], 3);
    assert_eq!(billing_status(&app, &owner).await["canManage"], true);
}

#[tokio::test]
async fn another_workspace_is_not_found() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let other = other_workspace(&app).await;
    let r = app
        .post("/api/billing/subscribe")
        .session(&owner)
        .header("x-workspace-id", &other.org_id.to_string())
        .json(json!({ "priceId": "price_team_monthly", "seats": 5 }))
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .get("/api/billing")
        .session(&owner)
        .header("x-workspace-id", &other.org_id.to_string())
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(fake.session_count(), 0);
}

#[tokio::test]
async fn the_portal_opens_once_the_workspace_is_a_customer() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    app.post("/api/billing/portal")
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "no_billing_account");
    subscribe(&app, &owner, "price_team_monthly", 5).await;
    let r = app.post("/api/billing/portal").session(&owner).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        r.json["url"]
            .as_str()
            .unwrap()
            .starts_with("https://billing.payments.test/")
    );
    let sent = fake.received("/v1/billing_portal/sessions");
    assert!(sent[0].get("customer").unwrap().starts_with("cus_"));
    assert_eq!(fake.received("/v1/customers").len(), 1);
    assert!(sent[0].idempotency_key.is_some());
    assert_eq!(audit_count(&app, "billing.portal_opened").await, 1);
}

#[tokio::test]
async fn phone_twins_take_bearer_tokens_only() {
    let (app, _fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let (access, _) = app.phone_tokens("owner@example.com").await;
    let r = app
        .post("/api/mobile/billing/subscribe")
        .bearer(&access)
        .json(json!({ "priceId": "price_team_monthly", "seats": 4 }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["action"], "checkout");
    let r = app.get("/api/mobile/billing").bearer(&access).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app
        .post("/api/mobile/billing/subscribe")
        .session(&owner)
        .json(json!({ "priceId": "price_team_monthly", "seats": 4 }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.body);
}

#[tokio::test]
async fn an_unconfigured_processor_answers_503() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    subscribe(&app, &owner, "price_team_monthly", 5)
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    app.post("/api/billing/portal")
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    app.post("/api/payments/portal")
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    let body = r#"{"id":"evt_1"}"#;
    let sig = testkit::payments::signature(WHSEC, shared::db::Ts::now().0.timestamp(), body);
    post_webhook(&app, body, Some(&sig))
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    post_webhook(&app, body, None)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "webhook_header_missing");
    // Members still read their plan.
    assert_eq!(billing_status(&app, &owner).await["plan"], "free");
    assert_eq!(app.count("payment_events").await, 0);
}

#[tokio::test]
async fn admins_see_paid_subscriptions_beside_grants() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let admin = platform_admin(&app).await;
    let sub = paid_subscription(&app, &fake, &owner, 7).await;
    let r = app
        .post("/api/admin/subscriptions/grant")
        .session(&admin)
        .json(json!({ "orgId": owner.org_id, "plan": "partner", "seats": 20, "reason": "pilot club" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .get(&format!("/api/admin/subscriptions?orgId={}", owner.org_id))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let rows = items(&r);
    assert_eq!(rows.len(), 2);
    let paid = rows.iter().find(|s| s["source"] == "provider").unwrap();
    assert_eq!(paid["providerSubscriptionId"], sub.as_str());
    assert_eq!(paid["status"], "active");
    assert_eq!(paid["seats"], 7);
    assert_eq!(paid["priceId"], "price_team_monthly");
    let grant = rows.iter().find(|s| s["source"] == "grant").unwrap();
    assert_eq!(grant["status"], "granted");
    // The larger of the two sets the cap.
    assert_eq!(billing_status(&app, &owner).await["seats"], 20);
    assert_eq!(audit_count(&app, "billing.subscription_changed").await, 1);
    worker.shutdown().await;
}
