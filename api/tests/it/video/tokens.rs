use crate::support::*;
use axum::http::StatusCode;

#[tokio::test]
async fn a_valid_token_streams_the_stored_video() {
    let app = TestApp::new().await;
    let body = video_bytes(1000);
    let src = stored_video(&app, &body).await;
    let r = app.get(&stream_path(&stream_token(&app, src))).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body.as_bytes(), &body[..]);
}

#[tokio::test]
async fn a_tampered_token_is_403_video_token_invalid() {
    let app = TestApp::new().await;
    let src = stored_video(&app, &video_bytes(10)).await;
    let t = stream_token(&app, src);
    let (payload, mac) = t.split_once('.').unwrap();
    let mut p = payload.as_bytes().to_vec();
    p[5] = if p[5] == b'x' { b'y' } else { b'x' };
    let tampered = format!("{}.{mac}", String::from_utf8(p).unwrap());
    for bad in [tampered, format!("{payload}.AAAA"), "garbage".into()] {
        let r = app.get(&stream_path(&bad)).send().await;
        r.assert_error(StatusCode::FORBIDDEN, "video_token_invalid");
    }
}

#[tokio::test]
async fn an_expired_token_is_401_video_token_expired() {
    let app = TestApp::new().await;
    let src = stored_video(&app, &video_bytes(10)).await;
    let r = app
        .get(&stream_path(&expired_token(&app, src)))
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "video_token_expired");
}

#[tokio::test]
async fn a_missing_token_is_401() {
    let app = TestApp::new().await;
    for path in ["/api/video/stream", "/api/video/stream?token="] {
        let r = app.get(path).send().await;
        r.assert_error(StatusCode::UNAUTHORIZED, "video_token_missing");
    }
}

#[tokio::test]
async fn a_token_for_a_deleted_object_is_404() {
    let app = TestApp::new().await;
    let src = stored_video(&app, &video_bytes(10)).await;
    let t = stream_token(&app, src.clone());
    if let shared::video::token::VideoSource::Stored { store, key } = &src {
        app.state.storage.delete(*store, key).await.unwrap();
    }
    app.get(&stream_path(&t))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}
