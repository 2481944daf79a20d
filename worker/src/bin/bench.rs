//! `bench`: the job-system benchmark. Run it with `scripts/bench`, which builds the release
//! binaries, starts the PostgreSQL test server and installs the graphile-worker peer first.
//!
//! For each scenario (our job system on SQLite and on PostgreSQL, and graphile-worker on the
//! same PostgreSQL server, each with 1 and with 2 worker processes) on a fresh database:
//!
//! - **throughput**: the bench enqueues `BENCH_JOBS` no-op jobs (`diagnostics.probe` with
//!   `sleep_ms = 0`; graphile-worker: an empty task) in transactions of `BENCH_BATCH`, then starts
//!   the worker processes and waits until every job is done. jobs/s = N / (last job finished −
//!   first job started), both read from the rows (`job_progress.started_at`/`finished_at`) or,
//!   for graphile-worker, recorded by its processes (task start, `job:complete`).
//! - **latency**: with the workers running and idle, the bench enqueues `BENCH_LATENCY_JOBS`
//!   jobs one at a time, one transaction each, every `BENCH_PACE_MS`. Enqueue-to-start is
//!   `job_progress.started_at − created_at` (both written by Rust on this machine), and for
//!   graphile-worker the task's start time minus the enqueue time passed in its payload.
//!
//! Our worker processes are the real `worker` binary (next to this one) with `SCHEDULER=off`
//! and `WORKER_CONCURRENCY=only:default=<BENCH_CONCURRENCY>`, their own default logging (one
//! line per job, to a log file) and default pool. The Markdown table goes to stdout; progress
//! and detail (CPU time per job of the worker processes and of their PostgreSQL backends,
//! latency spread) go to stderr.
//!
//! Environment: `BENCH_PG_URL` (admin URL of a PostgreSQL server; required unless
//! `BENCH_ONLY` names SQLite scenarios only), `BENCH_JOBS` (10000), `BENCH_LATENCY_JOBS` (300),
//! `BENCH_PACE_MS` (10), `BENCH_CONCURRENCY` (32), `BENCH_BATCH` (500), `BENCH_TIMEOUT_SECS`
//! (120, per phase), `BENCH_ONLY` (comma-separated scenario ids or prefixes: `sqlite-1`,
//! `sqlite-2`, `postgres-1`, `postgres-2`, `graphile-1`, `graphile-2`), `BENCH_ROOT` (the
//! repository, for `bench/graphile.mjs` and the work directory `.tmp/bench`),
//! `BENCH_WORKER_RUST_LOG` (`RUST_LOG` for our worker processes; unset: their default),
//! `BENCH_KEEP=1` (keep each scenario's database and logs). When the PostgreSQL server preloads
//! `pg_stat_statements`, the statements that took the most time per scenario are printed too.

use anyhow::{Context, Result, anyhow, bail};
use jobs::{Job, Owner, kinds::Probe};
use shared::db::{Db, Id, PoolSettings, Ts};
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
    worker_rust_log: Option<String>,
    /// BENCH_KEEP=1: keep each scenario's database and work directory (for a closer look).
    keep: bool,
    /// Whether the server has pg_stat_statements loaded (then the top statements are printed).
    stat_statements: bool,
}

fn env_num(name: &str, default: u64) -> Result<u64> {
    match std::env::var(name).ok().filter(|v| !v.is_empty()) {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| anyhow!("{name} must be a whole number, got {v:?}")),
    }
}

