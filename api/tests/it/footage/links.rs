//! Signed stream URLs for a clip (`/api/video/sign`) and the overlay proxy
//! (`/api/clips/sidecar`): access-checked, then served with range semantics.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;
use shared::storage::Store;

/// Marks the clip stored with a processed video and an overlay in our stores.
async fn stored(app: &TestApp, org: Id, clip: Id, video: &[u8], overlay: &[u8]) {
    let vk = shared::domain::footage::keys::video(org, clip);
    let ok = shared::domain::footage::keys::overlay(org, clip);
    let st = &app.state.storage;
    st.put_bytes(
        Store::SessionVideos,
        &vk,
        bytes::Bytes::copy_from_slice(video),
        "video/mp4",
    )
    .await
    .unwrap();
    st.put_bytes(
        Store::Sidecars,
        &ok,
        bytes::Bytes::copy_from_slice(overlay),
        "application/json",
    )
    .await
    .unwrap();
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query(
            "UPDATE clips SET status = 'stored', video_key = $1, overlay_key = $2 WHERE id = $3"
        )
        .bind(vk)
        .bind(ok)
        .bind(clip)
    )
    .unwrap();
}

fn local_path(url: &str) -> String {
    let at = url.find("/api/").unwrap();
    url[at..].to_string()
}

#[tokio::test]
async fn a_signed_url_plays_the_clip_with_ranges_for_its_hour() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let original = video_bytes(50_000);
    let (_, clip) = uploaded_clip(&app, &coach, &original).await;

    // Before processing, the default is the original; the processed video is not there yet.
    let r = app
        .get(&format!("/api/video/sign?clipId={clip}"))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["variant"], "original");
    let url = r.json["url"].as_str().unwrap();
    assert!(
        url.starts_with("http://app.test/api/video/stream?token="),
        "{url}"
    );
    let part = app
        .get(&local_path(url))
        .header("range", "bytes=100-199")
        .send()
        .await;
    assert_eq!(part.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(part.body.as_bytes(), &original[100..200]);
    app.get(&format!("/api/video/sign?clipId={clip}&variant=processed"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_video_unavailable");
    app.get(&format!("/api/clips/sidecar?clipId={clip}"))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_overlay_unavailable");

    // Once stored, the processed video is the default and the overlay is served.
    let processed = video_bytes(80_000);
    stored(&app, coach.org_id, clip, &processed, br#"{"frames":[]}"#).await;
    let r = app
        .get(&format!("/api/video/sign?clipId={clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.json["variant"], "processed");
    let whole = app
        .get(&local_path(r.json["url"].as_str().unwrap()))
        .send()
        .await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.body.len(), 80_000);
    let side = app
        .get(&format!("/api/clips/sidecar?clipId={clip}"))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(side.status, StatusCode::OK);
    assert_eq!(side.json, json!({ "frames": [] }));

    // Another workspace gets neither a URL nor the overlay; a tampered URL is refused.
    app.get(&format!("/api/video/sign?clipId={clip}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!("/api/clips/sidecar?clipId={clip}"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let tampered = format!("{}x", local_path(r.json["url"].as_str().unwrap()));
    app.get(&tampered)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "video_token_invalid");
    app.get("/api/video/sign?clipId=nope")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");
}
