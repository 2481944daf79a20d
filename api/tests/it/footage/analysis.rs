use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::storage::Store;
use std::time::{Duration, Instant};
use testkit::analysis::{FakeAnalysis, TEST_WEBHOOK_SECRET};

/// The backend fetches the signed source URL itself, so the store must be reachable from it:
/// the S3 test server (scripts/test always provides it).
async fn app_with_backend() -> Option<(TestApp, FakeAnalysis)> {
    let mut env = s3_env()?;
    let fake = FakeAnalysis::start("analysis-key", TEST_WEBHOOK_SECRET).await;
    env.push(("ANALYSIS_BASE_URL", fake.base_url()));
    env.push(("ANALYSIS_API_KEY", "analysis-key".into()));
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Some((TestApp::with_env(&vars).await, fake))
}

#[tokio::test]
async fn a_clip_is_analyzed_polled_and_stored_with_its_stats() {
    let Some((app, fake)) = app_with_backend().await else {
        eprintln!("skipped: TEST_S3_ENDPOINT is not set");
        return;
    };
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let other = other_workspace(&app).await;
    let bytes = video_bytes(300_000);
    let (_, clip) = uploaded_clip(&app, &coach, &bytes).await;

    let r = app
        .post("/api/clips/analyze")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let again = app
        .post("/api/clips/analyze")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(
        again.json["existing"], true,
        "a clip in flight returns its live job"
    );

    let deadline = Instant::now() + Duration::from_secs(20);
    let stored = loop {
        let r = app
            .get(&format!("/api/clips/{clip}"))
            .session(&coach)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK);
        let status = r.json["status"].as_str().unwrap().to_string();
        assert!(status != "failed", "{}", r.body);
        if status == "stored" {
            break r;
        }
        assert!(Instant::now() < deadline, "clip stuck: {}", r.body);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(stored.json["progress"], 100);
    assert!(
        stored.json["stats"]["maneuvers"]
            .as_array()
            .is_some_and(|m| !m.is_empty())
    );
    assert_eq!(stored.json["hasVideo"], true);
    assert_eq!(fake.submits().len(), 1, "one backend job");

    let key = shared::domain::footage::keys::video(coach.org_id, clip);
    let obj = app
        .state
        .storage
        .head(Store::SessionVideos, &key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        obj.size,
        bytes.len() as u64,
        "the processed video is the one copy"
    );

    app.post("/api/clips/analyze")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_state_conflict");
    app.get(&format!("/api/clips/{clip}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let s = app
        .get(&format!("/api/clips/status?ids={clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(s.json["items"][0]["status"], "stored");
    worker.shutdown().await;
}

/// Relays a delivery the fake backend made (to the app's public URL, which tests do not serve)
/// into the app, optionally with another body.
async fn relay(app: &TestApp, d: &testkit::analysis::WebhookDelivery, body: &[u8]) -> Resp {
    let mut r = app.post("/api/webhooks/analysis");
    for (k, v) in d.headers() {
        r = r.header(k, &v);
    }
    r.raw("application/json", body).send().await
}

#[tokio::test]
async fn the_completion_webhook_finishes_a_clip_whose_polls_all_fail() {
    let Some(mut env) = s3_env() else {
        eprintln!("skipped: TEST_S3_ENDPOINT is not set");
        return;
    };
    let fake = FakeAnalysis::start("analysis-key", TEST_WEBHOOK_SECRET).await;
    env.push(("ANALYSIS_BASE_URL", fake.base_url()));
    env.push(("ANALYSIS_API_KEY", "analysis-key".into()));
    env.push(("ANALYSIS_WEBHOOK_SECRET", TEST_WEBHOOK_SECRET.into()));
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let app = TestApp::with_env(&vars).await;
    // Every poll fails: only the webhook can bring the result.
    fake.fail_next_polls(503, 1000);
    fake.set_timing(Duration::ZERO, Duration::from_millis(200), 2);
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip) = uploaded_clip(&app, &coach, &video_bytes(50_000)).await;
    let r = app
        .post("/api/clips/analyze")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);

    let deadline = Instant::now() + Duration::from_secs(10);
    let delivery = loop {
        if let Some(d) = fake.webhooks_sent().into_iter().next() {
            break d;
        }
        assert!(Instant::now() < deadline, "no webhook was sent");
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert_eq!(
        fake.submits()[0].webhook_url.as_deref(),
        Some("http://app.test/api/webhooks/analysis"),
        "the submit names our receiver"
    );

    // A forged or tampered delivery is refused and changes nothing.
    let mut forged = delivery.body.clone();
    forged.extend_from_slice(b" ");
    relay(&app, &delivery, &forged)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "webhook_signature_mismatch");
    let r = app
        .post("/api/webhooks/analysis")
        .raw("application/json", &delivery.body)
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "webhook_header_missing");

    // The genuine one, twice (backends retry): applied once, the clip gets stored.
    for _ in 0..2 {
        let r = relay(&app, &delivery, &delivery.body).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    }
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = app
            .get(&format!("/api/clips/{clip}"))
            .session(&coach)
            .send()
            .await;
        if r.json["status"] == "stored" {
            assert_eq!(r.json["progress"], 100);
            break;
        }
        assert!(r.json["status"] != "failed", "{}", r.body);
        assert!(Instant::now() < deadline, "clip stuck: {}", r.body);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let stored_jobs: i64 = {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM job_progress WHERE kind = 'footage.store'").fetch_one(&mut *c).await).unwrap()
    };
    assert_eq!(stored_jobs, 1, "the duplicate delivery enqueued nothing");
    worker.shutdown().await;
}

#[tokio::test]
async fn without_a_configured_backend_the_webhook_says_so() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/webhooks/analysis")
        .header("webhook-id", "msg_1")
        .header("webhook-timestamp", "1")
        .header("webhook-signature", "v1,AAAA")
        .raw("application/json", b"{}")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.body);
}

