//! Achievements: seeding (idempotent), checks over results, training sessions and wearable
//! rides, awards once with one notification, the workspace-wide job, permissions and tenancy.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn seed(app: &TestApp, s: &Session) -> Resp {
    let r = app.post("/api/achievements/seed").session(s).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r
}

async fn check(app: &TestApp, s: &Session, body: serde_json::Value) -> Resp {
    app.post("/api/achievements/check")
        .session(s)
        .json(body)
        .send()
        .await
}

fn codes(v: &serde_json::Value) -> Vec<String> {
    let mut c: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["code"].as_str().unwrap().to_string())
        .collect();
    c.sort();
    c
}

#[tokio::test]
async fn seeding_twice_creates_nothing_new() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let other = app.signup("other@example.com").await;
    let r = seed(&app, &coach).await;
    assert_eq!(r.json["created"], 7);
    let first = codes(&r.json["definitions"]);
    assert!(
        first.contains(&"first_podium".to_string()) && first.contains(&"10_sessions".to_string())
    );
    let r = seed(&app, &coach).await;
    assert_eq!(r.json["created"], 0);
    assert_eq!(codes(&r.json["definitions"]), first);
    assert_eq!(app.count("achievement_definitions").await, 7);
    assert_eq!(
        audit_count(&app, "achievements.seeded").await,
        1,
        "only a seed that added something"
    );
    let r = app.get("/api/achievements").session(&coach).send().await;
    assert_eq!(items(&r).len(), 7, "{}", r.body);
    let podium = items(&r)
        .iter()
        .find(|d| d["code"] == "first_podium")
        .unwrap()
        .clone();
    assert_eq!(
        (podium["metric"].as_str(), podium["threshold"].as_i64()),
        (Some("podiums"), Some(1))
    );
    // Each workspace has its own.
    assert_eq!(
        items(&app.get("/api/achievements").session(&other).send().await).len(),
        0
    );
    assert_eq!(seed(&app, &other).await.json["created"], 7);
}

#[tokio::test]
async fn a_check_awards_each_achievement_once_and_notifies_the_athlete_once() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let (coach, mia) = (&w.coach, &w.athlete_id);
    check(&app, coach, json!({ "athleteId": mia }))
        .await
        .assert_error(StatusCode::CONFLICT, "achievements_not_seeded");
    seed(&app, coach).await;
    add_result(&app, coach.org_id, mia, "e1", 2).await;
    add_result(&app, coach.org_id, mia, "e2", 1).await;
    add_result(&app, coach.org_id, mia, "e3", 9).await;
    attended_sessions(&app, coach, mia, 10).await;
    wearable_rides(&app, coach.org_id, mia, 30).await;
    wearable_rides(&app, coach.org_id, mia, 25).await;

    let r = check(&app, coach, json!({ "athleteId": mia })).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.json["metrics"],
        json!({ "podiums": 2, "wins": 1, "sessions": 10, "rides": 55, "wavesInSession": 30 }),
        "an older ride detection does not count"
    );
    assert_eq!(
        codes(&r.json["awarded"]),
        [
            "10_sessions",
            "50_rides",
            "first_podium",
            "first_win",
            "wave_count_20"
        ]
    );
    assert_eq!(r.json["notified"], 5);
    assert_eq!(
        notifications_of(&app, w.athlete.user_id, "achievement.awarded").await,
        5
    );
    assert_eq!(audit_count(&app, "achievement.awarded").await, 5);

    // Again: nothing new, nobody notified again.
    let r = check(&app, coach, json!({ "athleteId": mia })).await;
    assert_eq!(
        (r.json["awarded"].clone(), r.json["notified"].clone()),
        (json!([]), json!(0))
    );
    assert_eq!(
        notifications_of(&app, w.athlete.user_id, "achievement.awarded").await,
        5
    );
    assert_eq!(app.count("achievement_awards").await, 5);

    let path = format!("/api/athletes/{mia}/achievements");
    let r = app.get(&path).session(coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(codes(&serde_json::Value::Array(items(&r).clone())).len(), 5);
    let win = items(&r)
        .iter()
        .find(|a| a["code"] == "first_win")
        .unwrap()
        .clone();
    assert_eq!(
        (win["value"].as_i64(), win["athleteId"].as_str()),
        (Some(1), Some(mia.as_str()))
    );

    // Three more podiums: only the next threshold is new.
    for e in ["e4", "e5", "e6"] {
        add_result(&app, coach.org_id, mia, e, 3).await;
    }
    let r = check(&app, coach, json!({ "athleteId": mia })).await;
    assert_eq!(codes(&r.json["awarded"]), ["5_podiums"]);
    assert_eq!(
        notifications_of(&app, w.athlete.user_id, "achievement.awarded").await,
        6
    );
}

