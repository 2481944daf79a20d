//! Competition: the app pointed at the fake `heatsource` and `tourindex` providers.

use super::app::TestApp;
use testkit::heatsource::FakeHeatsource;
use testkit::tourindex::FakeTourindex;

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

/// The app with both providers configured at fresh fakes (heatsource with client credentials,
/// the tour index following the `ct` tour), plus `extra` variables.
pub async fn app_with_providers(
    extra: &[(&str, &str)],
) -> (TestApp, FakeHeatsource, FakeTourindex) {
    let hs = FakeHeatsource::start(HS_CLIENT_ID, HS_CLIENT_SECRET).await;
    let ti = FakeTourindex::start().await;
    let (hs_base, ti_base) = (hs.base_url(), ti.base_url());
    let mut vars = vec![
        ("HEATSOURCE_BASE_URL", hs_base.as_str()),
        ("HEATSOURCE_CLIENT_ID", HS_CLIENT_ID),
        ("HEATSOURCE_CLIENT_SECRET", HS_CLIENT_SECRET),
        ("HEATSOURCE_TIMEOUT_MS", "300"),
        ("HEATSOURCE_ORGANISATIONS", "wsl"),
        ("TOURINDEX_BASE_URL", ti_base.as_str()),
        ("TOURINDEX_TIMEOUT_MS", "300"),
        ("TOURINDEX_TOURS", "ct"),
        ("TOURINDEX_RATE_PER_SEC", "1000"),
        ("HEATSOURCE_RATE_PER_SEC", "1000"),
    ];
    vars.extend_from_slice(extra);
    (TestApp::with_env(&vars).await, hs, ti)
}

/// Enqueues through a member's job route and waits for the job to end; the job's progress.
pub async fn run_job_route(
    app: &TestApp,
    who: &super::app::Session,
    path: &str,
    body: serde_json::Value,
) -> jobs::progress::Progress {
    let r = app.post(path).session(who).json(body).send().await;
    assert_eq!(
        r.status,
        axum::http::StatusCode::ACCEPTED,
        "{path}: {}",
        r.body
    );
    let id: shared::db::Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(id, |p| p.status == "succeeded" || p.status == "failed")
        .await
}

/// The app with both forecast providers at fresh fakes: the spot provider (primary forecast,
/// with a key) and the Open-Meteo fallback (its marine and weather APIs on one fake), paced
/// fast enough for tests, plus `extra` variables (an empty value removes a variable).
pub async fn app_with_forecasts(
    extra: &[(&str, &str)],
) -> (
    TestApp,
    testkit::spotsource::FakeSpotsource,
    testkit::openmeteo::FakeOpenMeteo,
) {
    let sp = testkit::spotsource::FakeSpotsource::start(Some("spot-key")).await;
    let om = testkit::openmeteo::FakeOpenMeteo::start().await;
    let (sp_base, om_base) = (sp.base_url(), om.base_url());
    let mut vars = vec![
        ("SPOTSOURCE_BASE_URL", sp_base.as_str()),
        ("SPOTSOURCE_API_KEY", "spot-key"),
        ("SPOTSOURCE_TIMEOUT_MS", "2000"),
        ("OPENMETEO_MARINE_URL", om_base.as_str()),
        ("OPENMETEO_WEATHER_URL", om_base.as_str()),
        ("OPENMETEO_TIMEOUT_MS", "2000"),
        ("OPENMETEO_RATE_PER_SEC", "10000"),
    ];
    vars.extend_from_slice(extra);
    (TestApp::with_env(&vars).await, sp, om)
}
