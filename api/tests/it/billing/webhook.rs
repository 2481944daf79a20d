//! The payment webhook: the signature table (each refused delivery stores nothing), and the
//! events' effects whatever their order, number or age.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};
use testkit::payments::signature;

fn now() -> i64 {
    shared::db::Ts::now().0.timestamp()
}

fn sub_event(id: &str, kind: &str, livemode: bool) -> Value {
    json!({ "id": id, "object": "event", "type": kind, "created": now(), "livemode": livemode,
            "data": { "object": { "id": "sub_table", "object": "subscription" } } })
}

/// One row of the table: what is sent, and what must come back.
struct Case {
    name: &'static str,
    body: String,
    header: Option<String>,
    status: StatusCode,
    code: Option<&'static str>,
    stored: bool,
}

#[tokio::test]
async fn webhook_signature_table() {
    let (app, _fake) = app_with_payments(&[]).await;
    let t = now();
    let body = |id: &str| sub_event(id, "customer.subscription.updated", false).to_string();
    let v1 = |secret: &str, t: i64, b: &str| {
        signature(secret, t, b)
            .split_once(",v1=")
            .unwrap()
            .1
            .to_string()
    };
    let b = body("evt_second_position");
    let second = format!(
        "t={t},v1={},v1={}",
        v1("whsec_other", t, &b),
        v1(WHSEC, t, &b)
    );
    let tampered_src = body("evt_tampered");
    let tampered_sig = signature(WHSEC, t, &tampered_src);
    let tampered = tampered_src.replace("sub_table", "sub_evil");
    let unknown = json!({ "id": "evt_unknown_type", "type": "charge.dispute.funds_reinstated", "created": t,
                          "livemode": false, "data": { "object": { "id": "du_1", "object": "dispute" } } })
        .to_string();
    let live = sub_event("evt_live", "customer.subscription.updated", true).to_string();
    let cases = vec![
        Case {
            name: "valid",
            header: Some(signature(WHSEC, t, &body("evt_valid"))),
            body: body("evt_valid"),
            status: StatusCode::OK,
            code: None,
            stored: true,
        },
        Case {
            name: "v1 matching in the second position",
            header: Some(second),
            body: b,
            status: StatusCode::OK,
            code: None,
            stored: true,
        },
        Case {
            name: "rotated (previous) secret",
            header: Some(signature(WHSEC_OLD, t, &body("evt_rotated"))),
            body: body("evt_rotated"),
            status: StatusCode::OK,
            code: None,
            stored: true,
        },
        Case {
            name: "stale timestamp (301 s)",
            header: Some(signature(WHSEC, t - 301, &body("evt_stale"))),
            body: body("evt_stale"),
            status: StatusCode::UNAUTHORIZED,
            code: Some("webhook_timestamp_too_old"),
            stored: false,
        },
        Case {
            name: "at the tolerance (299 s)",
            header: Some(signature(WHSEC, t - 299, &body("evt_edge"))),
            body: body("evt_edge"),
            status: StatusCode::OK,
            code: None,
            stored: true,
        },
        Case {
            name: "future timestamp (400 s)",
            header: Some(signature(WHSEC, t + 400, &body("evt_future"))),
            body: body("evt_future"),
            status: StatusCode::UNAUTHORIZED,
            code: Some("webhook_timestamp_in_future"),
            stored: false,
        },
        Case {
            name: "tampered body",
            header: Some(tampered_sig),
            body: tampered,
            status: StatusCode::UNAUTHORIZED,
            code: Some("webhook_signature_mismatch"),
            stored: false,
        },
        Case {
            name: "wrong secret",
            header: Some(signature("whsec_attacker", t, &body("evt_wrong"))),
            body: body("evt_wrong"),
            status: StatusCode::UNAUTHORIZED,
            code: Some("webhook_signature_mismatch"),
            stored: false,
        },
        Case {
            name: "no signature header",
            header: None,
            body: body("evt_unsigned"),
            status: StatusCode::UNAUTHORIZED,
            code: Some("webhook_header_missing"),
            stored: false,
        },
        Case {
            name: "no timestamp",
            header: Some(format!("v1={}", v1(WHSEC, t, &body("evt_no_t")))),
            body: body("evt_no_t"),
            status: StatusCode::UNAUTHORIZED,
            code: Some("webhook_timestamp_malformed"),
            stored: false,
        },
        Case {
            name: "only a v0 signature",
            header: Some(signature(WHSEC, t, &body("evt_v0")).replace(",v1=", ",v0=")),
            body: body("evt_v0"),
            status: StatusCode::UNAUTHORIZED,
            code: Some("webhook_signature_malformed"),
            stored: false,
        },
        Case {
            name: "livemode mismatch",
            header: Some(signature(WHSEC, t, &live)),
            body: live,
            status: StatusCode::BAD_REQUEST,
            code: Some("livemode_mismatch"),
            stored: false,
        },
        Case {
            name: "signed but not an event",
            header: Some(signature(WHSEC, t, "{\"hello\":1}")),
            body: "{\"hello\":1}".into(),
            status: StatusCode::BAD_REQUEST,
            code: Some("webhook_body_malformed"),
            stored: false,
        },
        Case {
            name: "unknown type: acknowledged and ignored",
            header: Some(signature(WHSEC, t, &unknown)),
            body: unknown,
            status: StatusCode::OK,
            code: None,
            stored: true,
        },
    ];
    let mut stored = 0;
    for c in &cases {
        let r = post_webhook(&app, &c.body, c.header.as_deref()).await;
        match c.code {
            Some(code) => r.assert_error(c.status, code),
            None => assert_eq!(r.status, c.status, "{}: {}", c.name, r.body),
        }
        let id = serde_json::from_str::<Value>(&c.body)
            .ok()
            .and_then(|v| v["id"].as_str().map(str::to_string));
        let found = match &id {
            Some(id) => event_status(&app, id).await.is_some(),
            None => false,
        };
        assert_eq!(found, c.stored, "{}", c.name);
        stored += usize::from(c.stored);
    }
    assert_eq!(app.count("payment_events").await, stored as i64);
    assert_eq!(
        event_status(&app, "evt_unknown_type").await.as_deref(),
        Some("ignored")
    );
    // One job per stored event we act on; none for the ignored type.
    assert_eq!(jobs_of_kind(&app).await, stored as i64 - 1);
}

