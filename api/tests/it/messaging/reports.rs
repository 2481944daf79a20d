//! Reporting a message and the admins' moderation queue.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn reports_reach_the_admin_queue_and_resolving_can_remove_the_message() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let admin = platform_admin(&app).await;
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
