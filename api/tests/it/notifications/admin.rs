//! The admins' side of notifications: the list with deliveries, and announcements.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

#[tokio::test]
async fn admins_list_notifications_with_their_deliveries() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let admin = platform_admin(&app).await;
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

#[tokio::test]
async fn admins_announce_to_a_workspace_through_a_job() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;
    let admin = platform_admin(&app).await;
    app.post("/api/admin/notifications")
        .session(&w.coach)
        .json(json!({ "title": "Hi", "body": "All" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "admin_required");
    let r = app
        .post("/api/admin/notifications")
        .session(&admin)
        .json(json!({ "title": "", "body": "All" }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(r.fields(), ["title"]);
    app.post("/api/admin/notifications")
        .session(&admin)
        .json(json!({ "title": "Hi", "body": "All", "orgId": Id::new() }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("job_progress").await, 0, "nothing enqueued");

    let (access, _) = app.phone_tokens("admin@example.com").await;
    let r = app
        .post("/api/mobile/admin/notifications")
        .bearer(&access)
        .json(json!({ "title": "Contest on Saturday", "body": "Sign up by Friday", "orgId": w.coach.org_id }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let p = job_done(&app, &r).await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    assert_eq!(p.result.as_ref().unwrap().0["recipients"], 1, "{p:?}");
    wait_subject(&app, "coach@example.com", "Contest on Saturday").await;
    assert!(
        app.smtp
            .messages_to("outsider@example.com")
            .iter()
            .all(|m| m.subject() != "Contest on Saturday")
    );
    let r = app
        .get("/api/admin/notifications?kind=announcement&status=sent")
        .session(&admin)
        .send()
        .await;
    assert_eq!(r.json["items"].as_array().unwrap().len(), 1, "{}", r.body);
    worker.shutdown().await;
}
