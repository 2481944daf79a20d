//! CSV imports of training sessions.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

#[tokio::test]
async fn training_import_is_all_or_nothing_idempotent_and_matches_athletes() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "L", "email": "kai@example.com" }),
    )
    .await;
    new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "S", "email": "mia@example.com" }),
    )
    .await;
    let bad = "title,starts_at,duration_minutes,athlete_email,attendance\n\
Dawn,2025-03-01 06:00,90,kai@example.com,attended\n\
Dawn,2025-03-01 06:00,90,ghost@example.com,attended\n\
Dusk,2999-01-01 18:00,60,mia@example.com,maybe\n";
    let r = app
        .post("/api/training-sessions/import")
        .session(&coach)
        .raw("text/csv", bad.as_bytes())
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    let errs = r.import_errors();
    assert_eq!(
        errs,
        [
            (4, "starts_at".into()),
            (4, "attendance".into()),
            (3, "athlete_email".into())
        ]
    );
    assert_eq!(app.count("training_sessions").await, 0, "nothing written");
    assert_eq!(app.count("training_participants").await, 0);
    app.post("/api/training-sessions/import")
        .session(&viewer)
        .raw("text/csv", bad.as_bytes())
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    let good = "title,starts_at,ends_at,location,athlete_email,attendance\n\
Dawn,2025-03-01T06:00:00Z,2025-03-01T07:30:00Z,Ericeira,kai@example.com,attended\n\
Dawn,2025-03-01T06:00:00Z,2025-03-01T07:30:00Z,Ericeira,mia@example.com,no\n\
Dusk,2025-03-02 18:00,2025-03-02 19:00,Peniche,mia@example.com,yes\n";
    let r = app
        .post("/api/training-sessions/import?dryRun=true")
        .session(&coach)
        .raw("text/csv", good.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["details"]["sessionsCreated"], 2);
    assert_eq!(app.count("training_sessions").await, 0);
    let r = app
        .post("/api/training-sessions/import")
        .session(&coach)
        .raw("text/csv", good.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["committed"], true);
    assert_eq!(r.json["details"]["participantsCreated"], 3);
    assert_eq!(app.count("training_sessions").await, 2);
    let r = app
        .post("/api/training-sessions/import")
        .session(&coach)
        .raw("text/csv", good.as_bytes())
        .send()
        .await;
    assert_eq!(r.json["created"], 0);
    assert_eq!(r.json["duplicates"], 3);
    assert_eq!(app.count("training_sessions").await, 2);
    assert_eq!(app.count("training_participants").await, 3);
    let r = app
        .get("/api/training-sessions?from=2025-03-01T00:00:00Z&to=2025-03-02T00:00:00Z")
        .session(&coach)
        .send()
        .await;
    let sid = r.json["items"][0]["id"].as_str().unwrap().to_string();
    let r = app
        .get(&format!("/api/training-sessions/{sid}/participants"))
        .session(&coach)
        .send()
        .await;
    let st = participant_statuses(&r);
    assert_eq!(st, ["attended", "no_show"]);
    // A background import gives the same report through the job.
    let w = app.start_worker(&[]).await;
    let r = app
        .post("/api/training-sessions/import?background=true")
        .session(&coach)
        .raw("text/csv", good.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let p = app.wait_job(job, |p| p.status == "succeeded").await;
    assert_eq!(p.result.unwrap().0["duplicates"], 3);
    w.shutdown().await;
}
