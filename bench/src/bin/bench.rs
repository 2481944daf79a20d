//! `bench`: the job-system benchmark. Run it with `scripts/bench`, which builds the release
//! binaries, starts the PostgreSQL test server and installs the peers (graphile-worker and
//! pg-boss, `bench/package-lock.json`) first.
//!
//! For each scenario (our job system on SQLite and on PostgreSQL, and each peer at its defaults
//! and at its documented high-throughput settings on the same PostgreSQL server, each with 1 and
//! with 2 worker processes) on a fresh database:
//!
//! - **throughput**: the bench enqueues `BENCH_JOBS` no-op jobs (`diagnostics.probe` with
//!   `sleep_ms = 0`; graphile-worker: an empty task) in transactions of `BENCH_BATCH`, then starts
//!   the worker processes and waits until every job is done. jobs/s = N / (last job finished −
//!   first job started), both read from the rows (`job_progress.started_at`/`finished_at`); for
//!   graphile-worker the first task start its processes report and the last delete stamped by a
//!   trigger, for pg-boss its `started_on`/`completed_on` columns. pg-boss at its defaults polls
//!   every 2 s per worker, so its phase is cut off after `BENCH_PGBOSS_DEFAULT_SECS` and measured
//!   over the jobs done by then (its latency is then not measured).
//! - **latency**: with the workers running and idle, the bench enqueues `BENCH_LATENCY_JOBS`
//!   jobs one at a time, one transaction each, every `BENCH_PACE_MS`. Enqueue-to-start is
//!   `job_progress.started_at − created_at` (both written by Rust on this machine), and for the
//!   peers the task's start time minus the enqueue time passed in its payload.
//!
//! - **CPU-bound** (ours only, `cpu-1`/`cpu-2`/`cpu-4`/`cpu-8`): `BENCH_CPU_JOBS` probes that each burn
//!   `BENCH_CPU_MS` of CPU time on a blocking thread, pre-enqueued like the throughput phase:
//!   how throughput scales with worker processes (its ceiling is cores × 1000 / ms).
//!
//! Our worker processes are the real `worker` binary (next to this one) with `SCHEDULER=off`
//! and `WORKER_CONCURRENCY=only:default=<BENCH_CONCURRENCY>`, their own default logging (info:
//! a job's success is a debug line, so a no-op run logs next to nothing; to a log file) and
//! default pool. The Markdown table goes to stdout; progress
//! and detail (CPU time per job of the worker processes and of their PostgreSQL backends,
//! latency spread) go to stderr.
//!
//! Environment: `BENCH_PG_URL` (admin URL of a PostgreSQL server; required unless
//! `BENCH_ONLY` names SQLite scenarios only), `BENCH_JOBS` (10000), `BENCH_LATENCY_JOBS` (300),
//! `BENCH_PACE_MS` (10), `BENCH_CONCURRENCY` (32), `BENCH_BATCH` (500), `BENCH_TIMEOUT_SECS`
//! (120, per phase), `BENCH_ONLY` (comma-separated scenario ids or prefixes: `sqlite-1`,
//! `sqlite-2`, `postgres-1`, `postgres-2`, `graphile-1`, `graphile-2`, `graphile-best-1`,
//! `graphile-best-2`, `pgboss-1`, `pgboss-2`, `pgboss-best-1`, `pgboss-best-2`, `cpu-1`,
//! `cpu-2`, `cpu-4`, `cpu-8`), `BENCH_CPU_JOBS` (2000) and `BENCH_CPU_MS` (5) for the CPU-bound scenario,
//! `BENCH_PGBOSS_WORKERS` (4) and `BENCH_PGBOSS_BATCH` (250) for pg-boss's best settings,
//! `BENCH_PGBOSS_DEFAULT_SECS` (15), `BENCH_ROOT` (the repository, for the scripts in `bench/`
//! and the work directory `.tmp/bench`),
//! `BENCH_WORKER_RUST_LOG` (`RUST_LOG` for our worker processes; unset: their default),
//! `BENCH_KEEP=1` (keep each scenario's database and logs), `BENCH_BASELINE_WORKER` (another
//! build's `worker` binary: the `baseline-*` scenarios run it just before this build's same row,
//! a before/after in one run on the same schema) and `BENCH_BASELINE_LABEL` (its name). When the PostgreSQL server preloads
//! `pg_stat_statements`, the statements that took the most time per scenario are printed too.

