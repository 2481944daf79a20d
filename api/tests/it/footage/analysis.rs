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
