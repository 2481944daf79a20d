//! Billing: the app pointed at the fake payment processor, webhook deliveries, and a workspace
//! with a paid subscription.

use super::app::{Resp, Session, TestApp};
use axum::http::StatusCode;
use serde_json::{Value, json};
use std::time::Duration;
use testkit::payments::FakePayments;

pub const PAY_KEY: &str = "sk_test_fake_key";
/// The endpoint's current signing secret and the one it replaces (both configured: a rotation).
pub const WHSEC: &str = "whsec_current_secret";
pub const WHSEC_OLD: &str = "whsec_previous_secret";
pub const PRICES: &str = "price_team_monthly,price_club_monthly,price_team_yearly,price_team_quarterly,price_once,price_retired";

/// The app with the payment processor configured at a fresh fake, plus `extra` variables (an
/// empty value removes a variable).
pub async fn app_with_payments(extra: &[(&str, &str)]) -> (TestApp, FakePayments) {
    let fake = FakePayments::start(PAY_KEY, WHSEC).await;
    let base = fake.base_url();
    let secrets = format!("{WHSEC},{WHSEC_OLD}");
    let mut vars = vec![
        ("PAYMENTS_BASE_URL", base.as_str()),
        ("PAYMENTS_SECRET_KEY", PAY_KEY),
        ("PAYMENTS_WEBHOOK_SECRETS", secrets.as_str()),
        ("PAYMENTS_PRICE_IDS", PRICES),
    ];
    vars.extend_from_slice(extra);
    (TestApp::with_env(&vars).await, fake)
}

/// POSTs a raw delivery to the webhook.
pub async fn post_webhook(app: &TestApp, body: &str, signature: Option<&str>) -> Resp {
    let mut r = app
        .post("/api/payments/webhook")
        .raw("application/json", body.as_bytes());
    if let Some(s) = signature {
        r = r.header("stripe-signature", s);
    }
    r.send().await
}

/// Delivers `event` signed with the endpoint's secret; asserts the acknowledgement.
pub async fn deliver(app: &TestApp, fake: &FakePayments, event: &Value) -> Resp {
    let (body, sig) = fake.signed(event);
    let r = post_webhook(app, &body, Some(&sig)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r
}

/// The stored status of event `id` (`pending`, `applied`, `ignored`), if stored.
pub async fn event_status(app: &TestApp, id: &str) -> Option<String> {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, String>("SELECT status FROM payment_events WHERE id = $1")
        .bind(id).fetch_optional(&mut *c).await).unwrap()
}

/// Waits (10 s at most) until event `id` is no longer pending (a worker must be running).
pub async fn wait_applied(app: &TestApp, event: &Value) {
    let id = event["id"].as_str().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match event_status(app, id).await.as_deref() {
            Some("pending") | None => {}
            Some(_) => return,
        }
        assert!(
            std::time::Instant::now() < deadline,
            "event {id} not applied"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Delivers `event` and waits until it is applied.
pub async fn deliver_applied(app: &TestApp, fake: &FakePayments, event: &Value) {
    deliver(app, fake, event).await;
    wait_applied(app, event).await;
}

/// `POST /api/billing/subscribe` by `s`.
pub async fn subscribe(app: &TestApp, s: &Session, price: &str, seats: i64) -> Resp {
    app.post("/api/billing/subscribe")
        .session(s)
        .json(json!({ "priceId": price, "seats": seats }))
        .send()
        .await
}

/// `s`'s workspace subscribes to the team plan with `seats` seats and pays; returns the
/// provider subscription's id (a worker must be running).
pub async fn paid_subscription(
    app: &TestApp,
    fake: &FakePayments,
    s: &Session,
    seats: i64,
) -> String {
    let r = subscribe(app, s, "price_team_monthly", seats).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let events = fake.complete_checkout(r.json["sessionId"].as_str().unwrap());
    for e in &events {
        deliver_applied(app, fake, e).await;
    }
    events[1]["data"]["object"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `GET /api/billing` for `s`.
pub async fn billing_status(app: &TestApp, s: &Session) -> Value {
    let r = app.get("/api/billing").session(s).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.json
}
