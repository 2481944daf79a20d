//! The service's real router in this process (every HTTP layer, the route's guard, the
//! handler, the transaction), for timing routes without a network between: `bench_manifest`
//! and `bench_webhook`, and a browser's calls through it ([`call`], [`signup`]). No worker runs
//! here unless the caller starts one: enqueued jobs stay queued.

use anyhow::{Context, Result};
use api::state::Options;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, Response, StatusCode, header};
use serde_json::Value;
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
    Ok(service(database_url, dir, extra, pool, options)
        .await?
        .router)
}

/// The router with the configuration and database it was built on (to start a worker on
/// them: `api::serve::start_embedded_worker`).
pub struct Service {
    pub router: Router,
    pub cfg: Config,
    pub db: Db,
}

/// [`router`], keeping its configuration and database.
pub async fn service(
    database_url: &str,
    dir: &Path,
    extra: &[(&str, String)],
    pool: &PoolSettings,
    options: Options,
) -> Result<Service> {
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
    let state = api::state::AppState::with_options(cfg.clone(), db.clone(), options).await?;
    Ok(Service {
        router: api::app::build(state),
        cfg,
        db,
    })
}

/// A signed-in web session: its cookie and CSRF token.
pub struct Session {
    pub cookie: String,
    pub csrf: String,
}

/// Calls `router` as a browser would: `headers` as given, the session's cookie and CSRF
/// header when there is one. The status, the JSON body (null when it is not JSON) and the
/// headers.
pub async fn call(
    router: &Router,
    method: &str,
    path: &str,
    s: Option<&Session>,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Result<(StatusCode, Value, HeaderMap)> {
    let mut req = Request::builder().method(method).uri(path);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if let Some(s) = s {
        req = req
            .header(header::COOKIE, format!("sc_session={}", s.cookie))
            .header("x-csrf-token", &s.csrf);
    }
    let resp = send(router, req.body(Body::from(body))?).await?;
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = axum::body::to_bytes(resp.into_body(), 64 << 20).await?;
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Ok((status, json, headers))
}

/// A new coach with their own workspace, signed in.
pub async fn signup(router: &Router, email: &str) -> Result<Session> {
    let body = serde_json::json!({ "email": email, "password": "correct horse battery staple", "name": "Coach" });
    let (st, v, headers) = call(
        router,
        "POST",
        "/api/auth/signup",
        None,
        &[("content-type", "application/json")],
        serde_json::to_vec(&body)?,
    )
    .await?;
    anyhow::ensure!(st == StatusCode::CREATED, "signup: {st} {v}");
    let cookie = headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next()?.split_once('='))
        .find(|(k, _)| *k == "sc_session")
        .map(|(_, v)| v.to_string())
        .context("session cookie")?;
    Ok(Session {
        cookie,
        csrf: v["csrfToken"].as_str().context("csrf")?.to_string(),
    })
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
