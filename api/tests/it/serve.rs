//! `api::serve::serve_http`, the accept loop of the `api` binary: what `axum::serve` did for us
//! (the peer address, graceful shutdown) and the bound on that shutdown.

use api::serve::serve_http;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::routing::get;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

/// `/slow` and `/never` say on `arrived` that their request is running, so a test stops the
/// server only once it has one in flight (a fixed sleep lost that race on a loaded machine).
fn router(arrived: mpsc::UnboundedSender<()>) -> Router {
    let on_never = arrived.clone();
    Router::new()
        .route(
            "/peer",
            get(|ConnectInfo(p): ConnectInfo<SocketAddr>| async move { p.ip().to_string() }),
        )
        .route(
            "/slow",
            get(move || async move {
                let _ = arrived.send(());
                tokio::time::sleep(Duration::from_millis(300)).await;
                "done"
            }),
        )
        .route(
            "/never",
            get(move || async move {
                let _ = on_never.send(());
                std::future::pending::<&'static str>().await
            }),
        )
}

struct Server {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
    arrived: mpsc::UnboundedReceiver<()>,
}

async fn start(grace: Duration) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = stopped.await;
    };
    let (tx, arrived) = mpsc::unbounded_channel();
    let task = tokio::spawn(serve_http(listener, router(tx), shutdown, grace));
    Server {
        addr,
        stop,
        task,
        arrived,
    }
}

#[tokio::test]
async fn serve_http_gives_handlers_the_peer_and_finishes_running_requests_on_shutdown() {
    let Server {
        addr,
        stop,
        task: server,
        mut arrived,
    } = start(Duration::from_secs(5)).await;
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
    arrived
        .recv()
        .await
        .expect("the request reached its handler");
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
    let Server {
        addr,
        stop,
        task: server,
        mut arrived,
    } = start(Duration::from_millis(200)).await;
    let never = tokio::spawn(reqwest::get(format!("http://{addr}/never")));
    arrived
        .recv()
        .await
        .expect("the request reached its handler");
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
