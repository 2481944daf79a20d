//! Wearable fixtures: labelled sessions from the shared generator
//! (`shared::domain::wearable::synth`) as request bodies, and a session uploaded and derived.

use super::app::{Resp, Session, TestApp};
use axum::http::StatusCode;
use serde_json::{Value, json};
use shared::db::Id;
use shared::domain::wearable::samples::SampleColumns;
use shared::domain::wearable::synth::{Options, Session as Synth, generate};

/// A generated session (seeded) of `secs` seconds, IMU at `imu_hz` (0: none).
pub fn synth(seed: u64, secs: f64, imu_hz: u32) -> Synth {
    generate(&Options::new(seed, secs, imu_hz))
}

/// The session's samples as the request's columnar JSON.
pub fn samples_json(s: &Synth) -> Value {
    serde_json::to_value(SampleColumns::from_samples(&s.samples)).unwrap()
}

/// Uploads `body` (plus `athleteId`) as `who`.
pub async fn upload_session(app: &TestApp, who: &Session, athlete: &str, mut body: Value) -> Resp {
    body["athleteId"] = json!(athlete);
    app.post("/api/wearable/sessions")
        .session(who)
        .json(body)
        .send()
        .await
}

/// Uploads the generated session for `athlete` and waits for its derivation; returns its id.
pub async fn derived_session(app: &TestApp, coach: &Session, athlete: &str, s: &Synth) -> Id {
    let r = upload_session(app, coach, athlete, json!({ "samples": samples_json(s) })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let w = app.start_worker(&[]).await;
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    w.shutdown().await;
    assert!(p.status == "succeeded", "{p:?}");
    r.json["session"]["id"].as_str().unwrap().parse().unwrap()
}

/// Runs every queued job of a fresh worker until `job` ends.
pub async fn run_job(app: &TestApp, job: &Value) -> jobs::progress::Progress {
    let id: Id = job.as_str().unwrap().parse().unwrap();
    let w = app.start_worker(&[]).await;
    let p = app
        .wait_job(id, |p| p.status != "queued" && p.status != "running")
        .await;
    w.shutdown().await;
    p
}