async fn jobs_of_kind(app: &TestApp) -> i64 {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM job_progress WHERE kind = $1")
        .bind("payments.apply_event").fetch_one(&mut *c).await).unwrap()
}

#[tokio::test]
async fn a_repeated_delivery_is_stored_and_applied_once() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let r = subscribe(&app, &owner, "price_team_monthly", 6).await;
    let events = fake.complete_checkout(r.json["sessionId"].as_str().unwrap());
    let first = deliver(&app, &fake, &events[1]).await;
    assert_eq!(first.json["duplicate"], false);
    let again = deliver(&app, &fake, &events[1]).await;
    assert_eq!(again.json["duplicate"], true);
    wait_applied(&app, &events[1]).await;
    assert_eq!(jobs_of_kind(&app).await, 1);
    assert_eq!(audit_count(&app, "billing.subscription_changed").await, 1);
    worker.shutdown().await;
}

#[tokio::test]
async fn concurrent_duplicates_are_applied_once() {
    let (app, fake) = app_with_payments(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let r = subscribe(&app, &owner, "price_team_monthly", 6).await;
    let events = fake.complete_checkout(r.json["sessionId"].as_str().unwrap());
    let (body, sig) = fake.signed(&events[1]);
    let answers =
        futures::future::join_all((0..8).map(|_| post_webhook(&app, &body, Some(&sig)))).await;
    assert!(
        answers.iter().all(|a| a.status == StatusCode::OK),
        "{:?}",
        answers.iter().map(|a| &a.body).collect::<Vec<_>>()
    );
    let fresh = answers
        .iter()
        .filter(|a| a.json["duplicate"] == false)
        .count();
    assert_eq!(fresh, 1, "exactly one delivery stores the event");
    assert_eq!(app.count("payment_events").await, 1);
    assert_eq!(jobs_of_kind(&app).await, 1);
    let worker = app.start_worker(&[]).await;
    wait_applied(&app, &events[1]).await;
    assert_eq!(audit_count(&app, "billing.subscription_changed").await, 1);
    assert_eq!(billing_status(&app, &owner).await["seats"], 6);
    worker.shutdown().await;
}

#[tokio::test]
async fn updated_before_created_ends_with_the_providers_state() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let r = subscribe(&app, &owner, "price_team_monthly", 4).await;
    let events = fake.complete_checkout(r.json["sessionId"].as_str().unwrap());
    let sub = events[1]["data"]["object"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let updated = fake.set_status(&sub, "past_due");
    // The later event first, then the creation with its old payload ("active").
    deliver_applied(&app, &fake, &updated).await;
    deliver_applied(&app, &fake, &events[1]).await;
    deliver_applied(&app, &fake, &events[0]).await;
    let b = billing_status(&app, &owner).await;
    assert_eq!(
        b["status"], "past_due",
        "the re-read state, not the stale payload"
    );
    assert_eq!(
        b["seats"], 4,
        "past due keeps its seats while the processor retries"
    );
    assert_eq!(app.count("subscriptions").await, 1);
    worker.shutdown().await;
}

#[tokio::test]
async fn deleted_before_updated_stays_cancelled() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let sub = paid_subscription(&app, &fake, &owner, 9).await;
    assert_eq!(billing_status(&app, &owner).await["seats"], 9);
    let updated = fake.set_status(&sub, "active");
    let deleted = fake.cancel(&sub);
    deliver_applied(&app, &fake, &deleted).await;
    deliver_applied(&app, &fake, &updated).await;
    let b = billing_status(&app, &owner).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(b["plan"], "free");
    assert_eq!(b["seats"], 3);
    worker.shutdown().await;
}

