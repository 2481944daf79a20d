//! Running jobs: progress, retries with backoff, permanent failures, requeueing and cancelling.

use crate::support::*;
use axum::http::StatusCode;
use jobs::diagnostics::Probe;
use shared::db::{Id, Ts};
use shared::job::Owner;

#[tokio::test]
async fn worker_runs_a_job_and_the_api_reports_its_progress() {
    let app = TestApp::new().await;
    let s = app.signup("coach@example.com").await;
    let other = other_workspace(&app).await;
    let viewer = add_member(&app, s.org_id, "viewer@example.com", "viewer").await;
    let job = enqueue_probe(
        &app,
        Probe {
            sleep_ms: 400,
            marker: Some("m-1".into()),
            ..Default::default()
        },
        owner_of(&s),
    )
    .await;
    let r = app
        .get(&format!("/api/jobs/{}", job.id))
        .session(&s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["status"], "queued");
    assert_eq!(r.json["cancellable"], true);

    let w = app.start_worker(&[]).await;
    let p = app
        .wait_job(job.id, |p| {
            p.status == "running" && p.percent.unwrap_or(0) > 0
        })
        .await;
    assert_eq!(p.message.as_deref(), Some("sleeping"));
    let p = app.wait_job(job.id, |p| p.status == "succeeded").await;
    assert_eq!(p.attempts, 1);
    assert_eq!(p.percent, Some(100));
    assert!(p.finished_at.is_some() && p.started_at.is_some());

    for who in [&s, &viewer] {
        let r = app
            .get(&format!("/api/jobs/{}", job.id))
            .session(who)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.json["result"]["marker"], "m-1");
    }
    app.get(&format!("/api/jobs/{}", job.id))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/jobs/not-an-id")
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!("/api/jobs/{}", Id::new()))
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    w.shutdown().await;
}

#[tokio::test]
async fn transient_failures_retry_after_a_durable_backoff() {
    let app = TestApp::new().await;
    let job = enqueue_probe(
        &app,
        Probe {
            fail_attempts: 1,
            ..Default::default()
        },
        Owner::default(),
    )
    .await;
    let w = app
        .start_worker(&[("WORKER_BACKOFF_BASE_MS", "1500")])
        .await;
    let p = app
        .wait_job(job.id, |p| p.status == "queued" && p.attempts == 1)
        .await;
    assert!(p.last_error.as_deref().unwrap().contains("fail attempt 1"));
    let due = p.run_after;
    assert!(due > Ts::now(), "the retry waits in the database");
    // A restart during the backoff neither loses nor hurries the retry.
    w.shutdown().await;
    let w = app.start_worker(&[]).await;
    let p = app.wait_job(job.id, |p| p.status == "succeeded").await;
    assert_eq!(p.attempts, 2);
    assert!(
        p.finished_at.unwrap() >= due,
        "ran at {:?}, due {:?}",
        p.finished_at,
        due
    );
    w.shutdown().await;
}

/// The probe's effect (what the chaos tests count) is applied once: the attempt that failed
/// after applying it left it for the retry to find, and a second job with the same effect key
/// finds it too.
#[tokio::test]
async fn a_probe_effect_lands_once_however_often_its_job_runs() {
    let app = TestApp::new().await;
    let w = app.start_worker(&[]).await;
    let first = enqueue_probe(
        &app,
        Probe {
            effect: Some("effect-1".into()),
            fail_attempts: 1,
            ..Default::default()
        },
        Owner::default(),
    )
    .await;
    let p = app.wait_job(first.id, |p| p.status == "succeeded").await;
    assert_eq!(p.attempts, 2);
    assert_eq!(p.result.unwrap().0["effect"], "already applied");
    let again = enqueue_probe(
        &app,
        Probe {
            effect: Some("effect-1".into()),
            ..Default::default()
        },
        Owner::default(),
    )
    .await;
    let p = app.wait_job(again.id, |p| p.status == "succeeded").await;
    assert_eq!(p.result.unwrap().0["effect"], "already applied");
    let other = enqueue_probe(
        &app,
        Probe {
            effect: Some("effect-2".into()),
            ..Default::default()
        },
        Owner::default(),
    )
    .await;
    let p = app.wait_job(other.id, |p| p.status == "succeeded").await;
    assert_eq!(p.result.unwrap().0["effect"], "applied");
    let mut c = app.state.db.acquire().await.unwrap();
    let counts = jobs::diagnostics::effect_counts(&mut c, "effect-")
        .await
        .unwrap();
    assert_eq!((counts.rows, counts.distinct), (2, 2));
    assert_eq!(counts.by_later_attempts, 0, "the first attempt applied it");
    drop(c);
    w.shutdown().await;
}

