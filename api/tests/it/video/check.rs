//! `/api/video/check`: reachability of an allowed source, and who may ask.

use super::ssrf::urlencode;
use crate::support::*;
use axum::http::StatusCode;

async fn app_with_origin() -> (TestApp, VideoOrigin, u16, Session) {
    let origin = VideoOrigin::start(1234).await;
    let closed = closed_port().await;
    let private = format!("127.0.0.1:{},127.0.0.1:{closed}", origin.port());
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_PRIVATE_HOSTS", &private)]).await;
    let s = app.signup("coach@example.com").await;
    (app, origin, closed, s)
}

fn check_path(url: &str) -> String {
    format!("/api/video/check?url={}", urlencode(url))
}

#[tokio::test]
async fn a_reachable_origin_reports_size_type_and_ranges() {
    let (app, origin, _, s) = app_with_origin().await;
    let r = app
        .get(&check_path(&origin.url("/video.mp4")))
        .session(&s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["reachable"], true);
    assert_eq!(r.json["status"], 200);
    assert_eq!(r.json["contentType"], "video/mp4");
    assert_eq!(r.json["contentLength"], 1234);
    assert_eq!(r.json["acceptsRanges"], true);
}

#[tokio::test]
async fn an_origin_refusing_head_is_checked_with_a_one_byte_get() {
    let (app, origin, _, s) = app_with_origin().await;
    let r = app
        .get(&check_path(&origin.url("/get-only.mp4")))
        .session(&s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["reachable"], true);
    assert_eq!(r.json["status"], 206);
    assert_eq!(r.json["contentLength"], 1234);
    assert_eq!(r.json["acceptsRanges"], true);
}

#[tokio::test]
async fn a_missing_video_and_a_closed_port_are_not_reachable() {
    let (app, origin, closed, s) = app_with_origin().await;
    let r = app
        .get(&check_path(&origin.url("/missing.mp4")))
        .session(&s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (r.json["reachable"].clone(), r.json["status"].clone()),
        (false.into(), 404.into())
    );
    let url = format!("http://127.0.0.1:{closed}/video.mp4");
    let r = app.get(&check_path(&url)).session(&s).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["reachable"], false);
    assert_eq!(r.json["code"], "video_unreachable");
    assert!(r.json["status"].is_null());
}

#[tokio::test]
async fn check_needs_a_url_a_member_and_the_footage_module() {
    let (app, origin, _, s) = app_with_origin().await;
    let r = app.get("/api/video/check").session(&s).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["url"]);
    let path = check_path(&origin.url("/video.mp4"));
    assert_eq!(app.get(&path).send().await.status, StatusCode::UNAUTHORIZED);
    disable_module(&app, s.org_id, "footage").await;
    app.get(&path)
        .session(&s)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
}
