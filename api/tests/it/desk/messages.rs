//! The messages pages over form posts, checked through the JSON API: start a conversation with
//! an athlete, send a message, a photo checked by its bytes, another workspace's conversation.

use super::{get, post, post_multipart, ws_path};
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
    let path = ws_path(&owner, &format!("/messages/{conv}"));
    // An empty message is refused beside the field, nothing written.
    let r = send_form(&app, &owner, &path, "  ", None).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-body"), "{}", r.body);
    // A "photo" that is not one by its bytes is refused.
    let r = send_form(
        &app,
        &owner,
        &path,
        "look",
        Some(("image/png", b"<script>alert(1)</script>")),
    )
    .await;
    assert_page(&r, StatusCode::UNSUPPORTED_MEDIA_TYPE);
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
    let r = send_form(&app, &owner, &path, "Paddle out at 7", None).await;
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

/// A send of the messages pages as `s`: the text, and a photo when given (content type, bytes).
async fn send_form(
    app: &TestApp,
    s: &Session,
    path: &str,
    body: &str,
    photo: Option<(&str, &[u8])>,
) -> Resp {
    let photo = photo.map(|(ct, bytes)| ("photo", ct, bytes));
    post_multipart(app, s, path, &[("body", body)], photo).await
}

#[tokio::test]
async fn a_photo_is_shown_inline_and_served_as_an_image_from_this_origin() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let conv = open_conversation(&app, &w).await;
    let path = ws_path(&w.coach, &format!("/messages/{conv}"));
    let photo = testkit::media::png(200);
    let r = send_form(
        &app,
        &w.coach,
        &path,
        "the bottom turn",
        Some(("image/png", &photo)),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/conversations/{conv}/messages"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(api.json["items"][0]["hasAttachment"], true, "{}", api.json);
    let r = get(&app, &w.coach, &path).await;
    assert_page(&r, StatusCode::OK);
    let src = r
        .body
        .split("<img class=\"photo\" src=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the photo is inline")
        .replace("&#38;", "&");
    assert!(src.starts_with('/'), "a path of this origin: {src}");
    let got = app.get(&src).send().await;
    assert_eq!(got.status, StatusCode::OK, "{src}: {}", got.body);
    assert_eq!(got.bytes, photo);
    assert_eq!(got.headers["content-type"], "image/png");
    assert_eq!(got.headers["x-content-type-options"], "nosniff");

    // A phone's photo is larger than a whole request may be (1 MiB): it streams on and is kept.
    let mut big = photo.clone();
    big.resize(3 * 1024 * 1024, 0);
    let r = send_form(&app, &w.coach, &path, "", Some(("image/png", &big))).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/conversations/{conv}/messages"))
        .session(&w.athlete)
        .send()
        .await;
    assert_eq!(
        api.json["items"].as_array().unwrap().len(),
        2,
        "{}",
        api.json
    );
}

#[tokio::test]
async fn the_messages_section_needs_its_module() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let r = get(&app, &w.coach, &ws_path(&w.coach, "/")).await;
    assert!(
        r.body.contains(&ws_path(&w.coach, "/messages")),
        "{}",
        r.body
    );
    disable_module(&app, w.coach.org_id, "messaging").await;
    let r = get(&app, &w.coach, &ws_path(&w.coach, "/messages")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &w.coach,
        &ws_path(&w.coach, "/messages/new"),
        &[("athleteId", &w.athlete_id)],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert_eq!(app.count("conversations").await, 0);
    let r = get(&app, &w.coach, &ws_path(&w.coach, "/")).await;
    assert!(
        !r.body.contains(&ws_path(&w.coach, "/messages")),
        "{}",
        r.body
    );
}

