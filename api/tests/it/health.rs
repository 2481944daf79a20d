//! The health and time routes.

use crate::support::*;
use axum::http::StatusCode;

#[tokio::test]
async fn health_degrades_when_the_database_closes_and_time_reads_the_server_clock() {
    let app = TestApp::new().await;
    let r = app.get("/api/health").send().await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["database"], "ok");
    let r = app.get("/api/time").send().await;
    let now = r.json["now"].as_str().unwrap();
    assert_eq!(now.len(), "2026-11-22T10:00:00.123Z".len(), "{now}");
    let ms = r.json["unixMs"].as_i64().unwrap();
    let local = chrono::Utc::now().timestamp_millis();
    assert!((local - ms).abs() < 5_000);
    app.state.db.close().await;
    let r = app.get("/api/health").send().await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.json["status"], "degraded");
}