impl Params {
    fn from_env() -> Result<Params> {
        let root = match std::env::var("BENCH_ROOT") {
            Ok(r) if !r.is_empty() => PathBuf::from(r),
            _ => Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("worker crate lives in the repository")
                .to_path_buf(),
        };
        let exe = std::env::current_exe().context("locating the bench binary")?;
        let worker_bin = exe.with_file_name("worker");
        let p = Params {
            jobs: env_num("BENCH_JOBS", 10_000)? as usize,
            latency_jobs: env_num("BENCH_LATENCY_JOBS", 300)? as usize,
            pace: Duration::from_millis(env_num("BENCH_PACE_MS", 10)?),
            concurrency: env_num("BENCH_CONCURRENCY", 32)? as usize,
            batch: env_num("BENCH_BATCH", 500)?.max(1) as usize,
            timeout: Duration::from_secs(env_num("BENCH_TIMEOUT_SECS", 120)?),
            only: std::env::var("BENCH_ONLY")
                .ok()
                .filter(|v| !v.trim().is_empty())
                .map(|v| v.split(',').map(|s| s.trim().to_string()).collect()),
            pg_admin: std::env::var("BENCH_PG_URL").ok().filter(|v| !v.is_empty()),
            work: root.join(".tmp").join("bench"),
            root,
            worker_bin,
            worker_rust_log: std::env::var("BENCH_WORKER_RUST_LOG").ok(),
            stat_statements: false,
            keep: env_num("BENCH_KEEP", 0)? != 0,
        };
        if p.jobs == 0 || p.latency_jobs == 0 || p.concurrency == 0 {
            bail!("BENCH_JOBS, BENCH_LATENCY_JOBS and BENCH_CONCURRENCY must be at least 1");
        }
        Ok(p)
    }

    fn selected(&self, id: &str) -> bool {
        match &self.only {
            None => true,
            Some(list) => list.iter().any(|s| id.starts_with(s.as_str())),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Sqlite(usize),
    Postgres(usize),
    Graphile(usize),
}

impl Scenario {
    fn all() -> [Scenario; 6] {
        [
            Scenario::Sqlite(1),
            Scenario::Sqlite(2),
            Scenario::Postgres(1),
            Scenario::Postgres(2),
            Scenario::Graphile(1),
            Scenario::Graphile(2),
        ]
    }
    fn id(self) -> String {
        match self {
            Scenario::Sqlite(n) => format!("sqlite-{n}"),
            Scenario::Postgres(n) => format!("postgres-{n}"),
            Scenario::Graphile(n) => format!("graphile-{n}"),
        }
    }
    fn procs(self) -> usize {
        match self {
            Scenario::Sqlite(n) | Scenario::Postgres(n) | Scenario::Graphile(n) => n,
        }
    }
    fn system(self) -> &'static str {
        match self {
            Scenario::Graphile(_) => "graphile-worker",
            _ => "ours (apalis)",
        }
    }
    fn database(self) -> &'static str {
        match self {
            Scenario::Sqlite(_) => "SQLite",
            _ => "PostgreSQL",
        }
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
        .collect();
    if scenarios.is_empty() {
        bail!(
            "BENCH_ONLY selects no scenario (ids: sqlite-1, sqlite-2, postgres-1, postgres-2, graphile-1, graphile-2)"
        );
    }
    let needs_pg = scenarios.iter().any(|s| !matches!(s, Scenario::Sqlite(_)));
    if needs_pg && p.pg_admin.is_none() {
        bail!(
            "BENCH_PG_URL (a PostgreSQL admin URL) is required for the PostgreSQL and graphile-worker scenarios"
        );
    }
    let ours = scenarios
        .iter()
        .any(|s| !matches!(s, Scenario::Graphile(_)));
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
            Scenario::Sqlite(n) => ours_sqlite(&p, n).await,
            Scenario::Postgres(n) => ours_postgres(&p, n).await,
            Scenario::Graphile(n) => graphile(&p, n).await,
        };
        results.push(r.unwrap_or_else(|e| {
            eprintln!("{}: {e:#}", s.id());
            Outcome::failed(s, &e)
        }));
    }
    print!("{}", table(&p, &results));
    print!("{}", verdict(&results));
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
    let gw = std::fs::read_to_string(
        p.root
            .join("bench/node_modules/graphile-worker/package.json"),
    )
    .ok()
    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    .and_then(|v| v["version"].as_str().map(str::to_string))
    .unwrap_or_else(|| "not installed".into());
    let _ = writeln!(s, "- Node {node}, graphile-worker {gw}");
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
         (fetch batch {}), default pool (10) and logging; \
         graphile-worker: concurrency {} and maxPoolSize {} per process, otherwise defaults",
        p.concurrency,
        std::env::var("WORKER_FETCH_BATCH").unwrap_or_else(|_| {
            worker::config::default_fetch_batch(jobs::Queue::Default, p.concurrency).to_string()
        }),
        p.concurrency,
        p.concurrency
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

