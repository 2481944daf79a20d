//! The service's real router in this process (every HTTP layer, the route's guard, the
//! handler, the transaction), for timing routes without a network between: `bench_manifest`
//! and `bench_webhook`. No worker runs here: enqueued jobs stay queued.

use anyhow::Result;
use api::state::Options;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use shared::config::Config;
use shared::db::{Db, PoolSettings};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use tower::ServiceExt;

/// The router on `database_url` (migrated), data in `dir`; `extra` adds configuration
/// (say, a provider's settings) to the minimal one.
pub async fn router(
    database_url: &str,
    dir: &Path,
    extra: &[(&str, String)],
    pool: &PoolSettings,
    options: Options,
) -> Result<Router> {
    let vars: HashMap<&str, String> = [
        ("DATABASE_URL", database_url.to_string()),
        ("DATA_DIR", dir.display().to_string()),
        (
            "SECRET_KEY",
            "bench-secret-key-bench-secret-key-0123".to_string(),
        ),
        ("PUBLIC_BASE_URL", "http://bench.test".to_string()),
        ("EMBEDDED_WORKER", "false".to_string()),
    ]
    .into_iter()
    .chain(extra.iter().cloned())
    .collect();
    let cfg = Config::from_lookup(|k| vars.get(k).cloned())?;
    let db = Db::connect(cfg.database_url.expose(), pool).await?;
    api::serve::migrate(&db).await?;
    let state = api::state::AppState::with_options(cfg, db, options).await?;
    Ok(api::app::build(state))
}

/// Sends `req` through `router` as the server would hand it over: from a loopback peer.
pub async fn send(router: &Router, mut req: Request<Body>) -> Result<Response<Body>> {
    req.extensions_mut()
        .insert(axum::extract::ConnectInfo(SocketAddr::from((
            [127, 0, 0, 1],
            40000,
        ))));
    Ok(router.clone().oneshot(req).await?)
}