#[tokio::test]
async fn an_object_gone_when_re_read_ends_the_subscription() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let sub = paid_subscription(&app, &fake, &owner, 9).await;
    let updated = fake.set_status(&sub, "active");
    fake.remove(&sub);
    deliver_applied(&app, &fake, &updated).await;
    let b = billing_status(&app, &owner).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(b["seats"], 3);
    let note: Option<String> = {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::sql!(&mut c, c => sqlx::query_scalar("SELECT note FROM payment_events WHERE id = $1")
            .bind(updated["id"].as_str().unwrap()).fetch_one(&mut *c).await).unwrap()
    };
    assert!(note.unwrap().contains("gone"));
    worker.shutdown().await;
}

#[tokio::test]
async fn a_failed_invoice_is_read_through_its_subscription() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let sub = paid_subscription(&app, &fake, &owner, 5).await;
    fake.set_status(&sub, "unpaid");
    let invoice = fake.event(
        "invoice.payment_failed",
        &json!({ "id": "in_1", "object": "invoice", "subscription": sub }),
    );
    deliver_applied(&app, &fake, &invoice).await;
    let b = billing_status(&app, &owner).await;
    assert_eq!(b["status"], "unpaid");
    assert_eq!(b["seats"], 3, "unpaid no longer pays for seats");
    worker.shutdown().await;
}

#[tokio::test]
async fn a_processor_outage_is_retried_by_the_job() {
    let (app, fake) = app_with_payments(&[]).await;
    let worker = app.start_worker(&[]).await;
    let owner = app.signup("owner@example.com").await;
    let r = subscribe(&app, &owner, "price_team_monthly", 6).await;
    let events = fake.complete_checkout(r.json["sessionId"].as_str().unwrap());
    // Three 503s: the first attempt's three tries fail; the job retries later.
    fake.fail_next(3, 503);
    let ack = deliver(&app, &fake, &events[1]).await;
    assert_eq!(
        ack.json["received"], true,
        "acknowledged before the processor is asked"
    );
    wait_applied(&app, &events[1]).await;
    assert_eq!(billing_status(&app, &owner).await["seats"], 6);
    worker.shutdown().await;
}
