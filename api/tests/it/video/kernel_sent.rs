//! Bodies the kernel moves (`api::http::zerocopy`): from the local store's file, from S3's
//! and an external origin's socket, on raw connections of the api's accept loop: what comes
//! after such a body on the same connection, and a source that ends early. (The range table
//! runs over a connection too, in `ranges.rs`.)

use crate::support::*;
use shared::storage::{StorageBackend, Store};
use shared::video::token::VideoSource;
use std::path::PathBuf;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One response read off a raw connection: status line, headers (lower-case names), body.
struct RawResp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawResp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one response's head from `conn`, keeping what came after it in `buf`.
async fn read_head(conn: &mut TcpStream, buf: &mut Vec<u8>) -> (u16, Vec<(String, String)>) {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8(buf[..end].to_vec()).unwrap();
            buf.drain(..end + 4);
            let mut lines = head.split("\r\n");
            let status = lines.next().unwrap().split(' ').nth(1).unwrap();
            let headers = lines
                .map(|l| {
                    let (k, v) = l.split_once(':').unwrap();
                    (k.trim().to_ascii_lowercase(), v.trim().to_string())
                })
                .collect();
            return (status.parse().unwrap(), headers);
        }
        let mut chunk = [0u8; 16 * 1024];
        let n = conn.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the connection closed inside a response head");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Reads one whole response (by its Content-Length).
async fn read_resp(conn: &mut TcpStream, buf: &mut Vec<u8>) -> RawResp {
    let (status, headers) = read_head(conn, buf).await;
    let mut r = RawResp {
        status,
        headers,
        body: Vec::new(),
    };
    let len: usize = r.header("content-length").unwrap().parse().unwrap();
    while buf.len() < len {
        let mut chunk = vec![0u8; 256 * 1024];
        let n = conn.read(&mut chunk).await.unwrap();
        assert!(
            n > 0,
            "the connection closed after {} of {len} bytes",
            buf.len()
        );
        buf.extend_from_slice(&chunk[..n]);
    }
    r.body = buf.drain(..len).collect();
    r
}

/// Sends a plain GET of `path` on a new connection and reads the answer's head: the
/// connection, what followed the head, the status and the headers.
async fn open_get(server: &Served, path: &str) -> (TcpStream, Vec<u8>, u16, Vec<(String, String)>) {
    let mut conn = TcpStream::connect(server.addr).await.unwrap();
    conn.write_all(get(path, "").as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let (status, headers) = read_head(&mut conn, &mut buf).await;
    (conn, buf, status, headers)
}

/// Appends what arrives to `got` until the server closes the connection (a reset counts).
async fn read_until_closed(conn: &mut TcpStream, got: &mut Vec<u8>) {
    let mut chunk = vec![0u8; 256 * 1024];
    while let Ok(n @ 1..) = conn.read(&mut chunk).await {
        got.extend_from_slice(&chunk[..n]);
    }
}

fn get(path: &str, extra: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nhost: test\r\n{extra}\r\n")
}

/// The file the local store keeps `source` in.
fn stored_file(app: &TestApp, source: &VideoSource) -> PathBuf {
    let (StorageBackend::Local { dir }, VideoSource::Stored { store, key }) =
        (&app.state.cfg.storage.backend, source)
    else {
        panic!("a locally stored video");
    };
    assert_eq!(*store, Store::SessionVideos);
    dir.join(store.name()).join(key)
}

/// Pipelined requests on one connection, several of them for `path` (whose bytes are `body`):
/// each answer whole and in order, the JSON one between them too.
async fn one_connection_carries_them_all(server: &Served, path: &str, body: &[u8]) {
    let mut conn = TcpStream::connect(server.addr).await.unwrap();
    let requests = [
        get(path, "range: bytes=0-99\r\n"),
        get(path, "range: bytes=1000000-2999999\r\n"),
        get(path, ""),
        get("/api/health", ""),
        get(path, "range: bytes=-5\r\n"),
    ];
    conn.write_all(requests.concat().as_bytes()).await.unwrap();
    let mut buf = Vec::new();

    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 206);
    assert_eq!(r.body, body[..100]);
    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 206);
    assert_eq!(
        r.header("content-range"),
        Some(format!("bytes 1000000-2999999/{}", body.len()).as_str())
    );
    assert!(r.body == body[1_000_000..3_000_000], "the 2 MB range");
    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 200);
    assert!(r.body == body, "the whole video");
    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 200);
    let health: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert!(health.is_object(), "{health}");
    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 206);
    assert_eq!(r.body, body[body.len() - 5..]);
    assert!(buf.is_empty(), "nothing after the last answer");
}

