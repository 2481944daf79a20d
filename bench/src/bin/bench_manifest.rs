//! `bench_manifest`: how long `POST /api/training-sessions/batch-upload` takes for a
//! 1,000-row footage manifest (goal: under a second), and its idempotent re-run (the same rows
//! again: nothing created), beside the training-session CSV import of 1,000 rows (the same
//! import pipeline, the nearest peer in this service) in the same run. Run it with
//! `scripts/bench-manifest`.
//!
//! Each scenario runs on a fresh database (SQLite in a temporary directory; PostgreSQL when
//! `BENCH_PG_URL` names an admin URL: a database is created and dropped), through the real
//! router in this process (HTTP layers, auth, the handler, the pipeline, the transaction), with
//! a workspace of 50 athletes. Every figure is the median of `BENCH_REPEAT` (5) runs, each on a
//! new workspace; the re-run repeats the file just prepared. Markdown on stdout.

use anyhow::{Result, bail};
use api::state::Options;
use axum::http::StatusCode;
use bench::app::Session;
use bench::{app, env, pg, say};
use serde_json::{Value, json};
use shared::db::PoolSettings;
use std::time::{Duration, Instant};

const ROWS: usize = 1000;
const ATHLETES: usize = 50;

struct App {
    router: axum::Router,
}

impl App {
    async fn call(
        &self,
        method: &str,
        path: &str,
        s: Option<&Session>,
        ct: &str,
        body: Vec<u8>,
    ) -> Result<(StatusCode, Value)> {
        let (st, v, _) =
            app::call(&self.router, method, path, s, &[("content-type", ct)], body).await?;
        Ok((st, v))
    }

    /// A new coach with a workspace of [`ATHLETES`] athletes.
    async fn workspace(&self, n: usize) -> Result<Session> {
        let s = app::signup(&self.router, &format!("coach{n}@bench.test")).await?;
        for a in 0..ATHLETES {
            let body = json!({ "firstName": format!("Rider{a}"), "lastName": "Bench", "email": format!("rider{a}@bench.test") });
            let (st, v) = self
                .call(
                    "POST",
                    "/api/athletes",
                    Some(&s),
                    "application/json",
                    serde_json::to_vec(&body)?,
                )
                .await?;
            if st != StatusCode::CREATED {
                bail!("athlete: {st} {v}");
            }
        }
        Ok(s)
    }
}

/// 1,000 clips over 50 sessions (20 clips each), athletes by email and by name.
fn manifest() -> Vec<u8> {
    let mut out = String::from("date,spot,start_time,file,athletes\n");
    for i in 0..ROWS {
        let session = i / 20;
        let day = 1 + session % 28;
        let a = i % ATHLETES;
        let who = if i % 2 == 0 {
            format!("rider{a}@bench.test")
        } else {
            format!("Rider{a} Bench")
        };
        out.push_str(&format!(
            "2026-{:02}-{day:02},Spot {},07:00,GOPR{i:04}.MP4,{who}\n",
            1 + session / 28,
            session % 3
        ));
    }
    out.into_bytes()
}

/// 1,000 past training sessions with one participant each (the training import's format).
fn training_csv() -> Vec<u8> {
    let mut out = String::from("title,starts_at,athlete_email\n");
    for i in 0..ROWS {
        out.push_str(&format!(
            "Session {i},2025-{:02}-{:02} 07:00,rider{}@bench.test\n",
            1 + i / 28 % 12,
            1 + i % 28,
            i % ATHLETES
        ));
    }
    out.into_bytes()
}

async fn timed(
    app: &App,
    s: &Session,
    path: &str,
    ct: &str,
    body: &[u8],
    want: StatusCode,
) -> Result<(Duration, Value)> {
    let t = Instant::now();
    let (st, v) = app.call("POST", path, Some(s), ct, body.to_vec()).await?;
    let d = t.elapsed();
    if st != want {
        bail!("{path}: {st}, wanted {want}: {v}");
    }
    Ok((d, v))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1000.0)
}

async fn scenario(name: &str, database_url: &str, dir: &std::path::Path) -> Result<String> {
    let router = app::router(
        database_url,
        dir,
        &[],
        &PoolSettings::default(),
        Options::default(),
    )
    .await?;
    let app = App { router };
    let repeat = env::num("BENCH_REPEAT", 5)?.max(1) as usize;
    let (m, t) = (manifest(), training_csv());
    let (mut first, mut again, mut peer) = (vec![], vec![], vec![]);
    for i in 0..repeat {
        let s = app.workspace(i).await?;
        let path = "/api/training-sessions/batch-upload";
        let (d, v) = timed(&app, &s, path, "text/csv", &m, StatusCode::CREATED).await?;
        if v["report"]["created"] != ROWS {
            bail!("the manifest made {} clips", v["report"]["created"]);
        }
        first.push(d);
        let (d, v) = timed(&app, &s, path, "text/csv", &m, StatusCode::OK).await?;
        if v["existing"] != true || v["report"]["created"] != 0 {
            bail!("the re-run created something: {}", v["report"]);
        }
        again.push(d);
        // The training import of the same size, in another fresh workspace (its sessions
        // must not exist yet).
        let s = app.workspace(1000 + i).await?;
        let (d, _) = timed(
            &app,
            &s,
            "/api/training-sessions/import",
            "text/csv",
            &t,
            StatusCode::OK,
        )
        .await?;
        peer.push(d);
        say(format_args!(
            "{name} run {}: prepare {} ms, re-run {} ms, training import {} ms",
            i + 1,
            ms(first[i]),
            ms(again[i]),
            ms(peer[i])
        ));
    }
    let (f, a, p) = (median(first), median(again), median(peer));
    Ok(format!(
        "| {name} | {} | {} | {} | {:.2}× |",
        ms(f),
        ms(a),
        ms(p),
        f.as_secs_f64() / p.as_secs_f64()
    ))
}

#[tokio::main]
async fn main() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("bench-manifest-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut rows = vec![];
    let sqlite_dir = dir.join("sqlite");
    std::fs::create_dir_all(&sqlite_dir)?;
    let url = format!("sqlite://{}/bench.db", sqlite_dir.display());
    rows.push(scenario("SQLite", &url, &sqlite_dir).await?);
    if let Some(admin) = env::opt("BENCH_PG_URL") {
        let name = format!("bench_manifest_{}", std::process::id());
        let pg_dir = dir.join("pg");
        std::fs::create_dir_all(&pg_dir)?;
        let row = pg::with_database(&admin, &name, async |url| {
            scenario("PostgreSQL", url, &pg_dir).await
        })
        .await?;
        rows.push(row);
    } else {
        say("BENCH_PG_URL unset: SQLite only");
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "| database | 1,000-row manifest, first prepare (ms) | same manifest again (ms) | 1,000-row training import (ms) | prepare ÷ training import |"
    );
    println!("|---|---:|---:|---:|---:|");
    for r in rows {
        println!("{r}");
    }
    Ok(())
}
