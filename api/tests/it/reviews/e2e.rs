//! End to end: a clip analysed by the (fake) analysis backend, a review suggested from its
//! measurements with a coach's voice note transcribed by the (fake) model, published, read on
//! the athlete's phone with a receipt and answered with a recorded reply the coach then hears.

use super::voice::{add_note, build_until_ready, m4a, model_env};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use std::time::{Duration, Instant};
use testkit::analysis::{FakeAnalysis, TEST_WEBHOOK_SECRET};
use testkit::model::FakeModel;

#[tokio::test]
async fn from_an_analysed_clip_to_a_review_read_and_answered_on_the_phone() {
    // The backend fetches the signed source URL itself: the S3 test server must be there.
    let Some(mut env) = s3_env() else {
        eprintln!("skipped: TEST_S3_ENDPOINT is not set");
        return;
    };
    let analysis = FakeAnalysis::start("analysis-key", TEST_WEBHOOK_SECRET).await;
    let model = FakeModel::start("model-key").await;
    env.push(("ANALYSIS_BASE_URL", analysis.base_url()));
    env.push(("ANALYSIS_API_KEY", "analysis-key".into()));
    env.extend(model_env(&model));
    let app = super::voice::app_with(&env).await;
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;

    // The clip goes through the analysis backend.
    let (session, clip) = uploaded_clip(&app, &w.coach, &video_bytes(200_000)).await;
    let r = app
        .post("/api/clips/analyze")
        .session(&w.coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let deadline = Instant::now() + Duration::from_secs(30);
    let stats = loop {
        let r = app
            .get(&format!("/api/clips/{clip}"))
            .session(&w.coach)
            .send()
            .await;
        assert_ne!(r.json["status"], "failed", "{}", r.body);
        if r.json["status"] == "stored" {
            break r.json["stats"].clone();
        }
        assert!(Instant::now() < deadline, "clip stuck: {}", r.body);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let measured =
        stats["rides"].as_array().unwrap().len() + stats["maneuvers"].as_array().unwrap().len();

    // The coach's review: suggestions from the measurements, a note of their own, a voice note.
    let r = app
        .post("/api/reviews")
        .session(&w.coach)
        .json(json!({ "sessionId": session, "athleteId": w.athlete_id, "title": "Morning glass" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let review = r.json["id"].as_str().unwrap().to_string();
    let s = app
        .post(&format!("/api/reviews/{review}/suggest"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(s.json["added"], measured as u64, "{}", s.body);
    let first_ride = &stats["rides"][0];
    let kp = app
        .post(&format!("/api/reviews/{review}/keypoints"))
        .session(&w.coach)
        .json(json!({ "clipId": clip, "atMs": first_ride["start_ms"], "body": "Paddle two more strokes" }))
        .send()
        .await;
    assert_eq!(kp.status, StatusCode::CREATED, "{}", kp.body);
    let note = add_note(&app, &w.coach, &review, &m4a(3000)).await;
    assert_eq!(note.status, StatusCode::CREATED, "{}", note.body);

    let built = build_until_ready(&app, &w.coach, &review).await;
    assert_eq!(
        built["voiceNotes"][0]["transcriptStatus"], "done",
        "{built}"
    );
    let p = app
        .post(&format!("/api/reviews/{review}/publish"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(p.status, StatusCode::OK, "{}", p.body);

    // The athlete's phone: the review with its keypoints, the note to play and its transcript.
    let (phone, _) = app.phone_tokens("mia@example.com").await;
    let r = app
        .get(&format!("/api/mobile/sessions/{session}/reviews"))
        .bearer(&phone)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let read = &r.json["items"][0];
    assert_eq!(read["id"], review.as_str());
    assert_eq!(read["keypoints"].as_array().unwrap().len(), measured + 1);
    assert!(
        read["keypoints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["body"] == "Paddle two more strokes" && k["origin"] == "coach")
    );
    let n = &read["voiceNotes"][0];
    assert!(
        n["transcript"]
            .as_str()
            .unwrap()
            .starts_with("transcript of note-")
    );
    // Stored on S3: the URL is the store's own, presigned.
    let played = reqwest::get(n["url"].as_str().unwrap()).await.unwrap();
    assert_eq!(played.status(), reqwest::StatusCode::OK);
    assert_eq!(played.bytes().await.unwrap().to_vec(), m4a(3000));

    // Opened on the phone; answered with a recording.
    let o = app
        .post(&format!("/api/mobile/reviews/{review}/receipts"))
        .bearer(&phone)
        .json(json!({ "deviceId": "pixel-8", "opened": true }))
        .send()
        .await;
    assert_eq!(o.status, StatusCode::OK, "{}", o.body);
    let reply = app
        .post(&format!(
            "/api/mobile/reviews/{review}/replies?clientReplyId=first"
        ))
        .bearer(&phone)
        .raw("audio/ogg", b"OggS\0\x02\0\0\0\0\0\0\0\0 a short answer")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(reply.json["contentType"], "audio/ogg");

    // The coach sees the receipt and the reply, and was told about it.
    let r = app
        .get(&format!("/api/reviews/{review}"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.json["receipts"][0]["deviceId"], "pixel-8");
    assert!(r.json["receipts"][0]["openedAt"].is_string());
    let replies = app
        .get(&format!("/api/reviews/{review}/replies"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(items(&replies).len(), 1);
    assert_eq!(items(&replies)[0]["kind"], "voice");
    let mut c = app.state.db.acquire().await.unwrap();
    let told: i64 = shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM notifications WHERE user_id = $1 AND kind = 'review.reply'")
        .bind(w.coach.user_id).fetch_one(&mut *c).await)
    .unwrap();
    drop(c);
    assert_eq!(told, 1);
    assert_eq!(model.transcriptions().len(), 1);
    worker.shutdown().await;
}
