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
