//! One table of Range cases, run against a stored object (local store, and the S3 test server
//! when `TEST_S3_ENDPOINT` is set) and against an allow-listed external origin, each through
//! the router and through a real connection of the api's accept loop.

use crate::support::*;
use axum::http::{Method, StatusCode};
use shared::video::token::VideoSource;

const LEN: usize = 1000;

/// What a request should get: status, Content-Range, and the body's byte span (None: empty).
struct Case {
    name: &'static str,
    method: Method,
    headers: Vec<(&'static str, String)>,
    status: u16,
    content_range: Option<String>,
    span: Option<(usize, usize)>,
}

fn case(
    name: &'static str,
    range: Option<&str>,
    status: u16,
    cr: Option<&str>,
    span: Option<(usize, usize)>,
) -> Case {
    Case {
        name,
        method: Method::GET,
        headers: range
            .map(|r| vec![("range", r.to_string())])
            .unwrap_or_default(),
        status,
        content_range: cr.map(str::to_string),
        span,
    }
}

fn table(etag: &str, last_modified: &str) -> Vec<Case> {
    let full = Some((0, LEN - 1));
    let mut cases = vec![
        case("full", None, 200, None, full),
        case(
            "a-b",
            Some("bytes=10-19"),
            206,
            Some("bytes 10-19/1000"),
            Some((10, 19)),
        ),
        case(
            "a-",
            Some("bytes=990-"),
            206,
            Some("bytes 990-999/1000"),
            Some((990, 999)),
        ),
        case(
            "-n",
            Some("bytes=-10"),
            206,
            Some("bytes 990-999/1000"),
            Some((990, 999)),
        ),
        case(
            "-n longer than the video",
            Some("bytes=-5000"),
            206,
            Some("bytes 0-999/1000"),
            full,
        ),
        case(
            "end past the video",
            Some("bytes=995-5000"),
            206,
            Some("bytes 995-999/1000"),
            Some((995, 999)),
        ),
        case(
            "start at the end",
            Some("bytes=1000-"),
            416,
            Some("bytes */1000"),
            None,
        ),
        case(
            "start past the end",
            Some("bytes=5000-6000"),
            416,
            Some("bytes */1000"),
            None,
        ),
        case("b < a is ignored", Some("bytes=20-10"), 200, None, full),
        case(
            "several ranges: whole body",
            Some("bytes=0-1,5-6"),
            200,
            None,
            full,
        ),
        case("other unit ignored", Some("items=0-1"), 200, None, full),
    ];
    let mut c = case(
        "HEAD ranged",
        Some("bytes=10-19"),
        206,
        Some("bytes 10-19/1000"),
        None,
    );
    c.method = Method::HEAD;
    cases.push(c);
    let mut c = case("HEAD", None, 200, None, None);
    c.method = Method::HEAD;
    cases.push(c);
    for (name, if_range, status, cr, span) in [
        (
            "If-Range etag match",
            etag.to_string(),
            206,
            Some("bytes 10-19/1000"),
            Some((10, 19)),
        ),
        (
            "If-Range etag mismatch",
            "\"other\"".to_string(),
            200,
            None,
            full,
        ),
        ("If-Range weak etag", format!("W/{etag}"), 200, None, full),
        (
            "If-Range date match",
            last_modified.to_string(),
            206,
            Some("bytes 10-19/1000"),
            Some((10, 19)),
        ),
        (
            "If-Range older date",
            "Sat, 05 Nov 1994 08:49:37 GMT".to_string(),
            200,
            None,
            full,
        ),
    ] {
        let mut c = case(name, Some("bytes=10-19"), status, cr, span);
        c.headers.push(("if-range", if_range));
        cases.push(c);
    }
    cases
}

/// Runs the table through the router, or with `over` through a real connection of the api's
/// accept loop (where a local store's file is sent by the kernel).
async fn run_table(app: &TestApp, token: &str, body: &[u8], over: Option<&Served>) {
    let req = |method: Method| {
        let r = app.req(method, &stream_path(token));
        match over {
            Some(s) => r.over(s),
            None => r,
        }
    };
    // The validators come from the plain answer.
    let first = req(Method::GET).send().await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let etag = first.headers["etag"].to_str().unwrap().to_string();
    let last_modified = first.headers["last-modified"].to_str().unwrap().to_string();
    assert!(
        etag.starts_with('"') && etag.ends_with('"'),
        "strong ETag: {etag}"
    );
    for c in table(&etag, &last_modified) {
        let mut r = req(c.method.clone());
        for (k, v) in &c.headers {
            r = r.header(k, v);
        }
        let r = r.send().await;
        assert_eq!(r.status.as_u16(), c.status, "{}: {}", c.name, r.body);
        let cr = r
            .headers
            .get("content-range")
            .map(|v| v.to_str().unwrap().to_string());
        assert_eq!(cr, c.content_range, "{}", c.name);
        if c.status == 416 {
            assert_eq!(r.code(), "range_not_satisfiable", "{}", c.name);
            continue;
        }
        assert_eq!(r.headers["accept-ranges"], "bytes", "{}", c.name);
        assert_eq!(r.headers["cache-control"], "private", "{}", c.name);
        assert_eq!(r.headers["etag"], etag.as_str(), "{}", c.name);
        assert_eq!(
            r.headers["last-modified"],
            last_modified.as_str(),
            "{}",
            c.name
        );
        assert_eq!(r.headers["content-type"], "video/mp4", "{}", c.name);
        let expected: &[u8] = match c.span {
            Some((a, b)) => &body[a..=b],
            None => &[],
        };
        assert_eq!(r.body.as_bytes(), expected, "{}", c.name);
        // HEAD announces the length GET would send.
        let len: usize = r.headers["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let announced = match (&c.content_range, c.method == Method::HEAD) {
            (Some(_), true) => 10,
            (None, true) => LEN,
            _ => expected.len(),
        };
        assert_eq!(len, announced, "{}", c.name);
    }
}

#[tokio::test]
async fn range_table_on_a_locally_stored_video() {
    let app = TestApp::new().await;
    let body = video_bytes(LEN);
    let src = stored_video(&app, &body).await;
    let token = stream_token(&app, src);
    run_table(&app, &token, &body, None).await;
    run_table(&app, &token, &body, Some(&app.serve().await)).await;
}

#[tokio::test]
async fn range_table_on_a_video_stored_in_s3() {
    let Some(app) = s3_app().await else {
        return;
    };
    let body = video_bytes(LEN);
    let src = stored_video(&app, &body).await;
    let token = stream_token(&app, src.clone());
    run_table(&app, &token, &body, None).await;
    run_table(&app, &token, &body, Some(&app.serve().await)).await;
    if let VideoSource::Stored { store, key } = src {
        app.state.storage.delete(store, &key).await.unwrap();
    }
}

#[tokio::test]
async fn range_table_on_an_allow_listed_external_origin() {
    let origin = VideoOrigin::start(LEN).await;
    let private = format!("127.0.0.1:{}", origin.port());
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_PRIVATE_HOSTS", &private)]).await;
    let src = VideoSource::External {
        url: origin.url("/video.mp4"),
    };
    let token = stream_token(&app, src);
    run_table(&app, &token, &origin.body, None).await;
    run_table(&app, &token, &origin.body, Some(&app.serve().await)).await;
}

#[tokio::test]
async fn an_origin_404_is_404_and_a_redirect_is_refused() {
    let origin = VideoOrigin::start(LEN).await;
    let private = format!("127.0.0.1:{}", origin.port());
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_PRIVATE_HOSTS", &private)]).await;
    let token = |path: &str| {
        stream_token(
            &app,
            VideoSource::External {
                url: origin.url(path),
            },
        )
    };
    app.get(&stream_path(&token("/missing.mp4")))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&stream_path(&token("/redirect")))
        .send()
        .await
        .assert_error(StatusCode::BAD_GATEWAY, "video_redirect_refused");
}
