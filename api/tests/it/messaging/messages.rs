//! Messages: participants only, read state, tombstones, photo attachments.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::storage::Store;

#[tokio::test]
async fn messages_are_for_participants_with_read_state_and_tombstones() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
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
    let w = coach_and_athlete(&app).await;
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
    let (key, local) = photo_upload(&app, &w.coach, &conv).await;
    let photo = testkit::media::png(200);
    let r = app
        .req(Method::PUT, &local)
        .raw("image/png", &photo)
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
    assert_eq!(got.bytes, photo);
    assert_eq!(got.headers["content-type"], "image/png");
    assert_eq!(got.headers["x-content-type-options"], "nosniff");
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

/// Issue 35, item 1: a signed upload takes only the type it was issued for and bytes of that
/// type; whatever is served from the storage route cannot run as a page.
#[tokio::test]
async fn a_photo_upload_url_refuses_pages_and_scripts_and_what_it_serves_is_inert() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let conv = open_conversation(&app, &w).await;
    let (key, local) = photo_upload(&app, &w.coach, &conv).await;
    let script = b"<script>alert(document.cookie)</script>";
    for (ct, code) in [
        ("text/html", "content_type_mismatch"),
        ("image/svg+xml", "content_type_mismatch"),
        ("image/png", "upload_type_mismatch"),
    ] {
        let r = app.req(Method::PUT, &local).raw(ct, script).send().await;
        r.assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, code);
    }
    // Nothing was stored, so nothing can be posted.
    let r = app
        .post(&format!("/api/conversations/{conv}/messages"))
        .session(&w.coach)
        .json(json!({ "attachmentKey": key }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // A URL whose bound type is changed no longer verifies.
    let forged = local.replace("ct=image%2Fpng", "ct=text%2Fhtml");
    assert_ne!(forged, local);
    app.req(Method::PUT, &forged)
        .raw("text/html", script)
        .send()
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "invalid_token");

    // An object stored as a page (as before the fix, or written by another path) is served as a
    // sandboxed download, never as a page of our origin.
    let state = &app.state;
    let page_key = format!("messages/{}/{conv}/old.html", w.coach.org_id);
    state
        .storage
        .put(
            Store::RawUploads,
            &page_key,
            futures::stream::once(async { Ok(bytes::Bytes::from_static(b"<script>1</script>")) }),
            "text/html",
        )
        .await
        .unwrap();
    let url = state
        .storage
        .presign_get(
            Store::RawUploads,
            &page_key,
            std::time::Duration::from_secs(60),
            &state.keys,
            "http://app.test",
        )
        .await
        .unwrap();
    let got = app
        .get(url.strip_prefix("http://app.test").unwrap())
        .send()
        .await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(got.headers["content-disposition"], "attachment");
    assert_eq!(
        got.headers["content-security-policy"],
        "default-src 'none'; sandbox"
    );
    assert_eq!(got.headers["x-content-type-options"], "nosniff");
    // And the message route refuses it as a photo, by its bytes.
    let r = app
        .post(&format!("/api/conversations/{conv}/messages"))
        .session(&w.coach)
        .json(json!({ "attachmentKey": page_key }))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(
        r.json["error"]["details"]["fields"][0]["code"], "not_a_photo",
        "{}",
        r.body
    );
    assert_eq!(app.count("messages").await, 0);
}
