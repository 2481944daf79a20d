//! Voice notes: audio checked by its first bytes and size, played through a signed URL,
//! transcribed best-effort by child jobs of the build (once per note), deleted with a job.

use super::{analysed, new_review};
use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use shared::db::Id;
use shared::storage::Store;
use testkit::model::{Failure, FakeModel};

const MODEL_KEY: &str = "model-key";

pub use testkit::media::m4a;

pub fn model_env(fake: &FakeModel) -> Vec<(&'static str, String)> {
    vec![
        ("MODEL_BASE_URL", fake.base_url()),
        ("MODEL_API_KEY", MODEL_KEY.to_string()),
        ("MODEL_TRANSCRIBE", "whisper-test".to_string()),
        ("MODEL_TIMEOUT_MS", "300".to_string()),
    ]
}

pub async fn app_with(vars: &[(&'static str, String)]) -> TestApp {
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    TestApp::with_env(&vars).await
}

pub async fn add_note(app: &TestApp, s: &Session, review: &str, body: &[u8]) -> Resp {
    app.post(&format!("/api/reviews/{review}/voice-notes"))
        .session(s)
        .raw("audio/mp4", body)
        .send()
        .await
}

/// Asks for the build and waits until the review is `ready`.
pub async fn build_until_ready(app: &TestApp, s: &Session, review: &str) -> Value {
    let b = app
        .post(&format!("/api/reviews/{review}/build"))
        .session(s)
        .send()
        .await;
    assert_eq!(b.status, StatusCode::ACCEPTED, "{}", b.body);
    wait_ready(app, s, review).await
}

/// Waits until the review is `ready` (20 s at most).
pub async fn wait_ready(app: &TestApp, s: &Session, review: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let r = app
            .get(&format!("/api/reviews/{review}"))
            .session(s)
            .send()
            .await;
        if r.json["status"] == "ready" {
            return r.json;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the review never became ready: {}",
            r.body
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn draft(app: &TestApp, coach: &Session) -> String {
    let (session, clip) = uploaded_clip(app, coach, b"video").await;
    analysed(app, clip).await;
    let r = new_review(app, coach, session, json!({})).await;
    r.json["id"].as_str().unwrap().to_string()
}

async fn stored_notes(app: &TestApp) -> i64 {
    app.count("review_voice_notes").await
}

#[tokio::test]
async fn notes_are_audio_by_their_bytes_and_transcribed_once_while_the_review_builds() {
    let fake = FakeModel::start(MODEL_KEY).await;
    let app = app_with(&model_env(&fake)).await;
    let coach = app.signup("coach@example.com").await;
    let worker = app.start_worker(&[]).await;
    let review = draft(&app, &coach).await;

    let first = add_note(&app, &coach, &review, &m4a(4000)).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    assert_eq!(first.json["contentType"], "audio/mp4");
    assert_eq!(first.json["sizeBytes"], 4000);
    assert_eq!(first.json["transcriptStatus"], "pending");
    assert_eq!(first.json["transcript"], Value::Null);
    // The signed URL plays the recording as stored.
    let url = first.json["url"].as_str().unwrap();
    let played = app
        .get(url.strip_prefix("http://app.test").unwrap())
        .send()
        .await;
    assert_eq!(played.status, StatusCode::OK);
    assert_eq!(played.bytes, m4a(4000));

    // The body's bytes decide, not the Content-Type: a PDF sent as audio is refused, an MP3
    // sent as octets is taken; a note on a keypoint of the review is kept with it.
    let pdf = app
        .post(&format!("/api/reviews/{review}/voice-notes"))
        .session(&coach)
        .raw("audio/mp4", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3 not audio at all")
        .send()
        .await;
    pdf.assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "upload_not_audio");
    let kp = app
        .post(&format!("/api/reviews/{review}/keypoints"))
        .session(&coach)
        .json(json!({ "clipId": first_clip(&app, &review).await, "atMs": 1000, "body": "Look up" }))
        .send()
        .await;
    let kp_id = kp.json["id"].as_str().unwrap().to_string();
    let mut mp3 = b"ID3\x04\0\0\0\0\0\0".to_vec();
    mp3.resize(2500, 0x22);
    let second = app
        .post(&format!(
            "/api/reviews/{review}/voice-notes?keypointId={kp_id}"
        ))
        .session(&coach)
        .raw("application/octet-stream", &mp3)
        .send()
        .await;
    assert_eq!(second.status, StatusCode::CREATED, "{}", second.body);
    assert_eq!(second.json["contentType"], "audio/mpeg");
    assert_eq!(second.json["keypointId"], kp_id.as_str());
    // Nothing in the body, a keypoint of nothing: refused, nothing stored.
    add_note(&app, &coach, &review, b"")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "empty_body");
    app.post(&format!(
        "/api/reviews/{review}/voice-notes?keypointId={}",
        Id::new()
    ))
    .session(&coach)
    .raw("audio/mp4", &m4a(100))
    .send()
    .await
    .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(stored_notes(&app).await, 2);

    // The build transcribes both; the review is ready when the last one ends.
    let built = build_until_ready(&app, &coach, &review).await;
    let notes = built["voiceNotes"].as_array().unwrap();
    assert_eq!(notes.len(), 2, "{built}");
    for n in notes {
        assert_eq!(n["transcriptStatus"], "done", "{n}");
        assert_eq!(n["transcriptModel"], "whisper-test");
    }
    let t = &notes[0]["transcript"];
    assert_eq!(
        t.as_str().unwrap(),
        format!(
            "transcript of note-{}.m4a (4000 bytes)",
            first.json["id"].as_str().unwrap()
        )
    );
    assert_eq!(fake.transcriptions().len(), 2);
    let sent = fake.transcriptions();
    assert!(
        sent.iter()
            .any(|t| t.content_type == "audio/mpeg" && t.file_name.ends_with(".mp3"))
    );

    // An edit and a rebuild: the transcribed notes are not sent again.
    let r = app
        .req(Method::PATCH, &format!("/api/reviews/{review}"))
        .session(&coach)
        .json(json!({ "summary": "Again" }))
        .send()
        .await;
    assert_eq!(r.json["status"], "draft");
    let third = add_note(&app, &coach, &review, &m4a(300)).await;
    assert_eq!(third.status, StatusCode::CREATED, "{}", third.body);
    let built = build_until_ready(&app, &coach, &review).await;
    assert_eq!(fake.transcriptions().len(), 3, "only the new note is sent");
    assert!(
        built["voiceNotes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["transcriptStatus"] == "done")
    );

    // Deleting a note is an edit; its audio goes with a job.
    let note_id = first.json["id"].as_str().unwrap();
    let key = format!("reviews/{}/{review}/notes/{note_id}", coach.org_id);
    let d = app
        .req(
            Method::DELETE,
            &format!("/api/reviews/{review}/voice-notes/{note_id}"),
        )
        .session(&coach)
        .send()
        .await;
    assert_eq!(d.status, StatusCode::NO_CONTENT, "{}", d.body);
    assert!(object_gone(&app, Store::RawUploads, &key).await);
    let r = app
        .get(&format!("/api/reviews/{review}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["status"], "draft");
    assert_eq!(r.json["voiceNotes"].as_array().unwrap().len(), 2);
    assert_eq!(audit_count(&app, "review.voice_note.add").await, 3);
    assert_eq!(audit_count(&app, "review.voice_note.delete").await, 1);
    worker.shutdown().await;
}

async fn first_clip(app: &TestApp, review: &str) -> String {
    let mut c = app.state.db.acquire().await.unwrap();
    let id: Id = shared::sql!(&mut c, c => sqlx::query_scalar::<_, Id>(
        "SELECT clips.id FROM clips JOIN reviews ON reviews.session_id = clips.session_id WHERE reviews.id = $1")
        .bind(review.parse::<Id>().unwrap()).fetch_one(&mut *c).await)
    .unwrap();
    id.to_string()
}

#[tokio::test]
async fn a_recording_over_the_limit_is_refused_and_nothing_is_kept() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let review = draft(&app, &coach).await;
    let limit = shared::domain::reviews::voice_notes::MAX_BYTES as usize;
    // Declared too large: refused before a byte is read.
    let big = m4a(limit + 1);
    add_note(&app, &coach, &review, &big)
        .await
        .assert_error(StatusCode::PAYLOAD_TOO_LARGE, "upload_too_large");
    // Streamed without a length: cut off at the limit.
    let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = big
        .chunks(1 << 20)
        .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
        .collect();
    let r = app
        .post(&format!("/api/reviews/{review}/voice-notes"))
        .session(&coach)
        .stream(
            "audio/mp4",
            axum::body::Body::from_stream(futures::stream::iter(chunks)),
        )
        .send()
        .await;
    r.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "upload_too_large");
    assert_eq!(stored_notes(&app).await, 0);
    let prefix = format!("reviews/{}/{review}/notes/", coach.org_id);
    assert_eq!(
        app.state
            .storage
            .delete_prefix(Store::RawUploads, &prefix)
            .await
            .unwrap(),
        0,
        "no object left behind"
    );
}

#[tokio::test]
async fn failed_or_unconfigured_transcriptions_leave_notes_playable_and_the_build_ends() {
    // No model: the build skips transcription and says why.
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let worker = app.start_worker(&[]).await;
    let review = draft(&app, &coach).await;
    add_note(&app, &coach, &review, &m4a(500)).await;
    let built = build_until_ready(&app, &coach, &review).await;
    let n = &built["voiceNotes"][0];
    assert_eq!(n["transcriptStatus"], "skipped", "{n}");
    assert_eq!(n["transcript"], Value::Null);
    assert_eq!(
        n["transcriptReason"],
        "no transcription model is configured"
    );
    assert!(n["url"].is_string());
    worker.shutdown().await;

    // With a model, every failure mode, one note each.
    let fake = FakeModel::start(MODEL_KEY).await;
    let app = app_with(&model_env(&fake)).await;
    let coach = app.signup("coach@example.com").await;
    let cases: &[(&str, Vec<Failure>, &str, Option<&str>)] = &[
        // Refused (4xx): not retried.
        (
            "refused",
            vec![Failure::Status(400)],
            "failed",
            Some("the transcription service refused the recording (400)"),
        ),
        // 500 then fine: retried by the job system.
        ("server error", vec![Failure::Status(500)], "done", None),
        // A body that is not JSON: retried.
        ("malformed", vec![Failure::Malformed], "done", None),
        // 429 three times (the adapter's own retries), then Retry-After is honoured.
        ("rate limited", vec![Failure::Status(429); 3], "done", None),
        // Three timeouts (one adapter call), then fine.
        ("timeout", vec![Failure::Hang; 3], "done", None),
        // 500 on every attempt: the note gives up, the build does not.
        (
            "always failing",
            vec![Failure::Status(500); 5],
            "failed",
            Some("the transcription service kept failing"),
        ),
    ];
    let worker = app.start_worker(&[]).await;
    let mut failed = Vec::new();
    for (name, failures, want, reason) in cases {
        // One review each, built one after the other, so each takes its own failures.
        let review = draft(&app, &coach).await;
        let note = add_note(&app, &coach, &review, &m4a(700)).await;
        let note_id = note.json["id"].as_str().unwrap().to_string();
        fake.fail_transcriptions(failures);
        let built = build_until_ready(&app, &coach, &review).await;
        let n = &built["voiceNotes"][0];
        assert_eq!(n["id"], note_id.as_str());
        assert_eq!(n["transcriptStatus"], *want, "{name}: {n}");
        assert_eq!(n["transcriptReason"].as_str(), *reason, "{name}: {n}");
        assert_eq!(n["transcript"].is_string(), *want == "done", "{name}");
        assert!(n["url"].is_string(), "{name}: still playable");
        if *want == "failed" {
            failed.push(review);
        }
    }
    // A rebuild asks again for a note that failed; a transcribed one is never sent twice.
    assert_eq!(failed.len(), 2);
    let before = fake.transcriptions().len();
    for review in &failed {
        app.req(Method::PATCH, &format!("/api/reviews/{review}"))
            .session(&coach)
            .json(json!({ "title": "again" }))
            .send()
            .await;
        let built = build_until_ready(&app, &coach, review).await;
        assert_eq!(
            built["voiceNotes"][0]["transcriptStatus"], "done",
            "{built}"
        );
    }
    assert_eq!(fake.transcriptions().len(), before + 2);
    worker.shutdown().await;
}

#[tokio::test]
async fn only_managers_add_notes_and_other_workspaces_see_none() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let review = draft(&app, &coach).await;
    let note = add_note(&app, &coach, &review, &m4a(300)).await;
    let note_id = note.json["id"].as_str().unwrap().to_string();
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    add_note(&app, &viewer, &review, &m4a(300))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.req(
        Method::DELETE,
        &format!("/api/reviews/{review}/voice-notes/{note_id}"),
    )
    .session(&viewer)
    .send()
    .await
    .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    // The viewer reads the notes with the review.
    let r = app
        .get(&format!("/api/reviews/{review}"))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.json["voiceNotes"].as_array().unwrap().len(), 1);

    let other = other_workspace(&app).await;
    add_note(&app, &other, &review, &m4a(300))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(
        Method::DELETE,
        &format!("/api/reviews/{review}/voice-notes/{note_id}"),
    )
    .session(&other)
    .send()
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    // Their own review cannot reach this note either.
    let theirs = draft(&app, &other).await;
    app.req(
        Method::DELETE,
        &format!("/api/reviews/{theirs}/voice-notes/{note_id}"),
    )
    .session(&other)
    .send()
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(stored_notes(&app).await, 1);
}

#[tokio::test]
async fn a_recording_gone_from_storage_fails_its_note_after_the_retries_not_the_build() {
    let fake = FakeModel::start(MODEL_KEY).await;
    let app = app_with(&model_env(&fake)).await;
    let coach = app.signup("coach@example.com").await;
    let worker = app.start_worker(&[]).await;
    let review = draft(&app, &coach).await;
    let note = add_note(&app, &coach, &review, &m4a(600)).await;
    let note_id = note.json["id"].as_str().unwrap();
    let key = format!("reviews/{}/{review}/notes/{note_id}", coach.org_id);
    app.state
        .storage
        .delete(Store::RawUploads, &key)
        .await
        .unwrap();
    let built = build_until_ready(&app, &coach, &review).await;
    let n = &built["voiceNotes"][0];
    assert_eq!(n["transcriptStatus"], "failed", "{n}");
    assert_eq!(
        n["transcriptReason"],
        "the recording could not be read from storage"
    );
    assert!(fake.transcriptions().is_empty());
    worker.shutdown().await;
}

#[tokio::test]
async fn a_review_left_building_by_a_lost_job_is_built_again_on_request() {
    let fake = FakeModel::start(MODEL_KEY).await;
    let app = app_with(&model_env(&fake)).await;
    let coach = app.signup("coach@example.com").await;
    let review = draft(&app, &coach).await;
    add_note(&app, &coach, &review, &m4a(600)).await;
    let build = || {
        app.post(&format!("/api/reviews/{review}/build"))
            .session(&coach)
            .send()
    };
    let first = build().await;
    let again = build().await;
    assert_eq!(
        again.json["jobId"], first.json["jobId"],
        "a live build is joined"
    );
    assert_eq!(again.json["existing"], true);
    // The build job is lost before it ran (as if its worker kept dying): the review stays
    // `building` with nothing to move it.
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE job_progress SET status = 'failed' WHERE id = $1")
            .bind(first.json["jobId"].as_str().unwrap().parse::<Id>().unwrap())
    )
    .unwrap();
    drop(c);
    let healed = build().await;
    assert_eq!(healed.status, StatusCode::ACCEPTED, "{}", healed.body);
    assert_ne!(healed.json["jobId"], first.json["jobId"]);
    assert_eq!(healed.json["existing"], false);
    let worker = app.start_worker(&[]).await;
    // Waits without asking again: a ready review asked to build would build anew.
    let built = wait_ready(&app, &coach, &review).await;
    assert_eq!(
        built["voiceNotes"][0]["transcriptStatus"], "done",
        "{built}"
    );
    assert_eq!(built["jobId"], healed.json["jobId"]);
    worker.shutdown().await;
}

/// Issue 35, item 4: an ISO base media file is a voice note only with an audio track and no
/// video track; a video or an HEIC photo is refused however it is labelled, and nothing kept.
#[tokio::test]
async fn a_video_or_a_photo_in_an_mp4_box_is_not_a_voice_note() {
    use testkit::media::iso_media;
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let review = draft(&app, &coach).await;
    let video = iso_media(b"isom", &[b"vide", b"soun"], 3000);
    let silent = iso_media(b"M4A ", &[], 3000);
    let mut heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic".to_vec();
    heic.resize(3000, 0);
    let cut = m4a(3000)[..2990].to_vec();
    for body in [video, silent, heic, cut] {
        add_note(&app, &coach, &review, &body)
            .await
            .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "upload_not_audio");
    }
    assert_eq!(stored_notes(&app).await, 0);
    let prefix = format!("reviews/{}/{review}/notes/", coach.org_id);
    let left = app
        .state
        .storage
        .delete_prefix(Store::RawUploads, &prefix)
        .await
        .unwrap();
    assert_eq!(left, 0, "no object left behind");
    // An audio-only MP4 with the generic brand phones write is a voice note.
    let r = add_note(&app, &coach, &review, &iso_media(b"mp42", &[b"soun"], 2000)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
}
