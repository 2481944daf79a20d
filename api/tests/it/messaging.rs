//! Messaging: coach–athlete conversations, messages, attachments, reports and their moderation.

use crate::accounts::add_member;
use crate::athletes::{born, new_athlete};
use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

/// A workspace with its owner (a coach), an athlete who claimed a login and is coached by the
/// owner, and a second workspace's owner.
pub struct World {
    pub coach: Session,
    pub athlete: Session,
    pub athlete_id: String,
    pub outsider: Session,
}

pub async fn world(app: &TestApp) -> World {
    let coach = app.signup("coach@example.com").await;
    let outsider = app.signup("outsider@example.com").await;
    let a = new_athlete(
        app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await;
    let athlete_id = a["id"].as_str().unwrap().to_string();
    let r = app
        .post(&format!("/api/athletes/{athlete_id}/coaches"))
        .session(&coach)
        .json(json!({ "userId": coach.user_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post("/api/invite")
        .session(&coach)
        .json(json!({ "athleteId": athlete_id }))
        .send()
        .await;
    let token = r.json["token"].as_str().unwrap().to_string();
    let r = app
        .post("/api/invite/claim")
        .json(json!({ "token": token, "email": "mia@example.com", "password": PASSWORD, "birthDate": born(20, 0) }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let athlete = session_from(&r, "mia@example.com");
    World {
        coach,
        athlete,
        athlete_id,
        outsider,
    }
}

pub async fn open_conversation(app: &TestApp, w: &World) -> String {
    let r = app
        .post("/api/conversations")
        .session(&w.coach)
        .json(json!({ "athleteId": w.athlete_id }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    r.json["id"].as_str().unwrap().to_string()
}

pub async fn post_message(app: &TestApp, s: &Session, conv: &str, body: &str) -> Value {
    let r = app
        .post(&format!("/api/conversations/{conv}/messages"))
        .session(s)
        .json(json!({ "body": body }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json
}

fn items(r: &Resp) -> &Vec<Value> {
    r.json["items"].as_array().expect("a page")
}

async fn disable_messaging(app: &TestApp, org: shared::db::Id) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE orgs SET disabled_modules = $1 WHERE id = $2")
            .bind(sqlx::types::Json(vec!["messaging".to_string()]))
            .bind(org)
    )
    .unwrap();
}

#[tokio::test]
async fn conversations_are_coach_athlete_only_and_each_side_sees_its_own() {
    let app = TestApp::new().await;
    let w = world(&app).await;
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
    disable_messaging(&app, w.coach.org_id).await;
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

#[tokio::test]
async fn messages_are_for_participants_with_read_state_and_tombstones() {
    let app = TestApp::new().await;
    let w = world(&app).await;
    let other_coach = add_member(&app, w.coach.org_id, "assistant@example.com", "coach").await;
    let conv = open_conversation(&app, &w).await;
    let path = format!("/api/conversations/{conv}/messages");

    // Bad input: nothing written.
    let r = app
        .post(&path)
        .session(&w.coach)
        .json(json!({ "body": "   " }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["body"]);
    let r = app
        .post(&path)
        .session(&w.coach)
        .json(json!({ "body": "x".repeat(4001) }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.post(&path)
        .session(&w.coach)
        .json(json!({ "text": "hi" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    // Not a participant: the other coach of the workspace and another workspace's owner.
    for s in [&other_coach, &w.outsider] {
        app.post(&path)
            .session(s)
            .json(json!({ "body": "hi" }))
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
        app.get(&path)
            .session(s)
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(app.count("messages").await, 0, "nothing written");
    assert_eq!(app.count("notifications").await, 0);

    let first = post_message(&app, &w.coach, &conv, "Paddle out at 7").await;
    assert_eq!(first["mine"], true);
    post_message(&app, &w.coach, &conv, "Bring the 6'2").await;
    // The athlete has two unread, reads them (newest first), then has none.
    let r = app
        .get("/api/conversations")
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(items(&r)[0]["unread"], 2);
    let r = app.get(&path).session(&w.athlete).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 2);
    assert_eq!(items(&r)[0]["body"], "Bring the 6'2");
    assert_eq!(items(&r)[0]["mine"], false);
    let r = app
        .get("/api/conversations")
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(items(&r)[0]["unread"], 0);
    let r = app.get("/api/conversations").session(&w.coach).send().await;
    assert_eq!(items(&r)[0]["unread"], 0, "own messages are not unread");
    let reply = post_message(&app, &w.athlete, &conv, "See you there").await;
    let r = app.get("/api/conversations").session(&w.coach).send().await;
    assert_eq!(items(&r)[0]["unread"], 1);
    // Each message notified the other participant, with its delivery job queued.
    assert_eq!(app.count("notifications").await, 3);
    assert_eq!(app.count("notification_deliveries").await, 6);

    // Only the sender deletes a message; it stays as a tombstone.
    let first_id = first["id"].as_str().unwrap();
    app.req(Method::DELETE, &format!("/api/messages/{first_id}"))
        .session(&w.athlete)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    app.req(Method::DELETE, &format!("/api/messages/{first_id}"))
        .session(&w.outsider)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .req(Method::DELETE, &format!("/api/messages/{first_id}"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let r = app.get(&path).session(&w.athlete).send().await;
    let tomb = items(&r).iter().find(|m| m["id"] == first["id"]).unwrap();
    assert_eq!(tomb["removed"], true);
    assert!(tomb["body"].is_null());
    assert_eq!(tomb["removedReason"], "sender");
    assert_eq!(reply["conversationId"], conv.as_str());
}

#[tokio::test]
async fn photo_attachments_are_uploaded_per_conversation_and_resolved_for_participants_only() {
    let app = TestApp::new().await;
    let w = world(&app).await;
    let conv = open_conversation(&app, &w).await;
    let up = format!("/api/conversations/{conv}/attachments");
    let r = app
        .post(&up)
        .session(&w.coach)
        .json(json!({ "contentType": "application/pdf" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["contentType"]);
    app.post(&up)
        .session(&w.outsider)
        .json(json!({ "contentType": "image/png" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .post(&up)
        .session(&w.coach)
        .json(json!({ "contentType": "image/png" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let key = r.json["attachmentKey"].as_str().unwrap().to_string();
    let upload = r.json["uploadUrl"].as_str().unwrap();
    let local = upload.strip_prefix("http://app.test").unwrap();
    let photo = b"fake png photo bytes";
    let r = app
        .req(Method::PUT, local)
        .raw("image/png", photo)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);

    // A key that was not uploaded, or one of another conversation, is refused.
    let path = format!("/api/conversations/{conv}/messages");
    for bad in [
        format!("messages/{}/{conv}/nothing-here.png", w.coach.org_id),
        key.replace(&conv, &shared::db::Id::new().to_string()),
    ] {
        let r = app
            .post(&path)
            .session(&w.coach)
            .json(json!({ "attachmentKey": bad }))
            .send()
            .await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert_eq!(r.fields(), ["attachmentKey"]);
    }
    assert_eq!(app.count("messages").await, 0);
    let r = app
        .post(&path)
        .session(&w.coach)
        .json(json!({ "attachmentKey": key }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["hasAttachment"], true);
    let mid = r.json["id"].as_str().unwrap().to_string();
    let text = post_message(&app, &w.coach, &conv, "no photo").await;

    // The athlete resolves it to a short-lived URL that serves the photo.
    let r = app
        .get(&format!("/api/messages/attachment?messageId={mid}"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let url = r.json["url"].as_str().unwrap();
    let got = app
        .get(url.strip_prefix("http://app.test").unwrap())
        .send()
        .await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(got.body.as_bytes(), photo);
    // Not a participant, or no photo: 404. No messageId: 400.
    app.get(&format!("/api/messages/attachment?messageId={mid}"))
        .session(&w.outsider)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!(
        "/api/messages/attachment?messageId={}",
        text["id"].as_str().unwrap()
    ))
    .session(&w.athlete)
    .send()
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get("/api/messages/attachment")
        .session(&w.athlete)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");
}

pub async fn make_admin(app: &TestApp, s: &Session) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE users SET is_platform_admin = TRUE WHERE id = $1").bind(s.user_id)
    )
    .unwrap();
}

async fn audit_count(app: &TestApp, action: &str) -> i64 {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM audit_log WHERE action = $1")
        .bind(action).fetch_one(&mut *c).await).unwrap()
}

#[tokio::test]
async fn reports_reach_the_admin_queue_and_resolving_can_remove_the_message() {
    let app = TestApp::new().await;
    let w = world(&app).await;
    let admin = app.signup("admin@example.com").await;
    make_admin(&app, &admin).await;
    let conv = open_conversation(&app, &w).await;
    let m = post_message(&app, &w.coach, &conv, "rude words").await;
    let mid = m["id"].as_str().unwrap();
    let report = format!("/api/messages/{mid}/report");

    // Bad input, own message, not a participant: nothing written.
    let r = app
        .post(&report)
        .session(&w.athlete)
        .json(json!({ "reason": "meh" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["reason"]);
    app.post(&report)
        .session(&w.coach)
        .json(json!({ "reason": "spam" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "cannot_report_own_message");
    app.post(&report)
        .session(&w.outsider)
        .json(json!({ "reason": "spam" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("message_reports").await, 0);

    let r = app
        .post(&report)
        .session(&w.athlete)
        .json(json!({ "reason": "harassment", "details": "not ok" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["status"], "open");
    let rid = r.json["id"].as_str().unwrap().to_string();
    app.post(&report)
        .session(&w.athlete)
        .json(json!({ "reason": "spam" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "already_reported");
    assert_eq!(app.count("message_reports").await, 1);

    // The queue: admins only, with the message and its conversation; mirrored for the phone.
    app.get("/api/admin/message-reports")
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    app.get("/api/admin/message-reports?status=bogus")
        .session(&admin)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    let r = app
        .get("/api/admin/message-reports?status=open")
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let item = &items(&r)[0];
    assert_eq!(item["id"], rid.as_str());
    assert_eq!(item["reason"], "harassment");
    assert_eq!(item["reporterId"], w.athlete.user_id.to_string());
    assert_eq!(item["message"]["body"], "rude words");
    assert_eq!(item["message"]["senderId"], w.coach.user_id.to_string());
    assert_eq!(item["conversation"]["id"], conv.as_str());
    assert_eq!(item["conversation"]["orgId"], w.coach.org_id.to_string());
    assert_eq!(item["conversation"]["athleteName"], "Mia Silva");
    let r = app
        .get(&format!(
            "/api/admin/message-reports?status=resolved&orgId={}",
            w.coach.org_id
        ))
        .session(&admin)
        .send()
        .await;
    assert!(items(&r).is_empty());
    let (access, _) = app.phone_tokens("admin@example.com").await;
    let r = app
        .get("/api/mobile/admin/message-reports")
        .bearer(&access)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1, "{}", r.body);

    // Deciding: bad input and unknown reports change nothing.
    let decide = format!("/api/admin/message-reports/{rid}");
    let r = app
        .req(Method::PATCH, &decide)
        .session(&admin)
        .json(json!({ "status": "dismissed", "removeMessage": true }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["removeMessage"]);
    app.req(Method::PATCH, &decide)
        .session(&admin)
        .json(json!({ "status": "open" }))
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    app.req(
        Method::PATCH,
        &format!("/api/admin/message-reports/{}", shared::db::Id::new()),
    )
    .session(&admin)
    .json(json!({ "status": "resolved" }))
    .send()
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.req(Method::PATCH, &decide)
        .session(&w.coach)
        .json(json!({ "status": "resolved" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    assert_eq!(audit_count(&app, "admin.message_report_resolved").await, 0);

    let r = app
        .req(
            Method::PATCH,
            &format!("/api/mobile{}", decide.trim_start_matches("/api")),
        )
        .bearer(&access)
        .json(json!({ "status": "resolved", "removeMessage": true, "note": "abusive" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["status"], "resolved");
    assert_eq!(r.json["messageRemoved"], true);
    assert_eq!(r.json["resolutionNote"], "abusive");
    assert!(r.json["message"]["removedAt"].is_string());
    assert_eq!(r.json["resolvedBy"], admin.user_id.to_string());
    assert_eq!(audit_count(&app, "admin.message_report_resolved").await, 1);
    app.req(Method::PATCH, &decide)
        .session(&admin)
        .json(json!({ "status": "dismissed" }))
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "report_not_open");
    // The participants now see a tombstone.
    let r = app
        .get(&format!("/api/conversations/{conv}/messages"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(items(&r)[0]["removed"], true);
    assert_eq!(items(&r)[0]["removedReason"], "moderation");
    assert!(items(&r)[0]["body"].is_null());
}

#[tokio::test]
async fn admins_list_notifications_with_their_deliveries() {
    let app = TestApp::new().await;
    let w = world(&app).await;
    let admin = app.signup("admin@example.com").await;
    make_admin(&app, &admin).await;
    let conv = open_conversation(&app, &w).await;
    post_message(&app, &w.coach, &conv, "Dawn patrol tomorrow?").await;
    post_message(&app, &w.athlete, &conv, "Yes!").await;

    app.get("/api/admin/notifications")
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    for bad in ["status=lost", "channel=pigeon"] {
        app.get(&format!("/api/admin/notifications?{bad}"))
            .session(&admin)
            .send()
            .await
            .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    }
    let r = app
        .get(&format!(
            "/api/admin/notifications?userId={}",
            w.athlete.user_id
        ))
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1);
    let n = &items(&r)[0];
    assert_eq!(n["kind"], "message.new");
    assert_eq!(n["body"], "Dawn patrol tomorrow?");
    assert_eq!(n["data"]["conversationId"], conv.as_str());
    let mut channels: Vec<(String, String)> = n["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["channel"].as_str().unwrap().to_string(),
                d["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    channels.sort();
    assert_eq!(
        channels,
        [
            ("email".to_string(), "pending".to_string()),
            ("push".to_string(), "pending".to_string())
        ]
    );
    let r = app
        .get("/api/admin/notifications?kind=message.new&status=pending&channel=email&limit=1")
        .session(&admin)
        .send()
        .await;
    assert_eq!(items(&r).len(), 1);
    assert_eq!(r.json["nextOffset"], 1);
    let r = app
        .get("/api/admin/notifications?status=sent")
        .session(&admin)
        .send()
        .await;
    assert!(items(&r).is_empty());
    let (access, _) = app.phone_tokens("admin@example.com").await;
    let r = app
        .get(&format!(
            "/api/mobile/admin/notifications?orgId={}",
            w.coach.org_id
        ))
        .bearer(&access)
        .send()
        .await;
    assert_eq!(items(&r).len(), 2, "{}", r.body);
}

/// Merging a duplicate athlete keeps its conversations: one with a coach who also talks to the
/// kept athlete hands over its messages (and their reports); another one moves as it is.
#[tokio::test]
async fn merging_athletes_keeps_their_conversations_messages_and_reports() {
    let app = TestApp::new().await;
    let w = world(&app).await;
    let kept = open_conversation(&app, &w).await;
    post_message(&app, &w.athlete, &kept, "first, to the kept record").await;

    // The duplicate record (no login) has its own conversation with the same coach and one
    // with a second coach.
    let dup = new_athlete(
        &app,
        &w.coach,
        json!({ "firstName": "Mia", "lastName": "Silva" }),
    )
    .await;
    let dup_id = dup["id"].as_str().unwrap().to_string();
    let r = app
        .post("/api/conversations")
        .session(&w.coach)
        .json(json!({ "athleteId": dup_id }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    let twin = r.json["id"].as_str().unwrap().to_string();
    let m = post_message(&app, &w.coach, &twin, "second, to the duplicate").await;
    let second_coach = add_member(&app, w.coach.org_id, "coach2@example.com", "coach").await;
    let r = app
        .post("/api/conversations")
        .session(&second_coach)
        .json(json!({ "athleteId": dup_id }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    let other = r.json["id"].as_str().unwrap().to_string();
    post_message(&app, &second_coach, &other, "from the second coach").await;

    // A report on the duplicate's conversation (filed through the repository: the duplicate
    // has no login to report with).
    let report = {
        let mut c = app.state.db.acquire().await.unwrap();
        let msg =
            shared::repo::messaging::message(&mut c, m["id"].as_str().unwrap().parse().unwrap())
                .await
                .unwrap()
                .unwrap();
        shared::repo::messaging::insert_report(&mut c, &msg, w.coach.user_id, "other", None)
            .await
            .unwrap()
            .unwrap()
    };

    let r = app
        .post(&format!("/api/athletes/{}/merge/{dup_id}", w.athlete_id))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["moved"]["conversations"], 2);
    assert_eq!(app.count("conversations").await, 2);
    assert_eq!(app.count("messages").await, 3, "no message lost");

    // The athlete now sees both messages of the coach conversation, and the second coach's.
    let r = app
        .get(&format!("/api/conversations/{kept}/messages"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let bodies: Vec<&str> = r.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["body"].as_str().unwrap())
        .collect();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert!(bodies.contains(&"second, to the duplicate"), "{bodies:?}");
    app.get(&format!("/api/conversations/{twin}/messages"))
        .session(&w.coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .get(&format!("/api/conversations/{other}/messages"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "moved as it is: {}", r.body);

    let mut c = app.state.db.acquire().await.unwrap();
    let rep = shared::repo::messaging::report(&mut c, report)
        .await
        .unwrap()
        .expect("the report survives the merge");
    assert_eq!(rep.conversation_id.to_string(), kept);
}

/// A 12-year-old athlete whose login a guardian (Ana) created through the guardian invite;
/// returns (athlete id, athlete session, guardian session).
async fn minor_with_guardian(app: &TestApp, coach: &Session) -> (String, Session, Session) {
    let a = new_athlete(
        app,
        coach,
        json!({ "firstName": "Leo", "lastName": "Costa" }),
    )
    .await;
    let athlete_id = a["id"].as_str().unwrap().to_string();
    let r = app
        .post(&format!("/api/athletes/{athlete_id}/coaches"))
        .session(coach)
        .json(json!({ "userId": coach.user_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post("/api/invite")
        .session(coach)
        .json(json!({ "athleteId": athlete_id }))
        .send()
        .await;
    let token = r.json["token"].as_str().unwrap().to_string();
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

#[tokio::test]
async fn guardians_read_a_minors_conversations_but_cannot_write_and_others_get_404() {
    let app = TestApp::new().await;
    let w = world(&app).await;
    let (leo_id, leo, ana) = minor_with_guardian(&app, &w.coach).await;
    let r = app
        .post("/api/conversations")
        .session(&w.coach)
        .json(json!({ "athleteId": leo_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let conv = r.json["id"].as_str().unwrap().to_string();
    let coach_msg = post_message(&app, &w.coach, &conv, "Great session, Leo").await;
    post_message(&app, &leo, &conv, "Thanks coach").await;
    // Mia's conversation with the same coach is not Ana's to read.
    let mia_conv = open_conversation(&app, &w).await;
    post_message(&app, &w.coach, &mia_conv, "Hi Mia").await;

    // The guardian lists only her child's conversation, as guardian, with no unread count.
    let r = app.get("/api/conversations").session(&ana).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let list = items(&r);
    assert_eq!(list.len(), 1, "{}", r.body);
    assert_eq!(list[0]["id"], conv.as_str());
    assert_eq!(list[0]["myRole"], "guardian");
    assert_eq!(list[0]["unread"], 0);

    // She reads the messages; her reading does not mark them read for Leo.
    let r = app
        .get(&format!("/api/conversations/{conv}/messages"))
        .session(&ana)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let bodies: Vec<&str> = items(&r)
        .iter()
        .map(|m| m["body"].as_str().unwrap())
        .collect();
    assert_eq!(bodies, ["Thanks coach", "Great session, Leo"]);
    assert!(items(&r).iter().all(|m| m["mine"] == false));
    let r = app.get("/api/conversations").session(&leo).send().await;
    assert_eq!(
        items(&r)[0]["unread"],
        1,
        "the guardian's reading is not Leo's"
    );

    // She cannot write: post, upload, nothing written.
    let messages = app.count("messages").await;
    app.post(&format!("/api/conversations/{conv}/messages"))
        .session(&ana)
        .json(json!({ "body": "Hello" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "guardian_read_only");
    app.post(&format!("/api/conversations/{conv}/attachments"))
        .session(&ana)
        .json(json!({ "contentType": "image/jpeg" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "guardian_read_only");
    assert_eq!(app.count("messages").await, messages);
    // Safeguarding: she can report a message to the moderators.
    let r = app
        .post(&format!(
            "/api/messages/{}/report",
            coach_msg["id"].as_str().unwrap()
        ))
        .session(&ana)
        .json(json!({ "reason": "safety" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);

    // She opens the photos in it too (a coach's photo, uploaded and posted).
    let r = app
        .post(&format!("/api/conversations/{conv}/attachments"))
        .session(&w.coach)
        .json(json!({ "contentType": "image/png" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let key = r.json["attachmentKey"].as_str().unwrap().to_string();
    let upload = r.json["uploadUrl"].as_str().unwrap();
    let r = app
        .req(Method::PUT, upload.strip_prefix("http://app.test").unwrap())
        .raw("image/png", b"photo of the session")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post(&format!("/api/conversations/{conv}/messages"))
        .session(&w.coach)
        .json(json!({ "attachmentKey": key }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let photo = format!(
        "/api/messages/attachment?messageId={}",
        r.json["id"].as_str().unwrap()
    );
    let r = app.get(&photo).session(&ana).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let got = app
        .get(
            r.json["url"]
                .as_str()
                .unwrap()
                .strip_prefix("http://app.test")
                .unwrap(),
        )
        .send()
        .await;
    assert_eq!(got.body, "photo of the session");
    app.get(&photo)
        .session(&w.athlete)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // Not her child's conversation, and strangers: 404.
    app.get(&format!("/api/conversations/{mia_conv}/messages"))
        .session(&ana)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.get(&format!("/api/conversations/{conv}/messages"))
        .session(&w.outsider)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = app
        .get("/api/conversations")
        .session(&w.outsider)
        .send()
        .await;
    assert!(items(&r).is_empty(), "{}", r.body);
    app.get(&format!("/api/conversations/{conv}/messages"))
        .session(&w.athlete)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");

    // Messaging switched off in the workspace: 403 for the guardian too, and no list entry.
    disable_messaging(&app, w.coach.org_id).await;
    app.get(&format!("/api/conversations/{conv}/messages"))
        .session(&ana)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    let r = app.get("/api/conversations").session(&ana).send().await;
    assert!(items(&r).is_empty(), "{}", r.body);
}
