//! Footage sessions: reads with clip counts, a session-level store with progress, and the hard
//! delete that leaves no object behind in any store.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::db::Id;
use shared::storage::Store;
use testkit::analysis::FakeSource;

/// Marks the clip `processed` with a backend result whose files `video` and `overlay` serve.
async fn processed(
    app: &TestApp,
    clip: Id,
    video: &FakeSource,
    v_len: usize,
    overlay: &FakeSource,
    o_len: usize,
) {
    let result = json!({
        "video": { "url": video.url(), "size": v_len, "content_type": "video/mp4" },
        "overlay": { "url": overlay.url(), "size": o_len, "content_type": "application/json" },
    });
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(&mut c, sqlx::query("UPDATE clips SET status = 'processed', progress = 100, analysis_result = $1, stats = $2 WHERE id = $3")
        .bind(sqlx::types::Json(result))
        .bind(sqlx::types::Json(json!({ "wave_count": 1, "maneuvers": [] })))
        .bind(clip))
    .unwrap();
}

#[tokio::test]
async fn a_session_is_read_stored_as_a_whole_and_deleted_without_leftovers() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let other = other_workspace(&app).await;
    let (session, first) = uploaded_clip(&app, &coach, &video_bytes(1000)).await;
    // A second clip in the same session.
    let second: Id = {
        let mut c = app.state.db.acquire().await.unwrap();
        let mut k = shared::repo::footage::get_clip(&mut c, coach.org_id, first)
            .await
            .unwrap()
            .unwrap();
        k.id = Id::new();
        k.raw_key = Some(shared::domain::footage::keys::original(
            coach.org_id,
            session,
            k.id,
        ));
        app.state
            .storage
            .put_bytes(
                Store::RawUploads,
                k.raw_key.as_ref().unwrap(),
                bytes::Bytes::from_static(b"second"),
                "video/mp4",
            )
            .await
            .unwrap();
        shared::repo::footage::insert_clip(&mut c, &k)
            .await
            .unwrap();
        k.id
    };

    // Reads: the list counts clips, the detail lists them; another workspace sees neither.
    let list = app.get("/api/sessions").session(&coach).send().await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    let row = &items(&list)[0];
    assert_eq!(
        (
            row["id"].as_str(),
            row["clipCount"].as_i64(),
            row["storedCount"].as_i64()
        ),
        (Some(session.to_string().as_str()), Some(2), Some(0))
    );
    let detail = app
        .get(&format!("/api/sessions/{session}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(detail.json["clips"].as_array().unwrap().len(), 2);
    assert_eq!(
        items(&app.get("/api/sessions").session(&other).send().await).len(),
        0
    );

    // Both clips processed: one store job copies both, with progress per clip.
    let video = video_bytes(70_000);
    let overlay = br#"{"frames":[1,2,3]}"#.to_vec();
    let v = FakeSource::start(video.clone()).await;
    let o = FakeSource::start(overlay.clone()).await;
    processed(&app, first, &v, video.len(), &o, overlay.len()).await;
    processed(&app, second, &v, video.len(), &o, overlay.len()).await;
    let r = app
        .post("/api/sessions/store")
        .session(&coach)
        .json(json!({ "sessionId": session }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(p.result.as_ref().unwrap().0["stored"], 2);
    assert_eq!(p.percent, Some(100));
    let list = app.get("/api/sessions").session(&coach).send().await;
    assert_eq!(items(&list)[0]["storedCount"], 2);
    assert_eq!(items(&list)[0]["status"], "stored", "{}", list.body);
    let mut keys = vec![];
    for clip in [first, second] {
        let k = app
            .get(&format!("/api/clips/{clip}"))
            .session(&coach)
            .send()
            .await;
        assert_eq!(k.json["status"], "stored", "{}", k.body);
        keys.push((
            Store::SessionVideos,
            shared::domain::footage::keys::video(coach.org_id, clip),
        ));
        keys.push((
            Store::Sidecars,
            shared::domain::footage::keys::overlay(coach.org_id, clip),
        ));
        keys.push((
            Store::RawUploads,
            shared::domain::footage::keys::original(coach.org_id, session, clip),
        ));
    }
    for (store, key) in &keys {
        assert!(
            app.state.storage.head(*store, key).await.unwrap().is_some(),
            "{key}"
        );
    }
    // An unfinished upload into the session leaves parts that must go too.
    let up = tus_create(&app, &coach, session, 50_000, None).await;
    let up_path = tus_path(&up);
    tus_patch(&app, &coach, &up_path, 0, &mp4_bytes(10_000)).await;
    let upload: Id = up.json["id"].as_str().unwrap().parse().unwrap();
    let part = {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::repo::uploads::parts(&mut c, upload).await.unwrap()[0]
            .object_key
            .clone()
    };

    // Another workspace cannot delete it; the owner can, and nothing is left anywhere.
    app.req(Method::DELETE, &format!("/api/sessions/{session}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .req(Method::DELETE, &format!("/api/sessions/{session}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(app.count("footage_sessions").await, 0);
    assert_eq!(app.count("clips").await, 0);
    assert_eq!(app.count("clip_uploads").await, 0);
    for (store, key) in &keys {
        assert!(
            object_gone(&app, *store, key).await,
            "{store:?} {key} left behind"
        );
    }
    assert!(
        object_gone(&app, Store::RawUploads, &part).await,
        "upload part left behind"
    );
    app.get(&format!("/api/sessions/{session}"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    worker.shutdown().await;
}
