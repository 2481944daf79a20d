//! The metrics endpoint (`METRICS_ADDR`) of a real `api` process running the worker inside (one
//! endpoint for both), on the test's database: after jobs and requests, the counters moved by
//! exactly what was done, under the right labels; without `METRICS_ADDR` there is no endpoint.
//! Process tests, because the `metrics` recorder is one per process: each test's counters are
//! its own process's.

use jobs::diagnostics::Probe;
use shared::db::{Db, Id, PoolSettings};
use shared::job::Owner;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use testkit::db::TestDb;
use testkit::prometheus::Scrape;

const CRON_SECRET: &str = "metrics-test-cron-secret";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Api {
    child: Child,
    base: String,
    log: std::path::PathBuf,
}

impl Api {
    async fn start(tdb: &TestDb, name: &str, extra: &[(&str, String)]) -> Api {
        let port = free_port();
        let log = tdb.dir.join(format!("{name}.log"));
        let f = std::fs::File::create(&log).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_api"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATABASE_URL", &tdb.url)
            .env("DATA_DIR", &tdb.dir)
            .env("SECRET_KEY", "metrics-test-secret-key-0123456789abcdef")
            .env("BIND_ADDR", format!("127.0.0.1:{port}"))
            .env("CRON_SECRET", CRON_SECRET)
            .env("EMBEDDED_WORKER", "true")
            .env("SCHEDULER", "off")
            .env("WORKER_POLL_MS", "20")
            .env("WORKER_BACKOFF_BASE_MS", "50")
            .env("RUST_LOG", "info,sqlx=warn")
            .stdout(f.try_clone().unwrap())
            .stderr(f)
            .stdin(Stdio::null());
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let api = Api {
            child: cmd.spawn().unwrap(),
            base: format!("http://127.0.0.1:{port}"),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = reqwest::get(format!("{}/api/health", api.base)).await
                && r.status() == 200
            {
                return api;
            }
            assert!(
                Instant::now() < deadline,
                "api did not start: {}",
                api.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn stop(mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let status = self.child.wait().unwrap();
        assert!(
            status.success(),
            "graceful exit: {status:?}: {}",
            self.log()
        );
    }
}

impl Drop for Api {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn enqueue(db: &Db, p: Probe) -> Id {
    let mut tx = db.begin().await.unwrap();
    let e = shared::job::enqueue(&mut tx, &p, Owner::default())
        .await
        .unwrap();
    tx.commit().await.unwrap();
    e.id
}

async fn wait_done(db: &Db, ids: &[Id], api: &Api) {
    let deadline = Instant::now() + Duration::from_secs(60);
    for &id in ids {
        loop {
            let p = {
                let mut c = db.acquire().await.unwrap();
                jobs::progress::get(&mut c, id).await.unwrap().unwrap()
            };
            if p.status == "succeeded" || p.status == "failed" {
                break;
            }
            assert!(Instant::now() < deadline, "job stuck: {p:?}\n{}", api.log());
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

#[tokio::test]
async fn one_endpoint_counts_the_processs_requests_and_jobs_by_label() {
    let tdb = TestDb::new().await;
    let metrics_port = free_port();
    let api = Api::start(
        &tdb,
        "api",
        &[("METRICS_ADDR", format!("127.0.0.1:{metrics_port}"))],
    )
    .await;
    let metrics = format!("http://127.0.0.1:{metrics_port}/metrics");
    assert!(api.log().contains("metrics at"), "{}", api.log());
    let db = Db::connect(&tdb.url, &PoolSettings::default())
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let before = Scrape::fetch(&metrics).await;

    // Requests: three health checks, two job reads of different ids (one route template),
    // one unknown path, and a cron call that enqueues a job in this process (each scheduled task
    // has a literal route of its own).
    for _ in 0..3 {
        let r = http
            .get(format!("{}/api/health", api.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let (id_a, id_b) = (Id::new(), Id::new());
    for id in [id_a, id_b] {
        let r = http
            .get(format!("{}/api/jobs/{id}", api.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
    }
    let r = http
        .get(format!("{}/api/no-such-route", api.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = http
        .post(format!("{}/api/cron/tokens-cleanup", api.base))
        .bearer_auth(CRON_SECRET)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let cron_job: Id = r.json::<serde_json::Value>().await.unwrap()["jobId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();

    // Jobs run by the worker inside: 3 succeed, 1 fails for good, 1 fails once then succeeds.
    let mut ids = vec![cron_job];
    for _ in 0..3 {
        ids.push(enqueue(&db, Probe::default()).await);
    }
    ids.push(
        enqueue(
            &db,
            Probe {
                fail_permanently: true,
                ..Default::default()
            },
        )
        .await,
    );
    ids.push(
        enqueue(
            &db,
            Probe {
                fail_attempts: 1,
                ..Default::default()
            },
        )
        .await,
    );
    wait_done(&db, &ids, &api).await;
    // And one for later: the gauges must see it as delayed.
    let mut tx = db.begin().await.unwrap();
    shared::job::enqueue_at(
        &mut tx,
        &Probe::default(),
        Owner::default(),
        shared::db::Ts::now().plus(chrono::Duration::hours(1)),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();

    // Counters settle when each outcome is written; the gauges within one refresh (5 s).
    let deadline = Instant::now() + Duration::from_secs(30);
    let after = loop {
        let s = Scrape::fetch(&metrics).await;
        let probe = [("kind", "diagnostics.probe"), ("queue", "default")];
        if s.get("jobs_succeeded_total", &probe) >= 4.0
            && s.get("jobs_queue_delayed", &[("queue", "default")]) >= 1.0
        {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "metrics did not settle:\n{}",
            s.text
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };

    let probe = [("kind", "diagnostics.probe"), ("queue", "default")];
    let cron = [("kind", "cron.tokens-cleanup"), ("queue", "default")];
    let d = |name: &str, labels: &[(&str, &str)]| after.delta(&before, name, labels);
    // Probes were enqueued by the test, not this process: only the cron job counts here.
    assert_eq!(d("jobs_enqueued_total", &cron), 1.0, "{}", after.text);
    assert_eq!(d("jobs_enqueued_total", &probe), 0.0);
    assert_eq!(d("jobs_started_total", &probe), 6.0, "{}", after.text);
    assert_eq!(d("jobs_succeeded_total", &probe), 4.0);
    assert_eq!(d("jobs_failed_total", &probe), 1.0);
    assert_eq!(d("jobs_retried_total", &probe), 1.0);
    assert_eq!(d("jobs_started_total", &cron), 1.0);
    assert_eq!(d("jobs_succeeded_total", &cron), 1.0);
    assert_eq!(d("jobs_failed_total", &cron), 0.0);
    assert_eq!(d("jobs_run_duration_seconds_count", &probe), 6.0);
    assert_eq!(d("jobs_start_delay_seconds_count", &probe), 6.0);
    assert_eq!(d("jobs_run_duration_seconds_count", &cron), 1.0);
    assert_eq!(
        after.get("jobs_queue_delayed", &[("queue", "default")]),
        1.0
    );
    assert_eq!(after.get("jobs_queue_depth", &[("queue", "default")]), 0.0);
    assert_eq!(after.get("jobs_queue_running", &[("queue", "media")]), 0.0);
    assert!(
        after
            .value("jobs_queue_oldest_waiting_seconds", &[("queue", "notify")])
            .is_some(),
        "every queue has its gauges"
    );

    let get = |route: &'static str, status: &'static str| {
        [("method", "GET"), ("route", route), ("status", status)]
    };
    assert_eq!(
        d("http_requests_total", &get("/api/health", "2xx")),
        3.0,
        "{}",
        after.text
    );
    assert_eq!(
        d(
            "http_request_duration_seconds_count",
            &get("/api/health", "2xx")
        ),
        3.0
    );
    assert_eq!(d("http_requests_total", &get("/api/jobs/{id}", "4xx")), 2.0);
    assert_eq!(
        d("http_requests_total", &get("unmatched", "4xx")),
        1.0,
        "{}",
        after.text
    );
    assert_eq!(
        d(
            "http_requests_total",
            &[
                ("method", "POST"),
                ("route", "/api/cron/tokens-cleanup"),
                ("status", "2xx")
            ]
        ),
        1.0
    );
    for raw in [id_a.to_string(), id_b.to_string(), "no-such-route".into()] {
        assert!(
            !after.text.contains(&raw),
            "raw paths never become labels: {raw}"
        );
    }
    assert!(after.text.contains("# HELP jobs_enqueued_total"));
    // The metrics listener serves only /metrics, and the api does not serve it.
    let r = http
        .get(format!("{}/metrics", api.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    db.close().await;
    api.stop();
}

#[tokio::test]
async fn without_metrics_addr_no_endpoint_is_served() {
    let tdb = TestDb::new().await;
    let api = Api::start(&tdb, "api", &[]).await;
    let r = reqwest::get(format!("{}/metrics", api.base)).await.unwrap();
    assert_eq!(r.status(), 404);
    let log = api.log();
    assert!(!log.contains("metrics at"), "{log}");
    api.stop();
}