use anyhow::{Context, Result, bail};
use bench::env;
use bench::pg::{create_database, drop_database};
use bench::proc::cpu_secs;
use bench::process::{Proc, log_file};
use bench::stats::percentile;
use jobs::diagnostics::Probe;
use shared::db::{Db, Id, PoolSettings, Ts};
use shared::job::{Job, Owner};
use sqlx::{Connection, PgConnection, PgPool};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Prefix of every database the bench creates (with the bench's pid as suffix).
const DB_PREFIX: &str = "jobbench_";

/// How often the bench checks whether the queue is drained. The measurements come from the
/// rows' timestamps, not from this; a tighter loop only takes CPU from the workers.
const POLL: Duration = Duration::from_millis(250);

struct Params {
    jobs: usize,
    latency_jobs: usize,
    pace: Duration,
    concurrency: usize,
    batch: usize,
    timeout: Duration,
    only: Option<Vec<String>>,
    pg_admin: Option<String>,
    root: PathBuf,
    work: PathBuf,
    worker_bin: PathBuf,
    /// BENCH_BASELINE_WORKER: another build's `worker` binary (say, main's before a change),
    /// run as the `baseline-*` scenarios beside this build's, on the same schema.
    baseline_bin: Option<PathBuf>,
    /// BENCH_BASELINE_LABEL: how the table names the baseline build.
    baseline_label: String,
    worker_rust_log: Option<String>,
    /// BENCH_KEEP=1: keep each scenario's database and work directory (for a closer look).
    keep: bool,
    /// Whether the server has pg_stat_statements loaded (then the top statements are printed).
    stat_statements: bool,
    /// pg-boss at its best settings: workers per process and jobs per fetch.
    pgboss_workers: usize,
    pgboss_batch: usize,
    /// pg-boss at its defaults polls every 2 s per worker, so its throughput phase is cut off
    /// after this long and measured over the jobs done by then.
    pgboss_default_box: Duration,
    /// The CPU-bound scenario: jobs, and CPU milliseconds each job burns.
    cpu_jobs: usize,
    cpu_ms: u64,
}

impl Params {
    fn from_env() -> Result<Params> {
        let root = env::root();
        let exe = std::env::current_exe().context("locating the bench binary")?;
        let worker_bin = exe.with_file_name("worker");
        let p = Params {
            jobs: env::num("BENCH_JOBS", 10_000)? as usize,
            latency_jobs: env::num("BENCH_LATENCY_JOBS", 300)? as usize,
            pace: Duration::from_millis(env::num("BENCH_PACE_MS", 10)?),
            concurrency: env::num("BENCH_CONCURRENCY", 32)? as usize,
            batch: env::num("BENCH_BATCH", 500)?.max(1) as usize,
            timeout: Duration::from_secs(env::num("BENCH_TIMEOUT_SECS", 120)?),
            only: env::list("BENCH_ONLY"),
            pg_admin: env::opt("BENCH_PG_URL"),
            work: root.join(".tmp").join("bench"),
            root,
            worker_bin,
            baseline_bin: env::opt("BENCH_BASELINE_WORKER").map(PathBuf::from),
            baseline_label: env::opt("BENCH_BASELINE_LABEL")
                .unwrap_or_else(|| "ours, baseline build".into()),
            worker_rust_log: std::env::var("BENCH_WORKER_RUST_LOG").ok(),
            stat_statements: false,
            keep: env::num("BENCH_KEEP", 0)? != 0,
            pgboss_workers: env::num("BENCH_PGBOSS_WORKERS", 4)?.max(1) as usize,
            pgboss_batch: env::num("BENCH_PGBOSS_BATCH", 250)?.max(1) as usize,
            pgboss_default_box: Duration::from_secs(env::num("BENCH_PGBOSS_DEFAULT_SECS", 15)?),
            cpu_jobs: env::num("BENCH_CPU_JOBS", 2000)?.max(1) as usize,
            cpu_ms: env::num("BENCH_CPU_MS", 5)?.max(1),
        };
        if p.jobs == 0 || p.latency_jobs == 0 || p.concurrency == 0 {
            bail!("BENCH_JOBS, BENCH_LATENCY_JOBS and BENCH_CONCURRENCY must be at least 1");
        }
        Ok(p)
    }

    /// The installed version of a peer's npm package.
    fn peer_version(&self, peer: Peer) -> String {
        std::fs::read_to_string(
            self.root
                .join("bench/node_modules")
                .join(peer.package())
                .join("package.json"),
        )
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .unwrap_or_else(|| "(not installed)".into())
    }

    fn selected(&self, id: &str) -> bool {
        match &self.only {
            None => true,
            Some(list) => list.iter().any(|s| id.starts_with(s.as_str())),
        }
    }
}

/// The peer job systems, run by the Node.js scripts in `bench/`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Peer {
    Graphile,
    PgBoss,
}

/// A peer's configuration: its defaults, or the high-throughput settings its documentation
/// recommends (see `bench/graphile.mjs` and `bench/pgboss.mjs` for exactly which).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Settings {
    Default,
    Best,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scenario {
    Sqlite(usize),
    Postgres(usize),
    Peer(Peer, Settings, usize),
    /// Ours on PostgreSQL with CPU-bound jobs (`BENCH_CPU_MS` of CPU each): how throughput
    /// scales with worker processes.
    Cpu(usize),
    /// Another build of ours (`BENCH_BASELINE_WORKER`), on PostgreSQL (`true`) or SQLite, with
    /// this many processes: a before/after in one run.
    Baseline(bool, usize),
}

impl Peer {
    fn id(self) -> &'static str {
        match self {
            Peer::Graphile => "graphile",
            Peer::PgBoss => "pgboss",
        }
    }
    fn package(self) -> &'static str {
        match self {
            Peer::Graphile => "graphile-worker",
            Peer::PgBoss => "pg-boss",
        }
    }
    fn script(self) -> &'static str {
        match self {
            Peer::Graphile => "bench/graphile.mjs",
            Peer::PgBoss => "bench/pgboss.mjs",
        }
    }
}

impl Scenario {
    fn all() -> Vec<Scenario> {
        // A baseline row runs just before this build's same row (dropped without a baseline).
        let mut v = vec![];
        for n in [1, 2] {
            v.extend([Scenario::Baseline(false, n), Scenario::Sqlite(n)]);
        }
        for n in [1, 2] {
            v.extend([Scenario::Baseline(true, n), Scenario::Postgres(n)]);
        }
        for peer in [Peer::Graphile, Peer::PgBoss] {
            for settings in [Settings::Default, Settings::Best] {
                for n in [1, 2] {
                    v.push(Scenario::Peer(peer, settings, n));
                }
            }
        }
        v.extend([1, 2, 4, 8].map(Scenario::Cpu));
        v
    }
    fn id(self) -> String {
        match self {
            Scenario::Sqlite(n) => format!("sqlite-{n}"),
            Scenario::Postgres(n) => format!("postgres-{n}"),
            Scenario::Peer(peer, Settings::Default, n) => format!("{}-{n}", peer.id()),
            Scenario::Peer(peer, Settings::Best, n) => format!("{}-best-{n}", peer.id()),
            Scenario::Cpu(n) => format!("cpu-{n}"),
            Scenario::Baseline(pg, n) => {
                format!("baseline-{}-{n}", if pg { "postgres" } else { "sqlite" })
            }
        }
    }
    fn procs(self) -> usize {
        match self {
            Scenario::Sqlite(n)
            | Scenario::Postgres(n)
            | Scenario::Peer(_, _, n)
            | Scenario::Cpu(n)
            | Scenario::Baseline(_, n) => n,
        }
    }
    fn system(self, p: &Params) -> String {
        match self {
            Scenario::Peer(peer, _, _) => {
                format!("{} {}", peer.package(), p.peer_version(peer))
            }
            Scenario::Cpu(_) => format!("ours, CPU-bound jobs ({} ms CPU each)", p.cpu_ms),
            Scenario::Baseline(..) => p.baseline_label.clone(),
            _ => "ours (apalis, own backend)".into(),
        }
    }
    fn settings(self) -> &'static str {
        match self {
            Scenario::Sqlite(_)
            | Scenario::Postgres(_)
            | Scenario::Cpu(_)
            | Scenario::Baseline(..) => "as shipped",
            Scenario::Peer(_, Settings::Default, _) => "defaults",
            Scenario::Peer(Peer::Graphile, Settings::Best, _) => {
                "localQueue 500, completeJobBatchDelay 0, failJobBatchDelay 0"
            }
            Scenario::Peer(Peer::PgBoss, Settings::Best, _) => {
                "batchSize, burstWhenBatchFull, LISTEN/NOTIFY"
            }
        }
    }
    /// What runs at once in one process.
    fn concurrency(self, p: &Params) -> String {
        match self {
            Scenario::Peer(Peer::PgBoss, Settings::Default, _) => {
                format!("{} workers × 1 job", p.concurrency)
            }
            Scenario::Peer(Peer::PgBoss, Settings::Best, _) => {
                format!("{} workers × batch {}", p.pgboss_workers, p.pgboss_batch)
            }
            _ => p.concurrency.to_string(),
        }
    }
    fn database(self) -> &'static str {
        match self {
            Scenario::Sqlite(_) | Scenario::Baseline(false, _) => "SQLite",
            _ => "PostgreSQL",
        }
    }
    fn is_peer(self) -> bool {
        matches!(self, Scenario::Peer(..))
    }
}