#[tokio::test]
async fn permanent_failures_are_not_retried_and_exhausted_jobs_can_be_requeued_by_an_admin() {
    let app = TestApp::new().await;
    let s = app.signup("coach@example.com").await;
    let w = app.start_worker(&[]).await;
    let perm = enqueue_probe(
        &app,
        Probe {
            fail_permanently: true,
            ..Default::default()
        },
        owner_of(&s),
    )
    .await;
    let exhausted = enqueue_probe(
        &app,
        Probe {
            fail_attempts: 3,
            ..Default::default()
        },
        owner_of(&s),
    )
    .await;
    let p = app.wait_job(perm.id, |p| p.status == "failed").await;
    assert_eq!(p.attempts, 1);
    assert!(p.last_error.unwrap().contains("permanently"));
    let p = app.wait_job(exhausted.id, |p| p.status == "failed").await;
    assert_eq!(p.attempts, 3, "MAX_ATTEMPTS of the probe");
    assert!(p.last_error.unwrap().starts_with("out of attempts"));

    let path = format!("/api/admin/jobs/{}/retry", exhausted.id);
    app.post(&path)
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    make_admin(&app, &s).await;
    let r = app.post(&path).session(&s).send().await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json["pollUrl"], format!("/api/jobs/{}", exhausted.id));
    // It runs again from attempt 1 (and, this probe failing its first three, fails again).
    app.wait_job(exhausted.id, |p| {
        p.status == "failed" && p.attempts == 3 && p.updated_at > p.created_at
    })
    .await;
    let r = app
        .post(&format!("/api/admin/jobs/{}/retry", Id::new()))
        .session(&s)
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let done = enqueue_probe(&app, Probe::default(), Owner::default()).await;
    app.wait_job(done.id, |p| p.status == "succeeded").await;
    let r = app
        .post(&format!("/api/admin/jobs/{}/retry", done.id))
        .session(&s)
        .send()
        .await;
    r.assert_error(StatusCode::CONFLICT, "job_not_failed");
    w.shutdown().await;
}

#[tokio::test]
async fn queued_and_running_jobs_can_be_cancelled() {
    let app = TestApp::new().await;
    let s = app.signup("coach@example.com").await;
    let queued = enqueue_probe(&app, Probe::default(), owner_of(&s)).await;
    let r = app
        .post(&format!("/api/jobs/{}/cancel", queued.id))
        .session(&s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["status"], "cancelled");
    app.post(&format!("/api/jobs/{}/cancel", queued.id))
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "job_finished");

    let running = enqueue_probe(
        &app,
        Probe {
            sleep_ms: 3000,
            ..Default::default()
        },
        owner_of(&s),
    )
    .await;
    let w = app.start_worker(&[]).await;
    app.wait_job(queued.id, |p| p.status == "cancelled").await;
    app.wait_job(running.id, |p| p.status == "running").await;
    let r = app
        .post(&format!("/api/jobs/{}/cancel", running.id))
        .session(&s)
        .send()
        .await;
    assert_eq!(r.json["cancelRequested"], true);
    let p = app.wait_job(running.id, |p| p.status == "cancelled").await;
    assert_eq!(p.attempts, 1);

    // Scheduled tasks cannot be cancelled by users.
    let mut tx = app.state.db.begin().await.unwrap();
    let cron = shared::job::enqueue_spec(
        &mut tx,
        &shared::job::scheduled::CronTask::JobsPrune.spec(),
        owner_of(&s),
        shared::db::Ts::now(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    app.post(&format!("/api/jobs/{}/cancel", cron.id))
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "not_cancellable");
    w.shutdown().await;
}

/// A stored queue name this build does not know is an error that names it, never the default
/// queue (an admin's retry used to push such a job onto `default`).
#[tokio::test]
async fn a_stored_unknown_queue_is_an_error_not_the_default_queue() {
    let app = TestApp::new().await;
    let job = enqueue_probe(&app, Probe::default(), Owner::default()).await;
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE job_progress SET queue = 'inbox' WHERE id = $1").bind(job.id)
    )
    .unwrap();
    let e = jobs::progress::get(&mut c, job.id).await.unwrap_err();
    assert!(e.to_string().contains("unknown Queue `inbox`"), "{e}");
}

/// A worker of slow jobs claims about what it can start (its buffer follows its pace:
/// `worker::queue_backend`), so a second worker shares the backlog instead of waiting behind a
/// hoard. With the fetch batch alone (128 here) the first worker would have taken all 24.
#[tokio::test]
async fn workers_of_slow_jobs_share_the_backlog() {
    let app = TestApp::new().await;
    let mut ids = vec![];
    for _ in 0..24 {
        let probe = Probe {
            sleep_ms: 300,
            ..Default::default()
        };
        ids.push(enqueue_probe(&app, probe, Owner::default()).await.id);
    }
    let env = [("WORKER_CONCURRENCY", "only:default=4")];
    let a = app.start_worker(&env).await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let b = app.start_worker(&env).await;
    let (mut most, mut both) = (0i64, false);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while std::time::Instant::now() < until {
        let mut c = app.state.db.acquire().await.unwrap();
        let held: Vec<(String, i64)> = shared::sql!(&mut c, c => sqlx::query_as(
            "SELECT locked_by, COUNT(*) FROM job_queue WHERE locked_by IS NOT NULL GROUP BY locked_by")
            .fetch_all(&mut *c).await)
        .unwrap();
        drop(c);
        most = most.max(held.iter().map(|(_, n)| *n).max().unwrap_or(0));
        both |= held.len() == 2;
        if held.is_empty() && both {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(both, "the second worker got a share of the backlog");
    // By design at most eight rows: four running, and four finished whose acks have not
    // committed yet (a freed slot's next claim can commit first). A hoarder holds the backlog;
    // half of it leaves a slow machine's ack lag room.
    assert!(most <= 12, "a worker held {most} tasks at once");
    for id in ids {
        app.wait_job(id, |p| p.status == "succeeded").await;
    }
    a.shutdown().await;
    b.shutdown().await;
}
