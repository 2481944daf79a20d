//! The messages pages over form posts, checked through the JSON API: start a conversation with
//! an athlete, send a message, a photo checked by its bytes, another workspace's conversation.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn start_a_conversation_and_send_a_message_through_the_pages() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let athlete = new_athlete(
        &app,
        &owner,
        json!({ "firstName": "Kai", "lastName": "Lenny" }),
    )
    .await;
    let aid = athlete["id"].as_str().unwrap().to_string();
    let r = get(&app, &owner, &ws_path(&owner, "/messages/new")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Kai Lenny"), "{}", r.body);
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/messages/new"),
        &[("athleteId", &aid)],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let conv = r
        .location()
        .split('/')
        .nth(4)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let send = |body: &'static str, photo: &'static [u8]| {
        let mut b = format!("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{}\r\n--XyZ\r\nContent-Disposition: form-data; name=\"body\"\r\n\r\n{body}\r\n", owner.csrf).into_bytes();
        if !photo.is_empty() {
            b.extend_from_slice(b"--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n");
            b.extend_from_slice(photo);
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(b"--XyZ--\r\n");
        b
    };
    let path = ws_path(&owner, &format!("/messages/{conv}"));
    let up = |b: Vec<u8>| {
        app.post(&path)
            .header("cookie", &cookies_of(&owner))
            .header("sec-fetch-site", "same-origin")
            .raw("multipart/form-data; boundary=XyZ", &b)
            .send()
    };
    // An empty message is refused beside the field, nothing written.
    let r = up(send("  ", b"")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-body"), "{}", r.body);
    // A "photo" that is not one by its bytes is refused.
    let r = up(send("look", b"<script>alert(1)</script>")).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-photo"), "{}", r.body);
    let api = app
        .get(&format!("/api/conversations/{conv}/messages"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(
        api.json["items"].as_array().unwrap().len(),
        0,
        "{}",
        api.json
    );
    // Sent: back to the conversation with a note; the API has it.
    let r = up(send("Paddle out at 7", b"")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/conversations/{conv}/messages"))
        .session(&owner)
        .send()
        .await;
    assert_eq!(
        api.json["items"][0]["body"], "Paddle out at 7",
        "{}",
        api.json
    );
    let r = get(&app, &owner, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Paddle out at 7") && r.body.contains("Message sent."),
        "{}",
        r.body
    );
    // Another workspace's conversation is a 404 page.
    let other = other_workspace(&app).await;
    let r = get(&app, &owner, &ws_path(&other, &format!("/messages/{conv}"))).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = get(&app, &owner, &ws_path(&owner, "/messages")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Kai Lenny"), "{}", r.body);
}
