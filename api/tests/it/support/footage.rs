//! Footage fixtures: an uploaded clip (its original put straight into raw-uploads, until the
//! upload routes exist) and an app wired to the fake analysis backend.

use super::app::{Session, TestApp};
use super::athletes::id;
use super::training::new_training_session;
use bytes::Bytes;
use serde_json::json;
use shared::db::{Id, Ts};
use shared::domain::footage::{ClipStatus, keys};
use shared::repo::footage::{self, Clip};
use shared::storage::Store;

/// A footage session (provisioned through the training route) holding one uploaded clip.
pub async fn uploaded_clip(app: &TestApp, coach: &Session, bytes: &[u8]) -> (Id, Id) {
    let t = new_training_session(
        app,
        coach,
        json!({ "title": "Filmed", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z" }),
    )
    .await;
    let r = app
        .post("/api/training-sessions/provision-video")
        .session(coach)
        .json(json!({ "trainingSessionId": id(&t) }))
        .send()
        .await;
    let session: Id = id(&r.json).parse().unwrap();
    let clip = Id::new();
    let key = keys::original(coach.org_id, session, clip);
    app.state
        .storage
        .put_bytes(
            Store::RawUploads,
            &key,
            Bytes::copy_from_slice(bytes),
            "video/mp4",
        )
        .await
        .unwrap();
    let now = Ts::now();
    let k = Clip {
        id: clip,
        org_id: coach.org_id,
        session_id: session,
        athlete_id: None,
        file_name: "wave.mp4".into(),
        status: ClipStatus::Uploaded,
        status_code: None,
        status_message: None,
        progress: 0,
        raw_key: Some(key),
        source_url: None,
        size_bytes: Some(bytes.len() as i64),
        content_type: Some("video/mp4".into()),
        probe: None,
        analysis_generation: 0,
        analysis_id: None,
        analysis_result: None,
        job_id: None,
        stats: None,
        video_key: None,
        video_size: None,
        overlay_key: None,
        overlay_size: None,
        batch_id: None,
        batch_row: None,
        recorded_at: None,
        created_by: Some(coach.user_id),
        created_at: now,
        updated_at: now,
        status_changed_at: now,
    };
    let mut c = app.state.db.acquire().await.unwrap();
    footage::insert_clip(&mut c, &k).await.unwrap();
    (session, clip)
}