#[tokio::test]
async fn the_clips_poll_task_revives_only_stalled_analyses() {
    let fake = FakeAnalysis::start("analysis-key", TEST_WEBHOOK_SECRET).await;
    let base = fake.base_url();
    let app = TestApp::with_env(&[
        ("ANALYSIS_BASE_URL", base.as_str()),
        ("ANALYSIS_API_KEY", "analysis-key"),
    ])
    .await;
    let coach = app.signup("coach@example.com").await;
    let (_, stalled) = uploaded_clip(&app, &coach, b"a").await;
    let (_, live) = uploaded_clip(&app, &coach, b"b").await;
    let (_, idle) = uploaded_clip(&app, &coach, b"c").await;
    {
        let old = shared::db::Ts::now().minus(chrono::Duration::hours(1));
        let mut c = app.state.db.acquire().await.unwrap();
        for (clip, status, at) in [
            (stalled, "processing", old),
            (live, "processing", shared::db::Ts::now()),
            (idle, "uploaded", old),
        ] {
            shared::execute!(&mut c, sqlx::query("UPDATE clips SET status = $1, analysis_id = 'job-x', analysis_generation = 1, updated_at = $2 WHERE id = $3")
                .bind(status).bind(at).bind(clip))
            .unwrap();
        }
    }
    let r = app
        .post("/api/cron/clips-poll")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    let job: shared::db::Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let worker = app.start_worker(&[]).await;
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(p.result.as_ref().unwrap().0["polled"], 1);
    worker.shutdown().await;
    let mut c = app.state.db.acquire().await.unwrap();
    let polled: Vec<String> = shared::sql!(&mut c, c => sqlx::query_scalar("SELECT CAST(payload AS TEXT) FROM job_progress WHERE kind = 'footage.poll'").fetch_all(&mut *c).await).unwrap();
    assert_eq!(polled.len(), 1);
    assert!(polled[0].contains(&stalled.to_string()), "{polled:?}");
}

#[tokio::test]
async fn a_result_file_that_fails_its_checksum_fails_the_clip_and_keeps_no_copy() {
    let Some((app, fake)) = app_with_backend().await else {
        eprintln!("skipped: TEST_S3_ENDPOINT is not set");
        return;
    };
    fake.corrupt_result_sha256();
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip) = uploaded_clip(&app, &coach, &video_bytes(20_000)).await;
    let r = app
        .post("/api/clips/analyze")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let deadline = Instant::now() + Duration::from_secs(20);
    let failed = loop {
        let r = app
            .get(&format!("/api/clips/{clip}"))
            .session(&coach)
            .send()
            .await;
        if r.json["status"] == "failed" {
            break r;
        }
        assert!(r.json["status"] != "stored", "{}", r.body);
        assert!(Instant::now() < deadline, "clip stuck: {}", r.body);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(failed.json["statusCode"], "store_failed", "{}", failed.body);
    assert!(
        failed.json["statusMessage"]
            .as_str()
            .unwrap()
            .contains("SHA-256"),
        "{}",
        failed.body
    );
    let key = shared::domain::footage::keys::video(coach.org_id, clip);
    assert!(
        app.state
            .storage
            .head(Store::SessionVideos, &key)
            .await
            .unwrap()
            .is_none(),
        "no bad copy is kept"
    );
    // The clip is failed inside the job; the job's own row is finished by the worker's batched
    // ack a moment later, so wait for that before reading its attempts.
    let attempts = loop {
        let (status, attempts): (String, i64) = {
            let mut c = app.state.db.acquire().await.unwrap();
            shared::sql!(&mut c, c => sqlx::query_as("SELECT status, attempts FROM job_progress WHERE kind = 'footage.store'").fetch_one(&mut *c).await).unwrap()
        };
        if status != "queued" && status != "running" {
            break attempts;
        }
        assert!(Instant::now() < deadline, "store job unfinished: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(attempts, 1, "a mismatch is not retried");
    worker.shutdown().await;
}
