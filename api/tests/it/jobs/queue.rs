//! The queue table under our apalis backend (`worker::queue_backend`): claims are exclusive,
//! finished tasks leave the table, and a dead worker's tasks go back after its lease.

use crate::support::*;
use jobs::kinds::Probe;
use jobs::queue;
use jobs::{Owner, Queue};
use shared::db::Ts;

/// Enqueues `n` probes and returns their ids.
async fn probes(app: &TestApp, n: usize) -> Vec<shared::db::Id> {
    let mut ids = vec![];
    for _ in 0..n {
        ids.push(
            enqueue_probe(app, Probe::default(), Owner::default())
                .await
                .id,
        );
    }
    ids
}

#[tokio::test]
async fn claims_take_each_task_once_and_only_due_ones() {
    let app = TestApp::new().await;
    let ids = probes(&app, 7).await;
    // A delayed task is not due yet.
    let mut tx = app.state.db.begin().await.unwrap();
    let later = shared::db::Id::new();
    queue::push(
        &mut tx,
        Queue::Default,
        later,
        Ts::now().plus(chrono::Duration::hours(1)),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();

    let mut c = app.state.db.acquire().await.unwrap();
    let now = Ts::now();
    let a = queue::claim(&mut c, Queue::Default, "w1", 4, now)
        .await
        .unwrap();
    let b = queue::claim(&mut c, Queue::Default, "w2", 10, now)
        .await
        .unwrap();
    let none = queue::claim(&mut c, Queue::Providers, "w3", 10, now)
        .await
        .unwrap();
    assert_eq!(a.len(), 4);
    assert_eq!(b.len(), 3, "the rest, without the delayed task");
    assert!(none.is_empty(), "another queue's tasks are not claimed");
    let mut got: Vec<String> = a.iter().chain(&b).map(|c| c.job_id.to_string()).collect();
    got.sort();
    let mut want: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    want.sort();
    assert_eq!(got, want, "every due task once");
    assert_eq!(
        a.iter().map(|c| c.job_id).collect::<Vec<_>>(),
        ids[..4],
        "oldest first"
    );
}

#[tokio::test]
async fn only_the_holder_finishes_or_releases_a_task() {
    let app = TestApp::new().await;
    probes(&app, 2).await;
    let mut c = app.state.db.acquire().await.unwrap();
    let now = Ts::now();
    let t = queue::claim(&mut c, Queue::Default, "w1", 2, now)
        .await
        .unwrap();
    let ids: Vec<i64> = t.iter().map(|c| c.id).collect();
    assert_eq!(queue::finish(&mut c, "w2", &ids).await.unwrap(), 0);
    assert_eq!(
        queue::release(&mut c, Queue::Default, "w2", &ids, now)
            .await
            .unwrap(),
        0
    );
    assert_eq!(queue::finish(&mut c, "w1", &ids[..1]).await.unwrap(), 1);
    assert_eq!(
        queue::release(&mut c, Queue::Default, "w1", &ids[1..], now)
            .await
            .unwrap(),
        1
    );
    assert_eq!(queue_rows(&app).await, 1);
    let again = queue::claim(&mut c, Queue::Default, "w2", 5, Ts::now())
        .await
        .unwrap();
    assert_eq!(again.iter().map(|c| c.id).collect::<Vec<_>>(), ids[1..]);
}

#[tokio::test]
async fn a_worker_unseen_for_its_lease_loses_its_tasks_to_the_queue() {
    let app = TestApp::new().await;
    probes(&app, 3).await;
    let lease = chrono::Duration::seconds(10);
    let t0 = Ts::now();
    let mut c = app.state.db.acquire().await.unwrap();
    assert_eq!(
        queue::heartbeat(&mut c, Queue::Default, "dead", t0, lease)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        queue::claim(&mut c, Queue::Default, "dead", 3, t0)
            .await
            .unwrap()
            .len(),
        3
    );
    // Within the lease nothing moves.
    let t1 = t0.plus(chrono::Duration::seconds(5));
    assert_eq!(
        queue::heartbeat(&mut c, Queue::Default, "live", t1, lease)
            .await
            .unwrap(),
        0
    );
    assert!(
        queue::claim(&mut c, Queue::Default, "live", 3, t1)
            .await
            .unwrap()
            .is_empty()
    );
    // After it, the live worker's heartbeat hands them back, and it can claim them.
    let t2 = t0.plus(chrono::Duration::seconds(11));
    assert_eq!(
        queue::heartbeat(&mut c, Queue::Default, "live", t2, lease)
            .await
            .unwrap(),
        3
    );
    assert_eq!(
        queue::claim(&mut c, Queue::Default, "live", 5, t2)
            .await
            .unwrap()
            .len(),
        3
    );
    // A live worker's own tasks stay with it.
    let t3 = t2.plus(chrono::Duration::seconds(5));
    assert_eq!(
        queue::heartbeat(&mut c, Queue::Default, "live", t3, lease)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        queue::prune_workers(&mut c, t1).await.unwrap(),
        1,
        "the dead one"
    );
}

#[tokio::test]
async fn finished_jobs_leave_the_queue_table() {
    let app = TestApp::new().await;
    let ids = probes(&app, 40).await;
    assert_eq!(queue_rows(&app).await, 40);
    let w = app.start_worker(&[]).await;
    for id in ids {
        app.wait_job(id, |p| p.status == "succeeded").await;
    }
    // Acks are written just after each job's outcome, off its path.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while queue_rows(&app).await > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "finished tasks stayed in the queue"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    w.shutdown().await;
}
