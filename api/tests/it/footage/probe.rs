//! The probe job on real clips made by ffmpeg: rotation from the display matrix, duration,
//! codec, resolution and frame rate; a file that is not video fails for good with a reason.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

async fn probe(app: &TestApp, coach: &Session, clip: Id) -> serde_json::Value {
    let r = app
        .post("/api/clips/probe")
        .session(coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    app.get(&format!("/api/clips/{clip}"))
        .session(coach)
        .send()
        .await
        .json
}

#[tokio::test]
async fn probe_reads_rotation_duration_codec_size_and_rate() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    for (rotate, want) in [(None, 0), (Some(90), 90), (Some(270), 270)] {
        let (_, clip) = uploaded_clip(&app, &coach, &ffmpeg_clip(rotate)).await;
        let k = probe(&app, &coach, clip).await;
        assert_eq!(k["status"], "probed", "{k}");
        let p = &k["probe"];
        assert_eq!(p["rotation"], want, "{rotate:?}: {p}");
        assert_eq!(
            (p["width"].as_i64(), p["height"].as_i64()),
            (Some(320), Some(240))
        );
        assert_eq!(p["codec"], "mpeg4");
        assert_eq!(p["fps"], 25.0);
        let ms = p["durationMs"].as_i64().unwrap();
        assert!((900..=1100).contains(&ms), "{ms} ms");
    }
    worker.shutdown().await;
}

#[tokio::test]
async fn a_file_that_is_not_video_fails_for_good_with_its_reason() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip) = uploaded_clip(&app, &coach, b"these are holiday notes, not a video").await;
    let k = probe(&app, &coach, clip).await;
    assert_eq!(k["status"], "failed", "{k}");
    assert_eq!(k["statusCode"], "not_video");
    assert!(
        k["statusMessage"]
            .as_str()
            .unwrap()
            .contains("not a readable video"),
        "{k}"
    );
    let jobs: i64 = {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::sql!(&mut c, c => sqlx::query_scalar("SELECT attempts FROM job_progress WHERE kind = 'footage.probe'").fetch_one(&mut *c).await).unwrap()
    };
    assert_eq!(jobs, 1, "a permanent failure is not retried");
    worker.shutdown().await;
}
