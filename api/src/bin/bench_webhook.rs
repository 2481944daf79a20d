//! `bench_webhook`: how long the payment webhook takes to acknowledge a delivery (goal: p99
//! under 50 ms), with the event applied later by its job (no worker runs here, so the figure is
//! the acknowledgement alone: signature check on the raw body, one transaction that stores the
//! event and enqueues its job). Run it with `scripts/bench-webhook`.
//!
//! Each database is fresh (SQLite in a temporary directory; PostgreSQL when `BENCH_PG_URL`
//! names an admin URL: a database is created and dropped); requests go through the real router
//! in this process (every HTTP layer, the route's guard, the handler). `BENCH_WEBHOOK_EVENTS`
//! (default 2000) distinct signed events are sent one at a time, then the same number by 16
//! concurrent senders, then every event again (duplicates: verified, found, nothing written).
//! Beside them, in the same run, `GET /api/health` (one database round trip) is the floor.
//! SQLite runs twice in alternation with and without the write gate (`Db::begin`), so the
//! gate's effect is measured side by side. Markdown on stdout.

use anyhow::{Result, bail};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use futures::StreamExt;
use shared::config::Config;
use shared::db::{Db, PoolSettings};
use sqlx::Connection;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tower::ServiceExt;

const SECRET: &str = "whsec_bench_secret";

fn event(i: usize, tag: &str) -> String {
    let now = chrono::Utc::now().timestamp();
    serde_json::json!({
        "id": format!("evt_{tag}_{i}"), "object": "event", "type": "customer.subscription.updated",
        "created": now, "livemode": false,
        "data": { "object": { "id": format!("sub_{}", i % 50), "object": "subscription", "status": "active",
                              "items": { "data": [ { "id": "si_1", "quantity": 5 } ] } } }
    })
    .to_string()
}

async fn call(router: &axum::Router, req: Request<Body>) -> Result<(StatusCode, Duration)> {
    let mut req = req;
    req.extensions_mut()
        .insert(axum::extract::ConnectInfo(SocketAddr::from((
            [127, 0, 0, 1],
            40000,
        ))));
    let started = Instant::now();
    let resp = router.clone().oneshot(req).await?;
    let status = resp.status();
    axum::body::to_bytes(resp.into_body(), 1 << 20).await?;
    Ok((status, started.elapsed()))
}

async fn deliver(router: &axum::Router, body: String) -> Result<Duration> {
    let sig =
        shared::providers::payments::sign(SECRET, chrono::Utc::now().timestamp(), body.as_bytes());
    let req = Request::builder()
        .method("POST")
        .uri("/api/payments/webhook")
        .header(header::CONTENT_TYPE, "application/json")
        .header("stripe-signature", sig)
        .body(Body::from(body))?;
    let (status, d) = call(router, req).await?;
    if status != StatusCode::OK {
        bail!("webhook answered {status}");
    }
    Ok(d)
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1;
    v[i].as_secs_f64() * 1000.0
}

fn row(db: &str, what: &str, mut v: Vec<Duration>) -> String {
    format!(
        "| {db} | {what} | {} | {:.2} | {:.2} | {:.2} |",
        v.len(),
        pct(&mut v, 0.5),
        pct(&mut v, 0.99),
        pct(&mut v, 1.0)
    )
}

async fn scenario(
    name: &str,
    database_url: &str,
    dir: &std::path::Path,
    settings: &PoolSettings,
) -> Result<Vec<String>> {
    let vars: HashMap<&str, String> = [
        ("DATABASE_URL", database_url.to_string()),
        ("DATA_DIR", dir.display().to_string()),
        (
            "SECRET_KEY",
            "bench-secret-key-bench-secret-key-0123".into(),
        ),
        ("PUBLIC_BASE_URL", "http://bench.test".into()),
        ("EMBEDDED_WORKER", "false".into()),
        // Never called: the events are applied by jobs, which no worker runs here.
        ("PAYMENTS_BASE_URL", "http://127.0.0.1:9".into()),
        ("PAYMENTS_SECRET_KEY", "sk_test_bench".into()),
        (
            "PAYMENTS_WEBHOOK_SECRETS",
            format!("whsec_old_one,{SECRET}"),
        ),
    ]
    .into_iter()
    .collect();
    let cfg = Config::from_lookup(|k| vars.get(k).cloned())?;
    let db = Db::connect(&cfg.database_url, settings).await?;
    api::serve::migrate(&db).await?;
    let state = api::state::AppState::new(cfg, db).await?;
    let router = api::app::build(state);
    let n: usize = std::env::var("BENCH_WEBHOOK_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    // Warm-up (connections, caches).
    for i in 0..50 {
        deliver(&router, event(i, "warm")).await?;
    }
    let mut health = Vec::with_capacity(n);
    for _ in 0..n {
        let req = Request::builder().uri("/api/health").body(Body::empty())?;
        health.push(call(&router, req).await?.1);
    }
    let mut seq = Vec::with_capacity(n);
    for i in 0..n {
        seq.push(deliver(&router, event(i, "seq")).await?);
    }
    let conc: Vec<Duration> = futures::stream::iter(0..n)
        .map(|i| deliver(&router, event(i, "conc")))
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_>>()?;
    let mut dup = Vec::with_capacity(n);
    for i in 0..n {
        dup.push(deliver(&router, event(i, "seq")).await?);
    }
    eprintln!("bench_webhook: {name} done");
    Ok(vec![
        row(name, "`GET /api/health` (floor)", health),
        row(name, "webhook, one sender", seq),
        row(name, "webhook, 16 concurrent senders", conc),
        row(name, "webhook, duplicates (one sender)", dup),
    ])
}

#[tokio::main]
async fn main() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("bench-webhook-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut rows = vec![];
    for round in 0..2 {
        for gate in [false, true] {
            let sqlite_dir = dir.join(format!("sqlite-{round}-{gate}"));
            std::fs::create_dir_all(&sqlite_dir)?;
            let url = format!("sqlite://{}/bench.db", sqlite_dir.display());
            let settings = PoolSettings {
                sqlite_write_gate: gate,
                ..PoolSettings::default()
            };
            let name = if gate {
                "SQLite"
            } else {
                "SQLite, no write gate"
            };
            rows.extend(scenario(name, &url, &sqlite_dir, &settings).await?);
        }
    }
    if let Ok(admin) = std::env::var("BENCH_PG_URL") {
        let name = format!("bench_webhook_{}", std::process::id());
        let mut c = sqlx::PgConnection::connect(&admin).await?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
            .execute(&mut c)
            .await?;
        let mut u = url::Url::parse(&admin)?;
        u.set_path(&name);
        let pg_dir = dir.join("pg");
        std::fs::create_dir_all(&pg_dir)?;
        let r = scenario("PostgreSQL", u.as_str(), &pg_dir, &PoolSettings::default()).await;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE \"{name}\" WITH (FORCE)"
        )))
        .execute(&mut c)
        .await?;
        rows.extend(r?);
    } else {
        eprintln!("bench_webhook: BENCH_PG_URL unset: SQLite only");
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("| database | requests | n | p50 (ms) | p99 (ms) | max (ms) |");
    println!("|---|---|---:|---:|---:|---:|");
    for r in rows {
        println!("{r}");
    }
    Ok(())
}
