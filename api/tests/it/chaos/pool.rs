//! Pool exhaustion: with every connection of the pool taken, a request waits for one, then
//! answers 503 `unavailable` once the acquire timeout (`DATABASE_ACQUIRE_TIMEOUT_MS`) has
//! passed; it never hangs, and it succeeds as soon as a connection is free again. The request
//! is a workspace list, which needs a connection for its query whatever the auth cache holds.

use crate::support::*;
use axum::http::{StatusCode, header};
use std::time::{Duration, Instant};

const ACQUIRE_TIMEOUT_MS: u64 = 500;

#[tokio::test]
async fn an_exhausted_pool_makes_requests_wait_then_answer_503_and_never_hang() {
    let app = TestApp::with_env(&[
        ("DATABASE_MAX_CONNECTIONS", "2"),
        ("DATABASE_ACQUIRE_TIMEOUT_MS", "500"),
    ])
    .await;
    let s = app.signup("coach@example.com").await;
    let me = || async {
        // Far above the acquire timeout: only a request that hangs reaches it.
        tokio::time::timeout(
            Duration::from_secs(15),
            app.get("/api/athletes").session(&s).send(),
        )
        .await
        .expect("the request answered instead of hanging")
    };
    assert_eq!(me().await.status, StatusCode::OK);

    let mut held = vec![
        app.state.db.acquire().await.unwrap(),
        app.state.db.acquire().await.unwrap(),
    ];
    let t = Instant::now();
    let r = me().await;
    let waited = t.elapsed();
    r.assert_error(StatusCode::SERVICE_UNAVAILABLE, "unavailable");
    assert_eq!(r.headers[header::RETRY_AFTER], "1");
    assert!(
        waited >= Duration::from_millis(ACQUIRE_TIMEOUT_MS),
        "it waited for a connection first: {waited:?}"
    );
    assert_eq!(
        app.state
            .db
            .acquire()
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string(),
        sqlx::Error::PoolTimedOut.to_string(),
        "the pool is still exhausted"
    );

    // A connection freed while a request waits goes to that request.
    let (r, ()) = tokio::join!(me(), async {
        tokio::time::sleep(Duration::from_millis(ACQUIRE_TIMEOUT_MS / 5)).await;
        held.pop();
    });
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    drop(held);
    let r = me().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.json["items"].is_array(), "{}", r.body);
}
