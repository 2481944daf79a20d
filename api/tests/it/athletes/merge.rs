//! Merging duplicate athletes: every reference moves, in one transaction.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};
use shared::db::{Id, Ts};

/// Puts references of every kind on an athlete (assignment, invite, session, footage, link).
async fn decorate(app: &TestApp, s: &Session, athlete: &str, session_title: &str) -> Value {
    assign_coach(app, s, athlete, s.user_id).await;
    athlete_invite(app, s, athlete).await;
    let t = new_training_session(app, s, json!({ "title": session_title, "startsAt": "2026-01-10T08:00:00Z", "endsAt": "2026-01-10T10:00:00Z" })).await;
    let r = app
        .post(&format!("/api/training-sessions/{}/participants", id(&t)))
        .session(s)
        .json(json!({ "athleteId": athlete }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let mut c = app.state.db.acquire().await.unwrap();
    let aid: Id = athlete.parse().unwrap();
    shared::repo::athletes::add_provider_link(
        &mut c,
        s.org_id,
        aid,
        "heatsource",
        &format!("hs-{athlete}"),
    )
    .await
    .unwrap();
    shared::execute!(&mut c, sqlx::query("INSERT INTO footage_sessions (id, org_id, training_session_id, athlete_id, title, status, created_by, created_at, updated_at) VALUES ($1, $2, NULL, $3, 'clip', 'done', NULL, $4, $4)")
        .bind(Id::new()).bind(s.org_id).bind(aid).bind(Ts::now())).unwrap();
    t
}

async fn refs(app: &TestApp, athlete: &str) -> Vec<i64> {
    let mut c = app.state.db.acquire().await.unwrap();
    let aid: Id = athlete.parse().unwrap();
    let mut out = vec![];
    for t in [
        "athlete_coaches",
        "athlete_invites",
        "training_participants",
        "footage_sessions",
        "athlete_provider_links",
    ] {
        let q = format!("SELECT COUNT(*) FROM {t} WHERE athlete_id = $1");
        out.push(shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(q.clone())).bind(aid).fetch_one(&mut *c).await).unwrap());
    }
    out
}

#[tokio::test]
async fn merge_moves_every_reference_deletes_b_and_is_audited() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let b = new_athlete(&app, &coach, json!({ "firstName": "Kai", "lastName": "Lenny", "email": "kai@example.com", "birthDate": "1992-10-06" })).await;
    decorate(&app, &coach, &id(&a), "Morning").await;
    decorate(&app, &coach, &id(&b), "Evening").await;
    let theirs = new_athlete(&app, &other, json!({ "firstName": "X", "lastName": "Y" })).await;

    let url = |x: &str, y: &str| format!("/api/athletes/{x}/merge/{y}");
    app.post(&url(&id(&a), &id(&a)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "merge_same_athlete");
    app.post(&url(&id(&a), &id(&theirs)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&url(&id(&theirs), &id(&a)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&url(&id(&a), &id(&b)))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("athletes").await, 3, "nothing merged");

    let r = app
        .post(&url(&id(&a), &id(&b)))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.json["athlete"]["email"], "kai@example.com",
        "empty fields filled from b"
    );
    assert_eq!(r.json["athlete"]["birthDate"], "1992-10-06");
    assert_eq!(r.json["moved"]["trainingSessions"], 1);
    // Same coach on both: one assignment kept. Every other reference moved.
    assert_eq!(refs(&app, &id(&a)).await, [1, 2, 2, 2, 2]);
    assert_eq!(refs(&app, &id(&b)).await, [0, 0, 0, 0, 0]);
    app.get(&format!("/api/athletes/{}", id(&b)))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let mut c = app.state.db.acquire().await.unwrap();
    let e = shared::repo::audit::for_org(&mut c, coach.org_id, 100, 0)
        .await
        .unwrap();
    let m = e
        .iter()
        .find(|e| e.action == "athlete.merged")
        .expect("audited");
    assert_eq!(m.data.0["into"], id(&a));
    assert_eq!(m.data.0["merged"], id(&b));
}

#[tokio::test]
async fn a_merge_that_fails_midway_changes_nothing() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let a = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let b = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "L." }),
    )
    .await;
    decorate(&app, &coach, &id(&b), "Evening").await;
    let before = refs(&app, &id(&b)).await;
    // Make the last step (deleting b) fail after every reference has been moved.
    let mut c = app.state.db.acquire().await.unwrap();
    if app.tdb.is_postgres() {
        shared::execute!(&mut c, sqlx::query("CREATE FUNCTION no_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$")).unwrap();
        shared::execute!(&mut c, sqlx::query("CREATE TRIGGER no_delete BEFORE DELETE ON athletes FOR EACH ROW EXECUTE FUNCTION no_delete()")).unwrap();
    } else {
        shared::execute!(&mut c, sqlx::query("CREATE TRIGGER no_delete BEFORE DELETE ON athletes BEGIN SELECT RAISE(ABORT, 'boom'); END")).unwrap();
    }
    drop(c);
    let r = app
        .post(&format!("/api/athletes/{}/merge/{}", id(&a), id(&b)))
        .session(&coach)
        .send()
        .await;
    r.assert_error(StatusCode::INTERNAL_SERVER_ERROR, "internal");
    assert_eq!(
        refs(&app, &id(&b)).await,
        before,
        "every reference is still on b"
    );
    assert_eq!(refs(&app, &id(&a)).await, [0, 0, 0, 0, 0]);
    assert_eq!(app.count("athletes").await, 2);
}
