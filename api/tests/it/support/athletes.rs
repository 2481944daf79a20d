//! Athletes: roster entries, their invites and logins, coach assignments, minors and their
//! guardians.

use super::app::{PASSWORD, Session, TestApp, session_from};
use axum::http::StatusCode;
use chrono::{Duration, Months, Utc};
use serde_json::{Value, json};
use shared::db::Id;

/// A birth date making someone exactly `years` old today (`younger_by_days` = 1: a day younger).
pub fn born(years: u32, younger_by_days: i64) -> String {
    let today = Utc::now().date_naive();
    (today.checked_sub_months(Months::new(12 * years)).unwrap() + Duration::days(younger_by_days))
        .to_string()
}

/// The `id` of a created resource.
pub fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

/// Creates an athlete (no login) in `s`'s workspace; returns the athlete as the API shows it.
pub async fn new_athlete(app: &TestApp, s: &Session, body: Value) -> Value {
    let r = app.post("/api/athletes").session(s).json(body).send().await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json
}

/// Invites an existing athlete to claim a login; returns the invite token.
pub async fn athlete_invite(app: &TestApp, s: &Session, athlete: &str) -> String {
    let r = app
        .post("/api/invite")
        .session(s)
        .json(json!({ "athleteId": athlete }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json["token"].as_str().unwrap().to_string()
}

/// Assigns the member `coach` to the athlete.
pub async fn assign_coach(app: &TestApp, s: &Session, athlete: &str, coach: Id) {
    let r = app
        .post(&format!("/api/athletes/{athlete}/coaches"))
        .session(s)
        .json(json!({ "userId": coach }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
}

/// A workspace whose owner (coach@example.com, "Coach Kai") coaches an adult athlete, Mia
/// Silva, who claimed a login (mia@example.com); and the owner of a second workspace.
pub struct CoachAndAthlete {
    pub coach: Session,
    pub athlete: Session,
    pub athlete_id: String,
    pub outsider: Session,
}

pub async fn coach_and_athlete(app: &TestApp) -> CoachAndAthlete {
    let coach = app.signup("coach@example.com").await;
    let outsider = app.signup("outsider@example.com").await;
    let a = new_athlete(
        app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await;
    let athlete_id = id(&a);
    assign_coach(app, &coach, &athlete_id, coach.user_id).await;
    let token = athlete_invite(app, &coach, &athlete_id).await;
    let r = app
        .post("/api/invite/claim")
        .json(json!({ "token": token, "email": "mia@example.com", "password": PASSWORD, "birthDate": born(20, 0) }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let athlete = session_from(&r, "mia@example.com");
    CoachAndAthlete {
        coach,
        athlete,
        athlete_id,
        outsider,
    }
}

/// A 12-year-old athlete (Leo Costa) coached by `coach`, whose login a guardian (Ana Costa,
/// ana@example.com) created through the guardian invite; returns (athlete id, athlete session,
/// guardian session).
pub async fn minor_with_guardian(app: &TestApp, coach: &Session) -> (String, Session, Session) {
    let a = new_athlete(
        app,
        coach,
        json!({ "firstName": "Leo", "lastName": "Costa" }),
    )
    .await;
    let athlete_id = id(&a);
    assign_coach(app, coach, &athlete_id, coach.user_id).await;
    let token = athlete_invite(app, coach, &athlete_id).await;
    let r = app
        .post("/api/invite/guardian")
        .json(json!({ "token": token, "guardian": { "name": "Ana Costa", "email": "ana@example.com", "password": PASSWORD, "relationship": "parent" },
                      "athleteBirthDate": born(12, 0), "athleteLogin": { "email": "leo@example.com", "password": PASSWORD }, "consent": true }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app.signin("ana@example.com", PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let guardian = session_from(&r, "ana@example.com");
    let r = app.signin("leo@example.com", PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let athlete = session_from(&r, "leo@example.com");
    (athlete_id, athlete, guardian)
}
