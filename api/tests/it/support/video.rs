//! Video fixtures: stream tokens signed with the app's keys (clips do not exist yet, so a
//! grant names its source directly), stored test videos, an optional S3-backed app, and a
//! tiny origin server on loopback that honours Range and If-Range.

use super::app::TestApp;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use shared::db::Id;
use shared::storage::{ByteRange, Store};
use shared::video::token::{self, StreamGrant, VideoSource};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

/// Byte `i` of every test video (any slice can be checked). Printable ASCII, because the
/// harness reads bodies as text.
pub fn video_bytes(len: usize) -> Vec<u8> {
    (0..len).map(|i| b'!' + (i * 31 % 89) as u8).collect()
}

fn now() -> i64 {
    shared::db::Ts::now().0.timestamp()
}

/// A valid stream token for `source`, as `/api/video/sign` will issue it.
pub fn stream_token(app: &TestApp, source: VideoSource) -> String {
    token::sign(
        &app.state.keys,
        &StreamGrant::new(Id::new(), Id::new(), source, now()),
    )
}

/// A token that expired a minute ago.
pub fn expired_token(app: &TestApp, source: VideoSource) -> String {
    let mut g = StreamGrant::new(Id::new(), Id::new(), source, now());
    g.expires_at = now() - 60;
    token::sign(&app.state.keys, &g)
}

/// Stores `bytes` as a video and returns its source.
pub async fn stored_video(app: &TestApp, bytes: &[u8]) -> VideoSource {
    let key = format!("videos/{}/clip.mp4", Id::new());
    app.state
        .storage
        .put_bytes(
            Store::SessionVideos,
            &key,
            Bytes::copy_from_slice(bytes),
            "video/mp4",
        )
        .await
        .unwrap();
    VideoSource::Stored {
        store: Store::SessionVideos,
        key,
    }
}

pub fn stream_path(token: &str) -> String {
    format!("/api/video/stream?token={token}")
}

/// The variables of an app on the S3 test server (`TEST_S3_ENDPOINT`, see scripts/ensure-s3),
/// or `None` when it is not configured.
pub fn s3_env() -> Option<Vec<(&'static str, String)>> {
    let endpoint = std::env::var("TEST_S3_ENDPOINT")
        .ok()
        .filter(|v| !v.is_empty())?;
    let env_or = |var: &str, default: &str| std::env::var(var).unwrap_or(default.into());
    Some(vec![
        ("STORAGE_BACKEND", "s3".into()),
        ("S3_ENDPOINT", endpoint),
        (
            "S3_ACCESS_KEY_ID",
            env_or("TEST_S3_ACCESS_KEY_ID", "test-access-key"),
        ),
        (
            "S3_SECRET_ACCESS_KEY",
            env_or("TEST_S3_SECRET_ACCESS_KEY", "test-secret-key"),
        ),
        ("S3_BUCKET_PREFIX", "api-video-test-".into()),
    ])
}

/// An app on the S3 test server, or `None` (saying the test is skipped) when
/// `TEST_S3_ENDPOINT` is not set.
pub async fn s3_app() -> Option<TestApp> {
    let Some(env) = s3_env() else {
        println!("skipped: TEST_S3_ENDPOINT is not set (scripts/ensure-s3 starts a server)");
        return None;
    };
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let app = TestApp::with_env(&vars).await;
    assert_eq!(app.state.storage.backend_name(), "s3");
    Some(app)
}

