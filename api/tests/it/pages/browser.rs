//! The pages in a real browser: this test serves the app (built in-process as every test
//! builds it, on this run's database: SQLite, or PostgreSQL under `TEST_DATABASE_URL`) on a
//! loopback port with the embedded default's mail outbox and a job worker, and runs
//! `browser-tests/` (node's test runner, playwright-core driving Debian's Chromium) against it.
//! `scripts/ensure-browser` installs Chromium and the npm package; `scripts/test` runs it first.

use crate::support::*;
use std::path::PathBuf;
use std::time::Duration;

fn chromium() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_flow_passes_in_a_real_browser() {
    let suite = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../browser-tests");
    let browser = chromium();
    assert!(
        suite.join("node_modules/playwright-core").exists() && browser.is_some(),
        "the browser suite needs Chromium and playwright-core: run scripts/ensure-browser (scripts/test does)"
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    // SMTP_URL unset: mail goes to DATA_DIR/mail-outbox, as on the embedded default.
    let app = TestApp::with_env(&[("PUBLIC_BASE_URL", &base), ("SMTP_URL", "")]).await;
    let outbox = app.tdb.dir.join("mail-outbox");
    let worker = app.start_worker(&[]).await;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(api::serve::serve_http(
        listener,
        app.router.clone(),
        async {
            let _ = stopped.await;
        },
        Duration::from_secs(2),
    ));

    // Output goes to files (a pipe left unread could fill up while we wait).
    let log = |name: &str| std::fs::File::create(app.tdb.dir.join(name)).unwrap();
    let mut child = std::process::Command::new("node")
        .args(["--test", "--test-concurrency=1", "tests/"])
        .current_dir(&suite)
        .env("BASE_URL", &base)
        .env("OUTBOX_DIR", &outbox)
        .env("SERVICE_KEY", SERVICE_KEY)
        .env("CHROMIUM", browser.unwrap())
        .stdout(log("browser.out"))
        .stderr(log("browser.err"))
        .spawn()
        .expect("node runs");
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = stop.send(());
    let _ = server.await;
    worker.shutdown().await;
    let stdout = std::fs::read_to_string(app.tdb.dir.join("browser.out")).unwrap_or_default();
    let stderr = std::fs::read_to_string(app.tdb.dir.join("browser.err")).unwrap_or_default();
    println!("{stdout}");
    eprintln!("{stderr}");
    let status = status.expect("the browser suite finished within 10 minutes");
    assert!(status.success(), "the browser suite failed:\n{stdout}");
    assert!(stdout.contains("# fail 0"), "{stdout}");
    assert!(
        !stdout.contains("# pass 0\n"),
        "no browser test ran: {stdout}"
    );
}
