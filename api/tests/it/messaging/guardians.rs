//! A guardian reading a minor's conversations.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn guardians_read_a_minors_conversations_but_cannot_write_and_others_get_404() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
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
    let m = post_photo(&app, &w.coach, &conv, &testkit::media::png(300)).await;
    let photo = format!("/api/messages/attachment?messageId={}", id(&m));
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
    assert_eq!(got.bytes, testkit::media::png(300));
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
    disable_module(&app, w.coach.org_id, "messaging").await;
    app.get(&format!("/api/conversations/{conv}/messages"))
        .session(&ana)
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "module_disabled");
    let r = app.get("/api/conversations").session(&ana).send().await;
    assert!(items(&r).is_empty(), "{}", r.body);
}