fn table(p: &Params, results: &[Outcome]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| system | database | worker processes | concurrency / process | throughput (jobs/s) | enqueue→start p50 (ms) | enqueue→start p99 (ms) | note |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---|");
    for r in results {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.scenario.system(),
            r.scenario.database(),
            r.scenario.procs(),
            p.concurrency,
            fmt_opt(r.jobs_per_s, 0),
            fmt_opt(r.p50_ms, 2),
            fmt_opt(r.p99_ms, 2),
            r.note.as_deref().unwrap_or("").replace('|', "/")
        );
    }
    s.push('\n');
    s
}

fn verdict(results: &[Outcome]) -> String {
    let find = |s: Scenario| results.iter().find(|r| r.scenario == s);
    let mut s = String::from(
        "Goal (on PostgreSQL): our throughput ≥ 1.5× graphile-worker's, and p99 enqueue→start < 10 ms.\n\n",
    );
    for n in [1, 2] {
        let (Some(ours), Some(gw)) = (find(Scenario::Postgres(n)), find(Scenario::Graphile(n)))
        else {
            continue;
        };
        let through = match (ours.jobs_per_s, gw.jobs_per_s) {
            (Some(a), Some(b)) if b > 0.0 => {
                let ratio = a / b;
                format!(
                    "throughput {a:.0} vs {b:.0} jobs/s = {ratio:.2}× → {}",
                    if ratio >= 1.5 { "met" } else { "NOT met" }
                )
            }
            _ => "throughput: not measured".into(),
        };
        let p99 = match ours.p99_ms {
            Some(v) => format!(
                "p99 {v:.2} ms → {}",
                if v < 10.0 { "met" } else { "NOT met" }
            ),
            None => "p99: not measured".into(),
        };
        let _ = writeln!(
            s,
            "- {n} worker process{}: {through}; {p99}",
            if n == 1 { "" } else { "es" }
        );
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Statistics

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

struct Spread {
    p50: f64,
    p99: f64,
}

fn spread(label: &str, mut v: Vec<f64>) -> Spread {
    v.sort_by(|a, b| a.total_cmp(b));
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    eprintln!(
        "{label}: n={} min {:.2} p50 {:.2} p90 {:.2} p99 {:.2} max {:.2} mean {:.2} ms",
        v.len(),
        v.first().copied().unwrap_or(f64::NAN),
        percentile(&v, 0.5),
        percentile(&v, 0.9),
        percentile(&v, 0.99),
        v.last().copied().unwrap_or(f64::NAN),
        mean
    );
    Spread {
        p50: percentile(&v, 0.5),
        p99: percentile(&v, 0.99),
    }
}

fn ms_between(a: Ts, b: Ts) -> f64 {
    (b.0 - a.0).num_microseconds().unwrap_or(i64::MAX) as f64 / 1000.0
}

/// CPU seconds (user + system) a process has used so far; 0 when it is gone.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command name (which is in parentheses and may contain spaces).
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
    let ticks = |i: usize| {
        f.get(i - 3)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(14) + ticks(15)) / clock_ticks()
}

fn clock_ticks() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100.0)
    })
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL databases

