//! `api::serve::serve_http`, the accept loop of the `api` binary: what `axum::serve` did for us
//! (the peer address, graceful shutdown) and the bound on that shutdown.

use api::serve::serve_http;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::routing::get;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

fn router() -> Router {
    Router::new()
        .route(
            "/peer",
            get(|ConnectInfo(p): ConnectInfo<SocketAddr>| async move { p.ip().to_string() }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                "done"
            }),
        )
        .route("/never", get(std::future::pending::<&'static str>))
}

async fn start(grace: Duration) -> (SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = stopped.await;
    };
    let server = tokio::spawn(serve_http(listener, router(), shutdown, grace));
    (addr, stop, server)
}

#[tokio::test]
async fn serve_http_gives_handlers_the_peer_and_finishes_running_requests_on_shutdown() {
    let (addr, stop, server) = start(Duration::from_secs(5)).await;
    let http = reqwest::Client::new();
    let peer = http
        .get(format!("http://{addr}/peer"))
        .send()
        .await
        .unwrap();
    assert_eq!(peer.text().await.unwrap(), "127.0.0.1");

    let slow = tokio::spawn({
        let http = http.clone();
        async move {
            http.get(format!("http://{addr}/slow"))
                .send()
                .await?
                .text()
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    assert_eq!(
        slow.await.unwrap().unwrap(),
        "done",
        "the running request finished"
    );
    tokio::time::timeout(Duration::from_secs(2), server)
        .await
        .expect("the server stopped once its requests were done")
        .unwrap();
    let refused = reqwest::Client::new()
        .get(format!("http://{addr}/peer"))
        .send()
        .await;
    assert!(refused.is_err(), "no longer accepting: {refused:?}");
}

#[tokio::test]
async fn serve_http_drops_requests_still_running_after_the_grace() {
    let (addr, stop, server) = start(Duration::from_millis(200)).await;
    let never = tokio::spawn(reqwest::get(format!("http://{addr}/never")));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t = Instant::now();
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(2), server)
        .await
        .expect("the server stopped after the grace")
        .unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(200),
        "{:?}",
        t.elapsed()
    );
    assert!(never.await.unwrap().is_err(), "the connection was closed");
}
