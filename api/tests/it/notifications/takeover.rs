//! A delivery whose run died (or stalled) is taken over: claims move to the job's next attempt,
//! a stalled run can no longer send what it lost, and a delivery that was begun is closed
//! without being sent again (each delivery attempted once).

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::{Id, Ts};
use shared::repo::notifications::{self as repo, Channel, Claimant, DeliveryStatus};

/// A notification to `user` by email, pending and due: (notification, delivery).
async fn pending_mail(app: &TestApp, user: Id, title: &str) -> (Id, Id) {
    let mut tx = app.state.db.begin().await.unwrap();
    let data = json!({});
    let n = repo::insert(
        &mut tx,
        &repo::NewNotification {
            user_id: user,
            org_id: None,
            kind: "digest.weekly",
            title,
            body: "3 sessions",
            data: &data,
            dedupe_key: None,
        },
        &[Channel::Email],
    )
    .await
    .unwrap()
    .expect("a new notification");
    let ds = repo::deliveries_of(&mut tx, &[n]).await.unwrap();
    tx.commit().await.unwrap();
    (n, ds[0].id)
}

#[tokio::test]
async fn the_next_attempt_takes_a_claim_over_and_the_stalled_run_can_no_longer_send_it() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;
    let (n, id) = pending_mail(&app, kai.user_id, "Your week").await;
    let job = Id::new();
    let first = Claimant { job, attempt: 1 };
    let second = Claimant { job, attempt: 2 };
    let now = Ts::now();
    let until = now.plus(chrono::Duration::minutes(5));
    let mut c = app.state.db.acquire().await.unwrap();

    let d = repo::claim(&mut c, id, now, until, first).await.unwrap();
    assert_eq!(d.expect("claimed").send_attempt, None);
    assert_eq!(
        repo::begin_sending(&mut c, &[id], first).await.unwrap(),
        [id]
    );
    // The same run marks again before a later request.
    assert_eq!(
        repo::begin_sending(&mut c, &[id], first).await.unwrap(),
        [id]
    );
    // Another job waits for the claim's end; the same job's next attempt takes it at once and
    // sees that the first run had begun sending.
    let other = Claimant {
        job: Id::new(),
        attempt: 1,
    };
    assert!(
        repo::claim(&mut c, id, now, until, other)
            .await
            .unwrap()
            .is_none()
    );
    let d = repo::claim(&mut c, id, now, until, second).await.unwrap();
    assert_eq!(d.expect("taken over").send_attempt, Some(1));
    // The first run, stalled but alive, may no longer begin a request for it.
    assert!(
        repo::begin_sending(&mut c, &[id], first)
            .await
            .unwrap()
            .is_empty()
    );
    // Closed, the mark goes with the claim.
    repo::finish(&mut c, id, DeliveryStatus::Sent, None, None)
        .await
        .unwrap();
    let d = repo::deliveries_of(&mut c, &[n]).await.unwrap();
    assert_eq!(d[0].send_attempt, None);
}

#[tokio::test]
async fn a_begun_delivery_taken_over_is_closed_unsent_and_one_only_claimed_is_sent_once() {
    let app = TestApp::new().await;
    let kai = app.signup("kai@example.com").await;
    let (_, begun) = pending_mail(&app, kai.user_id, "Begun").await;
    let (_, claimed) = pending_mail(&app, kai.user_id, "Only claimed").await;
    // Both left `sending` by a run that died with its claims expired: one had begun its
    // request (the mail may have gone), the other had not.
    let dead = Claimant {
        job: Id::new(),
        attempt: 1,
    };
    let then = Ts(Ts::now().0 - chrono::Duration::minutes(5));
    {
        let mut c = app.state.db.acquire().await.unwrap();
        for id in [begun, claimed] {
            let d = repo::claim(&mut c, id, Ts::now(), then, dead)
                .await
                .unwrap();
            assert!(d.is_some());
        }
        assert_eq!(
            repo::begin_sending(&mut c, &[begun], dead).await.unwrap(),
            [begun]
        );
    }
    let r = app
        .post("/api/notifications/deliver")
        .bearer(SERVICE_KEY)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let worker = app.start_worker(&[]).await;
    let p = job_done(&app, &r).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    wait_subject(&app, "kai@example.com", "Only claimed").await;
    let mut c = app.state.db.acquire().await.unwrap();
    let (status, error): (String, Option<String>) = shared::sql!(&mut c, c => sqlx::query_as(
        "SELECT status, last_error FROM notification_deliveries WHERE id = $1").bind(begun).fetch_one(&mut *c).await)
        .unwrap();
    assert_eq!(status, "failed");
    assert!(
        error.as_deref().unwrap_or("").starts_with("interrupted: "),
        "{error:?}"
    );
    let mails = app.smtp.messages_to("kai@example.com");
    assert!(
        mails.iter().all(|m| m.subject() != "Begun"),
        "not sent again"
    );
    assert_eq!(
        mails
            .iter()
            .filter(|m| m.subject() == "Only claimed")
            .count(),
        1
    );
    worker.shutdown().await;
}
