//! Training sessions.

use super::app::{Resp, Session, TestApp};
use axum::http::StatusCode;
use serde_json::Value;

/// Creates a training session in `s`'s workspace; returns it as the API shows it.
pub async fn new_training_session(app: &TestApp, s: &Session, body: Value) -> Value {
    let r = app
        .post("/api/training-sessions")
        .session(s)
        .json(body)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json
}

/// The status of each participant in a roster response, in its order.
pub fn participant_statuses(r: &Resp) -> Vec<&str> {
    r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect()
}