fn db_url(admin: &str, name: &str) -> String {
    let (base, query) = match admin.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (admin, None),
    };
    // postgres://user@host:port[/db]: replace or add the path.
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    let base = match base[scheme_end..].find('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

async fn create_database(admin: &str, name: &str) -> Result<String> {
    let mut c = PgConnection::connect(admin)
        .await
        .context("connecting to BENCH_PG_URL")?;
    for sql in [
        format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"),
        format!("CREATE DATABASE \"{name}\""),
    ] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut c)
            .await
            .with_context(|| format!("creating database {name}"))?;
    }
    Ok(db_url(admin, name))
}

async fn drop_database(admin: &str, name: &str) {
    let r = async {
        let mut c = PgConnection::connect(admin).await?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
        )))
        .execute(&mut c)
        .await
    }
    .await;
    if let Err(e) = r {
        eprintln!("warning: could not drop database {name}: {e}");
    }
}

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
    pids.into_iter().map(|p| cpu_seconds(p as u32)).sum()
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
// Child processes

/// A process the bench started; killed if still running when dropped (an error path).
struct Proc(std::process::Child);

impl Proc {
    fn spawn(cmd: &mut Command) -> std::io::Result<Proc> {
        cmd.spawn().map(Proc)
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
    /// `Some(status)` once it has exited.
    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.0.try_wait().ok().flatten()
    }
    /// Waits up to `limit` for it to exit by itself.
    async fn wait_for(&mut self, limit: Duration) -> bool {
        let t = Instant::now();
        while t.elapsed() < limit {
            if self.exited().is_some() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }
    /// SIGTERM (a graceful stop), then SIGKILL after `grace`.
    async fn stop(&mut self, grace: Duration) {
        if self.exited().is_some() {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        if !self.wait_for(grace).await {
            eprintln!(
                "process {} did not stop within {grace:?}; killing it",
                self.pid()
            );
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.exited().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn log_file(path: &Path) -> Result<std::fs::File> {
    std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// Our job system

async fn ours_sqlite(p: &Params, procs: usize) -> Result<Outcome> {
    let name = format!("{DB_PREFIX}sqlite_{procs}_{}", std::process::id());
    let dir = p.work.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let url = format!("sqlite://{}/bench.db", dir.display());
    let r = ours(p, Scenario::Sqlite(procs), &url, &dir, None).await;
    if p.keep {
        eprintln!("(kept: {})", dir.display());
    } else {
        keep_logs_if_needed(&r, &dir);
    }
    r
}

async fn ours_postgres(p: &Params, procs: usize) -> Result<Outcome> {
    let admin = p.pg_admin.as_deref().expect("checked in main");
    let name = format!("{DB_PREFIX}ours_{procs}_{}", std::process::id());
    let dir = p.work.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let url = create_database(admin, &name).await?;
    let r = ours(
        p,
        Scenario::Postgres(procs),
        &url,
        &dir,
        Some((admin, &name)),
    )
    .await;
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

/// Waits until no job is queued or running; the elapsed time, or an error on timeout.
async fn ours_drained(db: &Db, timeout: Duration, children: &mut [Proc]) -> Result<Duration> {
    let t = Instant::now();
    loop {
        let mut c = db.acquire().await?;
        let left: i64 = shared::sql!(&mut c, c => sqlx::query_scalar(
            "SELECT COUNT(*) FROM job_progress WHERE status IN ('queued', 'running')")
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
    jobs::queue::setup(&db).await?;
    let spec = Probe::default().spec();

    // Throughput: pre-enqueue, then start the workers.
    let t = Instant::now();
    let mut left = p.jobs;
    while left > 0 {
        let k = left.min(p.batch);
        let mut tx = db.begin().await?;
        for _ in 0..k {
            jobs::enqueue(&mut tx, &spec, Owner::default()).await?;
        }
        tx.commit().await?;
        left -= k;
    }
    let enq = t.elapsed();
    eprintln!(
        "enqueued {} jobs in {:.2} s ({:.0} jobs/s)",
        p.jobs,
        enq.as_secs_f64(),
        p.jobs as f64 / enq.as_secs_f64()
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
        let mut cmd = Command::new(&p.worker_bin);
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
    let r = ours_phases(p, &db, &mut children, spawned, (pg_cpu0, &stats0), pg).await;
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
        p50_ms: Some(lat.p50),
        p99_ms: Some(lat.p99),
        note,
    })
}

async fn ours_phases(
    p: &Params,
    db: &Db,
    children: &mut [Proc],
    spawned: Instant,
    (pg_cpu0, stats0): (f64, &[StatRow]),
    pg: Option<(&str, &str)>,
) -> Result<(f64, Spread)> {
    ours_drained(db, p.timeout, children).await?;
    let seen = spawned.elapsed();
    let worker_cpu: f64 = children.iter().map(|c| cpu_seconds(c.pid())).sum();
    let pg_cpu = match pg {
        Some((admin, name)) => {
            if p.stat_statements {
                print_statements(stats0, &statements(admin, name).await, p.jobs);
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
    let jobs_per_s = p.jobs as f64 / (busy_ms / 1000.0);
    eprintln!(
        "throughput: first start → last finish {:.3} s = {:.0} jobs/s (spawn → drained seen {:.2} s)",
        busy_ms / 1000.0,
        jobs_per_s,
        seen.as_secs_f64()
    );
    let per_job = |s: f64| s * 1e6 / p.jobs as f64;
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

    // Latency: the workers are running and idle now.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let spec = Probe::default().spec();
    let mut ids = HashSet::new();
    let mut tick = tokio::time::interval(p.pace);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for _ in 0..p.latency_jobs {
        tick.tick().await;
        let mut tx = db.begin().await?;
        let e = jobs::enqueue(&mut tx, &spec, Owner::default()).await?;
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
    Ok((jobs_per_s, spread("enqueue→start", lat)))
}

// ---------------------------------------------------------------------------------------------
// graphile-worker

async fn graphile(p: &Params, procs: usize) -> Result<Outcome> {
    let admin = p.pg_admin.as_deref().expect("checked in main");
    let script = p.root.join("bench/graphile.mjs");
    if !p.root.join("bench/node_modules/graphile-worker").exists() {
        bail!("graphile-worker is not installed: run `npm ci --prefix bench`");
    }
    let name = format!("{DB_PREFIX}graphile_{procs}_{}", std::process::id());
    let dir = p.work.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let url = create_database(admin, &name).await?;
    let r = graphile_inner(p, procs, &script, &url, &dir, admin, &name).await;
    if p.keep {
        eprintln!("(kept: database {name}, directory {})", dir.display());
    } else {
        drop_database(admin, &name).await;
        keep_logs_if_needed(&r, &dir);
    }
    r
}

/// A graphile-worker process: its stdin (commands) and the reports it printed.
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
    last_complete: Option<f64>,
    #[serde(default)]
    latencies: Vec<f64>,
}

async fn gw_left(pool: &PgPool) -> Result<i64> {
    Ok(
        sqlx::query_scalar("SELECT COUNT(*) FROM graphile_worker._private_jobs")
            .fetch_one(pool)
            .await?,
    )
}

async fn gw_drained(pool: &PgPool, timeout: Duration, procs: &mut [GwProc]) -> Result<()> {
    let t = Instant::now();
    loop {
        let left = gw_left(pool).await?;
        if left == 0 {
            return Ok(());
        }
        for pr in procs.iter_mut() {
            if let Some(st) = pr.child.exited() {
                bail!("a graphile-worker process exited ({st}) with {left} jobs left");
            }
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
    // Let the last `job:complete` events land before asking.
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
            .context("waiting for graphile-worker reports")?
            .context("a graphile-worker process closed its output")?;
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
        total.last_complete = match (total.last_complete, r.last_complete) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        total.latencies.extend(r.latencies);
    }
    Ok(total)
}

async fn graphile_inner(
    p: &Params,
    nprocs: usize,
    script: &Path,
    url: &str,
    dir: &Path,
    admin: &str,
    name: &str,
) -> Result<Outcome> {
    let mut migrate = Command::new("node");
    migrate
        .arg(script)
        .arg("migrate")
        .env("DATABASE_URL", url)
        .stdout(log_file(&dir.join("migrate.log"))?)
        .stderr(log_file(&dir.join("migrate.err.log"))?);
    let st = tokio::task::spawn_blocking(move || migrate.status())
        .await?
        .context("running node (is Node.js installed?)")?;
    if !st.success() {
        bail!(
            "graphile-worker migration failed ({st}); see {}",
            dir.display()
        );
    }
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(4)
        .connect(url)
        .await?;

    let t = Instant::now();
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
        let mut child = Proc::spawn(
            Command::new("node")
                .arg(script)
                .arg("run")
                .env("DATABASE_URL", url)
                .env("CONCURRENCY", p.concurrency.to_string())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(log_file(&dir.join(format!("worker-{i}.err.log")))?),
        )
        .context("starting a graphile-worker process")?;
        let stdout = child.0.stdout.take().expect("piped");
        let stdin = child.0.stdin.take();
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
                        Err(e) => eprintln!("bad report from graphile-worker: {e}: {json}"),
                    },
                    None => {
                        let _ = writeln!(log, "{line}");
                    }
                }
            }
        });
        procs.push(GwProc { child, stdin });
    }

    let r = async {
        gw_drained(&pool, p.timeout, &mut procs).await?;
        let node_cpu: f64 = procs.iter().map(|pr| cpu_seconds(pr.child.pid())).sum();
        let pg_cpu = backend_cpu(admin, name).await - pg_cpu0;
        if p.stat_statements {
            print_statements(&stats0, &statements(admin, name).await, p.jobs);
        }
        let rep = gw_report(&mut procs, &mut reports).await?;
        if rep.count != p.jobs {
            bail!("graphile-worker ran {} of {} jobs", rep.count, p.jobs);
        }
        let busy_ms = rep.last_complete.context("no job completed")?
            - rep.first_start.context("no job started")?;
        let jobs_per_s = p.jobs as f64 / (busy_ms / 1000.0);
        eprintln!(
            "throughput: first start → last completion {:.3} s = {:.0} jobs/s",
            busy_ms / 1000.0,
            jobs_per_s
        );
        let per_job = |s: f64| s * 1e6 / p.jobs as f64;
        eprintln!(
            "CPU during the throughput phase: node processes {:.2} s ({:.0} µs/job), their PostgreSQL backends {:.2} s ({:.0} µs/job)",
            node_cpu,
            per_job(node_cpu),
            pg_cpu,
            per_job(pg_cpu)
        );

        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut tick = tokio::time::interval(p.pace);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        for _ in 0..p.latency_jobs {
            tick.tick().await;
            let t = chrono::Utc::now().timestamp_micros();
            sqlx::query("SELECT graphile_worker.add_job('noop', json_build_object('t', $1::bigint))")
                .bind(t)
                .execute(&pool)
                .await?;
        }
        gw_drained(&pool, p.timeout, &mut procs).await?;
        let rep = gw_report(&mut procs, &mut reports).await?;
        if rep.latencies.len() != p.latency_jobs {
            bail!(
                "graphile-worker reported {} of {} latency jobs",
                rep.latencies.len(),
                p.latency_jobs
            );
        }
        Ok((jobs_per_s, spread("enqueue→start", rep.latencies)))
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
    let (jobs_per_s, lat) = r?;
    Ok(Outcome {
        scenario: Scenario::Graphile(nprocs),
        jobs_per_s: Some(jobs_per_s),
        p50_ms: Some(lat.p50),
        p99_ms: Some(lat.p99),
        note: None,
    })
}
