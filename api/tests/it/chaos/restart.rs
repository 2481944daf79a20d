//! PostgreSQL restarted in the middle of a run: an `api` process and two `worker` processes on a
//! PostgreSQL server of the test's own (the shared test server serves every other test), which
//! is stopped (immediate mode: a crash) while jobs run, and started again.
//!
//! While it is down, the api answers every request with 503 `unavailable` (JSON, within the
//! acquire timeout), never 500 and never a hang; once it is up the api answers again without a
//! restart, the workers reconnect, and every job enqueued before the outage succeeds, with its
//! side effect applied once.

use shared::db::{Db, Id, PoolSettings};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use testkit::pg_server::{PgServer, StopMode};

const JOBS: usize = 300;
const SECRET_KEY: &str = "chaos-test-secret-key-0123456789abcdef";
const CRON_SECRET: &str = "chaos-cron-secret";
/// How long the api and the workers wait for a connection: the bound on each answer while
/// the database is away.
const ACQUIRE_TIMEOUT_MS: u64 = 1000;
const OUTAGE: Duration = Duration::from_secs(4);

/// The test's own server (the shared one serves every other test), with a database `chaos`
/// whose sessions commit durably, as a production database does: a crash must not forget a
/// transaction it acknowledged (measured without it: a job's success written, acknowledged,
/// then lost, leaving it queued forever). Its URL.
async fn chaos_server(pg: &PgServer) -> String {
    let mut c = <sqlx::PgConnection as sqlx::Connection>::connect(&pg.url())
        .await
        .unwrap();
    for q in [
        "CREATE DATABASE chaos",
        "ALTER DATABASE chaos SET synchronous_commit = on",
    ] {
        sqlx::query(q).execute(&mut c).await.unwrap();
    }
    let mut url = url::Url::parse(&pg.url()).unwrap();
    url.set_path("/chaos");
    url.to_string()
}

/// Immediate mode (a crash: every connection cut at once, crash recovery at the next start),
/// or `CHAOS_PG_STOP_MODE=fast` for a clean shutdown.
fn stop_mode() -> StopMode {
    match std::env::var("CHAOS_PG_STOP_MODE").as_deref() {
        Ok("fast") => StopMode::Fast,
        _ => StopMode::Immediate,
    }
}

/// A child process killed on drop (a failing test leaves nothing running).
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    /// SIGTERM, then the exit status (killed after 30 s).
    fn terminate(mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.0.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(s) = self.0.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "did not exit after SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn spawn(bin: &Path, name: &str, dir: &Path, env: &[(&str, String)]) -> Proc {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    let mut cmd = Command::new(bin);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATA_DIR", dir.join(name))
        .env("SECRET_KEY", SECRET_KEY)
        .env("RUST_LOG", "warn")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    Proc(cmd.spawn().expect("the binary starts"))
}

fn logs(dir: &Path) -> String {
    ["api", "worker-1", "worker-2"]
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(dir.join(format!("{n}.log"))).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(20).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            format!("{n}:\n{}", tail.join("\n"))
        })
        .collect::<Vec<_>>()
        .join("\n---\n")
}

/// One answer of the api: status, error code (if any) and how long it took.
struct Answer {
    status: u16,
    code: Option<String>,
    took: Duration,
}

async fn call(req: reqwest::RequestBuilder) -> Answer {
    let t = Instant::now();
    // Far above the acquire timeout: only a request that hangs reaches it.
    let r = tokio::time::timeout(Duration::from_secs(20), req.send())
        .await
        .expect("the api answered instead of hanging")
        .expect("the api is reachable");
    let status = r.status().as_u16();
    let body: serde_json::Value = r.json().await.unwrap_or_default();
    Answer {
        status,
        code: body["error"]["code"].as_str().map(str::to_string),
        took: t.elapsed(),
    }
}

async fn count(db: &Db, q: &'static str) -> i64 {
    let mut c = db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>(q).fetch_one(&mut *c).await).unwrap()
}