/// Athletes and guardians belong to no workspace: their conversations are at `/me/messages`.
/// The athlete reads, replies and reports there; the guardian reads along and cannot write;
/// someone else's conversation is a 404 page.
#[tokio::test]
async fn an_athlete_replies_and_reports_at_their_own_pages_and_a_guardian_reads_along() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let (minor, leo, ana) = minor_with_guardian(&app, &w.coach).await;
    let conv = open_conversation_with(&app, &w.coach, &minor).await;
    let first = post_message(&app, &w.coach, &conv, "Dawn patrol tomorrow").await;
    let first = first["id"].as_str().unwrap().to_string();

    // Nobody signed in: sign in first, then back here.
    let r = app.get("/me/messages").send().await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), "/signin?next=%2Fme%2Fmessages");
    // The home page leads the athlete to their messages.
    let r = get(&app, &leo, "/").await;
    assert!(r.body.contains("href=\"/me/messages\""), "{}", r.body);
    let r = get(&app, &leo, "/me/messages").await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Leo Costa") && r.body.contains("1 unread"),
        "{}",
        r.body
    );
    assert!(!r.body.contains("/messages/new"), "an athlete starts none");
    let page = format!("/me/messages/{conv}");
    let r = get(&app, &leo, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Dawn patrol tomorrow"), "{}", r.body);
    // Reading it marked it read.
    let r = get(&app, &leo, "/me/messages").await;
    assert!(!r.body.contains("1 unread"), "{}", r.body);
    // The reply lands in the conversation the coach reads.
    let r = send_form(&app, &leo, &page, "See you there", None).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), format!("{page}?done=sent"));
    // The coach's dashboard lists the conversation with its unread count, linked
    // (before the coach reads it: reading marks it read).
    let r = get(&app, &w.coach, &ws_path(&w.coach, "/")).await;
    let link = format!(
        "<a href=\"{}\">Leo Costa</a>",
        ws_path(&w.coach, &format!("/messages/{conv}"))
    );
    assert!(
        r.body.contains(&link) && r.body.contains("1 unread"),
        "{}",
        r.body
    );
    let api = app
        .get(&format!("/api/conversations/{conv}/messages"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(
        api.json["items"][0]["body"], "See you there",
        "{}",
        api.json
    );
    // Reporting the coach's message: a reason is needed, then the moderators have it.
    let report = format!("{page}/report/{first}");
    let r = get(&app, &leo, &report).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Dawn patrol tomorrow"), "{}", r.body);
    let r = post(&app, &leo, &report, &[("reason", "nonsense")]).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert_eq!(app.count("message_reports").await, 0);
    let r = post(
        &app,
        &leo,
        &report,
        &[("reason", "inappropriate"), ("details", "tone")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(app.count("message_reports").await, 1);
    // The guardian reads along: both messages, a note, no form; a post is refused.
    let r = get(&app, &ana, "/me/messages").await;
    assert!(r.body.contains("reading as guardian"), "{}", r.body);
    let r = get(&app, &ana, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Dawn patrol tomorrow") && r.body.contains("See you there"),
        "{}",
        r.body
    );
    assert!(r.body.contains("cannot write in it"), "{}", r.body);
    assert!(!r.body.contains("name=\"body\""), "{}", r.body);
    let before = app.count("messages").await;
    let r = send_form(&app, &ana, &page, "from mum", None).await;
    assert!(r.status.is_client_error(), "{} {}", r.status, r.body);
    assert_eq!(app.count("messages").await, before);
    // Someone who is no party of it: a 404 page, as for the API.
    let r = get(&app, &w.athlete, &page).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = send_form(&app, &w.athlete, &page, "hi", None).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    assert_eq!(app.count("messages").await, before);
}

/// On S3 a photo is shown from the store's presigned URL, another origin: the page's policy
/// lets images and audio come from there, and from nowhere else.
#[tokio::test]
async fn on_s3_the_page_policy_admits_the_stores_origin_for_photos() {
    let Some(app) = s3_app().await else {
        return;
    };
    let w = coach_and_athlete(&app).await;
    let conv = open_conversation(&app, &w).await;
    let path = ws_path(&w.coach, &format!("/messages/{conv}"));
    let photo = testkit::media::png(200);
    let r = send_form(&app, &w.coach, &path, "", Some(("image/png", &photo))).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = get(&app, &w.coach, &path).await;
    assert_page(&r, StatusCode::OK);
    let src = r
        .body
        .split("<img class=\"photo\" src=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the photo is inline")
        .replace("&#38;", "&");
    let origin = url::Url::parse(&src)
        .unwrap()
        .origin()
        .ascii_serialization();
    let csp = r.headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains(&format!("img-src 'self' blob: {origin};"))
            && csp.contains(&format!("media-src 'self' {origin};"))
            && csp.contains("script-src 'self';"),
        "{csp}"
    );
    let got = reqwest::get(&src).await.unwrap();
    assert_eq!(got.status(), 200);
    assert_eq!(got.bytes().await.unwrap(), photo);
}

/// How my notifications went out: the sends' page lists a message's notification with its
/// counts per channel, its page each recipient's delivery per channel; only the sender's, only
/// in its workspace (another's send is a 404 there).
#[tokio::test]
async fn the_sender_sees_how_a_messages_notification_went_out() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;
    let conv = open_conversation(&app, &w).await;
    post_message(&app, &w.coach, &conv, "Dawn patrol tomorrow?").await;
    let r = app
        .get("/api/notifications/sent")
        .session(&w.coach)
        .send()
        .await;
    let id = items(&r)[0]["id"].as_str().unwrap().to_string();
    // The mail goes out; the push is skipped (Mia has no device).
    let one = ws_path(&w.coach, &format!("/messages/sent/{id}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let r = loop {
        let r = get(&app, &w.coach, &one).await;
        assert_page(&r, StatusCode::OK);
        if !r.body.contains("waiting") {
            break r;
        }
        assert!(std::time::Instant::now() < deadline, "{}", r.body);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(r.body.contains("Mia Silva"), "{}", r.body);
    let rows: Vec<&str> = r.body.split("<tr class=\"delivery\">").skip(1).collect();
    assert_eq!(rows.len(), 2, "{}", r.body);
    assert!(
        rows[0].contains("<td>email</td><td>sent</td>"),
        "{}",
        rows[0]
    );
    assert!(
        rows[1].contains("<td>push</td><td>no device or phone</td>"),
        "{}",
        rows[1]
    );

    let r = get(&app, &w.coach, &ws_path(&w.coach, "/messages/sent")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("New message from Coach Kai"), "{}", r.body);
    assert!(
        r.body.contains(&format!("/messages/sent/{id}\"")),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("<strong>email</strong>:\n      sent 1"),
        "{}",
        r.body
    );
    let r = get(&app, &w.coach, &ws_path(&w.coach, "/messages")).await;
    assert!(
        r.body.contains("/messages/sent\""),
        "linked from the conversations"
    );

    // Someone else's send, in their own workspace: absent.
    let other = app.signup("other@example.com").await;
    let r = get(
        &app,
        &other,
        &ws_path(&other, &format!("/messages/sent/{id}")),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = get(&app, &other, &ws_path(&other, "/messages/sent")).await;
    assert!(!r.body.contains("New message from Coach Kai"), "{}", r.body);
    worker.shutdown().await;
}
