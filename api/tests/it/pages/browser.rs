//! The pages in a real browser: this test serves the app (built in-process as every test
//! builds it, on this run's database: SQLite, or PostgreSQL under `TEST_DATABASE_URL`) on a
//! loopback port with the embedded default's mail outbox and a job worker, and runs
//! `browser-tests/` (node's test runner, playwright-core driving Debian's Chromium) against it.
//! `scripts/ensure-browser` installs Chromium and the npm package; `scripts/test` runs it first.

use crate::support::*;
use std::path::PathBuf;
use std::time::Duration;
use testkit::analysis::{FakeAnalysis, TEST_WEBHOOK_SECRET};
use testkit::model::FakeModel;

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
    // SMTP_URL unset: mail goes to DATA_DIR/mail-outbox, as on the embedded default. The
    // analysis backend and the model are the fakes (testkit), so a clip is analysed and a voice
    // note transcribed offline, as in the in-process tests.
    let analysis = FakeAnalysis::start("analysis-key", TEST_WEBHOOK_SECRET).await;
    let model = FakeModel::start("model-key").await;
    // The payment processor's fake: billing.test.mjs plays its hosted pages (issue 39).
    let payments = testkit::payments::FakePayments::start(PAY_KEY, WHSEC).await;
    // The competition provider's fake with the hand-worked season (competition.test.mjs
    // imports its rankings, standings and athletes; the tour index stays unconfigured, so the
    // athlete search shows why it is unavailable).
    let heatsource = testkit::heatsource::FakeHeatsource::start(
        crate::support::HS_CLIENT_ID,
        crate::support::HS_CLIENT_SECRET,
    )
    .await;
    crate::competition::strategy::season(&heatsource);
    // Both forecast providers' fakes, for the forecasts page (competition-b.test.mjs).
    let spotsource = testkit::spotsource::FakeSpotsource::start(Some("spot-key")).await;
    let openmeteo = testkit::openmeteo::FakeOpenMeteo::start().await;
    let mut env = vec![
        ("SPOTSOURCE_BASE_URL", spotsource.base_url()),
        ("SPOTSOURCE_API_KEY", "spot-key".into()),
        ("OPENMETEO_MARINE_URL", openmeteo.base_url()),
        ("OPENMETEO_WEATHER_URL", openmeteo.base_url()),
        ("PUBLIC_BASE_URL", base.clone()),
        ("HEATSOURCE_BASE_URL", heatsource.base_url()),
        ("HEATSOURCE_CLIENT_ID", crate::support::HS_CLIENT_ID.into()),
        (
            "HEATSOURCE_CLIENT_SECRET",
            crate::support::HS_CLIENT_SECRET.into(),
        ),
        ("HEATSOURCE_ORGANISATIONS", "wsl".into()),
        ("SMTP_URL", String::new()),
        ("ANALYSIS_BASE_URL", analysis.base_url()),
        ("ANALYSIS_API_KEY", "analysis-key".into()),
        // Its webhooks reach this served app, as in production.
        ("ANALYSIS_WEBHOOK_SECRET", TEST_WEBHOOK_SECRET.into()),
    ];
    env.extend(crate::reviews::voice::model_env(&model));
    env.extend([
        ("PAYMENTS_BASE_URL", payments.base_url()),
        ("PAYMENTS_SECRET_KEY", PAY_KEY.into()),
        ("PAYMENTS_WEBHOOK_SECRETS", WHSEC.into()),
        (
            "PAYMENTS_PRICE_IDS",
            "price_team_monthly,price_club_monthly".into(),
        ),
    ]);
    let app = crate::reviews::voice::app_with(&env).await;
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

    // One node process per test file, the rate limits cleared before each: every file signs up
    // its own people from this one address, and together they pass the hourly signup limit a
    // real address has (each file alone stays under it). Output goes to files (a pipe left
    // unread could fill up while we wait).
    // BROWSER_TESTS=desk,footage runs only the files whose names contain one of these (while
    // working on a page); unset, every file runs.
    let only: Option<Vec<String>> = std::env::var("BROWSER_TESTS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let mut files: Vec<_> = std::fs::read_dir(suite.join("tests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".test.mjs"))
        .filter(|f| {
            only.as_ref()
                .is_none_or(|o| o.iter().any(|n| f.contains(n.as_str())))
        })
        .collect();
    files.sort();
    // A platform admin for the admin console's file (no API makes one: it is a database flag).
    let admin = app.signup("platform-admin@example.com").await;
    make_admin(&app, &admin).await;
    let log = |name: &str| std::fs::File::create(app.tdb.dir.join(name)).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    let (mut stdout, mut stderr, mut failed) = (String::new(), String::new(), Vec::new());
    for file in &files {
        app.clear("rate_limits").await;
        let mut child = std::process::Command::new("node")
            .args(["--test", "--test-concurrency=1", &format!("tests/{file}")])
            .current_dir(&suite)
            .env("BASE_URL", &base)
            .env("OUTBOX_DIR", &outbox)
            .env("SERVICE_KEY", SERVICE_KEY)
            .env("PAYMENTS_FAKE_URL", payments.base_url())
            .env("ADMIN_EMAIL", "platform-admin@example.com")
            .env("CRON_SECRET", "cron-secret-for-tests")
            .env("CHROMIUM", browser.as_ref().unwrap())
            .stdout(log("browser.out"))
            .stderr(log("browser.err"))
            .spawn()
            .expect("node runs");
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
        let out = std::fs::read_to_string(app.tdb.dir.join("browser.out")).unwrap_or_default();
        stderr += &std::fs::read_to_string(app.tdb.dir.join("browser.err")).unwrap_or_default();
        let passed = status.is_some_and(|s| s.success())
            && out.contains("# fail 0")
            && !out.contains("# pass 0\n");
        if !passed {
            failed.push(file.clone());
        }
        stdout += &out;
        if status.is_none() {
            break;
        }
    }
    let _ = stop.send(());
    let _ = server.await;
    worker.shutdown().await;
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        std::time::Instant::now() <= deadline,
        "the browser suite did not finish within 10 minutes:\n{stdout}"
    );
    assert!(
        failed.is_empty(),
        "browser test files failed: {failed:?}\n{stdout}"
    );
}
