//! Provider links and the resync job.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

#[tokio::test]
async fn resync_needs_a_provider_link_and_fails_permanently_until_the_provider_exists() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let url = format!("/api/athletes/{}/resync", id(&a));
    app.post(&url)
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "not_provider_linked");
    app.post(&url)
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("job_progress").await, 0);
    let mut c = app.state.db.acquire().await.unwrap();
    shared::repo::athletes::add_provider_link(
        &mut c,
        coach.org_id,
        id(&a).parse().unwrap(),
        "tourindex",
        "ti-42",
    )
    .await
    .unwrap();
    drop(c);
    let r = app.post(&url).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let w = app.start_worker(&[]).await;
    let p = app.wait_job(job, |p| p.status == "failed").await;
    assert_eq!(p.attempts, 1, "not retried");
    assert!(p.last_error.unwrap().contains("not configured"));
    w.shutdown().await;
}
