//! `bench_webhook`: how long the payment webhook takes to acknowledge a delivery (goal: p99
//! under 50 ms), with the event applied later by its job (no worker runs here, so the figure is
//! the acknowledgement alone: signature check on the raw body, then the transaction that stores
//! the event and enqueues its job). Run it with `scripts/bench-webhook`.
//!
//! Each database is fresh (SQLite in a temporary directory; PostgreSQL when `BENCH_PG_URL`
//! names an admin URL: a database is created and dropped); requests go through the real router
//! in this process (every HTTP layer, the route's guard, the handler). `BENCH_WEBHOOK_EVENTS`
//! (default 2000) distinct signed events are sent one at a time, then the same number by 16
//! concurrent senders, then every event again (duplicates: verified, found, nothing written).
//! Beside them, in the same run, `GET /api/health` (one database round trip) is the floor.
//! Every database runs with the service's group commit of the webhook's stores (concurrent
//! deliveries share one transaction, `events::EventStore`) and without it (one transaction per
//! delivery), and SQLite also with and without the write gate (`Db::begin`): each combination
//! in alternation, twice, so each switch's effect is measured side by side. Markdown on stdout.

use anyhow::{Result, bail};
use api::state::Options;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use bench::stats::percentile;
use bench::{app, env, pg, say};
use futures::StreamExt;
use shared::db::PoolSettings;
use std::time::{Duration, Instant};

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
    let started = Instant::now();
    let resp = app::send(router, req).await?;
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

fn row(db: &str, what: &str, mut v: Vec<Duration>) -> String {
    v.sort();
    let ms = |q| percentile(&v, q).map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0);
    format!(
        "| {db} | {what} | {} | {:.2} | {:.2} | {:.2} |",
        v.len(),
        ms(0.5),
        ms(0.99),
        ms(1.0)
    )
}

async fn scenario(
    name: &str,
    database_url: &str,
    dir: &std::path::Path,
    settings: &PoolSettings,
    options: Options,
) -> Result<Vec<String>> {
    let payments = [
        // Never called: the events are applied by jobs, which no worker runs here.
        ("PAYMENTS_BASE_URL", "http://127.0.0.1:9".into()),
        ("PAYMENTS_SECRET_KEY", "sk_test_bench".into()),
        (
            "PAYMENTS_WEBHOOK_SECRETS",
            format!("whsec_old_one,{SECRET}"),
        ),
    ];
    let router = app::router(database_url, dir, &payments, settings, options).await?;
    let n = env::num("BENCH_WEBHOOK_EVENTS", 2000)? as usize;
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
    say(format_args!("{name} done"));
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
    let label = |db: &str, gc: bool| {
        let store = if gc {
            "group commit"
        } else {
            "one transaction per delivery"
        };
        format!("{db}, {store}")
    };
    for round in 0..2 {
        for gate in [false, true] {
            for gc in [false, true] {
                let sqlite_dir = dir.join(format!("sqlite-{round}-{gate}-{gc}"));
                std::fs::create_dir_all(&sqlite_dir)?;
                let url = format!("sqlite://{}/bench.db", sqlite_dir.display());
                let settings = PoolSettings {
                    sqlite_write_gate: gate,
                    ..PoolSettings::default()
                };
                let db = if gate {
                    "SQLite"
                } else {
                    "SQLite, no write gate"
                };
                let options = Options {
                    webhook_group_commit: Some(gc),
                    ..Options::default()
                };
                rows.extend(scenario(&label(db, gc), &url, &sqlite_dir, &settings, options).await?);
            }
        }
    }
    if let Some(admin) = env::opt("BENCH_PG_URL") {
        for round in 0..2 {
            for gc in [false, true] {
                let name = format!("bench_webhook_{}_{round}_{gc}", std::process::id());
                let pg_dir = dir.join(format!("pg-{round}-{gc}"));
                std::fs::create_dir_all(&pg_dir)?;
                let options = Options {
                    webhook_group_commit: Some(gc),
                    ..Options::default()
                };
                let label = label("PostgreSQL", gc);
                let settings = PoolSettings::default();
                rows.extend(
                    pg::with_database(&admin, &name, async |url| {
                        scenario(&label, url, &pg_dir, &settings, options).await
                    })
                    .await?,
                );
            }
        }
    } else {
        say("BENCH_PG_URL unset: SQLite only");
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("| database | requests | n | p50 (ms) | p99 (ms) | max (ms) |");
    println!("|---|---|---:|---:|---:|---:|");
    for r in rows {
        println!("{r}");
    }
    Ok(())
}
