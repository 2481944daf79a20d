//! Scheduled tasks: the cron routes and the in-process schedulers.

use crate::support::*;
use axum::http::StatusCode;
use shared::db::{Id, Ts};

#[tokio::test]
async fn cron_routes_enqueue_their_task_once_and_unconfigured_providers_fail_cleanly() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/cron/tokens-cleanup")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(r.json["existing"], false);
    let id: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let r = app
        .get("/api/cron/tokens-cleanup")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    assert_eq!(r.json["existing"], true, "still queued: the same job");
    assert_eq!(r.json["jobId"], id.to_string());
    app.post("/api/cron/tokens-cleanup")
        .bearer(SERVICE_KEY)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.post("/api/cron/no-such-task")
        .bearer("cron-secret-for-tests")
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "route_not_found");

    // Something for the clean-up to find.
    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::repo::ratelimit::hit(&mut c, "old", 5, chrono::Duration::seconds(1))
            .await
            .unwrap()
            .unwrap();
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE rate_limits SET window_start = $1")
                .bind(Ts::now().minus(chrono::Duration::days(2)))
        )
        .unwrap();
    }
    let sync = app
        .post("/api/cron/heatsource-sync")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    let sync_id: Id = sync.json["jobId"].as_str().unwrap().parse().unwrap();
    let w = app.start_worker(&[]).await;
    let p = app.wait_job(id, |p| p.status == "succeeded").await;
    assert_eq!(p.result.unwrap().0["rateLimits"], 1);
    let p = app.wait_job(sync_id, |p| p.status == "failed").await;
    assert_eq!(p.attempts, 1, "not configured is permanent");
    assert!(
        p.last_error
            .unwrap()
            .contains("heatsource is not configured")
    );
    w.shutdown().await;
    assert_eq!(app.count("rate_limits").await, 0);
}

#[tokio::test]
async fn in_process_schedulers_fire_each_tick_once() {
    let app = TestApp::new().await;
    let mut env: Vec<(String, String)> = shared::job::scheduled::CronTask::ALL
        .iter()
        .map(|t| (t.schedule_var(), "off".to_string()))
        .collect();
    env.push(("SCHEDULE_TOKENS_CLEANUP".into(), "* * * * * *".into()));
    env.push(("SCHEDULER".into(), "on".into()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let a = app.start_worker(&env).await;
    let b = app.start_worker(&env).await;
    tokio::time::sleep(std::time::Duration::from_millis(3200)).await;
    a.shutdown().await;
    b.shutdown().await;
    // One statement, one snapshot: a firing still in flight after shutdown commits its tick
    // and its job together, so both counts see it or neither does.
    let mut c = app.state.db.acquire().await.unwrap();
    let (ticks, jobs): (i64, i64) = shared::sql!(&mut c, c => sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM cron_ticks), (SELECT COUNT(*) FROM job_progress WHERE kind = 'cron.tokens-cleanup')")
        .fetch_one(&mut *c).await).unwrap();
    assert!((2..=5).contains(&ticks), "{ticks} ticks in 3.2 s");
    assert!(jobs <= ticks && jobs >= 1, "{jobs} jobs for {ticks} ticks");
}