/// Several sendfile chunks (512 KiB) and pipe loads (256 KiB) per response.
const BIG: usize = 3 * 1024 * 1024 + 123;

#[tokio::test]
async fn a_connection_goes_on_after_bodies_sent_from_the_local_store() {
    let app = TestApp::new().await;
    let body = video_bytes(BIG);
    let src = stored_video(&app, &body).await;
    let path = stream_path(&stream_token(&app, src));
    one_connection_carries_them_all(&app.serve().await, &path, &body).await;
}

#[tokio::test]
async fn a_connection_goes_on_after_bodies_relayed_from_s3() {
    let Some(app) = s3_app().await else {
        return;
    };
    let body = video_bytes(BIG);
    let src = stored_video(&app, &body).await;
    let path = stream_path(&stream_token(&app, src.clone()));
    one_connection_carries_them_all(&app.serve().await, &path, &body).await;
    if let VideoSource::Stored { store, key } = src {
        app.state.storage.delete(store, &key).await.unwrap();
    }
}

fn origin_app_env(origin: &VideoOrigin) -> String {
    format!("127.0.0.1:{}", origin.port())
}

#[tokio::test]
async fn a_connection_goes_on_after_bodies_relayed_from_an_origin() {
    let origin = VideoOrigin::start(BIG).await;
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_PRIVATE_HOSTS", &origin_app_env(&origin))]).await;
    let src = VideoSource::External {
        url: origin.url("/video.mp4"),
    };
    let path = stream_path(&stream_token(&app, src));
    one_connection_carries_them_all(&app.serve().await, &path, &origin.body).await;
    // Each GET went to the origin on a connection of its own, by the plain client whose body
    // the api relays with splice (the pooled client keeps connections alive).
    let seen = origin.seen();
    assert_eq!(seen.len(), 4);
    assert!(seen.iter().all(|h| h["connection"] == "close"), "{seen:?}");
}

#[tokio::test]
async fn an_origin_body_without_a_length_is_copied_and_one_cut_short_cuts_the_answer() {
    let origin = VideoOrigin::start(BIG).await;
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_PRIVATE_HOSTS", &origin_app_env(&origin))]).await;
    let server = app.serve().await;
    let token = |path: &str| {
        stream_token(
            &app,
            VideoSource::External {
                url: origin.url(path),
            },
        )
    };
    // Chunked: the plain GET gives way to the pooled client, which reads it whole.
    let r = app
        .get(&stream_path(&token("/chunked.mp4")))
        .over(&server)
        .send()
        .await;
    assert_eq!(r.status, 200);
    assert!(r.bytes == origin.body, "the whole video");

    // The origin hangs up halfway: the answer (which announced the whole length) is cut.
    let path = stream_path(&token("/short.mp4"));
    let (mut conn, mut got, status, headers) = open_get(&server, &path).await;
    assert_eq!(status, 200);
    assert!(headers.contains(&("content-length".into(), BIG.to_string())));
    read_until_closed(&mut conn, &mut got).await;
    assert_eq!(got.len(), BIG / 2, "what the origin sent, then the end");
    assert!(got == origin.body[..BIG / 2]);
}

#[tokio::test]
async fn a_file_cut_short_in_place_cuts_the_response() {
    let app = TestApp::new().await;
    let len = 64 * 1024 * 1024;
    let body = video_bytes(len);
    let src = stored_video(&app, &body).await;
    let file = stored_file(&app, &src);
    let path = stream_path(&stream_token(&app, src));
    let server = app.serve().await;
    let (mut conn, mut got, status, headers) = open_get(&server, &path).await;
    assert_eq!(status, 200);
    assert!(headers.contains(&("content-length".into(), len.to_string())));
    // The socket buffers hold a few MiB; the rest is still to be read from the file, which is
    // cut in place (the store itself never writes in place: see the next test).
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(1024 * 1024)
        .unwrap();
    read_until_closed(&mut conn, &mut got).await;
    assert!(
        got.len() < len,
        "the response is cut short ({} of {len} bytes)",
        got.len()
    );
    // sendfile hands the socket the page cache's pages, not copies: bytes past the cut that
    // were handed over before it read as the truncated pages do (zeros), so only the part
    // that survived the cut is compared.
    let kept = got.len().min(1024 * 1024);
    assert!(got[..kept] == body[..kept], "the file's bytes");
}