#[tokio::test]
async fn the_workspace_check_is_one_job_that_skips_archived_athletes() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    check(&app, &coach, json!({}))
        .await
        .assert_error(StatusCode::CONFLICT, "achievements_not_seeded");
    seed(&app, &coach).await;
    let a = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Ana", "lastName": "Paz" }),
    )
    .await);
    let b = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Bia", "lastName": "Rei" }),
    )
    .await);
    let gone = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Cid", "lastName": "Sol" }),
    )
    .await);
    add_result(&app, coach.org_id, &a, "e1", 1).await;
    add_result(&app, coach.org_id, &gone, "e1", 2).await;
    let r = app
        .req(Method::PATCH, &format!("/api/athletes/{gone}"))
        .session(&coach)
        .json(json!({ "status": "archived" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    let r = check(&app, &coach, json!({})).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let again = check(&app, &coach, json!({})).await;
    assert_eq!(
        (again.json["jobId"].clone(), again.json["existing"].clone()),
        (r.json["jobId"].clone(), json!(true))
    );
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(
        p.result.unwrap().0,
        json!({ "athletes": 2, "awarded": 2, "notified": 0 }),
        "first_podium and first_win of Ana"
    );
    for (athlete, n) in [(&a, 2), (&b, 0), (&gone, 0)] {
        let r = app
            .get(&format!("/api/athletes/{athlete}/achievements"))
            .session(&coach)
            .send()
            .await;
        assert_eq!(items(&r).len(), n, "{}", r.body);
    }
    let r = check(&app, &coach, json!({})).await;
    assert_eq!(r.json["existing"], false, "the first job is finished");
    let p = run_job(&app, &r.json["jobId"]).await;
    assert_eq!(p.result.unwrap().0["awarded"], 0);
    assert_eq!(app.count("achievement_awards").await, 2);
}

#[tokio::test]
async fn achievements_need_competition_permissions_and_stay_in_their_workspace() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let physio = member_without_competition(&app, &coach).await;
    let other = app.signup("other@example.com").await;
    let mia = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    seed(&app, &coach).await;
    seed(&app, &other).await;
    let awards = format!("/api/athletes/{mia}/achievements");

    for path in ["/api/achievements", awards.as_str()] {
        assert_eq!(
            app.get(path).session(&viewer).send().await.status,
            StatusCode::OK
        );
        app.get(path)
            .session(&physio)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    app.post("/api/achievements/seed")
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    check(&app, &viewer, json!({ "athleteId": mia }))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    check(&app, &viewer, json!({}))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    // Another workspace's athlete does not exist here.
    check(&app, &other, json!({ "athleteId": mia }))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&awards)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    check(&app, &coach, json!({ "athleteId": "not-an-id" }))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    check(&app, &coach, json!({ "athlete": mia }))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("achievement_awards").await, 0);
    assert_eq!(app.count("job_progress").await, 0, "nothing queued");
}

#[tokio::test]
async fn merging_athletes_keeps_their_notes_watches_and_awards() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    seed(&app, &coach).await;
    let keep = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await);
    let dup = id(&new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva", "email": "mia@example.com" }),
    )
    .await);
    for a in [&keep, &dup] {
        add_result(&app, coach.org_id, a, &format!("ev-{a}"), 1).await;
        assert_eq!(
            check(&app, &coach, json!({ "athleteId": a })).await.status,
            StatusCode::OK
        );
        let r = app
            .post("/api/watchlist")
            .session(&coach)
            .json(json!({ "kind": "athlete", "athleteId": a }))
            .send()
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    let r = app
        .post("/api/opponents")
        .session(&coach)
        .json(json!({ "opponent": { "athleteId": dup }, "body": "rival" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post(&format!("/api/athletes/{keep}/merge/{dup}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app
        .get(&format!("/api/athletes/{keep}/achievements"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        codes(&serde_json::Value::Array(items(&r).clone())),
        ["first_podium", "first_win"],
        "held by both: kept once"
    );
    let r = app.get("/api/watchlist").session(&coach).send().await;
    assert_eq!(items(&r).len(), 1, "{}", r.body);
    assert_eq!(items(&r)[0]["targetId"], keep.as_str());
    let r = app
        .get(&format!("/api/opponents?opponentAthleteId={keep}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1, "{}", r.body);
}
