//! The embedded default as a user runs it: one `api` process on SQLite with the job worker and
//! scheduler inside.

use shared::db::{Db, Id, PoolSettings};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[tokio::test]
async fn one_api_process_serves_and_runs_jobs() {
    let dir = std::env::temp_dir().join(format!("surfcoach-embedded-{}", Id::new()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let log = std::fs::File::create(dir.join("api.log")).unwrap();
    let mut api = Command::new(env!("CARGO_BIN_EXE_api"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATA_DIR", &dir)
        .env("BIND_ADDR", format!("127.0.0.1:{port}"))
        .env("CRON_SECRET", "embedded-cron-secret")
        .env("WORKER_POLL_MS", "20")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(r) = http.get(format!("{base}/api/health")).send().await
            && r.status() == 200
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "api did not start: {}",
            std::fs::read_to_string(dir.join("api.log")).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let r = http
        .post(format!("{base}/api/cron/tokens-cleanup"))
        .bearer_auth("embedded-cron-secret")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let body: serde_json::Value = r.json().await.unwrap();
    let job: Id = body["jobId"].as_str().unwrap().parse().unwrap();
    let db = Db::connect(
        &format!("sqlite://{}/service.db", dir.display()),
        &PoolSettings::default(),
    )
    .await
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut c = db.acquire().await.unwrap();
        let p = jobs::progress::get(&mut c, job).await.unwrap().unwrap();
        if p.status == "succeeded" {
            break;
        }
        assert!(Instant::now() < deadline, "job not run in-process: {p:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        dir.join("secret.key").exists(),
        "a secret key was generated"
    );
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(api.id().to_string())
        .status();
    let status = api.wait().unwrap();
    assert!(status.success(), "graceful exit: {status:?}");
    db.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