/// What the store does instead of changing a file: delete (unlink) it, or upload a new
/// version (a new file renamed over the name). The open file keeps its pages, so the bytes
/// already handed to the socket and the rest arrive intact.
#[tokio::test]
async fn a_video_deleted_while_it_is_sent_arrives_whole() {
    let app = TestApp::new().await;
    let len = 64 * 1024 * 1024;
    let body = video_bytes(len);
    let src = stored_video(&app, &body).await;
    let VideoSource::Stored { store, key } = src.clone() else {
        unreachable!()
    };
    let path = stream_path(&stream_token(&app, src));
    let server = app.serve().await;
    let (mut conn, mut got, status, _) = open_get(&server, &path).await;
    assert_eq!(status, 200);
    app.state.storage.delete(store, &key).await.unwrap();
    let mut chunk = vec![0u8; 256 * 1024];
    while got.len() < len {
        let n = conn.read(&mut chunk).await.unwrap();
        assert!(n > 0, "cut after {} bytes", got.len());
        got.extend_from_slice(&chunk[..n]);
    }
    let bad = got.iter().zip(&body).position(|(a, b)| a != b);
    assert!(bad.is_none(), "first wrong byte at {bad:?}");
}

/// An upstream that sends part of what it announced and then stays silent: the relay gives up
/// after its span's `idle` and cuts the answer (without it, the connection would hang).
#[tokio::test]
async fn a_relay_whose_upstream_goes_silent_is_cut_after_its_idle_time() {
    use api::http::zerocopy::Door;
    use axum::Extension;
    use shared::video::plain::SocketSpan;
    use std::time::Duration;

    let sent = video_bytes(100 * 1024);
    let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let up_addr = upstream.local_addr().unwrap();
    let part = sent.clone();
    let silent = tokio::spawn(async move {
        let (mut sock, _) = upstream.accept().await.unwrap();
        sock.write_all(&part).await.unwrap();
        std::future::pending::<()>().await; // keeps the socket open, sends nothing more
        drop(sock);
    });
    let router = axum::Router::new().route(
        "/relay",
        axum::routing::get(move |Extension(door): Extension<Door>| async move {
            let sock = TcpStream::connect(up_addr).await.unwrap();
            door.socket_body(SocketSpan {
                sock,
                head_rest: bytes::Bytes::new(),
                len: 1024 * 1024,
                idle: Duration::from_millis(300),
            })
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(api::serve::serve_http(
        listener,
        router,
        std::future::pending(),
        Duration::from_secs(1),
    ));
    let mut conn = TcpStream::connect(addr).await.unwrap();
    conn.write_all(get("/relay", "").as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let (status, headers) = read_head(&mut conn, &mut got).await;
    assert_eq!(status, 200);
    assert!(headers.contains(&("content-length".into(), (1024 * 1024).to_string())));
    tokio::time::timeout(
        Duration::from_secs(10),
        read_until_closed(&mut conn, &mut got),
    )
    .await
    .expect("the server cuts the answer instead of waiting forever");
    assert!(
        got == sent,
        "what the upstream sent, then the end ({} bytes)",
        got.len()
    );
    server.abort();
    silent.abort();
}

/// Pipelined requests for two kernel-sent bodies, the first too big for the socket buffers:
/// hyper reads (and answers) the second request while the end of the first body still waits
/// in its queue, so each body must keep its own source.
#[tokio::test]
async fn pipelined_bodies_each_keep_their_own_source() {
    let app = TestApp::new().await;
    let len = 32 * 1024 * 1024;
    let body = video_bytes(len);
    let src = stored_video(&app, &body).await;
    let path = stream_path(&stream_token(&app, src));
    let server = app.serve().await;
    let mut conn = TcpStream::connect(server.addr).await.unwrap();
    let requests = [
        get(&path, ""),
        get(&path, "range: bytes=1000-1999\r\n"),
        get(&path, "range: bytes=5000000-5999999\r\n"),
    ];
    conn.write_all(requests.concat().as_bytes()).await.unwrap();
    // Let the server fill the socket buffers and stall in the middle of the first body.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let mut buf = Vec::new();
    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 200);
    assert!(r.body == body, "the whole video");
    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 206);
    assert!(r.body == body[1000..2000], "the first range");
    let r = read_resp(&mut conn, &mut buf).await;
    assert_eq!(r.status, 206);
    assert!(r.body == body[5_000_000..6_000_000], "the second range");
}
