//! Workers on separate machines (issue 42): PostgreSQL of the test's own, two `api` and three
//! `worker` processes, each on a host of its own (a network namespace with its own address,
//! reaching the database over a bridge only: `testkit::netns`). Runs in the PostgreSQL pass, as
//! root.
//!
//! - The spread: every job runs once, and every worker runs a share of them.
//! - CSV imports sent through both apis into one workspace (serialised by its import lock),
//!   and the worker holding that lock cut off the network, then killed: every import succeeds
//!   once (each athlete once, each job's report its own), none failed after its rows committed.
//! - One firing per tick of the built-in scheduler, with three schedulers.
//! - A worker cut off the network mid-job, then killed: each of its jobs is finished by another
//!   within the lease + 5 s, its effect applied once and its status true; the server drops the
//!   lost worker's sessions by itself (keepalives, `tcp_user_timeout`).
//! - A cut that heals: the worker's jobs are finished elsewhere once, and it runs jobs again.
//! - PostgreSQL restarted (as a crash) under load: every worker runs jobs again within 2 s.
//!
//! The fault cases depend on timing, so each runs several times.

use jobs::diagnostics::Probe;
use jobs::progress::Progress;
use shared::db::{Db, Id, PoolSettings};
use shared::job::Owner;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use testkit::netns::Hosts;
use testkit::pg_server::{PgServer, StopMode};

const WORKERS: usize = 3;
/// Hosts `WORKERS` and `WORKERS + 1` run the apis.
const APIS: usize = 2;
const API_PORT: u16 = 8080;
const HEARTBEAT_MS: u64 = 500;
const LEASE_MISSES: u32 = 4;
const LEASE: Duration = Duration::from_millis(HEARTBEAT_MS * LEASE_MISSES as u64);

struct Cluster {
    hosts: Hosts,
    pg: PgServer,
    /// The workers' database URL (over the bridge).
    url: String,
    db: Db,
    dir: PathBuf,
    workers: Vec<Option<Child>>,
    apis: Vec<Child>,
    extra: Vec<(String, String)>,
}

fn bin(name: &str) -> PathBuf {
    let api = PathBuf::from(env!("CARGO_BIN_EXE_api"));
    let p = api.parent().unwrap().join(name);
    assert!(p.exists(), "{} is built", p.display());
    p
}

