use crate::support::*;
use axum::http::{Method, StatusCode};
use shared::storage::Store;
use std::time::Duration;

fn local_path(url: &str) -> String {
    url.strip_prefix("http://app.test")
        .expect("a URL on the api")
        .to_string()
}

#[tokio::test]
async fn signed_urls_upload_and_download_through_the_api() {
    let app = TestApp::new().await;
    let st = &app.state.storage;
    let put = st
        .presign_put(
            Store::RawUploads,
            "sessions/s1/clip.mp4",
            Duration::from_secs(600),
            "video/mp4",
            &app.state.keys,
            "http://app.test",
        )
        .await
        .unwrap();
    let mut body: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    body[..12].copy_from_slice(b"\0\0\0\x18ftypisom");
    let r = app
        .req(Method::PUT, &local_path(&put))
        .raw("video/mp4", &body)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["size"], 100_000);

    let get = st
        .presign_get(
            Store::RawUploads,
            "sessions/s1/clip.mp4",
            Duration::from_secs(600),
            &app.state.keys,
            "http://app.test",
        )
        .await
        .unwrap();
    let r = app.get(&local_path(&get)).send().await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["content-type"], "video/mp4");
    assert_eq!(r.headers["accept-ranges"], "bytes");
    assert_eq!(r.headers["content-length"], "100000");

    let r = app
        .get(&local_path(&get))
        .header("range", "bytes=10-19")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(r.headers["content-range"], "bytes 10-19/100000");
    assert_eq!(r.headers["content-length"], "10");
    let r = app
        .get(&local_path(&get))
        .header("range", "bytes=200000-")
        .send()
        .await;
    r.assert_error(StatusCode::RANGE_NOT_SATISFIABLE, "range_not_satisfiable");

    // A GET URL does not allow a PUT, and a tampered or unsigned URL is refused.
    let r = app
        .req(Method::PUT, &local_path(&get))
        .raw("video/mp4", b"evil")
        .send()
        .await;
    r.assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    let tampered = local_path(&get).replace("clip.mp4", "other.mp4");
    app.get(&tampered)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    app.get("/api/storage/raw-uploads/sessions/s1/clip.mp4")
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
    let r = app
        .get(&local_path(&get).replace("raw-uploads", "nope"))
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn expired_signed_urls_are_refused() {
    let app = TestApp::new().await;
    let st = &app.state.storage;
    st.put_bytes(
        Store::Sidecars,
        "a.json",
        bytes::Bytes::from_static(b"{}"),
        "application/json",
    )
    .await
    .unwrap();
    let get = st
        .presign_get(
            Store::Sidecars,
            "a.json",
            Duration::from_secs(1),
            &app.state.keys,
            "http://app.test",
        )
        .await
        .unwrap();
    assert_eq!(
        app.get(&local_path(&get)).send().await.status,
        StatusCode::OK
    );
    tokio::time::sleep(Duration::from_millis(2100)).await;
    app.get(&local_path(&get))
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}
