//! What athletes and guardians see when they sign in: the athletes they are or look after,
//! their coaches and training sessions, on the home page and from `GET /api/me/athletes`;
//! nothing of other athletes, and no coach notes.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn an_athlete_and_a_guardian_see_their_own_athletes_sessions_and_coaches() {
    let app = TestApp::new().await;
    let ca = coach_and_athlete(&app).await;
    let (minor, leo, ana) = minor_with_guardian(&app, &ca.coach).await;
    app.req(Method::PATCH, &format!("/api/athletes/{}", ca.athlete_id))
        .session(&ca.coach)
        .json(json!({ "notes": "private coach note" }))
        .send()
        .await;
    let s = new_training_session(&app, &ca.coach, json!({ "title": "Dawn patrol", "startsAt": "2030-01-15T06:00:00Z", "endsAt": "2030-01-15T07:00:00Z" })).await;
    for a in [&ca.athlete_id, &minor] {
        let r = app
            .post(&format!("/api/training-sessions/{}/participants", id(&s)))
            .session(&ca.coach)
            .json(json!({ "athleteId": a }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    // The adult athlete: themself only.
    let r = app
        .get("/api/me/athletes")
        .session(&ca.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let mine = r.json.as_array().unwrap();
    assert_eq!(mine.len(), 1, "{}", r.body);
    assert_eq!(mine[0]["firstName"], "Mia");
    assert!(mine[0]["guardianAs"].is_null());
    assert_eq!(mine[0]["coaches"][0]["role"], "assistant");
    assert_eq!(mine[0]["trainingSessions"][0]["title"], "Dawn patrol");
    assert!(!r.body.contains("private coach note"));
    // The guardian: the minor they look after; the minor: themself.
    let r = app.get("/api/me/athletes").session(&ana).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 1, "{}", r.body);
    assert_eq!(r.json[0]["firstName"], "Leo");
    assert_eq!(r.json[0]["guardianAs"], "parent");
    let r = app.get("/api/me/athletes").session(&leo).send().await;
    assert_eq!(r.json[0]["firstName"], "Leo");
    assert!(r.json[0]["guardianAs"].is_null());
    // A coach with no athlete record: none.
    let r = app
        .get("/api/me/athletes")
        .session(&ca.outsider)
        .send()
        .await;
    assert_eq!(r.json.as_array().unwrap().len(), 0);
    // The home page shows the same, in the viewer's zone.
    let r = app
        .get("/")
        .header(
            "cookie",
            &format!("{}; sc_tz=Pacific%2FHonolulu", cookies_of(&ana)),
        )
        .send()
        .await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Leo Costa") && r.body.contains("you are their guardian (parent)"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains("Dawn patrol, 2030-01-14 20:00 (Pacific/Honolulu): registered"),
        "{}",
        r.body
    );
    assert!(
        !r.body.contains("Mia Silva"),
        "another athlete stays hidden"
    );
    // Archived athletes drop out.
    app.req(Method::PATCH, &format!("/api/athletes/{minor}"))
        .session(&ca.coach)
        .json(json!({ "status": "archived" }))
        .send()
        .await;
    let r = app.get("/api/me/athletes").session(&ana).send().await;
    assert_eq!(r.json.as_array().unwrap().len(), 0);
}