impl Cluster {
    async fn start(extra: &[(&str, &str)]) -> Option<Cluster> {
        if std::env::var("TEST_DATABASE_URL").map_or(true, |u| u.is_empty()) {
            println!("skipped: the multi-host test runs in the PostgreSQL pass");
            return None;
        }
        let hosts = Hosts::new(WORKERS + APIS)?;
        let pg = PgServer::start_on(&[&hosts.gateway()], &[&hosts.cidr()])?;
        let url = format!(
            "postgres://postgres@{}:{}/postgres",
            hosts.gateway(),
            pg.port
        );
        let db = Db::connect(&pg.url(), &PoolSettings::default())
            .await
            .unwrap();
        db.migrate().await.unwrap();
        let mut c = Cluster {
            hosts,
            pg,
            url,
            db,
            dir: std::env::temp_dir().join(format!("surfcoach-multihost-{}", Id::new())),
            workers: (0..WORKERS).map(|_| None).collect(),
            apis: vec![],
            extra: extra
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        std::fs::create_dir_all(&c.dir).unwrap();
        for i in 0..WORKERS {
            c.spawn(i);
        }
        for a in 0..APIS {
            let host = WORKERS + a;
            let api = c
                .process(host, &format!("api{a}"), &bin("api"))
                .env("BIND_ADDR", format!("0.0.0.0:{API_PORT}"))
                .env("EMBEDDED_WORKER", "false")
                .env("PUBLIC_BASE_URL", c.api_base(a))
                .spawn()
                .expect("api starts in its namespace");
            c.apis.push(api);
        }
        for a in 0..APIS {
            c.wait_healthy(a).await;
        }
        Some(c)
    }

    /// The database as the hosts reach it (`address:port`).
    fn db_addr(&self) -> String {
        format!("{}:{}", self.hosts.gateway(), self.pg.port)
    }

    fn api_base(&self, a: usize) -> String {
        format!("http://{}:{API_PORT}", self.hosts.addr(WORKERS + a))
    }

    async fn wait_healthy(&self, a: usize) {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let up = http
                .get(format!("{}/api/health", self.api_base(a)))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200);
            if up {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "api{a} did not start\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A process on host `i`, its output in `<name>.log`, with the settings every one shares.
    fn process(&self, i: usize, name: &str, program: &Path) -> std::process::Command {
        let log = std::fs::File::options()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{name}.log")))
            .unwrap();
        let mut cmd = self.hosts.command(i, program);
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATABASE_URL", &self.url)
            .env("DATA_DIR", self.dir.join(name))
            .env("SECRET_KEY", "multihost-test-secret-key-0123456789abcdef")
            .env("RUST_LOG", "info,sqlx=warn")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null());
        cmd
    }

    fn spawn(&mut self, i: usize) {
        let mut cmd = self.process(i, &format!("w{i}"), &bin("worker"));
        cmd.env("WORKER_POLL_MS", "1000")
            .env("WORKER_HEARTBEAT_MS", HEARTBEAT_MS.to_string())
            .env("WORKER_LEASE_MISSES", LEASE_MISSES.to_string())
            .env("WORKER_BACKOFF_BASE_MS", "1000")
            .env("SCHEDULER", "off");
        for (k, v) in &self.extra {
            cmd.env(k, v);
        }
        self.workers[i] = Some(cmd.spawn().expect("worker starts in its namespace"));
    }

    fn kill(&mut self, i: usize) {
        if let Some(mut w) = self.workers[i].take() {
            let _ = w.kill();
            let _ = w.wait();
        }
    }

    fn logs(&self) -> String {
        let names = (0..WORKERS).map(|i| format!("w{i}"));
        names
            .chain((0..APIS).map(|a| format!("api{a}")))
            .map(|n| {
                let t =
                    std::fs::read_to_string(self.dir.join(format!("{n}.log"))).unwrap_or_default();
                let tail: Vec<&str> = t.lines().rev().take(15).collect();
                format!(
                    "{n}:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    /// The worker host whose session holds a granted advisory lock (an import's), if any.
    async fn import_lock_holder(&self) -> Option<usize> {
        let mut c = self.db.acquire().await.unwrap();
        let addr: Option<String> = shared::sql!(&mut c, x => sqlx::query_scalar(
            "SELECT host(a.client_addr) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND l.granted AND a.client_addr IS NOT NULL LIMIT 1")
            .fetch_optional(&mut *x).await)
        .unwrap();
        let addr = addr?;
        (0..WORKERS).find(|i| self.hosts.addr(*i) == addr)
    }

    async fn enqueue(&self, probes: impl IntoIterator<Item = Probe>) -> Vec<Id> {
        let mut tx = self.db.begin().await.unwrap();
        let mut ids = vec![];
        for p in probes {
            ids.push(
                shared::job::enqueue(&mut tx, &p, Owner::default())
                    .await
                    .unwrap()
                    .id,
            );
        }
        tx.commit().await.unwrap();
        ids
    }

    async fn progress(&self, ids: &[Id]) -> Vec<Progress> {
        let mut c = loop {
            // The test's own pool also lives through the restarts.
            match self.db.acquire().await {
                Ok(c) => break c,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        let mut out = vec![];
        for id in ids {
            out.push(jobs::progress::get(&mut c, *id).await.unwrap().unwrap());
        }
        out
    }

    /// Waits until every job of `ids` is finished; fails with the logs after `secs`.
    async fn finished(&self, ids: &[Id], secs: u64) -> Vec<Progress> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let ps = self.progress(ids).await;
            if ps
                .iter()
                .all(|p| matches!(p.status.as_str(), "succeeded" | "failed" | "cancelled"))
            {
                return ps;
            }
            if Instant::now() > deadline {
                let left: Vec<_> = ps.iter().filter(|p| p.status != "succeeded").collect();
                panic!("unfinished after {secs} s: {left:?}\n{}", self.logs());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn effects(&self, prefix: &str) -> jobs::diagnostics::EffectCounts {
        let mut c = self.db.acquire().await.unwrap();
        jobs::diagnostics::effect_counts(&mut c, prefix)
            .await
            .unwrap()
    }

    /// The server's sessions from host `i`.
    async fn sessions_from(&self, i: usize) -> i64 {
        let mut c = self.db.acquire().await.unwrap();
        shared::sql!(&mut c, c => sqlx::query_scalar(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE host(client_addr) = $1")
            .bind(self.hosts.addr(i)).fetch_one(&mut *c).await)
        .unwrap()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for i in 0..WORKERS {
            self.kill(i);
        }
        for a in &mut self.apis {
            let _ = a.kill();
            let _ = a.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn pid(p: &Progress) -> u64 {
    p.result
        .as_ref()
        .and_then(|r| r.0["pid"].as_u64())
        .unwrap_or(0)
}

fn probes(prefix: &str, n: usize, sleep_ms: u64) -> Vec<Probe> {
    (0..n)
        .map(|i| Probe {
            sleep_ms,
            effect: Some(format!("{prefix}{i}")),
            ..Default::default()
        })
        .collect()
}

/// Every job once, with its effect once, succeeded, and each of `ids` with a status that says so.
async fn all_once(c: &Cluster, prefix: &str, ids: &[Id], secs: u64) -> Vec<Progress> {
    let ps = c.finished(ids, secs).await;
    let bad: Vec<_> = ps.iter().filter(|p| p.status != "succeeded").collect();
    assert!(bad.is_empty(), "not succeeded: {bad:?}\n{}", c.logs());
    let e = c.effects(prefix).await;
    assert_eq!(
        (e.rows, e.distinct),
        (ids.len() as i64, ids.len() as i64),
        "{prefix}: {e:?}"
    );
    ps
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_on_separate_hosts_survive_cuts_kills_and_a_database_restart() {
    let mut schedule: Vec<(String, String)> = shared::job::scheduled::CronTask::ALL
        .iter()
        .map(|t| (t.schedule_var(), "off".to_string()))
        .collect();
    schedule.push(("SCHEDULE_TOKENS_CLEANUP".into(), "* * * * * *".into()));
    schedule.push(("SCHEDULER".into(), "on".into()));
    let extra: Vec<(&str, &str)> = schedule
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    // Before the cluster starts: its schedulers may record a tick while it comes up.
    let began = Instant::now();
    let Some(mut c) = Cluster::start(&extra).await else {
        return;
    };

    // The spread: 300 jobs, each once, on every worker.
    let ids = c.enqueue(probes("spread-", 300, 20)).await;
    let ps = all_once(&c, "spread-", &ids, 60).await;
    let mut share: HashMap<u64, usize> = HashMap::new();
    for p in &ps {
        *share.entry(pid(p)).or_default() += 1;
    }
    assert_eq!(share.len(), WORKERS, "every worker ran jobs: {share:?}");
    assert!(share.values().all(|n| *n >= 15), "{share:?}");

    // CSV imports through both apis into one workspace; the worker holding its import lock is
    // cut off, then killed (twice).
    let http = reqwest::Client::new();
    let token = super::coach_phone_token(&http, &c.api_base(0), &c.api_base(1)).await;
    const FILES: usize = 6;
    const ROWS: usize = 400;
    for round in 0..2 {
        let mut jobs = vec![];
        for f in 0..FILES {
            let mut csv = String::from("first_name,last_name,email\n");
            for i in 0..ROWS {
                csv.push_str(&format!("S{i},R{round}F{f},s{round}-{f}-{i}@example.com\n"));
            }
            let r = http
                .post(format!(
                    "{}/api/athletes/import?background=true",
                    c.api_base(f % APIS)
                ))
                .bearer_auth(&token)
                .header("content-type", "text/csv")
                .body(csv)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 202, "round {round} file {f}");
            let v: serde_json::Value = r.json().await.unwrap();
            jobs.push(v["jobId"].as_str().unwrap().parse::<Id>().unwrap());
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        let victim = loop {
            if let Some(v) = c.import_lock_holder().await {
                break v;
            }
            assert!(
                Instant::now() < deadline,
                "round {round}: no import took its lock\n{}",
                c.logs()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        c.hosts.cut(victim);
        tokio::time::sleep(Duration::from_millis(1000)).await;
        c.kill(victim);
        let ps = c.finished(&jobs, 90).await;
        for p in &ps {
            assert_eq!(p.status, "succeeded", "round {round}: {p:?}\n{}", c.logs());
            let created = &p.result.as_ref().unwrap().0["created"];
            assert_eq!(
                created, ROWS,
                "round {round}: each file's own report: {p:?}"
            );
        }
        let mut conn = c.db.acquire().await.unwrap();
        let athletes: i64 = shared::sql!(&mut conn, x => sqlx::query_scalar(
            "SELECT COUNT(*) FROM athletes WHERE email LIKE $1")
            .bind(format!("s{round}-%")).fetch_one(&mut *x).await)
        .unwrap();
        assert_eq!(
            athletes,
            (FILES * ROWS) as i64,
            "round {round}: each athlete once"
        );
        drop(conn);
        c.hosts.heal(victim, &c.db_addr());
        c.spawn(victim);
    }

    // A worker cut off mid-job and then killed (three rounds, each on another worker).
    for round in 0..3 {
        let victim = round % WORKERS;
        let prefix = format!("cut-{round}-");
        // More than two workers' slots (8 each): the victim holds some of them.
        let ids = c.enqueue(probes(&prefix, 30, 3000)).await;
        tokio::time::sleep(Duration::from_millis(800)).await;
        let cut_at = Instant::now();
        c.hosts.cut(victim);
        tokio::time::sleep(Duration::from_millis(1000)).await;
        c.kill(victim);
        let ps = all_once(&c, &prefix, &ids, 60).await;
        assert!(
            ps.iter().any(|p| p.attempts > 1),
            "round {round}: the cut worker held none of the jobs\n{}",
            c.logs()
        );
        // Within the lease + 5 s, plus the 3 s the job itself takes when it runs again.
        assert!(
            cut_at.elapsed() < LEASE + Duration::from_secs(5 + 3),
            "round {round}: the cut worker's jobs took {:?} to finish elsewhere",
            cut_at.elapsed()
        );
        // The server lets go of the vanished host's sessions by itself.
        let deadline = Instant::now() + Duration::from_secs(25);
        while c.sessions_from(victim).await > 0 {
            assert!(
                Instant::now() < deadline,
                "round {round}: the server still holds {} sessions of the lost host",
                c.sessions_from(victim).await
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        c.hosts.heal(victim, &c.db_addr());
        c.spawn(victim);
    }

    // A cut that heals: longer than the lease, then the link comes back.
    for round in 0..2 {
        let victim = (round + 1) % WORKERS;
        let prefix = format!("heal-{round}-");
        let ids = c.enqueue(probes(&prefix, 12, 2000)).await;
        tokio::time::sleep(Duration::from_millis(600)).await;
        c.hosts.cut(victim);
        tokio::time::sleep(LEASE + Duration::from_secs(2)).await;
        c.hosts.heal(victim, &c.db_addr());
        all_once(&c, &prefix, &ids, 60).await;
    }
    // Every worker, the healed ones included, runs jobs again: a healed link takes TCP's
    // retransmission backoff to carry traffic again, so this waits up to 15 s for it. Each
    // batch fills every worker's eight slots, so a worker that is back gets some of it.
    let deadline = Instant::now() + Duration::from_secs(15);
    for batch in 0.. {
        let prefix = format!("after-heal-{batch}-");
        let ids = c.enqueue(probes(&prefix, 3 * 8, 300)).await;
        let ps = all_once(&c, &prefix, &ids, 60).await;
        let pids: HashSet<u64> = ps.iter().map(pid).collect();
        if pids.len() == WORKERS {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a healed worker is not back at work: {pids:?}\n{}",
            c.logs()
        );
    }

    // PostgreSQL restarted as a crash under load (twice): nothing lost, and every worker runs
    // jobs again within 2 s of the server being back.
    for round in 0..2 {
        let prefix = format!("restart-{round}-");
        let ids = c.enqueue(probes(&prefix, 200, 30)).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.pg.restart(StopMode::Immediate);
        // Two rounds of every worker's eight slots: a worker that is back gets some of them.
        let after = c
            .enqueue(probes(&format!("back-{round}-"), 2 * 3 * 8, 300))
            .await;
        let ps = c.finished(&after, 30).await;
        let mut first_by: HashMap<u64, shared::db::Ts> = HashMap::new();
        for p in &ps {
            if let Some(t) = p.started_at {
                let e = first_by.entry(pid(p)).or_insert(t);
                if t < *e {
                    *e = t;
                }
            }
        }
        assert_eq!(
            first_by.len(),
            WORKERS,
            "round {round}: {first_by:?}\n{}",
            c.logs()
        );
        let enqueued = ps.iter().map(|p| p.created_at).min().unwrap();
        for (w, t) in &first_by {
            let lag = (t.0 - enqueued.0).to_std().unwrap_or_default();
            assert!(
                lag < Duration::from_secs(2),
                "round {round}: worker {w} ran its first job {lag:?} after the server was back"
            );
        }
        all_once(&c, &prefix, &ids, 60).await;
    }

    // One firing per tick of the scheduler, across three schedulers, the whole time.
    let elapsed = began.elapsed().as_secs() as i64 + 1;
    let mut conn = c.db.acquire().await.unwrap();
    let (ticks, fired): (i64, i64) = shared::sql!(&mut conn, x => sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM cron_ticks WHERE schedule = 'tokens-cleanup'),
                (SELECT COUNT(*) FROM job_progress WHERE kind = 'cron.tokens-cleanup')")
        .fetch_one(&mut *x).await)
    .unwrap();
    assert!(ticks <= elapsed, "{ticks} ticks in {elapsed} s");
    assert!(
        fired <= ticks && fired >= elapsed / 3,
        "{fired} jobs for {ticks} ticks in {elapsed} s"
    );
}
