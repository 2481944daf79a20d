//! A full disk on the embedded default: writes answer 503 `unavailable` (with `Retry-After`),
//! reads go on, and the database opens and passes `PRAGMA integrity_check` afterwards.
//!
//! The method: a full disk is simulated with SQLite's `PRAGMA max_page_count`, set on every
//! connection of a second pool over the test's database file, a few pages above its size (a
//! small tmpfs would need root). SQLite answers `SQLITE_FULL` exactly as for a full disk: the
//! statement fails and the transaction rolls back. On PostgreSQL the test has nothing to do.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Db;
use sqlx::ConnectOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use std::str::FromStr;

#[tokio::test]
async fn a_full_sqlite_database_answers_503_and_stays_whole() {
    let mut app = TestApp::new().await;
    if app.state.db.dialect() != shared::db::Dialect::Sqlite {
        return;
    }
    let coach = app.signup("coach@example.com").await;
    new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Before" }),
    )
    .await;
    let url = app.tdb.url.clone();
    let pages: i64 = {
        let mut c = SqliteConnectOptions::from_str(&url)
            .unwrap()
            .connect()
            .await
            .unwrap();
        sqlx::query_scalar("PRAGMA page_count")
            .fetch_one(&mut c)
            .await
            .unwrap()
    };
    let opts = SqliteConnectOptions::from_str(&url)
        .unwrap()
        .journal_mode(SqliteJournalMode::Wal)
        .busy_timeout(std::time::Duration::from_secs(10))
        .foreign_keys(true)
        .pragma("max_page_count", (pages + 4).to_string());
    let full = Db::Sqlite(
        SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await
            .unwrap(),
        // Its own write gate: this pool is a second writer beside the app's.
        std::sync::Arc::new(tokio::sync::Semaphore::new(1)),
    );
    let (roomy_state, roomy_router) = (app.state.clone(), app.router.clone());
    app.state = api::state::AppState::new(roomy_state.cfg.clone(), full.clone())
        .await
        .unwrap();
    app.router = api::app::build(app.state.clone());

    let notes = "n".repeat(1900);
    let mut created = 0;
    let mut refused = None;
    for i in 0..200 {
        let r = app
            .post("/api/athletes")
            .session(&coach)
            .json(json!({ "firstName": format!("Fill{i}"), "lastName": "Up", "notes": notes }))
            .send()
            .await;
        if r.status == StatusCode::CREATED {
            created += 1;
            continue;
        }
        refused = Some(r);
        break;
    }
    let r = refused.expect("the database never filled up");
    r.assert_error(StatusCode::SERVICE_UNAVAILABLE, "unavailable");
    assert!(r.headers.contains_key("retry-after"), "{:?}", r.headers);
    // Reads go on while the database is full.
    let r = app
        .get("/api/athletes?limit=100")
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        items(&r).len(),
        1 + created,
        "the refused write left nothing"
    );
    full.close().await;

    // With room again (the ordinary pool), the same write succeeds.
    app.state = roomy_state;
    app.router = roomy_router;
    let r = app
        .post("/api/athletes")
        .session(&coach)
        .json(json!({ "firstName": "After", "lastName": "Full", "notes": notes }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let file = url
        .strip_prefix("sqlite://")
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    api::backup::integrity_check(std::path::Path::new(&file))
        .await
        .unwrap();
}
