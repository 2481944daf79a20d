//! Reviews: drafts of a footage session, keypoints (the coach's and the suggested), the build,
//! publishing to the athlete, permissions and tenancy.

pub mod coaching;
mod e2e;
mod replies;
pub mod voice;

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use shared::db::Id;

/// Gives the clip the stats a finished analysis would: two rides, three maneuvers, 30 s.
pub async fn analysed(app: &TestApp, clip: Id) {
    let stats = json!({
        "duration_ms": 30_000, "wave_count": 2, "top_speed_kmh": 31.5, "avg_speed_kmh": 18.2,
        "rides": [
            { "start_ms": 2000, "end_ms": 9500, "top_speed_kmh": 29.0 },
            { "start_ms": 15000, "end_ms": 24000 }
        ],
        "maneuvers": [
            { "type": "bottom_turn", "at_ms": 3000, "confidence": 0.93, "ride_index": 0 },
            { "type": "cutback", "at_ms": 6500, "confidence": 0.71, "ride_index": 0 },
            { "type": "floater", "at_ms": 18000, "confidence": 0.55, "ride_index": 1 }
        ]
    });
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE clips SET stats = $1, status = 'stored' WHERE id = $2")
            .bind(sqlx::types::Json(stats))
            .bind(clip)
    )
    .unwrap();
}

async fn new_review(app: &TestApp, s: &Session, session: Id, extra: Value) -> Resp {
    let mut body = json!({ "sessionId": session });
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    app.post("/api/reviews").session(s).json(body).send().await
}

