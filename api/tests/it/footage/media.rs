//! A clip's web media in-process with the job worker and Debian's ffmpeg: the probe asks for
//! the render; the media's state, signed URLs and WebVTT index; rendering again; bad media named
//! by what is wrong; tenancy and permissions; deleting the clip deletes the media.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};
use shared::db::Id;
use shared::storage::Store;

async fn run(app: &TestApp, coach: &Session, path: &str, clip: Id) -> Value {
    let r = app
        .post(path)
        .session(coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    r.json
}

async fn media(app: &TestApp, coach: &Session, clip: Id) -> Value {
    let r = app
        .get(&format!("/api/clips/{clip}/media"))
        .session(coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.json
}

/// Waits for the render the probe asked for (its own job) to end.
async fn rendered(app: &TestApp, coach: &Session, clip: Id) -> Value {
    let m = media(app, coach, clip).await;
    let job: Id = m["jobId"]
        .as_str()
        .expect("a render was asked for")
        .parse()
        .unwrap();
    app.wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    media(app, coach, clip).await
}

#[tokio::test]
async fn an_uploaded_clip_gets_a_rendition_poster_and_scrub_strip() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip) = uploaded_clip(&app, &coach, &ffmpeg_clip(Some(90))).await;
    assert!(
        media(&app, &coach, clip).await["status"].is_null(),
        "not before the probe"
    );
    run(&app, &coach, "/api/clips/probe", clip).await;
    let m = rendered(&app, &coach, clip).await;
    assert_eq!(m["status"], "ready", "{m}");
    let ready = &m["ready"];
    assert_eq!(
        (
            ready["web"]["width"].as_i64(),
            ready["web"]["height"].as_i64()
        ),
        (Some(240), Some(320))
    );
    assert_eq!(ready["strip"]["count"], 1, "{m}");
    let duration = ready["durationMs"].as_i64().unwrap();
    assert!((900..=1100).contains(&duration), "{duration}");

    // The job reported ffmpeg's progress and ended at 100 %.
    let job: Id = m["jobId"].as_str().unwrap().parse().unwrap();
    let j = app
        .get(&format!("/api/jobs/{job}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(j.json["status"], "succeeded", "{}", j.body);

    // The stored objects are what the manifest says.
    for (store, name) in [
        (Store::SessionVideos, "web.mp4"),
        (Store::Sidecars, "poster.jpg"),
        (Store::Sidecars, "strip.jpg"),
    ] {
        let key = shared::domain::footage::media::key(coach.org_id, clip, name);
        let head = app.state.storage.head(store, &key).await.unwrap();
        assert!(head.is_some(), "{store} {key}");
    }

    // The default stream is the rendition; the original on request.
    let signed = app
        .get(&format!("/api/video/sign?clipId={clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(signed.json["variant"], "web", "{}", signed.body);
    let original = app
        .get(&format!("/api/video/sign?clipId={clip}&variant=original"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(original.json["variant"], "original");
    app.get(&format!("/api/video/sign?clipId={clip}&variant=low"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_video_unavailable");

    // The WebVTT index names the sprite's tile.
    let vtt = app
        .get(&format!("/api/clips/{clip}/thumbnails.vtt"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(vtt.status, StatusCode::OK);
    assert!(
        vtt.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/vtt")
    );
    let w = ready["strip"]["thumbWidth"].as_i64().unwrap();
    let h = ready["strip"]["thumbHeight"].as_i64().unwrap();
    assert!(
        vtt.body.contains("00:00:00.000 --> 00:00:0")
            && vtt.body.contains(&format!("#xywh=0,0,{w},{h}")),
        "{}",
        vtt.body
    );

    // Rendering again makes a new job and ends ready again, with an audit entry.
    let again = run(&app, &coach, "/api/clips/render", clip).await;
    let m2 = media(&app, &coach, clip).await;
    assert_eq!(m2["status"], "ready");
    assert_eq!(m2["jobId"], again["jobId"]);
    assert_ne!(m2["jobId"], m["jobId"]);
    assert_eq!(audit_count(&app, "clip.render").await, 1);
    worker.shutdown().await;
}

#[tokio::test]
async fn bad_media_is_named_and_nothing_waits_forever() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;

    // An MP4 recording cut before its index: truncated, not "not a video".
    let whole = ffmpeg_clip(None);
    let (_, cut) = uploaded_clip(&app, &coach, &whole[..whole.len() / 2]).await;
    run(&app, &coach, "/api/clips/probe", cut).await;
    let k = app
        .get(&format!("/api/clips/{cut}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(k.json["status"], "failed");
    assert_eq!(k.json["statusCode"], "media_truncated", "{}", k.body);
    assert!(
        media(&app, &coach, cut).await["status"].is_null(),
        "no render of an unreadable file"
    );

    // A clip with no file yet cannot be rendered.
    let (_, waiting) = uploaded_clip(&app, &coach, b"soon").await;
    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(
            &mut c,
            sqlx::query(
                "UPDATE clips SET raw_key = NULL, status = 'awaiting_upload' WHERE id = $1"
            )
            .bind(waiting)
        )
        .unwrap();
    }
    app.post("/api/clips/render")
        .session(&coach)
        .json(json!({ "clipId": waiting }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_video_unavailable");
    worker.shutdown().await;
}

#[tokio::test]
async fn another_workspace_sees_404_and_a_viewer_may_not_render() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let (_, clip) = uploaded_clip(&app, &coach, &ffmpeg_clip(None)).await;
    for path in [
        format!("/api/clips/{clip}/media"),
        format!("/api/clips/{clip}/thumbnails.vtt"),
    ] {
        app.get(&path)
            .session(&other)
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    app.post("/api/clips/render")
        .session(&other)
        .json(json!({ "clipId": clip }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(media(&app, &viewer, clip).await["clipId"], json!(clip));
    // A malformed id names no clip (404, as every id in a path); a malformed body is refused
    // before anything is read or enqueued.
    let r = app
        .get("/api/clips/not-a-clip/media")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);
    let r = app
        .post("/api/clips/render")
        .session(&coach)
        .json(json!({ "clipId": 7 }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert!(
        media(&app, &coach, clip).await["status"].is_null(),
        "nothing was asked for"
    );
    app.post("/api/clips/render")
        .session(&viewer)
        .json(json!({ "clipId": clip }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.get(&format!("/api/clips/{clip}/thumbnails.vtt"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_media_not_ready");
}

#[tokio::test]
async fn deleting_the_clip_deletes_its_media() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip) = uploaded_clip(&app, &coach, &ffmpeg_clip(None)).await;
    run(&app, &coach, "/api/clips/probe", clip).await;
    assert_eq!(rendered(&app, &coach, clip).await["status"], "ready");
    let web = shared::domain::footage::media::key(coach.org_id, clip, "web.mp4");
    let poster = shared::domain::footage::media::key(coach.org_id, clip, "poster.jpg");
    let r = app
        .req(axum::http::Method::DELETE, &format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert!(object_gone(&app, Store::SessionVideos, &web).await);
    assert!(object_gone(&app, Store::Sidecars, &poster).await);
    worker.shutdown().await;
}
