//! Conversations and messages.

use super::app::{Session, TestApp};
use super::athletes::{CoachAndAthlete, id};
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

/// Opens (or finds) the conversation between `s` (a coach or the athlete) and the athlete;
/// returns its id.
pub async fn open_conversation_with(app: &TestApp, s: &Session, athlete_id: &str) -> String {
    let r = app
        .post("/api/conversations")
        .session(s)
        .json(json!({ "athleteId": athlete_id }))
        .send()
        .await;
    assert!(r.status.is_success(), "{}", r.body);
    id(&r.json)
}

/// The conversation between the coach and the athlete of `w`.
pub async fn open_conversation(app: &TestApp, w: &CoachAndAthlete) -> String {
    open_conversation_with(app, &w.coach, &w.athlete_id).await
}

/// Posts a text message; returns the message as the API shows it.
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

/// Asks for an upload URL for a PNG photo in the conversation: the attachment key and the
/// URL's path on the api (the local store's signed PUT).
pub async fn photo_upload(app: &TestApp, s: &Session, conv: &str) -> (String, String) {
    let r = app
        .post(&format!("/api/conversations/{conv}/attachments"))
        .session(s)
        .json(json!({ "contentType": "image/png" }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let key = r.json["attachmentKey"].as_str().unwrap().to_string();
    let upload = r.json["uploadUrl"].as_str().unwrap();
    let path = upload.strip_prefix("http://app.test").unwrap().to_string();
    (key, path)
}

/// Uploads a PNG photo to the conversation and posts it as a message; returns the message.
pub async fn post_photo(app: &TestApp, s: &Session, conv: &str, png: &[u8]) -> Value {
    let (key, path) = photo_upload(app, s, conv).await;
    let r = app
        .req(Method::PUT, &path)
        .raw("image/png", png)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post(&format!("/api/conversations/{conv}/messages"))
        .session(s)
        .json(json!({ "attachmentKey": key }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.json
}
