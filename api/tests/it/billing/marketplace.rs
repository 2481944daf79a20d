//! The marketplace: a coach's payout account and offerings; a student, or a guardian for a
//! minor, pays by a destination charge; access follows the processor's events.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};
use testkit::payments::FakePayments;

/// The coach connects a payout account and finishes onboarding (the `account.updated` event
/// applied); returns the account id.
async fn ready_coach(app: &TestApp, fake: &FakePayments, coach: &Session) -> String {
    let r = app
        .post("/api/payments/connect")
        .session(coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let acct = r.json["accountId"].as_str().unwrap().to_string();
    deliver_applied(app, fake, &fake.enable_account(&acct)).await;
    acct
}

async fn offering(app: &TestApp, coach: &Session, interval: &str, amount: i64) -> String {
    let r = app
        .post("/api/payments/offerings")
        .session(coach)
        .json(json!({ "name": "Video review plan", "amount": amount, "currency": "EUR", "interval": interval }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["currency"], "eur");
    id(&r.json)
}

async fn checkout(app: &TestApp, payer: &Session, offering: &str, athlete: &str) -> Resp {
    app.post("/api/payments/checkout")
        .session(payer)
        .json(json!({ "offeringId": offering, "athleteId": athlete }))
        .send()
        .await
}

async fn access(app: &TestApp, s: &Session) -> Vec<Value> {
    let r = app.get("/api/payments/access").session(s).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    items(&r).clone()
}

#[tokio::test]
async fn a_coach_connects_one_payout_account() {
    let (app, fake) = app_with_payments(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let a = app
        .post("/api/payments/connect")
        .session(&coach)
        .send()
        .await;
    let b = app
        .post("/api/payments/connect")
        .session(&coach)
        .send()
        .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.json["accountId"], b.json["accountId"]);
    assert_eq!(a.json["chargesEnabled"], false);
    assert!(
        a.json["onboardingUrl"]
            .as_str()
            .unwrap()
            .starts_with("https://connect.payments.test/")
    );
    assert_eq!(fake.received("/v1/accounts").len(), 1);
    assert_eq!(app.count("payout_accounts").await, 1);
    assert_eq!(
        audit_count(&app, "payments.payout_account_created").await,
        1
    );
    // A viewer does not sell; bad offerings write nothing.
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    app.post("/api/payments/connect")
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    for bad in [
        json!({ "name": "", "amount": 5000, "currency": "eur", "interval": "monthly" }),
        json!({ "name": "x", "amount": 5, "currency": "eur", "interval": "monthly" }),
        json!({ "name": "x", "amount": 5000, "currency": "euro", "interval": "monthly" }),
        json!({ "name": "x", "amount": 5000, "currency": "eur", "interval": "yearly" }),
    ] {
        app.post("/api/payments/offerings")
            .session(&coach)
            .json(bad)
            .send()
            .await
            .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    }
    assert_eq!(app.count("offerings").await, 0);
    disable_module(&app, coach.org_id, "billing").await;
    app.post("/api/payments/connect")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
}

#[tokio::test]
async fn an_adult_student_pays_once_and_gets_access_from_the_webhook() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let ca = coach_and_athlete(&app).await;
    let acct = ready_coach(&app, &fake, &ca.coach).await;
    let off = offering(&app, &ca.coach, "one_off", 5000).await;
    let r = checkout(&app, &ca.athlete, &off, &ca.athlete_id).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["payer"], "athlete");
    let sent = fake.received("/v1/checkout/sessions");
    let s = &sent[0];
    assert_eq!(s.get("mode"), Some("payment"));
    assert_eq!(
        s.get("payment_intent_data[application_fee_amount]"),
        Some("500")
    );
    assert_eq!(
        s.get("payment_intent_data[transfer_data][destination]"),
        Some(acct.as_str())
    );
    assert_eq!(
        s.get("line_items[0][price_data][unit_amount]"),
        Some("5000")
    );
    assert!(s.idempotency_key.is_some());
    assert!(
        access(&app, &ca.athlete).await.is_empty(),
        "nothing before the processor says paid"
    );

    let events = fake.complete_checkout(r.json["sessionId"].as_str().unwrap());
    deliver_applied(&app, &fake, &events[0]).await;
    let rows = access(&app, &ca.athlete).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["status"], "active");
    assert_eq!(rows[0]["offeringId"], off.as_str());
    assert_eq!(audit_count(&app, "payments.access_granted").await, 1);
    checkout(&app, &ca.athlete, &off, &ca.athlete_id)
        .await
        .assert_error(StatusCode::CONFLICT, "already_paid");
    // The payer's portal now opens.
    let r = app
        .post("/api/payments/portal")
        .session(&ca.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    worker.shutdown().await;
}

