//! The athlete's replies from the phone: written or recorded, idempotent per client id, the
//! coach notified once; a minor's guardian reads along; nobody else sees them.

use super::voice::m4a;
use super::{analysed, published};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

async fn coach_notifications(app: &TestApp, user: Id) -> Vec<(String, String, String)> {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::sql!(&mut c, c => sqlx::query_as::<_, (String, String, String)>(
        "SELECT kind, title, body FROM notifications WHERE user_id = $1 AND kind = 'review.reply' ORDER BY created_at")
        .bind(user).fetch_all(&mut *c).await)
    .unwrap()
}

#[tokio::test]
async fn the_athlete_replies_in_writing_or_recorded_and_the_coach_is_told_once() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let (minor, _minor_session, _guardian) = minor_with_guardian(&app, &w.coach).await;
    let worker = app.start_worker(&[]).await;
    let (session, clip) = uploaded_clip(&app, &w.coach, b"video").await;
    analysed(&app, clip).await;
    let review = published(&app, &w.coach, session, &w.athlete_id).await;
    let minors = published(&app, &w.coach, session, &minor).await;
    let (athlete, _) = app.phone_tokens("mia@example.com").await;
    let path = format!("/api/mobile/reviews/{review}/replies");

    // Written, with the phone's id: sent twice, kept once.
    let text = |body: &str, client: &str| {
        app.post(&path)
            .bearer(&athlete)
            .json(json!({ "body": body, "clientReplyId": client }))
            .send()
    };
    let first = text("Thanks! Working on the bottom turn.", "r-1").await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    assert_eq!(first.json["kind"], "text");
    assert_eq!(first.json["authorUserId"], w.athlete.user_id.to_string());
    let again = text("Thanks! Working on the bottom turn.", "r-1").await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.json["id"], first.json["id"]);
    text("   ", "r-2")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    text(&"x".repeat(4001), "r-2")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");

    // Recorded: the body is the audio; the same client id does not store it again.
    let voice = |bytes: Vec<u8>, client: &str| {
        app.post(&format!("{path}?clientReplyId={client}"))
            .bearer(&athlete)
            .raw("audio/mp4", &bytes)
            .send()
    };
    let rec = voice(m4a(1500), "v-1").await;
    assert_eq!(rec.status, StatusCode::CREATED, "{}", rec.body);
    assert_eq!(rec.json["kind"], "voice");
    assert_eq!(rec.json["contentType"], "audio/mp4");
    assert_eq!(rec.json["sizeBytes"], 1500);
    let played = app
        .get(
            rec.json["url"]
                .as_str()
                .unwrap()
                .strip_prefix("http://app.test")
                .unwrap(),
        )
        .send()
        .await;
    assert_eq!(played.bytes, m4a(1500));
    let rec_again = voice(m4a(1500), "v-1").await;
    assert_eq!(rec_again.status, StatusCode::OK);
    assert_eq!(rec_again.json["id"], rec.json["id"]);
    voice(b"GIF89a, not a recording".to_vec(), "v-2")
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "upload_not_audio");
    assert_eq!(app.count("review_replies").await, 2);

    // The coach heard about each reply once.
    let told = coach_notifications(&app, w.coach.user_id).await;
    assert_eq!(told.len(), 2, "{told:?}");
    assert_eq!(told[0].1, "Mia replied to a review");
    assert_eq!(told[0].2, "Thanks! Working on the bottom turn.");

    // Both sides read the replies, oldest first.
    let r = app.get(&path).bearer(&athlete).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 2);
    assert_eq!(items(&r)[0]["kind"], "text");
    let r = app
        .get(&format!("/api/reviews/{review}/replies?limit=1"))
        .session(&w.coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(items(&r).len(), 1);
    assert_eq!(r.json["nextOffset"], 1);

    // The guardian reads the minor's replies but does not write them; Mia's are not theirs.
    let (guardian, _) = app.phone_tokens("ana@example.com").await;
    let minor_path = format!("/api/mobile/reviews/{minors}/replies");
    let r = app.get(&minor_path).bearer(&guardian).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    app.post(&minor_path)
        .bearer(&guardian)
        .json(json!({ "body": "From the parent" }))
        .send()
        .await
        .assert_error(StatusCode::FORBIDDEN, "guardian_read_only");
    app.get(&path)
        .bearer(&guardian)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    // Someone unrelated: 404 whatever they send.
    let (outsider, _) = app.phone_tokens("outsider@example.com").await;
    app.post(&path)
        .bearer(&outsider)
        .json(json!({ "body": "hi" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    app.post(&format!("{path}?clientReplyId=x"))
        .bearer(&outsider)
        .raw("audio/mp4", &m4a(100))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    // Another workspace's coach cannot list them.
    let other = other_workspace(&app).await;
    app.get(&format!("/api/reviews/{review}/replies"))
        .session(&other)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("review_replies").await, 2);
    worker.shutdown().await;
}

#[tokio::test]
async fn a_draft_takes_no_replies() {
    let app = TestApp::new().await;
    let w = coach_and_athlete(&app).await;
    let (session, _clip) = uploaded_clip(&app, &w.coach, b"video").await;
    let r = super::new_review(
        &app,
        &w.coach,
        session,
        json!({ "athleteId": w.athlete_id }),
    )
    .await;
    let id = r.json["id"].as_str().unwrap();
    let (athlete, _) = app.phone_tokens("mia@example.com").await;
    app.post(&format!("/api/mobile/reviews/{id}/replies"))
        .bearer(&athlete)
        .json(json!({ "body": "early" }))
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}
