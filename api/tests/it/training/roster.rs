//! A session's roster: capacity, the waitlist and its promotion.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn roster_waitlist_is_promoted_when_a_place_frees_up() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let s = new_training_session(&app, &coach, json!({ "title": "Small group", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z", "capacity": 2 })).await;
    let mut ids = vec![];
    for n in ["A", "B", "C", "D"] {
        ids.push(
            new_athlete(
                &app,
                &coach,
                json!({ "firstName": n, "lastName": "Surfer" }),
            )
            .await["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let theirs = new_athlete(&app, &other, json!({ "firstName": "X", "lastName": "Y" })).await;
    let roster = format!("/api/training-sessions/{}/participants", id(&s));
    let add = |a: String| {
        app.post(&roster)
            .session(&coach)
            .json(json!({ "athleteId": a }))
            .send()
    };
    for a in &ids {
        assert_eq!(add(a.clone()).await.status, StatusCode::CREATED);
    }
    add(ids[0].clone())
        .await
        .assert_error(StatusCode::CONFLICT, "already_participant");
    add(theirs["id"].as_str().unwrap().to_string())
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&roster)
        .session(&viewer)
        .json(json!({ "athleteId": ids[0] }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post(&roster)
        .session(&coach)
        .json(json!({ "athlete": ids[0] }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.get(&roster)
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("training_participants").await, 4);
    let r = app.get(&roster).session(&viewer).send().await;
    let st = participant_statuses(&r);
    assert_eq!(st, ["registered", "registered", "waitlisted", "waitlisted"]);

    // Attend, no-show; a waitlisted athlete cannot jump the queue while the session is full.
    let one = |a: &str| format!("{roster}/{a}");
    let r = app
        .req(Method::PATCH, &one(&ids[0]))
        .session(&coach)
        .json(json!({ "status": "attended" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    app.req(Method::PATCH, &one(&ids[1]))
        .session(&coach)
        .json(json!({ "status": "no_show" }))
        .send()
        .await;
    app.req(Method::PATCH, &one(&ids[3]))
        .session(&coach)
        .json(json!({ "status": "registered" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "session_full");
    app.req(Method::PATCH, &one(&ids[3]))
        .session(&coach)
        .json(json!({ "status": "sleeping" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // Removing a place-holder promotes the first waitlisted athlete (C, not D).
    let r = app
        .req(Method::DELETE, &one(&ids[1]))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["promoted"], json!([ids[2]]));
    assert_eq!(r.json["placesTaken"], 2);
    assert_eq!(r.json["waitlisted"], 1);
    app.req(Method::DELETE, &one(&ids[1]))
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    // Raising the capacity promotes too.
    let r = app
        .req(Method::PATCH, &format!("/api/training-sessions/{}", id(&s)))
        .session(&coach)
        .json(json!({ "capacity": 5 }))
        .send()
        .await;
    assert_eq!(r.json["roster"]["promoted"], json!([ids[3]]));
    assert_eq!(r.json["roster"]["waitlisted"], 0);
}

#[tokio::test]
async fn concurrent_adds_at_the_capacity_edge_never_overbook_and_removals_promote_once() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let s = new_training_session(&app, &coach, json!({ "title": "Popular", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z", "capacity": 3 })).await;
    let mut ids = vec![];
    for i in 0..10 {
        ids.push(
            new_athlete(
                &app,
                &coach,
                json!({ "firstName": format!("A{i}"), "lastName": "Z" }),
            )
            .await["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let roster = format!("/api/training-sessions/{}/participants", id(&s));
    let adds = ids.iter().map(|a| {
        let req = app
            .post(&roster)
            .session(&coach)
            .json(json!({ "athleteId": a }));
        req.send()
    });
    let results = futures::future::join_all(adds).await;
    for r in &results {
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    let r = app.get(&roster).session(&coach).send().await;
    assert_eq!(r.json["placesTaken"], 3, "{}", r.body);
    assert_eq!(r.json["waitlisted"], 7);
    let positions: std::collections::BTreeSet<i64> = r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["position"].as_i64().unwrap())
        .collect();
    assert_eq!(positions.len(), 10, "distinct positions");
    // Remove the three registered at once: exactly three promoted, in waitlist order.
    let registered: Vec<String> = r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "registered")
        .map(|p| p["athleteId"].as_str().unwrap().to_string())
        .collect();
    let first_waiting: Vec<String> = r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "waitlisted")
        .take(3)
        .map(|p| p["athleteId"].as_str().unwrap().to_string())
        .collect();
    let removes = registered.iter().map(|a| {
        app.req(Method::DELETE, &format!("{roster}/{a}"))
            .session(&coach)
            .send()
    });
    for r in futures::future::join_all(removes).await {
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    let r = app.get(&roster).session(&coach).send().await;
    assert_eq!(r.json["placesTaken"], 3);
    assert_eq!(r.json["waitlisted"], 4);
    let now_registered: std::collections::BTreeSet<String> = r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "registered")
        .map(|p| p["athleteId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(now_registered, first_waiting.into_iter().collect());
}
