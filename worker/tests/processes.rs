//! The worker as real processes: a SIGKILLed worker's job runs again elsewhere, SIGTERM lets
//! running jobs finish, and three schedulers fire each tick once.

use jobs::diagnostics::Probe;
use shared::db::{Db, Id, PoolSettings};
use shared::job::Owner;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use testkit::db::TestDb;
use testkit::pg_server::{PgServer, StopMode};

struct Fixture {
    tdb: TestDb,
    /// The database the workers use: the test database, or a server of the test's own.
    url: String,
    db: Db,
}

impl Fixture {
    async fn new() -> Fixture {
        let tdb = TestDb::new().await;
        let url = tdb.url.clone();
        Fixture::on(tdb, url).await
    }

    /// On a PostgreSQL server of the test's own (one it may restart).
    async fn on_server(pg: &PgServer) -> Fixture {
        Fixture::on(TestDb::new().await, pg.url()).await
    }

    async fn on(tdb: TestDb, url: String) -> Fixture {
        let db = Db::connect(&url, &PoolSettings::default()).await.unwrap();
        db.migrate().await.unwrap();
        Fixture { tdb, url, db }
    }

    fn spawn(&self, name: &str, extra: &[(&str, &str)]) -> Child {
        let log = std::fs::File::create(self.tdb.dir.join(format!("{name}.log"))).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_worker"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATABASE_URL", &self.url)
            .env("DATA_DIR", &self.tdb.dir)
            .env("SECRET_KEY", "process-test-secret-key-0123456789abcdef")
            .env("WORKER_POLL_MS", "20")
            .env("WORKER_HEARTBEAT_MS", "500")
            .env("WORKER_LEASE_MISSES", "2")
            .env("SCHEDULER", "off")
            .env("RUST_LOG", "info,sqlx=warn")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null());
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.spawn().expect("worker binary starts")
    }

    async fn enqueue(&self, p: Probe) -> Id {
        let mut tx = self.db.begin().await.unwrap();
        let e = shared::job::enqueue(&mut tx, &p, Owner::default())
            .await
            .unwrap();
        tx.commit().await.unwrap();
        e.id
    }

    async fn wait(
        &self,
        id: Id,
        secs: u64,
        done: impl Fn(&jobs::progress::Progress) -> bool,
    ) -> jobs::progress::Progress {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let p = {
                let mut c = self.db.acquire().await.unwrap();
                jobs::progress::get(&mut c, id).await.unwrap().unwrap()
            };
            if done(&p) {
                return p;
            }
            if Instant::now() > deadline {
                let logs: Vec<String> = std::fs::read_dir(&self.tdb.dir)
                    .unwrap()
                    .filter_map(|e| e.ok())
                    .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
                    .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                    .collect();
                panic!("job {id} stuck: {p:?}\nlogs:\n{}", logs.join("\n---\n"));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

fn sigterm(child: &Child) {
    let ok = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -TERM");
}

/// Waits for the worker to exit; on a timeout, kills it and fails with its log.
fn wait_exit(child: &mut Child, secs: u64, log: &std::path::Path) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let log = std::fs::read_to_string(log).unwrap_or_default();
            panic!("worker did not exit within {secs} s; its log:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test]
async fn a_killed_workers_job_runs_again_on_another_worker() {
    let f = Fixture::new().await;
    let mut w1 = f.spawn("w1", &[]);
    let id = f
        .enqueue(Probe {
            sleep_ms: 5000,
            marker: Some("survivor".into()),
            ..Default::default()
        })
        .await;
    f.wait(id, 20, |p| p.status == "running").await;
    w1.kill().unwrap(); // SIGKILL: no chance to release anything
    w1.wait().unwrap();
    let mut w2 = f.spawn("w2", &[]);
    let p = f.wait(id, 30, |p| p.status == "succeeded").await;
    assert_eq!(
        p.attempts, 2,
        "one attempt died with w1, the second ran on w2"
    );
    assert_eq!(p.result.unwrap().0["marker"], "survivor");
    sigterm(&w2);
    wait_exit(&mut w2, 20, &f.tdb.dir.join("w2.log"));
}

#[tokio::test]
async fn sigterm_lets_the_running_job_finish_then_exits() {
    let f = Fixture::new().await;
    let mut w = f.spawn("w", &[]);
    let id = f
        .enqueue(Probe {
            sleep_ms: 1500,
            ..Default::default()
        })
        .await;
    f.wait(id, 20, |p| p.status == "running").await;
    sigterm(&w);
    let status = wait_exit(&mut w, 20, &f.tdb.dir.join("w.log"));
    assert!(status.success(), "{status:?}");
    let mut c = f.db.acquire().await.unwrap();
    let p = jobs::progress::get(&mut c, id).await.unwrap().unwrap();
    assert_eq!(p.status, "succeeded", "finished before exit: {p:?}");
    assert_eq!(p.attempts, 1);
}

/// A job enqueued while a worker drains for shutdown is not started there: it stays queued
/// (handed back if the worker had fetched it) and the next worker runs it.
#[tokio::test]
async fn jobs_arriving_during_shutdown_wait_for_the_next_worker() {
    let f = Fixture::new().await;
    let mut w = f.spawn("w", &[]);
    let running = f
        .enqueue(Probe {
            sleep_ms: 1500,
            ..Default::default()
        })
        .await;
    f.wait(running, 20, |p| p.status == "running").await;
    sigterm(&w);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let late = f.enqueue(Probe::default()).await;
    let status = wait_exit(&mut w, 20, &f.tdb.dir.join("w.log"));
    assert!(status.success(), "{status:?}");
    let mut c = f.db.acquire().await.unwrap();
    let p = jobs::progress::get(&mut c, running).await.unwrap().unwrap();
    assert_eq!(p.status, "succeeded");
    let p = jobs::progress::get(&mut c, late).await.unwrap().unwrap();
    assert_eq!((p.status.as_str(), p.attempts), ("queued", 0), "{p:?}");
    drop(c);

    let mut w2 = f.spawn("w2", &[]);
    let p = f.wait(late, 20, |p| p.status == "succeeded").await;
    assert_eq!(p.attempts, 1);
    sigterm(&w2);
    wait_exit(&mut w2, 20, &f.tdb.dir.join("w2.log"));
}

#[tokio::test]
async fn three_worker_processes_fire_each_tick_once() {
    let f = Fixture::new().await;
    let mut env: Vec<(String, String)> = shared::job::scheduled::CronTask::ALL
        .iter()
        .map(|t| (t.schedule_var(), "off".to_string()))
        .collect();
    env.push(("SCHEDULE_TOKENS_CLEANUP".into(), "* * * * * *".into()));
    env.push(("SCHEDULER".into(), "on".into()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut ws: Vec<Child> = (0..3).map(|i| f.spawn(&format!("s{i}"), &env)).collect();
    tokio::time::sleep(Duration::from_millis(5500)).await;
    for w in &ws {
        sigterm(w);
    }
    for (i, w) in ws.iter_mut().enumerate() {
        wait_exit(w, 20, &f.tdb.dir.join(format!("s{i}.log")));
    }
    let mut c = f.db.acquire().await.unwrap();
    let (ticks, jobs): (i64, i64) = shared::sql!(&mut c, c => sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM cron_ticks WHERE schedule = 'tokens-cleanup'), (SELECT COUNT(*) FROM job_progress WHERE kind = 'cron.tokens-cleanup')")
        .fetch_one(&mut *c).await).unwrap();
    // Three processes each firing every second for ~5 s (less start-up time) would make up to
    // 15 jobs; once per tick is at most one per elapsed second.
    assert!((2..=6).contains(&ticks), "{ticks} ticks");
    assert!(jobs >= 2 && jobs <= ticks, "{jobs} jobs for {ticks} ticks");
    let succeeded: i64 = shared::sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM job_progress WHERE kind = 'cron.tokens-cleanup' AND status = 'succeeded'").fetch_one(&mut *c).await).unwrap();
    assert!(succeeded >= 1);
}

#[tokio::test]
async fn schedules_command_prints_the_effective_schedule() {
    let out = Command::new(env!("CARGO_BIN_EXE_worker"))
        .arg("schedules")
        .env("SCHEDULE_JOBS_PRUNE", "off")
        .env("SCHEDULE_TOKENS_CLEANUP", "0 */5 * * * *")
        .env("DATA_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // A header, then every scheduled task.
    let tasks = shared::job::scheduled::CronTask::ALL.len();
    assert_eq!(text.lines().count(), 1 + tasks, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("jobs-prune") && l.contains(" off ")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("tokens-cleanup") && l.contains("0 */5 * * * *")),
        "{text}"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_worker"))
        .arg("schedules")
        .env("SCHEDULE_JOBS_PRUNE", "every tuesday")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SCHEDULE_JOBS_PRUNE"));
}

/// A standalone worker with `METRICS_ADDR` serves its own job metrics: what it started and
/// how each attempt ended, per kind and queue; no HTTP metrics, and no queue gauges (the api
/// refreshes those).
#[tokio::test]
async fn a_worker_with_metrics_addr_counts_its_jobs_by_outcome() {
    let f = Fixture::new().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut w = f.spawn(
        "w",
        &[("METRICS_ADDR", &addr), ("WORKER_BACKOFF_BASE_MS", "50")],
    );
    let url = format!("http://{addr}/metrics");
    let deadline = Instant::now() + Duration::from_secs(30);
    let before = loop {
        if let Ok(r) = reqwest::get(&url).await
            && r.status() == 200
        {
            break testkit::prometheus::Scrape::parse(&r.text().await.unwrap());
        }
        assert!(Instant::now() < deadline, "no metrics endpoint");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut ids = vec![];
    for _ in 0..2 {
        ids.push(f.enqueue(Probe::default()).await);
    }
    ids.push(
        f.enqueue(Probe {
            fail_permanently: true,
            ..Default::default()
        })
        .await,
    );
    ids.push(
        f.enqueue(Probe {
            fail_attempts: 2,
            ..Default::default()
        })
        .await,
    );
    for id in ids {
        f.wait(id, 30, |p| p.status == "succeeded" || p.status == "failed")
            .await;
    }
    let after = testkit::prometheus::Scrape::fetch(&url).await;
    let probe = [("kind", "diagnostics.probe"), ("queue", "default")];
    let d = |name: &str| after.delta(&before, name, &probe);
    assert_eq!(d("jobs_started_total"), 6.0, "{}", after.text);
    assert_eq!(d("jobs_succeeded_total"), 3.0);
    assert_eq!(d("jobs_failed_total"), 1.0);
    assert_eq!(d("jobs_retried_total"), 2.0);
    assert_eq!(d("jobs_run_duration_seconds_count"), 6.0);
    assert_eq!(
        d("jobs_enqueued_total"),
        0.0,
        "the test enqueued them, not the worker"
    );
    assert!(!after.has("http_requests_total"), "{}", after.text);
    assert!(!after.has("jobs_queue_depth"), "{}", after.text);
    sigterm(&w);
    wait_exit(&mut w, 20, &f.tdb.dir.join("w.log"));
}

/// `worker --help` prints its usage and exits without touching a database; an unknown
/// argument is refused the same way (exit 2), never taken for a start.
#[test]
fn help_and_unknown_arguments_print_usage_and_start_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = |arg: &str| {
        Command::new(env!("CARGO_BIN_EXE_worker"))
            .arg(arg)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let help = run("--help");
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("Usage: worker"));
    let bad = run("--bogus");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("Usage: worker"));
    let made: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(made.is_empty(), "nothing written (no ./data): {made:?}");
}

/// Issue 42: after PostgreSQL restarts, fast or as a crash, each worker listens again by itself
/// and hears a new job at once. Polling is set to 30 s, so only a notification can start the
/// second job of each round within the second allowed.
#[tokio::test]
async fn after_a_database_restart_workers_hear_new_jobs_within_a_second() {
    let Some(pg) = PgServer::start() else {
        return;
    };
    let f = Fixture::on_server(&pg).await;
    let mut w = f.spawn("w", &[("WORKER_POLL_MS", "30000")]);
    let done = |p: &jobs::progress::Progress| p.status == "succeeded";
    let first = f.enqueue(Probe::default()).await;
    f.wait(first, 20, done).await;
    for mode in [
        StopMode::Fast,
        StopMode::Immediate,
        StopMode::Fast,
        StopMode::Immediate,
    ] {
        pg.restart(mode);
        let back = Instant::now();
        // The first job after the restart may be found by a worker starting over.
        let a = f.enqueue(Probe::default()).await;
        f.wait(a, 5, done).await;
        assert!(
            back.elapsed() < Duration::from_secs(2),
            "{mode:?}: running jobs again {:?} after the server was back",
            back.elapsed()
        );
        // Only a LISTEN session can have the second one start this soon.
        tokio::time::sleep(Duration::from_millis(1000).saturating_sub(back.elapsed())).await;
        let heard = Instant::now();
        let b = f.enqueue(Probe::default()).await;
        f.wait(b, 5, done).await;
        assert!(
            heard.elapsed() < Duration::from_millis(1000),
            "{mode:?}: a new job waited {:?}",
            heard.elapsed()
        );
    }
    sigterm(&w);
    wait_exit(&mut w, 20, &f.tdb.dir.join("w.log"));
}

/// A fan-out to 300 recipients over every channel, its worker SIGKILLed mid-run: two other
/// workers finish it at once (a job's next attempt takes over its dead run's claims, not after
/// the 5-minute lease), and no device is reached twice: a delivery the dead run had begun
/// sending (its request may have reached the provider) is closed unsent, at most one provider
/// request's worth per job it ran (an Expo request of the job's batch, or a group of FCM and
/// Web Push requests); every other delivery is sent and its device reached.
#[tokio::test]
async fn a_fan_out_survives_a_killed_worker_sending_nothing_twice() {
    use testkit::fanout::{self, Fakes};
    const RECIPIENTS: usize = 300;
    const PER_JOB: usize = 50;
    let f = Fixture::new().await;
    let fakes = Fakes::start().await;
    // Slow providers, so that the kill lands while requests are in flight.
    fakes.slow(Duration::from_millis(100), 100_000);
    let env = fakes.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = fanout::seed(&f.db, &fakes, RECIPIENTS).await;
    let expected = r.mix.deliveries() as i64;

    let mut w1 = f.spawn("w1", &env);
    fanout::notify(&f.db, &r, PER_JOB).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let at_kill = loop {
        let p = fanout::progress(&f.db).await;
        if p.closed * 5 >= expected {
            break p;
        }
        assert!(Instant::now() < deadline, "w1 made no progress: {p:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    w1.kill().unwrap(); // SIGKILL, mid-run
    w1.wait().unwrap();
    assert!(at_kill.open > 0, "the kill came after the end: {at_kill:?}");
    let mut w2 = f.spawn("w2", &env);
    let mut w3 = f.spawn("w3", &env);
    // Well inside the 5-minute delivery lease: the jobs' next attempts take the claims over.
    let deadline = Instant::now() + Duration::from_secs(60);
    let done = loop {
        let p = fanout::progress(&f.db).await;
        if p.open == 0 {
            break p;
        }
        assert!(
            Instant::now() < deadline,
            "not finished after the kill: {p:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    let reached = fanout::reached(&fakes);
    assert_eq!(
        reached.duplicates(),
        0,
        "a device reached twice: {reached:?}"
    );
    assert_eq!(
        done.sent + done.interrupted,
        expected,
        "every delivery sent or closed as interrupted: {done:?}"
    );
    // Every sent delivery's device has it (an interrupted one's may, or may not).
    assert!(
        reached.devices() as i64 >= done.sent,
        "{reached:?} for {done:?}"
    );
    // The killed worker ran at most its notify concurrency (4) of the jobs; each had at most
    // one request's deliveries begun without a stored answer: an Expo request (the job's
    // tokens, at most PER_JOB / 2 here) or a group of PARALLEL FCM/Web Push requests.
    let per_job = (PER_JOB / 2).max(worker::handlers::PUSH_PARALLEL);
    let bound = 4 * per_job as i64;
    eprintln!(
        "killed at {} of {expected} closed; taken over: {}; interrupted: {} (bound {bound}); devices reached: {}",
        at_kill.closed,
        done.sent - done.sent_first_attempt,
        done.interrupted,
        reached.devices()
    );
    assert!(
        done.interrupted <= bound,
        "{} interrupted, more than {bound}: {done:?}",
        done.interrupted
    );
    assert!(
        done.sent_first_attempt < expected,
        "some deliveries were taken over from the killed worker"
    );
    sigterm(&w2);
    sigterm(&w3);
    wait_exit(&mut w2, 20, &f.tdb.dir.join("w2.log"));
    wait_exit(&mut w3, 20, &f.tdb.dir.join("w3.log"));
}
