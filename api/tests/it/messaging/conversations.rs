//! Conversations: coach–athlete only, who may open them, and who sees them.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn conversations_are_coach_athlete_only_and_each_side_sees_its_own() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let viewer = add_member(&app, w.coach.org_id, "viewer@example.com", "viewer").await;
    let assistant = add_member(&app, w.coach.org_id, "assistant@example.com", "coach").await;

    // Any other kind is refused with 400, on creation and on listing; nothing written.
    for kind in ["group", "direct", "coach_coach"] {
        app.post("/api/conversations")
            .session(&w.coach)
            .json(json!({ "kind": kind, "athleteId": w.athlete_id }))
            .send()
            .await
            .assert_error(StatusCode::BAD_REQUEST, "conversation_kind_unsupported");
    }
    app.get("/api/conversations?kind=group")
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "conversation_kind_unsupported");
    // Coach to coach: a coach naming another coach is not a coach–athlete conversation.
    app.post("/api/conversations")
        .session(&w.coach)
        .json(json!({ "athleteId": w.athlete_id, "coachId": assistant.user_id }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "conversation_kind_unsupported");
    // The athlete with a member who is not their coach.
    app.post("/api/conversations")
        .session(&w.athlete)
        .json(json!({ "athleteId": w.athlete_id, "coachId": assistant.user_id }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "conversation_kind_unsupported");
    let r = app
        .post("/api/conversations")
        .session(&w.coach)
        .json(json!({}))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["athleteId"]);
    let r = app
        .post("/api/conversations")
        .session(&w.athlete)
        .json(json!({ "athleteId": w.athlete_id }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["coachId"]);
    // Permission failure and another workspace: nothing written.
    app.post("/api/conversations")
        .session(&viewer)
        .json(json!({ "athleteId": w.athlete_id }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.post("/api/conversations")
        .session(&w.outsider)
        .json(json!({ "athleteId": w.athlete_id }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("conversations").await, 0, "nothing written");

    // The coach opens it; again is the same one; the athlete opening it finds it too.
    let r = app
        .post("/api/conversations")
        .session(&w.coach)
        .json(json!({ "kind": "coach_athlete", "athleteId": w.athlete_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let id = r.json["id"].as_str().unwrap().to_string();
    assert_eq!(r.json["myRole"], "coach");
    assert_eq!(r.json["athlete"]["firstName"], "Mia");
    assert_eq!(r.json["athlete"]["userId"], w.athlete.user_id.to_string());
    let r = app
        .post("/api/conversations")
        .session(&w.coach)
        .json(json!({ "athleteId": w.athlete_id }))
        .send()
        .await;
    assert_eq!(
        (r.status, r.json["id"].as_str()),
        (StatusCode::OK, Some(id.as_str()))
    );
    let r = app
        .post("/api/conversations")
        .session(&w.athlete)
        .json(json!({ "athleteId": w.athlete_id, "coachId": w.coach.user_id }))
        .send()
        .await;
    assert_eq!(
        (r.status, r.json["id"].as_str()),
        (StatusCode::OK, Some(id.as_str()))
    );
    assert_eq!(r.json["myRole"], "athlete");
    assert_eq!(app.count("conversations").await, 1);

    // Lists: each participant sees it; the other coach and the outsider do not.
    let r = app.get("/api/conversations").session(&w.coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1);
    let r = app
        .get("/api/conversations?limit=1")
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(items(&r)[0]["id"], id.as_str());
    assert_eq!(items(&r)[0]["coach"]["userId"], w.coach.user_id.to_string());
    assert!(r.json["nextOffset"].is_null());
    let r = app
        .get("/api/conversations")
        .session(&assistant)
        .send()
        .await;
    assert!(items(&r).is_empty());
    let r = app
        .get("/api/conversations")
        .session(&w.outsider)
        .send()
        .await;
    assert!(items(&r).is_empty());
    app.get(&format!("/api/conversations?orgId={}", w.coach.org_id))
        .session(&w.outsider)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/conversations?limit=0")
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // Recipients: the coach sees the athlete, the athlete sees their coach.
    let r = app
        .get("/api/conversations/recipients")
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1);
    assert_eq!(items(&r)[0]["kind"], "athlete");
    assert_eq!(items(&r)[0]["athleteId"], w.athlete_id.as_str());
    let r = app
        .get("/api/conversations/recipients?q=KAI")
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1, "{}", r.body);
    assert_eq!(items(&r)[0]["kind"], "coach");
    assert_eq!(items(&r)[0]["userId"], w.coach.user_id.to_string());
    let r = app
        .get("/api/conversations/recipients")
        .session(&viewer)
        .send()
        .await;
    assert!(items(&r).is_empty(), "no messaging.use, no recipients");
    let r = app
        .get("/api/conversations/recipients")
        .session(&w.outsider)
        .send()
        .await;
    assert!(items(&r).is_empty());

    // The module switched off: 403 for the coach, the conversation leaves both lists.
    disable_module(&app, w.coach.org_id, "messaging").await;
    app.post("/api/conversations")
        .session(&w.coach)
        .json(json!({ "athleteId": w.athlete_id }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    app.get(&format!("/api/conversations/{id}/messages"))
        .session(&w.athlete)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    let r = app
        .get("/api/conversations")
        .session(&w.athlete)
        .send()
        .await;
    assert!(items(&r).is_empty());
}
