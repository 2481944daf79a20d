//! Process start-up shared by the `api` binary: configuration, logging, database, migrations,
//! and the HTTP accept loop ([`serve_http`]).

use crate::http::zerocopy::ConnIo;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use shared::config::Config;
use shared::db::Db;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

/// Loads configuration (exiting with a message naming a malformed variable) and prepares the
/// data directory the embedded default writes to.
pub fn load_config() -> Config {
    let mut cfg = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = std::fs::create_dir_all(&cfg.data_dir) {
        eprintln!("DATA_DIR {}: {e}", cfg.data_dir.display());
        std::process::exit(2);
    }
    if let Err(e) = cfg.ensure_secret_key() {
        eprintln!(
            "SECRET_KEY not set and {}/secret.key not writable: {e}",
            cfg.data_dir.display()
        );
        std::process::exit(2);
    }
    cfg
}

pub async fn connect(cfg: &Config) -> anyhow::Result<Db> {
    let db = Db::connect(cfg.database_url.expose(), &cfg.pool_settings())
        .await
        .map_err(|e| anyhow::anyhow!("DATABASE_URL: cannot connect: {e}"))?;
    Ok(db)
}

/// Our migrations (the job queue's tables among them).
pub async fn migrate(db: &Db) -> anyhow::Result<()> {
    db.migrate().await?;
    Ok(())
}

/// The embedded default runs the worker (queues and scheduler) inside the api process.
pub async fn start_embedded_worker(cfg: &Config, db: &Db) -> anyhow::Result<worker::Running> {
    let wcfg = worker::config::WorkerConfig::from_env(db.dialect() == shared::db::Dialect::Sqlite)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let deps = std::sync::Arc::new(worker::Deps::new(db.clone(), cfg.clone(), wcfg).await?);
    tracing::info!("running the job worker in this process (EMBEDDED_WORKER)");
    worker::start(deps).await
}

/// The most response bytes hyper queues per connection before it stops polling the body (and
/// the most request bytes it buffers). hyper's default is ≈ 408 KiB, and `axum::serve` cannot
/// change it; a video stream to a slow player kept that much (and the upstream read buffers its
/// chunks are slices of) alive per open stream. 64 KiB still fills a socket write per poll.
pub const MAX_BUF_SIZE: usize = 64 * 1024;

/// How long a graceful shutdown lets running requests (a video stream may run for an hour)
/// finish before their connections are dropped.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// Serves `router` over HTTP/1.1 (keep-alive) on `listener` until `shutdown` resolves, then
/// stops accepting, lets running requests finish for at most `grace` and closes idle
/// connections. What `axum::serve(..).with_graceful_shutdown(..)` with
/// `into_make_service_with_connect_info::<SocketAddr>()` did, plus hyper's [`MAX_BUF_SIZE`]
/// and the bound on the wait.
pub async fn serve_http(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut conns = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                Err(e) => {
                    accept_error(e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        while conns.try_join_next().is_some() {} // forget finished connections
        // A response is one write; Nagle would hold the next one behind a delayed ACK.
        let _ = stream.set_nodelay(true);
        let (io, door) = ConnIo::new(stream);
        // Handlers read the peer as `ConnectInfo<SocketAddr>` (`http::client_ip`), and the
        // connection's door for bodies the kernel sends (`http::zerocopy`).
        let svc = tower::ServiceExt::map_request(
            router.clone(),
            move |mut req: http::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req.extensions_mut().insert(door.clone());
                req
            },
        );
        let conn = hyper::server::conn::http1::Builder::new()
            .max_buf_size(MAX_BUF_SIZE)
            // Queue body chunks by reference: `ConnIo` must see a kernel-sent body's own
            // chunks, and with the queue strategy hyper never copies a chunk.
            .writev(true)
            .serve_connection(TokioIo::new(io), TowerToHyperService::new(svc));
        let mut stop = stop_rx.clone();
        conns.spawn(async move {
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                res = conn.as_mut() => {
                    if let Err(e) = res {
                        tracing::trace!(%peer, error = %e, "connection ended with an error");
                    }
                    return;
                }
                _ = stop.wait_for(|s| *s) => {}
            }
            // Finish the request in flight (if any), then close instead of waiting for another.
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    if tokio::time::timeout(grace, async { while conns.join_next().await.is_some() {} })
        .await
        .is_err()
    {
        tracing::warn!(
            open = conns.len(),
            ?grace,
            "requests still running after the shutdown grace; closing their connections"
        );
        conns.shutdown().await;
    }
}

/// As `axum::serve`: a failed accept of one connection is skipped; anything else (out of file
/// descriptors) is logged and retried after a second, instead of spinning.
async fn accept_error(e: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "accepting a connection failed");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