/// A video origin on loopback: `/video.mp4` (the bytes, with Range, If-Range, ETag,
/// Last-Modified), `/get-only.mp4` (the same, but HEAD answers 405), `/chunked.mp4` and
/// `/short.mp4` (see their handlers), `/redirect` (302 to the cloud metadata address) and
/// `/who` (its label, to tell two origins apart).
pub struct VideoOrigin {
    pub addr: SocketAddr,
    pub body: Vec<u8>,
    seen: Arc<Mutex<Vec<HeaderMap>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for VideoOrigin {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub const ORIGIN_ETAG: &str = "\"origin-v1\"";
pub const ORIGIN_LAST_MODIFIED: &str = "Sun, 06 Nov 1994 08:49:37 GMT";

#[derive(Clone)]
struct OriginState {
    body: Bytes,
    label: &'static str,
    /// The headers of every request for a video.
    seen: Arc<Mutex<Vec<HeaderMap>>>,
}

async fn serve_video(
    axum::extract::State(s): axum::extract::State<OriginState>,
    headers: HeaderMap,
) -> Response {
    s.seen.lock().unwrap().push(headers.clone());
    let size = s.body.len() as u64;
    let if_range_ok = headers
        .get(header::IF_RANGE)
        .is_none_or(|v| v == ORIGIN_ETAG || v == ORIGIN_LAST_MODIFIED);
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(ByteRange::parse_header)
        .filter(|_| if_range_ok);
    let mut h = HeaderMap::new();
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::ETAG, HeaderValue::from_static(ORIGIN_ETAG));
    h.insert(
        header::LAST_MODIFIED,
        HeaderValue::from_static(ORIGIN_LAST_MODIFIED),
    );
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("video/mp4"));
    match range.map(|r| r.resolve(size)) {
        None => (StatusCode::OK, h, s.body.clone()).into_response(),
        Some(Ok((f, l))) => {
            h.insert(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes {f}-{l}/{size}")).unwrap(),
            );
            let part = s.body.slice(f as usize..=l as usize);
            (StatusCode::PARTIAL_CONTENT, h, part).into_response()
        }
        Some(Err(_)) => {
            h.insert(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes */{size}")).unwrap(),
            );
            (StatusCode::RANGE_NOT_SATISFIABLE, h, Body::empty()).into_response()
        }
    }
}

async fn get_only(
    state: axum::extract::State<OriginState>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    if method == Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    serve_video(state, headers).await
}

/// `/chunked.mp4`: the whole video without a length (chunked).
async fn chunked(axum::extract::State(s): axum::extract::State<OriginState>) -> Response {
    let chunks: Vec<Result<Bytes, std::io::Error>> = s
        .body
        .chunks(4096)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    let body = Body::from_stream(futures::stream::iter(chunks));
    (StatusCode::OK, [(header::CONTENT_TYPE, "video/mp4")], body).into_response()
}

/// `/short.mp4`: announces the whole video's length, sends half of it and hangs up.
async fn short(axum::extract::State(s): axum::extract::State<OriginState>) -> Response {
    let half = s.body.slice(..s.body.len() / 2);
    let body = Body::from_stream(futures::stream::iter([Ok::<_, std::io::Error>(half)]));
    let len = s.body.len().to_string();
    let h = [
        (header::CONTENT_TYPE, "video/mp4".to_string()),
        (header::CONTENT_LENGTH, len),
    ];
    (StatusCode::OK, h, body).into_response()
}

impl VideoOrigin {
    /// The headers of the requests for `/video.mp4` and `/get-only.mp4` so far.
    pub fn seen(&self) -> Vec<HeaderMap> {
        self.seen.lock().unwrap().clone()
    }

    pub async fn start(len: usize) -> VideoOrigin {
        Self::start_on(([127, 0, 0, 1], 0).into(), len, "origin")
            .await
            .unwrap()
    }

    /// An origin on `addr` (port 0: any) labelled `label`.
    pub async fn start_on(
        addr: SocketAddr,
        len: usize,
        label: &'static str,
    ) -> std::io::Result<VideoOrigin> {
        let body = video_bytes(len);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state = OriginState {
            body: Bytes::from(body.clone()),
            label,
            seen: seen.clone(),
        };
        let app =
            Router::new()
                .route("/video.mp4", get(serve_video))
                .route("/get-only.mp4", get(get_only))
                .route("/chunked.mp4", get(chunked))
                .route("/short.mp4", get(short))
                .route(
                    "/redirect",
                    get(|| async {
                        (
                            StatusCode::FOUND,
                            [(header::LOCATION, "http://169.254.169.254/latest/meta-data/")],
                        )
                    }),
                )
                .route(
                    "/who",
                    get(
                        |axum::extract::State(s): axum::extract::State<OriginState>| async move {
                            s.label
                        },
                    ),
                )
                .with_state(state);
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(VideoOrigin {
            addr,
            body,
            seen,
            task,
        })
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn ip(&self) -> IpAddr {
        self.addr.ip()
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// A loopback port nothing listens on.
pub async fn closed_port() -> u16 {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    l.local_addr().unwrap().port()
}
