//! The payment webhook's group commit: concurrent deliveries are stored in one transaction
//! (`events::store_batch`), each answered for itself; a batch that fails is stored one item at
//! a time, so a bad item fails alone.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};
use shared::domain::billing::events::{self, EventStore, Received, Verified};
use testkit::payments::signature;

fn now() -> i64 {
    shared::db::Ts::now().0.timestamp()
}

fn event(id: &str) -> Value {
    json!({ "id": id, "object": "event", "type": "customer.subscription.updated", "created": now(),
            "livemode": false, "data": { "object": { "id": format!("sub_{id}"), "object": "subscription" } } })
}

/// A signed delivery of event `id`, verified as the webhook verifies it.
fn verified(app: &TestApp, id: &str) -> Verified {
    let body = event(id).to_string();
    let t = now();
    let cfg = app
        .state
        .cfg
        .payments
        .as_ref()
        .expect("payments configured");
    let sig = signature(WHSEC, t, &body);
    events::verify(cfg, Some(&sig), body.as_bytes(), t).expect("verified")
}

/// The event ids that have a `payments.apply_event` job, sorted (one job per id expected).
async fn job_keys(app: &TestApp) -> Vec<String> {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, String>(
        "SELECT idempotency_key FROM job_progress WHERE kind = $1 ORDER BY idempotency_key")
        .bind("payments.apply_event").fetch_all(&mut *c).await)
    .unwrap()
}

/// The stored event ids, sorted.
async fn event_ids(app: &TestApp) -> Vec<String> {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, String>("SELECT id FROM payment_events ORDER BY id")
        .fetch_all(&mut *c).await)
    .unwrap()
}