#[tokio::test]
async fn postgres_restarted_mid_run_answers_503_then_recovers_and_loses_no_job() {
    if std::env::var("TEST_DATABASE_URL").map_or(true, |u| u.is_empty()) {
        println!("skipped: restarts a PostgreSQL server (runs in the PostgreSQL pass)");
        return;
    }
    let pg =
        PgServer::start().expect("PostgreSQL is installed (scripts/ensure-postgres installs it)");
    let url = chaos_server(&pg).await;
    let dir = std::env::temp_dir().join(format!("surfcoach-chaos-{}", Id::new()));
    std::fs::create_dir_all(&dir).unwrap();
    let _cleanup = RemoveOnDrop(dir.clone());
    let port = testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let api_bin = PathBuf::from(env!("CARGO_BIN_EXE_api"));
    let worker_bin = api_bin.parent().unwrap().join("worker");
    assert!(worker_bin.exists(), "{} is built", worker_bin.display());

    let api = spawn(
        &api_bin,
        "api",
        &dir,
        &[
            ("DATABASE_URL", url.clone()),
            ("BIND_ADDR", format!("127.0.0.1:{port}")),
            ("EMBEDDED_WORKER", "false".into()),
            ("CRON_SECRET", CRON_SECRET.into()),
            // The guard's sign-in cache off: with it, a signed-in read may be answered from
            // memory until the cache's listener notices the outage (its documented bound),
            // and what this test measures is every database-backed answer during it.
            ("AUTH_CACHE_TTL_MS", "0".into()),
            (
                "DATABASE_ACQUIRE_TIMEOUT_MS",
                ACQUIRE_TIMEOUT_MS.to_string(),
            ),
        ],
    );
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !http
        .get(format!("{base}/api/health"))
        .send()
        .await
        .is_ok_and(|r| r.status() == 200)
    {
        assert!(
            Instant::now() < deadline,
            "api did not start\n{}",
            logs(&dir)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The outage outlasts the workers' acquire timeout too, so their fetches and heartbeats
    // fail (an apalis worker ends at its first such error: the runtime must start new ones).
    let worker_env = [
        ("DATABASE_URL", url.clone()),
        (
            "DATABASE_ACQUIRE_TIMEOUT_MS",
            ACQUIRE_TIMEOUT_MS.to_string(),
        ),
        ("WORKER_POLL_MS", "20".into()),
        ("WORKER_HEARTBEAT_MS", "500".into()),
        ("WORKER_LEASE_MISSES", "2".into()),
        ("SCHEDULER", "off".into()),
    ];
    let workers = [
        spawn(&worker_bin, "worker-1", &dir, &worker_env),
        spawn(&worker_bin, "worker-2", &dir, &worker_env),
    ];

    // A signed-in phone: its reads go through the token lookup in the database.
    let token = super::coach_phone_token(&http, &base, &base).await;
    let me = || {
        http.get(format!("{base}/api/mobile/auth/me"))
            .bearer_auth(&token)
    };
    let cron = || {
        http.post(format!("{base}/api/cron/tokens-cleanup"))
            .bearer_auth(CRON_SECRET)
    };
    assert_eq!(call(me()).await.status, 200);

    let db = Db::connect(&url, &PoolSettings::default()).await.unwrap();
    {
        let mut tx = db.begin().await.unwrap();
        for i in 0..JOBS {
            let probe = jobs::diagnostics::Probe {
                sleep_ms: 100,
                effect: Some(format!("restart-{i}")),
                ..Default::default()
            };
            let mut spec = shared::job::Job::spec(&probe);
            spec.max_attempts = 10;
            shared::job::enqueue_spec(
                &mut tx,
                &spec,
                shared::job::Owner::default(),
                shared::db::Ts::now(),
            )
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
    }
    let done_q = "SELECT COUNT(*) FROM job_progress WHERE status = 'succeeded' AND kind = 'diagnostics.probe'";
    let deadline = Instant::now() + Duration::from_secs(30);
    let before = loop {
        let n = count(&db, done_q).await;
        if n >= (JOBS / 5) as i64 {
            break n;
        }
        assert!(Instant::now() < deadline, "jobs do not run\n{}", logs(&dir));
        tokio::time::sleep(Duration::from_millis(20)).await;
    };

    // Down: every answer is a JSON 503 `unavailable`, each within the acquire timeout's reach.
    pg.stop(stop_mode());
    let down_at = Instant::now();
    let mut during: Vec<Answer> = vec![];
    while down_at.elapsed() < OUTAGE {
        during.push(call(me()).await);
        during.push(call(cron()).await);
    }
    pg.start_again();
    let outage = down_at.elapsed();
    for a in &during {
        assert_eq!(
            (a.status, a.code.as_deref()),
            (503, Some("unavailable")),
            "while the database is down\n{}",
            logs(&dir)
        );
    }
    let slowest = during.iter().map(|a| a.took).max().unwrap();

    // Up again: the same api process answers once its pool has reconnected.
    let up_at = Instant::now();
    let mut recovering = 0;
    loop {
        let a = call(me()).await;
        if a.status == 200 {
            break;
        }
        assert_eq!(
            (a.status, a.code.as_deref()),
            (503, Some("unavailable")),
            "while reconnecting"
        );
        recovering += 1;
        assert!(
            up_at.elapsed() < Duration::from_secs(30),
            "the api did not recover\n{}",
            logs(&dir)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let recovery = up_at.elapsed();
    let r = cron().send().await.unwrap();
    assert_eq!(r.status(), 202, "a write after recovery");
    let cron_job: Id = r.json::<serde_json::Value>().await.unwrap()["jobId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();

    // The workers reconnect: every job enqueued before the outage, and the new one, succeed.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let n = count(&db, done_q).await;
        let cron_done = {
            let mut c = db.acquire().await.unwrap();
            jobs::progress::get(&mut c, cron_job)
                .await
                .unwrap()
                .unwrap()
        };
        if n == JOBS as i64 && cron_done.status == "succeeded" {
            break;
        }
        if Instant::now() > deadline {
            panic!(
                "after the restart only {n} of {JOBS} probes succeeded (the cron job: \
                 {cron_done:?})\n{}\n{}",
                unfinished(&db).await,
                logs(&dir)
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let all_done = up_at.elapsed();
    let effects = {
        let mut c = db.acquire().await.unwrap();
        jobs::diagnostics::effect_counts(&mut c, "restart-")
            .await
            .unwrap()
    };
    let attempts = count(
        &db,
        "SELECT SUM(attempts)::BIGINT FROM job_progress WHERE kind = 'diagnostics.probe'",
    )
    .await;
    println!(
        "chaos: PostgreSQL down {outage:?} with {before} of {JOBS} jobs done; {} answers while \
         down, all 503 unavailable, slowest {slowest:?}; api answered 200 again {recovery:?} \
         after the server was up ({recovering} more 503s meanwhile); all jobs done {all_done:?} \
         after it; {} attempts re-run; ledger {} rows, {} distinct",
        during.len(),
        attempts - JOBS as i64,
        effects.rows,
        effects.distinct
    );
    assert!(during.len() >= 2, "requests were made during the outage");
    assert_eq!(
        effects.distinct,
        JOBS as i64,
        "no job lost\n{}",
        unfinished(&db).await
    );
    assert_eq!(effects.rows, JOBS as i64, "no effect applied twice");

    for (name, p) in [("worker", workers.into_iter().collect::<Vec<_>>())] {
        for w in p {
            let s = w.terminate();
            assert!(s.success(), "{name} exits cleanly after the outage: {s:?}");
        }
    }
    let s = api.terminate();
    assert!(s.success(), "the api exits cleanly: {s:?}");
    db.close().await;
}

/// The probes without a ledger row or not succeeded, with their queue tasks: what a failure
/// report needs.
async fn unfinished(db: &Db) -> String {
    let mut c = db.acquire().await.unwrap();
    /// Job id, status, attempts, last error, result, its queue tasks.
    type Row = (String, String, i64, Option<String>, Option<String>, String);
    let rows: Vec<Row> = shared::sql!(&mut c, c => sqlx::query_as(
        "SELECT p.id::text, p.status, p.attempts, p.last_error, p.result::text,
                COALESCE((SELECT string_agg('task ' || j.id || ' locked_by ' || COALESCE(j.locked_by, '-')
                          || ' run_at ' || j.run_at::text, '; ')
                          FROM job_queue j WHERE j.job_id = p.id), 'no task')
         FROM job_progress p
         WHERE p.kind = 'diagnostics.probe'
           AND (p.status <> 'succeeded' OR NOT EXISTS (SELECT 1 FROM probe_effects e WHERE e.job_id = p.id))")
        .fetch_all(&mut *c).await)
    .unwrap();
    rows.iter()
        .map(|r| format!("{r:?}"))
        .collect::<Vec<_>>()
        .join("\n")
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