#[tokio::test]
async fn a_guardian_pays_monthly_for_a_minor_and_cancelling_ends_access() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (minor, minor_login, guardian) = minor_with_guardian(&app, &coach).await;
    let acct = ready_coach(&app, &fake, &coach).await;
    let off = offering(&app, &coach, "monthly", 3000).await;
    checkout(&app, &minor_login, &off, &minor)
        .await
        .assert_error(StatusCode::FORBIDDEN, "guardian_required");
    let r = checkout(&app, &guardian, &off, &minor).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["payer"], "guardian");
    let s = fake.received("/v1/checkout/sessions").pop().unwrap();
    assert_eq!(s.get("mode"), Some("subscription"));
    assert_eq!(
        s.get("subscription_data[application_fee_percent]"),
        Some("10")
    );
    assert_eq!(
        s.get("subscription_data[transfer_data][destination]"),
        Some(acct.as_str())
    );
    assert_eq!(s.get("payment_intent_data[application_fee_amount]"), None);
    assert_eq!(
        s.get("line_items[0][price_data][recurring][interval]"),
        Some("month")
    );

    let events = fake.complete_checkout(r.json["sessionId"].as_str().unwrap());
    for e in &events {
        deliver_applied(&app, &fake, e).await;
    }
    let rows = access(&app, &minor_login).await;
    assert_eq!(rows.len(), 1, "the athlete sees what was paid for them");
    assert_eq!(rows[0]["status"], "active");
    assert_eq!(access(&app, &guardian).await.len(), 1);
    let sub = events[1]["data"]["object"]["id"].as_str().unwrap();
    deliver_applied(&app, &fake, &fake.cancel(sub)).await;
    assert_eq!(access(&app, &guardian).await[0]["status"], "ended");
    assert_eq!(audit_count(&app, "payments.access_ended").await, 1);
    // Marketplace subscriptions never touch the workspace's seats.
    assert_eq!(app.count("subscriptions").await, 0);
    worker.shutdown().await;
}

#[tokio::test]
async fn checkout_refuses_strangers_other_workspaces_and_unready_coaches() {
    let (app, fake) = app_with_payments(&[]).await;
    let ca = coach_and_athlete(&app).await;
    let off = offering(&app, &ca.coach, "one_off", 5000).await;
    // The coach has no payout account yet.
    checkout(&app, &ca.athlete, &off, &ca.athlete_id)
        .await
        .assert_error(StatusCode::CONFLICT, "payouts_not_ready");
    // Someone who neither is nor guards the athlete, and unknown ids.
    checkout(&app, &ca.outsider, &off, &ca.athlete_id)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    checkout(
        &app,
        &ca.athlete,
        &shared::db::Id::new().to_string(),
        &ca.athlete_id,
    )
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    // Another workspace's athlete with this offering.
    let other_athlete = new_athlete(
        &app,
        &ca.outsider,
        json!({ "firstName": "Zed", "lastName": "Other" }),
    )
    .await;
    checkout(&app, &ca.athlete, &off, &id(&other_athlete))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post("/api/payments/portal")
        .session(&ca.athlete)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "no_billing_account");
    assert_eq!(fake.session_count(), 0);
    assert_eq!(app.count("offering_access").await, 0);
    // Another workspace's members do not see this workspace's offerings.
    let r = app
        .get("/api/payments/offerings")
        .session(&ca.outsider)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(items(&r).is_empty());
    let r = app
        .get("/api/payments/offerings")
        .session(&ca.coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1);
}