fn sorted(ids: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Makes the database refuse the job of event `evt_bad` (a trigger on `job_progress`; on
/// PostgreSQL the refusal also aborts the transaction it runs in): the real queue, failing
/// after the event's row was written in the same transaction.
async fn refuse_the_bad_events_job(app: &TestApp) {
    let mut c = app.state.db.acquire().await.unwrap();
    let statements: &[&str] = if app.state.db.dialect() == shared::db::Dialect::Postgres {
        &[
            "CREATE FUNCTION refuse_bad_job() RETURNS trigger AS $$
             BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql",
            "CREATE TRIGGER refuse_bad_job BEFORE INSERT ON job_progress FOR EACH ROW
             WHEN (NEW.idempotency_key = 'evt_bad') EXECUTE FUNCTION refuse_bad_job()",
        ]
    } else {
        &["CREATE TRIGGER refuse_bad_job BEFORE INSERT ON job_progress
           WHEN NEW.idempotency_key = 'evt_bad'
           BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"]
    };
    for q in statements {
        shared::execute!(&mut c, sqlx::query(sqlx::AssertSqlSafe(*q))).unwrap();
    }
}

const FIRST: Received = Received {
    duplicate: false,
    ignored: false,
};
const DUPLICATE: Received = Received {
    duplicate: true,
    ignored: false,
};

#[tokio::test]
async fn concurrent_distinct_deliveries_are_each_stored_once_with_their_job() {
    let (app, _fake) = app_with_payments(&[]).await;
    let ids: Vec<String> = (0..48).map(|i| format!("evt_many_{i:02}")).collect();
    let bodies: Vec<String> = ids.iter().map(|id| event(id).to_string()).collect();
    let sigs: Vec<String> = bodies.iter().map(|b| signature(WHSEC, now(), b)).collect();
    let answers = futures::future::join_all(
        bodies
            .iter()
            .zip(&sigs)
            .map(|(b, s)| post_webhook(&app, b, Some(s))),
    )
    .await;
    for a in &answers {
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        assert_eq!(a.json["duplicate"], false, "{}", a.body);
    }
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(event_ids(&app).await, sorted(&ids));
    assert_eq!(job_keys(&app).await, sorted(&ids), "one job per event");
}

#[tokio::test]
async fn concurrent_twins_among_distinct_deliveries_are_stored_once_each() {
    let (app, _fake) = app_with_payments(&[]).await;
    // Eight deliveries each of two events, interleaved with sixteen distinct ones.
    let mut sends: Vec<String> = vec![];
    for i in 0..16 {
        sends.push(format!("evt_solo_{i:02}"));
        sends.push(["evt_twin_a", "evt_twin_b"][i % 2].to_string());
    }
    let signed: Vec<(String, String)> = sends
        .iter()
        .map(|id| {
            let b = event(id).to_string();
            let s = signature(WHSEC, now(), &b);
            (b, s)
        })
        .collect();
    let answers =
        futures::future::join_all(signed.iter().map(|(b, s)| post_webhook(&app, b, Some(s)))).await;
    for (id, a) in sends.iter().zip(&answers) {
        assert_eq!(a.status, StatusCode::OK, "{id}: {}", a.body);
    }
    for twin in ["evt_twin_a", "evt_twin_b"] {
        let first = sends
            .iter()
            .zip(&answers)
            .filter(|(id, a)| *id == twin && a.json["duplicate"] == false)
            .count();
        assert_eq!(first, 1, "{twin}: exactly one delivery stores it");
    }
    let solos = sends
        .iter()
        .zip(&answers)
        .filter(|(id, a)| id.starts_with("evt_solo") && a.json["duplicate"] == false)
        .count();
    assert_eq!(solos, 16);
    let mut expected = sorted(&sends.iter().map(String::as_str).collect::<Vec<_>>());
    expected.dedup();
    assert_eq!(event_ids(&app).await, expected);
    assert_eq!(job_keys(&app).await, expected, "one job per event");
}

#[tokio::test]
async fn twins_inside_one_batch_are_stored_once_and_answered_each() {
    let (app, _fake) = app_with_payments(&[]).await;
    let earlier = events::store(&app.state.db, &verified(&app, "evt_earlier"))
        .await
        .unwrap();
    assert_eq!(earlier, FIRST);
    let batch: Vec<Verified> = ["evt_a", "evt_b", "evt_a", "evt_earlier", "evt_c", "evt_a"]
        .iter()
        .map(|id| verified(&app, id))
        .collect();
    let answers: Vec<Received> = events::store_batch(&app.state.db, &batch)
        .await
        .into_iter()
        .map(|a| a.expect("stored"))
        .collect();
    assert_eq!(
        answers,
        [FIRST, FIRST, DUPLICATE, DUPLICATE, FIRST, DUPLICATE],
        "the first delivery of a twin stores it; the later ones and the earlier event are duplicates"
    );
    let all = sorted(&["evt_a", "evt_b", "evt_c", "evt_earlier"]);
    assert_eq!(event_ids(&app).await, all);
    assert_eq!(job_keys(&app).await, all, "one job per event");
}

#[tokio::test]
async fn a_failing_item_fails_alone_and_its_batch_neighbours_are_stored() {
    let (app, _fake) = app_with_payments(&[]).await;
    let batch: Vec<Verified> = ["evt_1", "evt_bad", "evt_2", "evt_1", "evt_3"]
        .iter()
        .map(|id| verified(&app, id))
        .collect();
    refuse_the_bad_events_job(&app).await;
    let answers = events::store_batch(&app.state.db, &batch).await;
    let e = answers[1].as_ref().expect_err("the bad item fails");
    assert_eq!(e.code, "internal", "{e}");
    let others: Vec<Received> = [0, 2, 3, 4]
        .iter()
        .map(|&i| *answers[i].as_ref().expect("a neighbour is stored"))
        .collect();
    assert_eq!(others, [FIRST, FIRST, DUPLICATE, FIRST]);
    let good = sorted(&["evt_1", "evt_2", "evt_3"]);
    assert_eq!(
        event_ids(&app).await,
        good,
        "the bad item's row is not kept"
    );
    assert_eq!(job_keys(&app).await, good);

    // Nothing of the bad item was half-written: delivered again (the database accepting it
    // now), it is stored as new.
    let mut c = app.state.db.acquire().await.unwrap();
    let statement = match app.state.db.dialect() {
        shared::db::Dialect::Postgres => "DROP TRIGGER refuse_bad_job ON job_progress",
        shared::db::Dialect::Sqlite => "DROP TRIGGER refuse_bad_job",
    };
    shared::execute!(&mut c, sqlx::query(statement)).unwrap();
    drop(c);
    let again = events::store(&app.state.db, &verified(&app, "evt_bad"))
        .await
        .unwrap();
    assert_eq!(again, FIRST);
    assert_eq!(app.count("payment_events").await, 4);
}

#[tokio::test]
async fn through_the_group_commit_each_caller_gets_its_own_answer_when_one_fails() {
    let (app, _fake) = app_with_payments(&[]).await;
    refuse_the_bad_events_job(&app).await;
    let store = EventStore::group_commit(app.state.db.clone());
    let ids = ["evt_x", "evt_bad", "evt_y", "evt_x", "evt_z"];
    let answers =
        futures::future::join_all(ids.iter().map(|id| store.store(verified(&app, id)))).await;
    assert!(answers[1].is_err(), "the bad delivery fails");
    for i in [0, 2, 4] {
        assert_eq!(
            *answers[i].as_ref().expect("stored"),
            FIRST,
            "{} is first-seen",
            ids[i]
        );
    }
    assert_eq!(*answers[3].as_ref().expect("stored"), DUPLICATE);
    let good = sorted(&["evt_x", "evt_y", "evt_z"]);
    assert_eq!(event_ids(&app).await, good);
    assert_eq!(job_keys(&app).await, good);
}