/// One row of the table.
struct Outcome {
    scenario: Scenario,
    jobs_per_s: Option<f64>,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    note: Option<String>,
}

impl Outcome {
    fn failed(scenario: Scenario, e: &anyhow::Error) -> Outcome {
        Outcome {
            scenario,
            jobs_per_s: None,
            p50_ms: None,
            p99_ms: None,
            note: Some(format!("failed: {e:#}")),
        }
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    worker::install_crypto_provider();
    let mut p = Params::from_env()?;
    let scenarios: Vec<Scenario> = Scenario::all()
        .into_iter()
        .filter(|s| p.selected(&s.id()))
        .filter(|s| !matches!(s, Scenario::Baseline(..)) || p.baseline_bin.is_some())
        .collect();
    if scenarios.is_empty() {
        bail!(
            "BENCH_ONLY selects no scenario (ids: {})",
            Scenario::all()
                .iter()
                .map(|s| s.id())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let needs_pg = scenarios
        .iter()
        .any(|s| !matches!(s, Scenario::Sqlite(_) | Scenario::Baseline(false, _)));
    if needs_pg && p.pg_admin.is_none() {
        bail!(
            "BENCH_PG_URL (a PostgreSQL admin URL) is required for the PostgreSQL, graphile-worker and pg-boss scenarios"
        );
    }
    let ours = scenarios.iter().any(|s| !s.is_peer());
    if ours && !p.worker_bin.exists() {
        bail!(
            "{} not found: build it with `cargo build --release -p worker`",
            p.worker_bin.display()
        );
    }
    std::fs::create_dir_all(&p.work)?;
    if let Some(admin) = &p.pg_admin {
        drop_stale_databases(admin).await?;
        p.stat_statements = stat_statements_available(admin).await;
    }

    print!("{}", facts(&p).await);
    let mut results = vec![];
    for s in scenarios {
        eprintln!("\n== {} ==", s.id());
        let r = match s {
            Scenario::Sqlite(_) | Scenario::Baseline(false, _) => ours_sqlite(&p, s).await,
            Scenario::Postgres(_) | Scenario::Cpu(_) | Scenario::Baseline(true, _) => {
                ours_postgres(&p, s).await
            }
            Scenario::Peer(peer, settings, n) => run_peer(&p, peer, settings, n).await,
        };
        results.push(r.unwrap_or_else(|e| {
            eprintln!("{}: {e:#}", s.id());
            Outcome::failed(s, &e)
        }));
    }
    print!("{}", table(&p, &results));
    print!("{}", verdict(&p, &results));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Machine facts and the report

async fn facts(p: &Params) -> String {
    let mut s = String::from("## Job-system benchmark\n\n");
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "- machine: nproc {cores} ({cpu}), load average at start {load}"
    );
    if let Some(admin) = &p.pg_admin {
        let v = match PgConnection::connect(admin).await {
            Ok(mut c) => sqlx::query_scalar::<_, String>("SHOW server_version")
                .fetch_one(&mut c)
                .await
                .unwrap_or_else(|e| format!("unknown ({e})")),
            Err(e) => format!("unreachable ({e})"),
        };
        let _ = writeln!(
            s,
            "- PostgreSQL {v} (the test server of scripts/ensure-postgres: fsync=off, synchronous_commit=off)"
        );
    }
    let sqlite = match sqlx::SqliteConnection::connect("sqlite::memory:").await {
        Ok(mut c) => sqlx::query_scalar::<_, String>("SELECT sqlite_version()")
            .fetch_one(&mut c)
            .await
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    let _ = writeln!(
        s,
        "- SQLite {sqlite} (bundled; WAL, synchronous=NORMAL, a fresh file per scenario)"
    );
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "not found".into());
    let _ = writeln!(
        s,
        "- Node {node}, graphile-worker {}, pg-boss {} (bench/package-lock.json)",
        p.peer_version(Peer::Graphile),
        p.peer_version(Peer::PgBoss)
    );
    let _ = writeln!(
        s,
        "- parameters: N = {} jobs pre-enqueued (transactions of {}), M = {} latency jobs paced every {} ms \
         (one transaction each), concurrency {} per worker process",
        p.jobs,
        p.batch,
        p.latency_jobs,
        p.pace.as_millis(),
        p.concurrency
    );
    let _ = writeln!(
        s,
        "- ours: release `worker` processes, SCHEDULER=off, WORKER_CONCURRENCY=only:default={} \
         (fetch batch {}), default pool (10) and logging",
        p.concurrency,
        std::env::var("WORKER_FETCH_BATCH").unwrap_or_else(|_| {
            worker::config::default_fetch_batch(shared::job::Queue::Default, p.concurrency)
                .to_string()
        }),
    );
    let _ = writeln!(
        s,
        "- graphile-worker: concurrency {c} per process; defaults: maxPoolSize {c}, otherwise its defaults; \
         best: localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0, maxPoolSize {} \
         (its performance documentation's high-throughput configuration)",
        p.concurrency + 1,
        c = p.concurrency,
    );
    let _ = writeln!(
        s,
        "- pg-boss: defaults: localConcurrency {} (one job per fetch, 2 s poll after each), pool 10, \
         throughput measured over the jobs done in the first {} s; best: localConcurrency {}, \
         batchSize {}, burstWhenBatchFull, useListenNotify with a notify queue, pool {}",
        p.concurrency,
        p.pgboss_default_box.as_secs(),
        p.pgboss_workers,
        p.pgboss_batch,
        p.pgboss_workers + 4
    );
    s.push('\n');
    s
}

fn fmt_opt(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(x) => format!("{x:.decimals$}"),
        None => "—".into(),
    }
}

/// The peer row with the highest throughput among those with `procs` worker processes.
fn best_peer(results: &[Outcome], procs: usize, only: Option<Peer>) -> Option<&Outcome> {
    results
        .iter()
        .filter(|r| r.scenario.procs() == procs && r.jobs_per_s.is_some())
        .filter(|r| match r.scenario {
            Scenario::Peer(peer, _, _) => only.is_none_or(|o| o == peer),
            _ => false,
        })
        .max_by(|a, b| {
            a.jobs_per_s
                .unwrap_or(0.0)
                .total_cmp(&b.jobs_per_s.unwrap_or(0.0))
        })
}

fn table(p: &Params, results: &[Outcome]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| system | settings | database | worker processes | concurrency / process | throughput (jobs/s) | × best peer row (same processes) | enqueue→start p50 (ms) | enqueue→start p99 (ms) | note |"
    );
    let _ = writeln!(s, "|---|---|---|---:|---|---:|---:|---:|---:|---|");
    for r in results {
        let ratio = match (r.jobs_per_s, best_peer(results, r.scenario.procs(), None)) {
            // The CPU-bound rows measure scaling, not a comparison with the no-op peers.
            _ if matches!(r.scenario, Scenario::Cpu(_)) => None,
            (Some(a), Some(b)) => b.jobs_per_s.filter(|b| *b > 0.0).map(|b| a / b),
            _ => None,
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.scenario.system(p),
            r.scenario.settings(),
            r.scenario.database(),
            r.scenario.procs(),
            r.scenario.concurrency(p),
            fmt_opt(r.jobs_per_s, 0),
            ratio
                .map(|x| format!("{x:.2}×"))
                .unwrap_or_else(|| "—".into()),
            fmt_opt(r.p50_ms, 2),
            fmt_opt(r.p99_ms, 2),
            r.note.as_deref().unwrap_or("").replace('|', "/")
        );
    }
    s.push('\n');
    s
}

fn verdict(p: &Params, results: &[Outcome]) -> String {
    let mut s = String::from(
        "Goal (issue 14, on PostgreSQL): our throughput ≥ 1.5× the best graphile-worker configuration, \
         and p99 enqueue→start < 10 ms.\n\n",
    );
    for n in [1, 2] {
        let Some(ours) = results.iter().find(|r| r.scenario == Scenario::Postgres(n)) else {
            continue;
        };
        let mut parts = vec![];
        for (label, only) in [
            ("best graphile-worker row", Some(Peer::Graphile)),
            ("best peer row", None),
        ] {
            let Some(peer) = best_peer(results, n, only) else {
                continue;
            };
            parts.push(match (ours.jobs_per_s, peer.jobs_per_s) {
                (Some(a), Some(b)) if b > 0.0 => {
                    let ratio = a / b;
                    format!(
                        "vs the {label} ({} {}, {b:.0} jobs/s): {a:.0} jobs/s = {ratio:.2}× → {}",
                        peer.scenario.system(p),
                        peer.scenario.settings(),
                        if only.is_some() {
                            if ratio >= 1.5 { "met" } else { "NOT met" }
                        } else {
                            "for information"
                        }
                    )
                }
                _ => format!("vs the {label}: not measured"),
            });
        }
        parts.push(match ours.p99_ms {
            Some(v) => format!(
                "p99 {v:.2} ms → {}",
                if v < 10.0 { "met" } else { "NOT met" }
            ),
            None => "p99: not measured".into(),
        });
        let _ = writeln!(
            s,
            "- {n} worker process{}: {}",
            if n == 1 { "" } else { "es" },
            parts.join("; ")
        );
    }
    for r in results {
        let Scenario::Baseline(pg, n) = r.scenario else {
            continue;
        };
        let this = if pg {
            Scenario::Postgres(n)
        } else {
            Scenario::Sqlite(n)
        };
        let Some(now) = results.iter().find(|o| o.scenario == this) else {
            continue;
        };
        if let (Some(a), Some(b)) = (now.jobs_per_s, r.jobs_per_s) {
            let _ = writeln!(
                s,
                "- this build against {} on {}, {n} process{}: {a:.0} against {b:.0} jobs/s = {:.2}×",
                p.baseline_label,
                r.scenario.database(),
                if n == 1 { "" } else { "es" },
                a / b.max(f64::MIN_POSITIVE)
            );
        }
    }
    let cpu: Vec<String> = results
        .iter()
        .filter(|r| matches!(r.scenario, Scenario::Cpu(_)))
        .map(|r| {
            format!(
                "{} process{}: {} jobs/s",
                r.scenario.procs(),
                if r.scenario.procs() == 1 { "" } else { "es" },
                fmt_opt(r.jobs_per_s, 0)
            )
        })
        .collect();
    if !cpu.is_empty() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let _ = writeln!(
            s,
            "- CPU-bound jobs ({} ms of CPU each): {}; the ceiling on {cores} cores is {:.0} jobs/s",
            p.cpu_ms,
            cpu.join(", "),
            cores as f64 * 1000.0 / p.cpu_ms as f64
        );
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Statistics

struct Spread {
    p50: f64,
    p99: f64,
}

fn spread(label: &str, mut v: Vec<f64>) -> Spread {
    v.sort_by(|a, b| a.total_cmp(b));
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    let percentile = |q| percentile(&v, q).unwrap_or(f64::NAN);
    eprintln!(
        "{label}: n={} min {:.2} p50 {:.2} p90 {:.2} p99 {:.2} max {:.2} mean {:.2} ms",
        v.len(),
        v.first().copied().unwrap_or(f64::NAN),
        percentile(0.5),
        percentile(0.9),
        percentile(0.99),
        v.last().copied().unwrap_or(f64::NAN),
        mean
    );
    Spread {
        p50: percentile(0.5),
        p99: percentile(0.99),
    }
}

fn ms_between(a: Ts, b: Ts) -> f64 {
    (b.0 - a.0).num_microseconds().unwrap_or(i64::MAX) as f64 / 1000.0
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL databases

/// Drops databases left by an earlier bench run that was killed (its pid is gone).
async fn drop_stale_databases(admin: &str) -> Result<()> {
    let mut c = PgConnection::connect(admin)
        .await
        .context("connecting to BENCH_PG_URL")?;
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE datname LIKE $1")
            .bind(format!("{DB_PREFIX}%"))
            .fetch_all(&mut c)
            .await?;
    drop(c);
    for name in names {
        let pid = name.rsplit('_').next().and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            eprintln!("dropping stale database {name}");
            drop_database(admin, &name).await;
        }
    }
    Ok(())
}

/// Sum of the CPU seconds of the server backends connected to `db`.
async fn backend_cpu(admin: &str, db: &str) -> f64 {
    let Ok(mut c) = PgConnection::connect(admin).await else {
        return 0.0;
    };
    let pids: Vec<i32> = sqlx::query_scalar("SELECT pid FROM pg_stat_activity WHERE datname = $1")
        .bind(db)
        .fetch_all(&mut c)
        .await
        .unwrap_or_default();
    pids.into_iter().map(|p| cpu_secs(p as u32)).sum()
}

/// pg_stat_statements, when the server preloads it (the plain test server does not; see the
/// bottleneck notes in scripts/bench).
async fn stat_statements_available(admin: &str) -> bool {
    let Ok(mut c) = PgConnection::connect(admin).await else {
        return false;
    };
    let libs: String = sqlx::query_scalar("SHOW shared_preload_libraries")
        .fetch_one(&mut c)
        .await
        .unwrap_or_default();
    libs.contains("pg_stat_statements")
        && sqlx::raw_sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            .execute(&mut c)
            .await
            .is_ok()
}

type StatRow = (i64, String, i64, f64, i64);

/// The statement statistics of database `db`: (queryid, query, calls, total ms, rows).
async fn statements(admin: &str, db: &str) -> Vec<StatRow> {
    let Ok(mut c) = PgConnection::connect(admin).await else {
        return vec![];
    };
    sqlx::query_as(
        "SELECT COALESCE(s.queryid, 0), s.query, s.calls, s.total_exec_time, s.rows
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1",
    )
    .bind(db)
    .fetch_all(&mut c)
    .await
    .unwrap_or_default()
}

/// Prints the statements that took the most server time between two snapshots.
fn print_statements(before: &[StatRow], after: &[StatRow], jobs: usize) {
    let mut diff: Vec<(f64, i64, i64, &str)> = after
        .iter()
        .map(|(id, q, calls, ms, rows)| {
            let (c0, t0, r0) = before
                .iter()
                .find(|b| b.0 == *id)
                .map(|b| (b.2, b.3, b.4))
                .unwrap_or((0, 0.0, 0));
            (ms - t0, calls - c0, rows - r0, q.as_str())
        })
        .filter(|d| d.1 > 0)
        .collect();
    diff.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f64 = diff.iter().map(|d| d.0).sum();
    eprintln!(
        "pg_stat_statements, throughput phase: {:.0} ms execution in all ({:.0} µs/job); top statements:",
        total,
        total * 1000.0 / jobs as f64
    );
    for (ms, calls, rows, q) in diff.iter().take(8) {
        let q: String = q.split_whitespace().collect::<Vec<_>>().join(" ");
        let q: String = q.chars().take(150).collect();
        eprintln!(
            "  {ms:8.0} ms {calls:7} calls {:7.1} µs/call {:6.1} µs/job {rows:7} rows  {q}",
            ms * 1000.0 / *calls as f64,
            ms * 1000.0 / jobs as f64
        );
    }
}

/// Counts panics in our worker logs (a panicking worker may stall its queue).
fn count_panics(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .map(|t| t.matches("panicked at").count())
        .sum()
}

// ---------------------------------------------------------------------------------------------
// Our job system

async fn ours_sqlite(p: &Params, scenario: Scenario) -> Result<Outcome> {
    let name = format!(
        "{DB_PREFIX}{}_{}",
        scenario.id().replace('-', "_"),
        std::process::id()
    );
    let dir = p.work.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let url = format!("sqlite://{}/bench.db", dir.display());
    let r = ours(p, scenario, &url, &dir, None).await;
    if p.keep {
        eprintln!("(kept: {})", dir.display());
    } else {
        keep_logs_if_needed(&r, &dir);
    }
    r
}

async fn ours_postgres(p: &Params, scenario: Scenario) -> Result<Outcome> {
    let admin = p.pg_admin.as_deref().expect("checked in main");
    let name = format!(
        "{DB_PREFIX}ours_{}_{}",
        scenario.id().replace('-', "_"),
        std::process::id()
    );
    let dir = p.work.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let url = create_database(admin, &name).await?;
    let r = ours(p, scenario, &url, &dir, Some((admin, &name))).await;
    if p.keep {
        eprintln!("(kept: database {name}, directory {})", dir.display());
    } else {
        drop_database(admin, &name).await;
        keep_logs_if_needed(&r, &dir);
    }
    r
}

/// Removes a scenario's work directory unless something went wrong there.
fn keep_logs_if_needed(r: &Result<Outcome>, dir: &Path) {
    if matches!(r, Ok(o) if o.note.is_none()) {
        let _ = std::fs::remove_dir_all(dir);
    } else {
        eprintln!("(logs kept in {})", dir.display());
    }
}

type Row = (Id, String, Ts, Option<Ts>, Option<Ts>);

async fn progress_rows(db: &Db) -> Result<Vec<Row>> {
    let mut c = db.acquire().await?;
    let rows = shared::sql!(&mut c, c => sqlx::query_as::<_, Row>(
        "SELECT id, status, created_at, started_at, finished_at FROM job_progress")
        .fetch_all(&mut *c).await)?;
    Ok(rows)
}

/// Waits until no job is queued or running; the elapsed time, or an error on timeout. It
/// counts the live queue tasks (a job's task goes in the statement that records its outcome),
/// as the peers' checks count their live jobs: counting progress rows by status scans them
/// all (no index names the status, migration 25), and the workers would pay for it.
async fn ours_drained(db: &Db, timeout: Duration, children: &mut [Proc]) -> Result<Duration> {
    let t = Instant::now();
    loop {
        let mut c = db.acquire().await?;
        let left: i64 = shared::sql!(&mut c, c => sqlx::query_scalar(
            "SELECT COUNT(*) FROM job_queue")
            .fetch_one(&mut *c).await)?;
        drop(c);
        if left == 0 {
            return Ok(t.elapsed());
        }
        for ch in children.iter_mut() {
            if let Some(st) = ch.exited() {
                bail!("a worker process exited ({st}) with {left} jobs left");
            }
        }
        if t.elapsed() > timeout {
            bail!("timed out after {timeout:?} with {left} jobs not done");
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn ours(
    p: &Params,
    scenario: Scenario,
    url: &str,
    dir: &Path,
    pg: Option<(&str, &str)>,
) -> Result<Outcome> {
    let procs = scenario.procs();
    let db = Db::connect(
        url,
        &PoolSettings {
            max_connections: 4,
            ..Default::default()
        },
    )
    .await?;
    db.migrate().await?;
    let (spec, jobs) = match scenario {
        Scenario::Cpu(_) => (
            Probe {
                cpu_ms: p.cpu_ms,
                ..Default::default()
            }
            .spec(),
            p.cpu_jobs,
        ),
        _ => (Probe::default().spec(), p.jobs),
    };

    // Throughput: pre-enqueue, then start the workers.
    let t = Instant::now();
    let mut left = jobs;
    while left > 0 {
        let k = left.min(p.batch);
        let mut tx = db.begin().await?;
        for _ in 0..k {
            shared::job::enqueue_spec(&mut tx, &spec, Owner::default(), shared::db::Ts::now())
                .await?;
        }
        tx.commit().await?;
        left -= k;
    }
    let enq = t.elapsed();
    eprintln!(
        "enqueued {} jobs in {:.2} s ({:.0} jobs/s)",
        jobs,
        enq.as_secs_f64(),
        jobs as f64 / enq.as_secs_f64()
    );
    let (pg_cpu0, stats0) = match pg {
        Some((admin, name)) => (
            backend_cpu(admin, name).await,
            if p.stat_statements {
                statements(admin, name).await
            } else {
                vec![]
            },
        ),
        None => (0.0, vec![]),
    };
    let spawned = Instant::now();
    let mut children = vec![];
    for i in 0..procs {
        let log = log_file(&dir.join(format!("worker-{i}.log")))?;
        let bin = match (scenario, &p.baseline_bin) {
            (Scenario::Baseline(..), Some(b)) => b,
            _ => &p.worker_bin,
        };
        let mut cmd = Command::new(bin);
        cmd.env("DATABASE_URL", url)
            .env("SCHEDULER", "off")
            .env(
                "WORKER_CONCURRENCY",
                format!("only:default={}", p.concurrency),
            )
            .env("DATA_DIR", dir)
            .env("SECRET_KEY", "bench-secret-key-bench-secret-key-0123456789")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        if let Some(l) = &p.worker_rust_log {
            cmd.env("RUST_LOG", l);
        }
        children.push(Proc::spawn(&mut cmd).context("starting a worker process")?);
    }
    let latency = !matches!(scenario, Scenario::Cpu(_));
    let r = ours_phases(
        p,
        &db,
        (jobs, latency),
        &mut children,
        spawned,
        (pg_cpu0, &stats0),
        pg,
    )
    .await;
    for ch in children.iter_mut() {
        ch.stop(Duration::from_secs(20)).await;
    }
    db.close().await;
    let panics = count_panics(dir);
    if panics > 0 {
        eprintln!(
            "WARNING: {panics} panic(s) in the worker logs ({})",
            dir.display()
        );
    }
    let note = (panics > 0).then(|| format!("{panics} worker panic(s) logged"));
    let (jobs_per_s, lat) = r.map_err(|e| match &note {
        Some(n) => e.context(n.clone()),
        None => e,
    })?;
    Ok(Outcome {
        scenario,
        jobs_per_s: Some(jobs_per_s),
        p50_ms: lat.as_ref().map(|l| l.p50),
        p99_ms: lat.as_ref().map(|l| l.p99),
        note,
    })
}

/// The throughput phase over `jobs` pre-enqueued jobs, then (when `latency`) the latency phase.
async fn ours_phases(
    p: &Params,
    db: &Db,
    (jobs, latency): (usize, bool),
    children: &mut [Proc],
    spawned: Instant,
    (pg_cpu0, stats0): (f64, &[StatRow]),
    pg: Option<(&str, &str)>,
) -> Result<(f64, Option<Spread>)> {
    ours_drained(db, p.timeout, children).await?;
    let seen = spawned.elapsed();
    let worker_cpu: f64 = children.iter().map(|c| cpu_secs(c.pid())).sum();
    let pg_cpu = match pg {
        Some((admin, name)) => {
            if p.stat_statements {
                print_statements(stats0, &statements(admin, name).await, jobs);
            }
            backend_cpu(admin, name).await - pg_cpu0
        }
        None => 0.0,
    };
    let rows = progress_rows(db).await?;
    let not_ok = rows.iter().filter(|r| r.1 != "succeeded").count();
    if not_ok > 0 {
        bail!("{not_ok} of {} jobs did not succeed", rows.len());
    }
    let first = rows
        .iter()
        .filter_map(|r| r.3)
        .min()
        .context("no job started")?;
    let last = rows
        .iter()
        .filter_map(|r| r.4)
        .max()
        .context("no job finished")?;
    let busy_ms = ms_between(first, last);
    let jobs_per_s = jobs as f64 / (busy_ms / 1000.0);
    eprintln!(
        "throughput: first start → last finish {:.3} s = {:.0} jobs/s (spawn → drained seen {:.2} s)",
        busy_ms / 1000.0,
        jobs_per_s,
        seen.as_secs_f64()
    );
    let per_job = |s: f64| s * 1e6 / jobs as f64;
    eprintln!(
        "CPU during the throughput phase: worker processes {:.2} s ({:.0} µs/job){}",
        worker_cpu,
        per_job(worker_cpu),
        if pg.is_some() {
            format!(
                ", their PostgreSQL backends {:.2} s ({:.0} µs/job)",
                pg_cpu,
                per_job(pg_cpu)
            )
        } else {
            String::new()
        }
    );

    if !latency {
        return Ok((jobs_per_s, None));
    }
    // Latency: the workers are running and idle now.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let spec = Probe::default().spec();
    let mut ids = HashSet::new();
    let mut tick = tokio::time::interval(p.pace);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for _ in 0..p.latency_jobs {
        tick.tick().await;
        let mut tx = db.begin().await?;
        let e = shared::job::enqueue_spec(&mut tx, &spec, Owner::default(), shared::db::Ts::now())
            .await?;
        tx.commit().await?;
        ids.insert(e.id);
    }
    ours_drained(db, p.timeout, children).await?;
    let rows = progress_rows(db).await?;
    let lat: Vec<f64> = rows
        .iter()
        .filter(|r| ids.contains(&r.0))
        .filter_map(|r| r.3.map(|s| ms_between(r.2, s)))
        .collect();
    if lat.len() != p.latency_jobs {
        bail!(
            "{} of {} latency jobs have a start time",
            lat.len(),
            p.latency_jobs
        );
    }
    Ok((jobs_per_s, Some(spread("enqueue→start", lat))))
}

// ---------------------------------------------------------------------------------------------
// The peers: graphile-worker and pg-boss, each a Node.js script in bench/ run as worker processes

async fn run_peer(p: &Params, peer: Peer, settings: Settings, procs: usize) -> Result<Outcome> {
    let admin = p.pg_admin.as_deref().expect("checked in main");
    let script = p.root.join(peer.script());
    if !p
        .root
        .join("bench/node_modules")
        .join(peer.package())
        .exists()
    {
        bail!(
            "{} is not installed: run `npm ci --prefix bench`",
            peer.package()
        );
    }
    let tag = match settings {
        Settings::Default => "",
        Settings::Best => "best_",
    };
    let name = format!(
        "{DB_PREFIX}{}_{tag}{procs}_{}",
        peer.id(),
        std::process::id()
    );
    let dir = p.work.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let url = create_database(admin, &name).await?;
    let r = peer_inner(
        p,
        (peer, settings, procs),
        &script,
        &url,
        &dir,
        admin,
        &name,
    )
    .await;
    if p.keep {
        eprintln!("(kept: database {name}, directory {})", dir.display());
    } else {
        drop_database(admin, &name).await;
        // A peer's note (pg-boss time-boxed) is no sign of trouble: only errors keep the logs.
        match &r {
            Ok(_) => {
                let _ = std::fs::remove_dir_all(&dir);
            }
            Err(_) => eprintln!("(logs kept in {})", dir.display()),
        }
    }
    r
}

/// A peer's worker process: its stdin (commands) and the reports it printed.
struct GwProc {
    child: Proc,
    stdin: Option<ChildStdin>,
}

/// What one process reports (see bench/graphile.mjs).
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct GwReport {
    #[serde(default)]
    count: usize,
    first_start: Option<f64>,
    #[serde(default)]
    latencies: Vec<f64>,
}

/// Jobs not yet finished in a peer's tables.
async fn peer_left(peer: Peer, pool: &PgPool) -> Result<i64> {
    let sql = match peer {
        Peer::Graphile => "SELECT COUNT(*) FROM graphile_worker._private_jobs",
        Peer::PgBoss => {
            "SELECT COUNT(*) FROM pgboss.job WHERE state IN ('created', 'retry', 'active')"
        }
    };
    Ok(sqlx::query_scalar(sql).fetch_one(pool).await?)
}

/// Waits until every job is done (`Ok(true)`), or until `time_box` has passed (`Ok(false)`).
async fn peer_drained(
    peer: Peer,
    pool: &PgPool,
    timeout: Duration,
    time_box: Option<Duration>,
    procs: &mut [GwProc],
) -> Result<bool> {
    let t = Instant::now();
    loop {
        let left = peer_left(peer, pool).await?;
        if left == 0 {
            return Ok(true);
        }
        for pr in procs.iter_mut() {
            if let Some(st) = pr.child.exited() {
                bail!(
                    "a {} process exited ({st}) with {left} jobs left",
                    peer.package()
                );
            }
        }
        if time_box.is_some_and(|b| t.elapsed() > b) {
            return Ok(false);
        }
        if t.elapsed() > timeout {
            bail!("timed out after {timeout:?} with {left} jobs not done");
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Asks every process for its report and sums them up.
async fn gw_report(
    procs: &mut [GwProc],
    reports: &mut mpsc::UnboundedReceiver<serde_json::Value>,
) -> Result<GwReport> {
    // Let the last handlers return before asking.
    tokio::time::sleep(Duration::from_millis(200)).await;
    for pr in procs.iter_mut() {
        let stdin = pr.stdin.as_mut().context("stdin closed")?;
        stdin.write_all(b"report\n")?;
        stdin.flush()?;
    }
    let mut total = GwReport::default();
    let mut got = 0;
    while got < procs.len() {
        let v = tokio::time::timeout(Duration::from_secs(10), reports.recv())
            .await
            .context("waiting for the peer's reports")?
            .context("a peer process closed its output")?;
        if v.get("ready").is_some() {
            continue;
        }
        let r: GwReport = serde_json::from_value(v)?;
        got += 1;
        total.count += r.count;
        total.first_start = match (total.first_start, r.first_start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        total.latencies.extend(r.latencies);
    }
    Ok(total)
}

/// Runs `node <script> <args>` to completion, its output to `<dir>/<log>.log`.
async fn node_step(
    script: &Path,
    args: &[String],
    url: &str,
    env: &[(&str, String)],
    dir: &Path,
    log: &str,
) -> Result<()> {
    let mut cmd = Command::new("node");
    cmd.arg(script)
        .args(args)
        .env("DATABASE_URL", url)
        .stdout(log_file(&dir.join(format!("{log}.log")))?)
        .stderr(log_file(&dir.join(format!("{log}.err.log")))?);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let st = tokio::task::spawn_blocking(move || cmd.status())
        .await?
        .context("running node (is Node.js installed?)")?;
    if !st.success() {
        bail!(
            "`node {} {}` failed ({st}); see {}",
            script.display(),
            args.join(" "),
            dir.display()
        );
    }
    Ok(())
}

/// graphile-worker deletes a job when it completes it, but its `job:complete` event fires before
/// that (the completion is queued, batched or not). To time the last completion on the server, a
/// statement-level trigger stamps a sequence (no row, no lock) after every delete.
const GRAPHILE_DONE_TRIGGER: &str = "
CREATE SEQUENCE bench_done_us;
CREATE FUNCTION bench_mark_done() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM setval('bench_done_us', (extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
  RETURN NULL;
END $$;
CREATE TRIGGER bench_done AFTER DELETE ON graphile_worker._private_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bench_mark_done();
";

async fn peer_inner(
    p: &Params,
    (peer, settings, nprocs): (Peer, Settings, usize),
    script: &Path,
    url: &str,
    dir: &Path,
    admin: &str,
    name: &str,
) -> Result<Outcome> {
    let scenario = Scenario::Peer(peer, settings, nprocs);
    let mut env = vec![
        ("CONCURRENCY", p.concurrency.to_string()),
        (
            "SETTINGS",
            match settings {
                Settings::Default => "default",
                Settings::Best => "best",
            }
            .to_string(),
        ),
    ];
    if peer == Peer::PgBoss {
        env.push(("WORKERS", p.pgboss_workers.to_string()));
        env.push(("BATCH", p.pgboss_batch.to_string()));
    }
    node_step(script, &["migrate".into()], url, &env, dir, "migrate").await?;
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(4)
        .connect(url)
        .await?;
    if peer == Peer::Graphile {
        sqlx::raw_sql(GRAPHILE_DONE_TRIGGER).execute(&pool).await?;
    }

    let t = Instant::now();
    match peer {
        Peer::Graphile => {
            let mut done = 0usize;
            while done < p.jobs {
                let k = p.jobs.min(done + p.batch) - done;
                sqlx::query(
                    "SELECT COUNT(*) FROM graphile_worker.add_jobs((
                        SELECT array_agg(ROW('noop', json_build_object('i', g), NULL, NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec)
                        FROM generate_series($1::int, $2::int) g))",
                )
                .bind(done as i32)
                .bind((done + k - 1) as i32)
                .execute(&pool)
                .await?;
                done += k;
            }
        }
        Peer::PgBoss => {
            let args = ["enqueue".into(), p.jobs.to_string(), p.batch.to_string()];
            node_step(script, &args, url, &env, dir, "enqueue").await?;
        }
    }
    let enq = t.elapsed();
    eprintln!(
        "enqueued {} jobs in {:.2} s ({:.0} jobs/s)",
        p.jobs,
        enq.as_secs_f64(),
        p.jobs as f64 / enq.as_secs_f64()
    );

    let pg_cpu0 = backend_cpu(admin, name).await;
    let stats0 = if p.stat_statements {
        statements(admin, name).await
    } else {
        vec![]
    };
    let (tx, mut reports) = mpsc::unbounded_channel();
    let mut procs = vec![];
    for i in 0..nprocs {
        let mut cmd = Command::new("node");
        cmd.arg(script)
            .arg("run")
            .env("DATABASE_URL", url)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file(&dir.join(format!("worker-{i}.err.log")))?);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        let mut child = Proc::spawn(&mut cmd).context("starting a peer worker process")?;
        let stdout = child.child_mut().stdout.take().expect("piped");
        let stdin = child.child_mut().stdin.take();
        let mut log = log_file(&dir.join(format!("worker-{i}.log")))?;
        let tx = tx.clone();
        // A thread per process splits its output: reports to the channel, the rest to its log.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match line.strip_prefix("BENCH ") {
                    Some(json) => match serde_json::from_str::<serde_json::Value>(json) {
                        Ok(v) => {
                            let _ = tx.send(v);
                        }
                        Err(e) => eprintln!("bad report from a peer process: {e}: {json}"),
                    },
                    None => {
                        let _ = writeln!(log, "{line}");
                    }
                }
            }
        });
        procs.push(GwProc { child, stdin });
    }
    // pg-boss at its defaults runs about localConcurrency / 2 s jobs per second: cut it off.
    let time_box = (scenario == Scenario::Peer(Peer::PgBoss, Settings::Default, nprocs))
        .then_some(p.pgboss_default_box);

    let r = async {
        let drained = peer_drained(peer, &pool, p.timeout, time_box, &mut procs).await?;
        let node_cpu: f64 = procs.iter().map(|pr| cpu_secs(pr.child.pid())).sum();
        let pg_cpu = backend_cpu(admin, name).await - pg_cpu0;
        if p.stat_statements {
            print_statements(&stats0, &statements(admin, name).await, p.jobs);
        }
        let rep = gw_report(&mut procs, &mut reports).await?;
        // (jobs done, first start, last completion), times in ms since the epoch.
        let (done, first, last) = match peer {
            Peer::Graphile => {
                let last_us: i64 = sqlx::query_scalar("SELECT last_value FROM bench_done_us")
                    .fetch_one(&pool)
                    .await?;
                (
                    rep.count,
                    rep.first_start.context("no job started")?,
                    last_us as f64 / 1000.0,
                )
            }
            Peer::PgBoss => {
                let (n, first, last): (i64, Option<f64>, Option<f64>) = sqlx::query_as(
                    "SELECT COUNT(*),
                            (extract(epoch FROM min(started_on)) * 1000)::float8,
                            (extract(epoch FROM max(completed_on)) * 1000)::float8
                     FROM pgboss.job WHERE state = 'completed'",
                )
                .fetch_one(&pool)
                .await?;
                (
                    n as usize,
                    first.context("no job started")?,
                    last.context("no job completed")?,
                )
            }
        };
        if drained && done != p.jobs {
            bail!("{} ran {done} of {} jobs", peer.package(), p.jobs);
        }
        let busy_ms = last - first;
        let jobs_per_s = done as f64 / (busy_ms / 1000.0);
        eprintln!(
            "throughput: {done} jobs, first start → last completion {:.3} s = {:.0} jobs/s{}",
            busy_ms / 1000.0,
            jobs_per_s,
            if drained { "" } else { " (time-boxed)" }
        );
        let per_job = |s: f64| s * 1e6 / done.max(1) as f64;
        eprintln!(
            "CPU during the throughput phase: node processes {:.2} s ({:.0} µs/job), their PostgreSQL backends {:.2} s ({:.0} µs/job)",
            node_cpu,
            per_job(node_cpu),
            pg_cpu,
            per_job(pg_cpu)
        );
        if !drained {
            let note = format!(
                "time-boxed: {done} of {} jobs done in {} s (each worker polls every 2 s); \
                 latency not measured: jobs wait for the next poll by design (p50 ≈ 1 s) and a \
                 backlog builds at a pace of 100 jobs/s",
                p.jobs,
                p.pgboss_default_box.as_secs()
            );
            return Ok((jobs_per_s, None, Some(note)));
        }

        tokio::time::sleep(Duration::from_millis(500)).await;
        match peer {
            Peer::Graphile => {
                let mut tick = tokio::time::interval(p.pace);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                for _ in 0..p.latency_jobs {
                    tick.tick().await;
                    let t = chrono::Utc::now().timestamp_micros();
                    sqlx::query(
                        "SELECT graphile_worker.add_job('noop', json_build_object('t', $1::bigint))",
                    )
                    .bind(t)
                    .execute(&pool)
                    .await?;
                }
            }
            Peer::PgBoss => {
                // pg-boss's `send` runs its own SQL; the sender stamps each job just before it.
                let args = [
                    "send".into(),
                    p.latency_jobs.to_string(),
                    p.pace.as_millis().to_string(),
                ];
                node_step(script, &args, url, &env, dir, "send").await?;
            }
        }
        peer_drained(peer, &pool, p.timeout, None, &mut procs).await?;
        let rep = gw_report(&mut procs, &mut reports).await?;
        if rep.latencies.len() != p.latency_jobs {
            bail!(
                "{} reported {} of {} latency jobs",
                peer.package(),
                rep.latencies.len(),
                p.latency_jobs
            );
        }
        Ok((jobs_per_s, Some(spread("enqueue→start", rep.latencies)), None))
    }
    .await;

    // End of input stops each runner gracefully.
    for pr in procs.iter_mut() {
        pr.stdin.take();
    }
    for pr in procs.iter_mut() {
        if !pr.child.wait_for(Duration::from_secs(15)).await {
            pr.child.stop(Duration::from_secs(5)).await;
        }
    }
    pool.close().await;
    let (jobs_per_s, lat, note) = r?;
    Ok(Outcome {
        scenario,
        jobs_per_s: Some(jobs_per_s),
        p50_ms: lat.as_ref().map(|l| l.p50),
        p99_ms: lat.as_ref().map(|l| l.p99),
        note,
    })
}
