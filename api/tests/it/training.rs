//! Training sessions tests (issue 5).

use crate::accounts::add_member;
use crate::athletes::new_athlete;
use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use shared::db::{Id, Ts};

async fn new_session(app: &TestApp, s: &Session, body: Value) -> Value {
    let r = app
        .post("/api/training-sessions")
        .session(s)
        .json(body)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn training_sessions_crud_with_filters_permissions_and_isolation() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let coach = add_member(&app, owner.org_id, "coach@example.com", "coach").await;
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
    let a = new_session(&app, &owner, json!({ "title": "Dawn patrol", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z",
        "location": "Ericeira", "spot": "Ribeira d'Ilhas", "coachUserId": coach.user_id, "capacity": 6 })).await;
    new_session(&app, &coach, json!({ "title": "Evening", "startsAt": "2026-05-02T18:00:00Z", "endsAt": "2026-05-02T19:30:00Z", "location": "Peniche" })).await;
    new_session(&app, &owner, json!({ "title": "June camp", "startsAt": "2026-06-10T09:00:00Z", "endsAt": "2026-06-12T17:00:00Z", "location": "ericeira" })).await;

    // Bad input: nothing written.
    let n = app.count("training_sessions").await;
    let r = app.post("/api/training-sessions").session(&owner)
        .json(json!({ "title": "", "startsAt": "2026-05-01T08:00:00Z", "endsAt": "2026-05-01T07:00:00Z", "capacity": 0 })).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let mut f = r.fields();
    f.sort();
    assert_eq!(f, ["capacity", "endsAt", "title"]);
    app.post("/api/training-sessions")
        .session(&owner)
        .json(json!({ "title": "x", "startsAt": "yesterday", "endsAt": "2026-05-01T07:00:00Z" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app.post("/api/training-sessions").session(&owner)
        .json(json!({ "title": "x", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T07:00:00Z", "coachUserId": other.user_id })).send().await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["coachUserId"]);
    app.post("/api/training-sessions").session(&viewer).json(json!({ "title": "x", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T07:00:00Z" })).send().await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(app.count("training_sessions").await, n);

    // Filters: time range (overlap), coach, location.
    let list = |q: &str| {
        app.get(&format!("/api/training-sessions{q}"))
            .session(&viewer)
            .send()
    };
    let r = list("?from=2026-05-01T07:00:00Z&to=2026-05-31T00:00:00Z").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let titles: Vec<&str> = r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Dawn patrol", "Evening"]);
    let r = list(&format!("?coachId={}", coach.user_id)).await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1);
    let r = list("?location=Ericeira").await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 2);
    list("?from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    list("?from=garbage")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");

    let path = format!("/api/training-sessions/{}", id(&a));
    let r = app.get(&path).session(&viewer).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["session"]["spot"], "Ribeira d'Ilhas");
    assert_eq!(r.json["roster"]["capacity"], 6);
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .json(json!({ "title": "Dawn", "capacity": null }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["session"]["title"], "Dawn");
    assert!(r.json["session"]["capacity"].is_null());
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .json(json!({ "endsAt": "2026-05-01T05:00:00Z" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(
        app.get(&path).session(&owner).send().await.json["session"]["endsAt"],
        "2026-05-01T08:00:00.000Z"
    );
    for m in [Method::GET, Method::PATCH, Method::DELETE] {
        app.req(m, &path)
            .session(&other)
            .json(json!({}))
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    app.req(Method::DELETE, &path)
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(
        app.req(Method::DELETE, &path)
            .session(&owner)
            .send()
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    app.get(&path)
        .session(&owner)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // The calendar's source: sessions overlapping a range.
    let mut c = app.state.db.acquire().await.unwrap();
    let from = Ts::from_datetime("2026-05-01T00:00:00Z".parse().unwrap());
    let to = Ts::from_datetime("2026-07-01T00:00:00Z".parse().unwrap());
    let entries = shared::repo::training::calendar_entries(&mut c, owner.org_id, from, to)
        .await
        .unwrap();
    let titles: Vec<&str> = entries.iter().map(|e| e.title.as_str()).collect();
    assert_eq!(titles, ["Evening", "June camp"]);
    assert!(
        shared::repo::training::calendar_entries(&mut c, other.org_id, from, to)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn roster_waitlist_is_promoted_when_a_place_frees_up() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
    let s = new_session(&app, &coach, json!({ "title": "Small group", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z", "capacity": 2 })).await;
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
    let st: Vec<&str> = r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
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
    let s = new_session(&app, &coach, json!({ "title": "Popular", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z", "capacity": 3 })).await;
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

#[tokio::test]
async fn provision_video_is_idempotent() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = app.signup("other@example.com").await;
    let s = new_session(&app, &coach, json!({ "title": "Filmed", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z" })).await;
    let body = json!({ "trainingSessionId": id(&s) });
    app.post("/api/training-sessions/provision-video")
        .session(&viewer)
        .json(body.clone())
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post("/api/training-sessions/provision-video")
        .session(&other)
        .json(body.clone())
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post("/api/training-sessions/provision-video")
        .session(&coach)
        .json(json!({ "trainingSessionId": "nope" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("footage_sessions").await, 0);
    let r1 = app
        .post("/api/training-sessions/provision-video")
        .session(&coach)
        .json(body.clone())
        .send()
        .await;
    assert_eq!(r1.status, StatusCode::CREATED, "{}", r1.body);
    let (r2, r3) = tokio::join!(
        app.post("/api/training-sessions/provision-video")
            .session(&coach)
            .json(body.clone())
            .send(),
        app.post("/api/training-sessions/provision-video")
            .session(&coach)
            .json(body.clone())
            .send()
    );
    for r in [&r2, &r3] {
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert_eq!(r.json["id"], r1.json["id"]);
        assert_eq!(r.json["created"], false);
    }
    assert_eq!(app.count("footage_sessions").await, 1);
}

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
    let errs: Vec<(u64, String)> = r.json["error"]["details"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["field"].as_str().unwrap().to_string(),
            )
        })
        .collect();
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
    let st: Vec<&str> = r.json["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
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

/// Every athlete and training route with an `{id}`: a member without the permission gets 403,
/// and another workspace's member gets 404 (their rows are invisible), writing nothing.
#[tokio::test]
async fn every_scoped_route_checks_permission_and_hides_other_workspaces() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(&mut c, sqlx::query("INSERT INTO roles (id, org_id, key, name, permissions, builtin, created_at, updated_at) VALUES ($1, $2, 'nobody', 'Nobody', $3, FALSE, $4, $4)")
        .bind(Id::new()).bind(owner.org_id).bind(sqlx::types::Json(Vec::<String>::new())).bind(Ts::now())).unwrap();
    drop(c);
    let nobody = add_member(&app, owner.org_id, "nobody@example.com", "nobody").await;
    let other = app.signup("other@example.com").await;
    let a = new_athlete(&app, &owner, json!({ "firstName": "Kai", "lastName": "L" })).await;
    let b = new_athlete(&app, &owner, json!({ "firstName": "Kai", "lastName": "M" })).await;
    let s = new_session(&app, &owner, json!({ "title": "S", "startsAt": "2026-05-01T06:00:00Z", "endsAt": "2026-05-01T08:00:00Z" })).await;
    let r = app
        .post(&format!("/api/athletes/{}/coaches", id(&a)))
        .session(&owner)
        .json(json!({ "userId": owner.user_id }))
        .send()
        .await;
    let sc = id(&r.json);
    app.post(&format!("/api/training-sessions/{}/participants", id(&s)))
        .session(&owner)
        .json(json!({ "athleteId": id(&a) }))
        .send()
        .await;
    let (a, b, s) = (id(&a), id(&b), id(&s));
    let routes: Vec<(Method, String, Value)> = vec![
        (Method::GET, format!("/api/athletes/{a}"), json!({})),
        (
            Method::PATCH,
            format!("/api/athletes/{a}"),
            json!({ "level": "pro" }),
        ),
        (Method::DELETE, format!("/api/athletes/{a}"), json!({})),
        (Method::GET, format!("/api/athletes/{a}/coaches"), json!({})),
        (
            Method::POST,
            format!("/api/athletes/{a}/coaches"),
            json!({ "userId": owner.user_id }),
        ),
        (
            Method::DELETE,
            format!("/api/athletes/{a}/coaches/{sc}"),
            json!({}),
        ),
        (
            Method::GET,
            format!("/api/athletes/{a}/permissions"),
            json!({}),
        ),
        (
            Method::GET,
            format!("/api/athletes/{a}/guardian-consent"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/api/athletes/{a}/guardian-consent"),
            json!({ "guardianName": "G", "relationship": "parent", "method": "paper" }),
        ),
        (
            Method::DELETE,
            format!("/api/athletes/{a}/guardian-consent"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/api/athletes/{a}/merge/{b}"),
            json!({}),
        ),
        (Method::POST, format!("/api/athletes/{a}/resync"), json!({})),
        (
            Method::POST,
            format!("/api/athletes/{a}/publish"),
            json!({ "published": true }),
        ),
        (
            Method::POST,
            "/api/invite".into(),
            json!({ "athleteId": a }),
        ),
        (
            Method::POST,
            "/api/invite/send".into(),
            json!({ "athleteId": a, "email": "x@example.com" }),
        ),
        (
            Method::GET,
            format!("/api/training-sessions/{s}"),
            json!({}),
        ),
        (
            Method::PATCH,
            format!("/api/training-sessions/{s}"),
            json!({ "title": "T" }),
        ),
        (
            Method::DELETE,
            format!("/api/training-sessions/{s}"),
            json!({}),
        ),
        (
            Method::GET,
            format!("/api/training-sessions/{s}/participants"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/api/training-sessions/{s}/participants"),
            json!({ "athleteId": b }),
        ),
        (
            Method::PATCH,
            format!("/api/training-sessions/{s}/participants/{a}"),
            json!({ "status": "attended" }),
        ),
        (
            Method::DELETE,
            format!("/api/training-sessions/{s}/participants/{a}"),
            json!({}),
        ),
        (
            Method::POST,
            "/api/training-sessions/provision-video".into(),
            json!({ "trainingSessionId": s }),
        ),
    ];
    let tables = [
        "athletes",
        "athlete_coaches",
        "athlete_invites",
        "guardian_consents",
        "training_sessions",
        "training_participants",
        "footage_sessions",
        "job_progress",
    ];
    let mut before = vec![];
    for t in tables {
        before.push(app.count(t).await);
    }
    for (m, path, body) in &routes {
        app.req(m.clone(), path)
            .session(&nobody)
            .json(body.clone())
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
        if !path.starts_with("/api/invite") {
            let r = app
                .req(m.clone(), path)
                .session(&other)
                .json(body.clone())
                .send()
                .await;
            r.assert_error(StatusCode::NOT_FOUND, "not_found");
        }
    }
    for (m, path) in [
        (Method::GET, "/api/athletes"),
        (Method::GET, "/api/athletes/export"),
        (Method::GET, "/api/training-sessions"),
        (Method::GET, "/api/club/enrollment"),
    ] {
        app.req(m, path)
            .session(&nobody)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    // A workspace the caller does not belong to, named by header, is not found.
    app.get("/api/athletes")
        .session(&other)
        .header("x-workspace-id", &owner.org_id.to_string())
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let mut after = vec![];
    for t in tables {
        after.push(app.count(t).await);
    }
    assert_eq!(before, after, "nothing written");
}
