//! The queue table under our apalis backend (`worker::queue_backend`): claims are exclusive,
//! finished tasks leave the table, and a dead worker's tasks go back after its lease.

use crate::support::*;
use jobs::diagnostics::Probe;
use jobs::queue;
use shared::db::Ts;
use shared::job::{Owner, Queue};

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
    shared::job::push(
        &mut tx,
        Queue::Default,
        later,
        Ts::now().plus(chrono::Duration::hours(1)),
        0,
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

/// The claim takes the progress rows of the tasks it claims, in the same statement: the
/// delivered task carries its job for this attempt (`running`, the attempt counted). A task
/// whose job is finished or cancelled, or a second task of a job already in the claim, carries
/// none.
#[tokio::test]
async fn a_claim_reads_its_jobs_progress_rows_and_counts_the_attempt_on_its_task() {
    let app = TestApp::new().await;
    let ids = probes(&app, 3).await;
    let mut c = app.state.db.acquire().await.unwrap();
    jobs::progress::fail(&mut c, ids[1], "gone").await.unwrap();
    assert_eq!(
        jobs::progress::request_cancel(&mut c, ids[2])
            .await
            .unwrap(),
        Some(jobs::progress::JobStatus::Cancelled)
    );
    // A second task of the first job.
    shared::job::push(&mut c, Queue::Default, ids[0], Ts::now(), 0)
        .await
        .unwrap();
    let t = queue::claim(&mut c, Queue::Default, "w1", 10, Ts::now())
        .await
        .unwrap();
    assert_eq!(
        t.iter().map(|c| c.job_id).collect::<Vec<_>>(),
        vec![ids[0], ids[1], ids[2], ids[0]]
    );
    let job = t[0].job.as_ref().expect("the queued job is taken");
    assert_eq!(
        (job.id, job.status.as_str(), job.attempts, job.max_attempts),
        (ids[0], "queued", 1, 3)
    );
    assert_eq!(job.kind, "diagnostics.probe");
    assert_eq!(job.queue, Queue::Default);
    assert!(!job.cancel_requested);
    assert!(t[1].job.is_none(), "a failed job is not run again");
    assert!(t[2].job.is_none(), "a cancelled job is not run");
    assert!(t[3].job.is_none(), "one attempt per job per claim");
    // The claim wrote only its tasks; the worker marks the attempt when the job runs a while.
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!((p.status.as_str(), p.attempts), ("queued", 0));
    assert!(p.started_at.is_none());
    let at = Ts::now();
    jobs::progress::mark_started(&mut c, ids[0], job.attempts, at)
        .await
        .unwrap();
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!(
        (p.status.as_str(), p.attempts, p.started_at),
        ("running", 1, Some(at))
    );
}

/// A job whose task is claimed is running, though its progress row still reads `queued` (the
/// claim does not write it): a cancel flags it for its handler instead of ending it at once,
/// and the flag reaches the attempt's record. A job whose task waits is cancelled at once.
#[tokio::test]
async fn a_claimed_job_is_asked_to_stop_and_a_waiting_one_is_cancelled_at_once() {
    let app = TestApp::new().await;
    let ids = probes(&app, 2).await;
    let mut c = app.state.db.acquire().await.unwrap();
    let t = queue::claim(&mut c, Queue::Default, "w1", 1, Ts::now())
        .await
        .unwrap();
    assert_eq!(t[0].job_id, ids[0]);
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!(p.status.as_str(), "queued", "the claim left the row");
    assert_eq!(
        jobs::progress::request_cancel(&mut c, ids[0])
            .await
            .unwrap(),
        Some(jobs::progress::JobStatus::Running)
    );
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!((p.status.as_str(), p.cancel_requested), ("queued", true));
    assert!(
        jobs::progress::is_cancel_requested(&mut c, ids[0])
            .await
            .unwrap()
    );
    // Its handler stops and the worker records the attempt, then the cancellation.
    jobs::progress::mark_started(&mut c, ids[0], 1, Ts::now())
        .await
        .unwrap();
    jobs::progress::mark_cancelled(&mut c, ids[0])
        .await
        .unwrap();
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!((p.status.as_str(), p.attempts), ("cancelled", 1));

    assert_eq!(
        jobs::progress::request_cancel(&mut c, ids[1])
            .await
            .unwrap(),
        Some(jobs::progress::JobStatus::Cancelled)
    );
    let p = jobs::progress::get(&mut c, ids[1]).await.unwrap().unwrap();
    assert_eq!((p.status.as_str(), p.attempts), ("cancelled", 0));
    // Its task is acked unrun when claimed.
    let t = queue::claim(&mut c, Queue::Default, "w1", 1, Ts::now())
        .await
        .unwrap();
    assert_eq!(t[0].job_id, ids[1]);
    assert!(t[0].job.is_none());
}

/// A worker acks a task whose job is already finished or cancelled without running it.
#[tokio::test]
async fn tasks_of_finished_or_cancelled_jobs_are_acked_without_running() {
    let app = TestApp::new().await;
    let ids = probes(&app, 3).await;
    {
        let mut c = app.state.db.acquire().await.unwrap();
        jobs::progress::fail(&mut c, ids[1], "gone").await.unwrap();
        jobs::progress::request_cancel(&mut c, ids[2])
            .await
            .unwrap();
    }
    let w = app.start_worker(&[]).await;
    app.wait_job(ids[0], |p| p.status == "succeeded").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while queue_rows(&app).await > 0 {
        assert!(std::time::Instant::now() < deadline, "tasks left behind");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    w.shutdown().await;
    let mut c = app.state.db.acquire().await.unwrap();
    for (id, status) in [(ids[1], "failed"), (ids[2], "cancelled")] {
        let p = jobs::progress::get(&mut c, id).await.unwrap().unwrap();
        assert_eq!((p.status.as_str(), p.attempts), (status, 0), "{p:?}");
    }
}

/// A worker that dies between its claim and the job's success (simulated: a claim by a worker
/// that never heartbeats) leaves the job `running`; the task comes back after the lease, and
/// the next claim counts another attempt.
#[tokio::test]
async fn a_crash_between_claim_and_success_redelivers_and_counts_an_attempt() {
    let app = TestApp::new().await;
    let ids = probes(&app, 1).await;
    {
        let mut c = app.state.db.acquire().await.unwrap();
        let t = queue::claim(&mut c, Queue::Default, "crashed", 1, Ts::now())
            .await
            .unwrap();
        assert_eq!(t[0].job.as_ref().unwrap().attempts, 1);
    }
    let w = app.start_worker(&[]).await;
    let p = app.wait_job(ids[0], |p| p.status == "succeeded").await;
    assert_eq!(p.attempts, 2, "the crashed attempt counts");
    w.shutdown().await;
}

/// Attempts spent by crashes alone end the job: once a claim counts more attempts than the job
/// has, the worker fails it without running it.
#[tokio::test]
async fn a_job_whose_attempts_all_crashed_is_given_up() {
    let app = TestApp::new().await;
    let ids = probes(&app, 1).await;
    {
        let mut c = app.state.db.acquire().await.unwrap();
        let lease = chrono::Duration::seconds(10);
        for i in 0..3 {
            let t = queue::claim(
                &mut c,
                Queue::Default,
                &format!("crashed-{i}"),
                1,
                Ts::now(),
            )
            .await
            .unwrap();
            assert_eq!(t[0].job.as_ref().unwrap().attempts, i + 1);
            // A live worker's heartbeat hands the dead one's task back.
            assert_eq!(
                queue::heartbeat(&mut c, Queue::Default, "rescuer", Ts::now(), lease)
                    .await
                    .unwrap(),
                1
            );
        }
    }
    let w = app.start_worker(&[]).await;
    let p = app.wait_job(ids[0], |p| p.status == "failed").await;
    assert_eq!(p.attempts, 4);
    assert!(
        p.last_error.as_deref().unwrap_or("").contains("gave up"),
        "{p:?}"
    );
    assert!(p.result.is_none(), "it never ran");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while queue_rows(&app).await > 0 {
        assert!(std::time::Instant::now() < deadline, "its task stayed");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    w.shutdown().await;
}

/// Tasks handed back unstarted (a worker draining for shutdown, its buffer) have their claim
/// uncounted: the job is still `queued`, and its next claim is its first attempt.
#[tokio::test]
async fn a_task_handed_back_unstarted_keeps_its_attempts() {
    let app = TestApp::new().await;
    let ids = probes(&app, 1).await;
    let mut tx = app.state.db.begin().await.unwrap();
    let t = queue::claim(&mut tx, Queue::Default, "w1", 1, Ts::now())
        .await
        .unwrap();
    assert_eq!(t[0].job.as_ref().unwrap().attempts, 1);
    let ids_claimed: Vec<i64> = t.iter().map(|c| c.id).collect();
    // Uncounting matches the holder's lock, so it comes before the release.
    assert_eq!(
        queue::uncount(&mut tx, "w2", &ids_claimed).await.unwrap(),
        0,
        "only the holder"
    );
    assert_eq!(
        queue::uncount(&mut tx, "w1", &ids_claimed).await.unwrap(),
        1
    );
    queue::release(&mut tx, Queue::Default, "w1", &ids_claimed, Ts::now())
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let mut c = app.state.db.acquire().await.unwrap();
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!((p.status.as_str(), p.attempts), ("queued", 0));
    assert!(p.started_at.is_none());
    let again = queue::claim(&mut c, Queue::Default, "w2", 1, Ts::now())
        .await
        .unwrap();
    assert_eq!(again[0].job.as_ref().unwrap().attempts, 1);
}

/// A success is recorded with its task's ack, atomically: only the worker holding the task
/// records it (a task rescued by another worker stays claimable and its job as it was), and
/// then the task is gone and the job `succeeded` together, with its attempt and start time.
#[tokio::test]
async fn a_success_is_recorded_only_together_with_its_tasks_delete() {
    let app = TestApp::new().await;
    let ids = probes(&app, 2).await;
    let mut tx = app.state.db.begin().await.unwrap();
    let t = queue::claim(&mut tx, Queue::Default, "w1", 2, Ts::now())
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let success = |c: &queue::Claimed, v: &str| queue::Success {
        task: c.id,
        job_id: c.job_id,
        result: serde_json::json!({ "v": v }),
    };
    let mut tx = app.state.db.begin().await.unwrap();
    let n = queue::complete(&mut tx, "w2", &[], &[success(&t[0], "stolen")])
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(n, 0, "another worker's task");
    let mut c = app.state.db.acquire().await.unwrap();
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!(
        (p.status.as_str(), p.attempts),
        ("queued", 0),
        "not recorded without its task"
    );
    assert_eq!(queue_rows(&app).await, 2);
    drop(c);

    let mut tx = app.state.db.begin().await.unwrap();
    let n = queue::complete(&mut tx, "w1", &[t[1].id], &[success(&t[0], "mine")])
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(n, 2);
    assert_eq!(queue_rows(&app).await, 0);
    let mut c = app.state.db.acquire().await.unwrap();
    let p = jobs::progress::get(&mut c, ids[0]).await.unwrap().unwrap();
    assert_eq!((p.status.as_str(), p.attempts), ("succeeded", 1));
    assert_eq!(p.result.unwrap().0["v"], "mine");
    assert!(p.finished_at.is_some());
    assert!(p.started_at.is_some_and(|s| Some(s) <= p.finished_at));
    let p = jobs::progress::get(&mut c, ids[1]).await.unwrap().unwrap();
    assert_eq!(
        p.status.as_str(),
        "queued",
        "a plain ack records nothing (its outcome was written before)"
    );
}
