//! Competition: the app pointed at the fake `heatsource` provider.

use super::app::TestApp;
use testkit::heatsource::FakeHeatsource;

pub const HS_CLIENT_ID: &str = "hs-client";
pub const HS_CLIENT_SECRET: &str = "hs-secret";

/// The app with the heatsource provider configured (client credentials included) at a fresh
/// fake, plus `extra` variables (an empty value removes a variable).
pub async fn app_with_heatsource(extra: &[(&str, &str)]) -> (TestApp, FakeHeatsource) {
    let fake = FakeHeatsource::start(HS_CLIENT_ID, HS_CLIENT_SECRET).await;
    let base = fake.base_url();
    let mut vars = vec![
        ("HEATSOURCE_BASE_URL", base.as_str()),
        ("HEATSOURCE_CLIENT_ID", HS_CLIENT_ID),
        ("HEATSOURCE_CLIENT_SECRET", HS_CLIENT_SECRET),
        ("HEATSOURCE_TIMEOUT_MS", "300"),
    ];
    vars.extend_from_slice(extra);
    (TestApp::with_env(&vars).await, fake)
}

/// Expires every cached provider answer (straight in the database), as time passing would.
pub async fn expire_provider_cache(app: &TestApp) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE provider_cache SET expires_at = $1")
            .bind(shared::db::Ts::now().minus(chrono::Duration::seconds(1)))
    )
    .unwrap();
}

/// Enqueues a scheduled task through its cron route and waits for it to finish (a running
/// worker is needed).
pub async fn run_cron(app: &TestApp, task: &str) -> jobs::progress::Progress {
    let r = app
        .post(&format!("/api/cron/{task}"))
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    assert_eq!(r.status, axum::http::StatusCode::ACCEPTED, "{}", r.body);
    let id: shared::db::Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(id, |p| p.status == "succeeded" || p.status == "failed")
        .await
}