#[tokio::test]
async fn suggestions_come_from_the_measurements_once_and_never_overwrite_the_coach() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (session, clip) = uploaded_clip(&app, &coach, b"video").await;
    analysed(&app, clip).await;
    let r = new_review(&app, &coach, session, json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["status"], "draft");
    let id = r.json["id"].as_str().unwrap().to_string();

    let s = app
        .post(&format!("/api/reviews/{id}/suggest"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(s.status, StatusCode::OK, "{}", s.body);
    assert_eq!(s.json["added"], 5, "two rides and three maneuvers");
    let kps = s.json["review"]["keypoints"].as_array().unwrap().clone();
    let ride = kps.iter().find(|k| k["atMs"] == 2000).unwrap();
    assert_eq!(ride["endMs"], 9500);
    assert_eq!(ride["body"], "Ride 1: 7.5 s, top speed 29.0 km/h");
    assert_eq!(ride["origin"], "suggested");
    let cutback = kps
        .iter()
        .find(|k| k["maneuverType"] == "cutback")
        .unwrap()
        .clone();
    assert_eq!(cutback["body"], "cutback (71% confidence)");
    let floater = kps
        .iter()
        .find(|k| k["maneuverType"] == "floater")
        .unwrap()
        .clone();

    // The coach rewrites one suggestion and dismisses another, and adds their own.
    let kp = |k: &Value| format!("/api/reviews/{id}/keypoints/{}", k["id"].as_str().unwrap());
    let r = app
        .req(Method::PATCH, &kp(&cutback))
        .session(&coach)
        .json(json!({ "body": "Open your shoulders earlier", "drawing": { "arrows": [[0.2, 0.4, 0.5, 0.1]] } }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["origin"], "coach");
    let r = app
        .req(Method::DELETE, &kp(&floater))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let own = app
        .post(&format!("/api/reviews/{id}/keypoints"))
        .session(&coach)
        .json(json!({ "clipId": clip, "atMs": 26000, "body": "Kick out cleaner" }))
        .send()
        .await;
    assert_eq!(own.status, StatusCode::CREATED, "{}", own.body);

    // Suggesting again adds nothing, keeps the rewrite and leaves the dismissed one out.
    let s = app
        .post(&format!("/api/reviews/{id}/suggest"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(s.json["added"], 0);
    let kps = s.json["review"]["keypoints"].as_array().unwrap();
    assert_eq!(kps.len(), 5, "four suggestions left and the coach's own");
    assert!(
        kps.iter()
            .any(|k| k["body"] == "Open your shoulders earlier")
    );
    assert!(!kps.iter().any(|k| k["maneuverType"] == "floater"));

    // Bad keypoints name their fields; a clip of another session is refused.
    let bad = app
        .post(&format!("/api/reviews/{id}/keypoints"))
        .session(&coach)
        .json(json!({ "clipId": clip, "atMs": -5, "endMs": -10, "body": "", "drawing": "a line" }))
        .send()
        .await;
    bad.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let fields = bad.fields();
    for f in ["atMs", "endMs", "body", "drawing"] {
        assert!(fields.contains(&f.to_string()), "{f} in {fields:?}");
    }
    app.post(&format!("/api/reviews/{id}/keypoints"))
        .session(&coach)
        .json(json!({ "clipId": clip, "atMs": 31000, "body": "past the end" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let (_, other_clip) = uploaded_clip(&app, &coach, b"x").await;
    app.post(&format!("/api/reviews/{id}/keypoints"))
        .session(&coach)
        .json(json!({ "clipId": other_clip, "atMs": 1, "body": "elsewhere" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
}

#[tokio::test]
async fn a_built_review_is_published_to_its_athlete_and_then_stays_as_read() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let worker = app.start_worker(&[]).await;
    let (session, clip) = uploaded_clip(&app, &w.coach, b"video").await;
    analysed(&app, clip).await;
    let r = new_review(
        &app,
        &w.coach,
        session,
        json!({ "athleteId": w.athlete_id, "title": "Pipe, Tuesday" }),
    )
    .await;
    let id = r.json["id"].as_str().unwrap().to_string();

    // Publishing needs a build first.
    app.post(&format!("/api/reviews/{id}/publish"))
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "review_state_conflict");
    let b = app
        .post(&format!("/api/reviews/{id}/build"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(b.status, StatusCode::ACCEPTED, "{}", b.body);
    let job: Id = b.json["jobId"].as_str().unwrap().parse().unwrap();
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = app
        .get(&format!("/api/reviews/{id}"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.json["status"], "ready", "{}", r.body);
    assert!(r.json["builtAt"].is_string());

    // An edit sends a ready review back to draft; it is built again, then published.
    let r = app
        .req(Method::PATCH, &format!("/api/reviews/{id}"))
        .session(&w.coach)
        .json(json!({ "summary": "Great session: commit to the bottom turn." }))
        .send()
        .await;
    assert_eq!(r.json["status"], "draft", "{}", r.body);
    let b = app
        .post(&format!("/api/reviews/{id}/build"))
        .session(&w.coach)
        .send()
        .await;
    let job2: Id = b.json["jobId"].as_str().unwrap().parse().unwrap();
    assert_ne!(job2, job, "a rebuild after an edit is a new job");
    app.wait_job(job2, |p| p.status == "succeeded").await;
    let r = app
        .post(&format!("/api/reviews/{id}/publish"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["status"], "published");
    assert!(r.json["publishedAt"].is_string());

    // The athlete is notified once.
    let mut c = app.state.db.acquire().await.unwrap();
    let n: Vec<(String, String)> = shared::sql!(&mut c, c => sqlx::query_as::<_, (String, String)>("SELECT kind, title FROM notifications WHERE user_id = $1")
        .bind(w.athlete.user_id).fetch_all(&mut *c).await).unwrap();
    drop(c);
    assert_eq!(
        n,
        vec![(
            "review.published".to_string(),
            "A new review from your coach".to_string()
        )]
    );

    // A published review stays as the athlete read it.
    app.req(Method::PATCH, &format!("/api/reviews/{id}"))
        .session(&w.coach)
        .json(json!({ "title": "changed" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "review_state_conflict");
    app.post(&format!("/api/reviews/{id}/suggest"))
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "review_state_conflict");
    app.post(&format!("/api/reviews/{id}/publish"))
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "review_state_conflict");
    let list = app
        .get("/api/reviews?status=published")
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(items(&list).len(), 1);
    worker.shutdown().await;
}

#[tokio::test]
async fn viewers_read_managers_write_and_other_workspaces_see_nothing() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let (session, clip) = uploaded_clip(&app, &coach, b"video").await;
    let r = new_review(&app, &coach, session, json!({})).await;
    let id = r.json["id"].as_str().unwrap().to_string();

    let r = app
        .get(&format!("/api/reviews/{id}"))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK);
    new_review(&app, &viewer, session, json!({}))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post(&format!("/api/reviews/{id}/suggest"))
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    // Another workspace: every id is a 404, its own session cannot be reviewed with ours.
    for (m, path) in [
        (Method::GET, format!("/api/reviews/{id}")),
        (Method::PATCH, format!("/api/reviews/{id}")),
        (Method::DELETE, format!("/api/reviews/{id}")),
        (Method::POST, format!("/api/reviews/{id}/suggest")),
        (Method::POST, format!("/api/reviews/{id}/build")),
        (Method::POST, format!("/api/reviews/{id}/publish")),
    ] {
        app.req(m.clone(), &path)
            .session(&other)
            .json(json!({ "title": "x" }))
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    new_review(&app, &other, session, json!({}))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .post(&format!("/api/reviews/{id}/keypoints"))
        .session(&other)
        .json(json!({ "clipId": clip, "atMs": 1, "body": "x" }))
        .send()
        .await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(
        items(&app.get("/api/reviews").session(&other).send().await).len(),
        0
    );
    new_review(&app, &coach, session, json!({ "athleteId": Id::new() }))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // The owner deletes it.
    let r = app
        .req(Method::DELETE, &format!("/api/reviews/{id}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(app.count("reviews").await, 0);
}

/// Builds and publishes a review of `session` for `athlete`; returns its id.
async fn published(app: &TestApp, coach: &Session, session: Id, athlete: &str) -> String {
    let r = new_review(app, coach, session, json!({ "athleteId": athlete })).await;
    let id = r.json["id"].as_str().unwrap().to_string();
    app.post(&format!("/api/reviews/{id}/suggest"))
        .session(coach)
        .send()
        .await;
    let b = app
        .post(&format!("/api/reviews/{id}/build"))
        .session(coach)
        .send()
        .await;
    let job: Id = b.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(job, |p| p.status == "succeeded").await;
    let r = app
        .post(&format!("/api/reviews/{id}/publish"))
        .session(coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    id
}

#[tokio::test]
async fn the_athlete_and_a_minors_guardian_read_published_reviews_on_the_phone() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let (minor, _minor_session, _guardian) = minor_with_guardian(&app, &w.coach).await;
    let worker = app.start_worker(&[]).await;
    let (session, clip) = uploaded_clip(&app, &w.coach, b"video").await;
    analysed(&app, clip).await;
    let mine = published(&app, &w.coach, session, &w.athlete_id).await;
    let theirs = published(&app, &w.coach, session, &minor).await;
    // A draft for the athlete stays with the coach.
    new_review(
        &app,
        &w.coach,
        session,
        json!({ "athleteId": w.athlete_id }),
    )
    .await;

    let (athlete_token, _) = app.phone_tokens("mia@example.com").await;
    let path = format!("/api/mobile/sessions/{session}/reviews");
    let r = app.get(&path).bearer(&athlete_token).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let items = r.json["items"].as_array().unwrap();
    assert_eq!(
        items.len(),
        1,
        "only the athlete's own published review: {}",
        r.body
    );
    assert_eq!(items[0]["id"], mine);
    assert_eq!(items[0]["keypoints"].as_array().unwrap().len(), 5);
    // The cookie session is not enough on a phone route.
    app.get(&path)
        .session(&w.athlete)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "unauthenticated");

    // The guardian reads the minor's review, not Mia's.
    let (guardian_token, _) = app.phone_tokens("ana@example.com").await;
    let r = app.get(&path).bearer(&guardian_token).send().await;
    let items = r.json["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{}", r.body);
    assert_eq!(items[0]["id"], theirs);
    // Someone unrelated sees nothing, and a receipt on a review they cannot read is a 404.
    let (outsider, _) = app.phone_tokens("outsider@example.com").await;
    let r = app.get(&path).bearer(&outsider).send().await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 0);
    app.post(&format!("/api/mobile/reviews/{mine}/receipts"))
        .bearer(&outsider)
        .json(json!({ "deviceId": "x" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // Receipts: delivered, then opened, each kept once per device.
    let receipt = |opened: bool, device: &'static str| {
        app.post(&format!("/api/mobile/reviews/{mine}/receipts"))
            .bearer(&athlete_token)
            .json(json!({ "deviceId": device, "opened": opened }))
            .send()
    };
    let d = receipt(false, "iphone-1").await;
    assert_eq!(d.status, StatusCode::OK, "{}", d.body);
    assert_eq!(d.json["openedAt"], Value::Null);
    let o = receipt(true, "iphone-1").await;
    assert!(o.json["openedAt"].is_string());
    assert_eq!(
        o.json["deliveredAt"], d.json["deliveredAt"],
        "the first delivery is kept"
    );
    let again = receipt(true, "iphone-1").await;
    assert_eq!(
        again.json["openedAt"], o.json["openedAt"],
        "the first opening is kept"
    );
    receipt(false, "ipad-2").await;
    app.post(&format!("/api/mobile/reviews/{mine}/receipts"))
        .bearer(&athlete_token)
        .json(json!({ "deviceId": "" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .get(&format!("/api/reviews/{mine}"))
        .session(&w.coach)
        .send()
        .await;
    let receipts = r.json["receipts"].as_array().unwrap();
    assert_eq!(receipts.len(), 2, "{}", r.body);
    assert!(
        receipts
            .iter()
            .any(|r| r["deviceId"] == "iphone-1" && r["openedAt"].is_string())
    );
    worker.shutdown().await;
}

/// Keypoints are the coach's work: a viewer reads them but neither changes nor deletes one,
/// and a role without `reviews.read` reads no review at all.
#[tokio::test]
async fn keypoints_need_reviews_manage_and_reading_needs_reviews_read() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let (session, clip) = uploaded_clip(&app, &coach, b"video").await;
    let r = new_review(&app, &coach, session, json!({})).await;
    let id = r.json["id"].as_str().unwrap().to_string();
    let k = app
        .post(&format!("/api/reviews/{id}/keypoints"))
        .session(&coach)
        .json(json!({ "clipId": clip, "atMs": 500, "body": "Eyes up" }))
        .send()
        .await;
    let kp = k.json["id"].as_str().unwrap().to_string();
    let path = format!("/api/reviews/{id}/keypoints/{kp}");
    app.req(Method::PATCH, &path)
        .session(&viewer)
        .json(json!({ "body": "changed" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.req(Method::DELETE, &path)
        .session(&viewer)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post(&format!("/api/reviews/{id}/keypoints"))
        .session(&viewer)
        .json(json!({ "clipId": clip, "atMs": 900, "body": "mine" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = app
        .get(&format!("/api/reviews/{id}"))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(
        r.json["keypoints"][0]["body"], "Eyes up",
        "unchanged: {}",
        r.body
    );

    let role = app
        .post(&format!("/api/orgs/{}/roles", coach.org_id))
        .session(&coach)
        .json(json!({ "name": "Front desk", "permissions": ["athletes.read"] }))
        .send()
        .await;
    let desk = add_member(
        &app,
        coach.org_id,
        "desk@example.com",
        role.json["key"].as_str().unwrap(),
    )
    .await;
    for p in [
        "/api/reviews".to_string(),
        format!("/api/reviews/{id}"),
        format!("/api/reviews/{id}/replies"),
    ] {
        app.get(&p)
            .session(&desk)
            .send()
            .await
            .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
}
