//! The review pages over form posts, checked through the JSON API: the builder (suggestions,
//! keypoints at a time, a voice note checked by its bytes and transcribed by the fake model,
//! build, publish), refusals beside their fields, another workspace's review, permissions; the
//! athlete's and guardian's view with replies and receipts.

use super::{get, post, post_multipart, ws_path};
use crate::reviews::analysed;
use crate::reviews::voice::{app_with, m4a, model_env, wait_ready};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::Value;
use testkit::model::FakeModel;

async fn review_json(app: &TestApp, s: &Session, id: &str) -> Value {
    let r = app
        .get(&format!("/api/reviews/{id}"))
        .session(s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.json
}

/// The review id of a builder's address (`/w/{ws}/reviews/{id}?…`).
fn review_of(location: &str) -> String {
    location
        .split('/')
        .nth(4)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_coach_builds_and_publishes_a_review_through_the_pages() {
    let fake = FakeModel::start("model-key").await;
    let app = app_with(&model_env(&fake)).await;
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;
    let coach = &w.coach;
    let (_, clip) = uploaded_clip(&app, coach, b"video").await;
    analysed(&app, clip).await;

    let r = get(&app, coach, &ws_path(coach, "/reviews")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Mia Silva"),
        "the athlete picker: {}",
        r.body
    );
    // A review of the clip: its session's, the builder opened on the clip.
    let r = post(
        &app,
        coach,
        &ws_path(coach, "/reviews"),
        &[
            ("clipId", &clip.to_string()),
            ("athleteId", &w.athlete_id),
            ("title", "Pipe, Tuesday"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        r.location().contains(&format!("clip={clip}")),
        "{}",
        r.location()
    );
    let id = review_of(&r.location());
    let builder = ws_path(coach, &format!("/reviews/{id}"));
    let r = get(&app, coach, &r.location()).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Pipe, Tuesday") && r.body.contains("Review started"));
    assert!(
        r.body.contains("<video") && r.body.contains("/api/video/stream?token="),
        "{}",
        r.body
    );

    // Suggestions from the ride windows and maneuvers.
    let r = post(&app, coach, &format!("{builder}/suggest?clip={clip}"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        review_json(&app, coach, &id).await["keypoints"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    let r = get(&app, coach, &r.location()).await;
    assert!(
        r.body.contains("Ride 1: 7.5 s, top speed 29.0 km/h"),
        "{}",
        r.body
    );

    // A keypoint at a typed time; a time that is none is refused beside its field.
    let kp = format!("{builder}/keypoints");
    let clip_s = clip.to_string();
    let r = post(
        &app,
        coach,
        &kp,
        &[("clip", &clip_s), ("at", "soon"), ("body", "Kick out")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.body.contains("id=\"e-at\"") && r.body.contains("Kick out"),
        "{}",
        r.body
    );
    let r = post(
        &app,
        coach,
        &kp,
        &[("clip", &clip_s), ("at", "0:31"), ("body", "Late")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.body.contains("id=\"e-at\""),
        "past the clip's end: {}",
        r.body
    );
    assert_eq!(
        review_json(&app, coach, &id).await["keypoints"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    let r = post(
        &app,
        coach,
        &kp,
        &[
            ("clip", &clip_s),
            ("at", "0:26"),
            ("body", "Kick out cleaner"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let json = review_json(&app, coach, &id).await;
    let own = json["keypoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["body"] == "Kick out cleaner")
        .unwrap()
        .clone();
    assert_eq!(own["atMs"], 26_000);
    let kid = own["id"].as_str().unwrap();
    // Edited at the player's time; a suggestion deleted stays dismissed.
    let r = post(
        &app,
        coach,
        &format!("{kp}/{kid}"),
        &[
            ("clip", &clip_s),
            ("at", "27.5"),
            ("end", "29"),
            ("body", "Kick out later"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let json = review_json(&app, coach, &id).await;
    let own = json["keypoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == kid)
        .unwrap()
        .clone();
    assert_eq!(
        (
            own["atMs"].clone(),
            own["endMs"].clone(),
            own["body"].clone()
        ),
        (27_500.into(), 29_000.into(), "Kick out later".into())
    );
    let floater = json["keypoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["maneuverType"] == "floater")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = post(&app, coach, &format!("{kp}/{floater}/delete"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(
        review_json(&app, coach, &id).await["keypoints"]
            .as_array()
            .unwrap()
            .len(),
        5
    );

    // A voice note: not audio by its bytes is refused beside the field; audio is kept.
    let notes = format!("{builder}/voice-notes");
    let r = post_multipart(
        &app,
        coach,
        &notes,
        &[("keypointId", "")],
        Some(("note", "audio/webm", b"<html>not audio</html>")),
    )
    .await;
    assert_page(&r, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(r.body.contains("id=\"e-note\""), "{}", r.body);
    let r = post_multipart(&app, coach, &notes, &[("keypointId", kid)], None).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    let r = post_multipart(
        &app,
        coach,
        &notes,
        &[("keypointId", kid)],
        Some(("note", "audio/mp4", &m4a(3000))),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let json = review_json(&app, coach, &id).await;
    assert_eq!(json["voiceNotes"].as_array().unwrap().len(), 1, "{json}");
    assert_eq!(json["voiceNotes"][0]["keypointId"], kid);

    // Publishing before the build is refused at 409; the build transcribes the note.
    let r = post(&app, coach, &format!("{builder}/publish"), &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    let r = post(&app, coach, &format!("{builder}/build"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let ready = wait_ready(&app, coach, &id).await;
    assert_eq!(ready["voiceNotes"][0]["transcriptStatus"], "done");
    let r = get(&app, coach, &builder).await;
    assert!(
        r.body.contains("transcript of note-") && r.body.contains("Transcribed"),
        "{}",
        r.body
    );
    let r = post(&app, coach, &format!("{builder}/publish"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(review_json(&app, coach, &id).await["status"], "published");
    // A published review takes no edits: 409 page, nothing changed.
    let r = post(
        &app,
        coach,
        &kp,
        &[("clip", &clip_s), ("at", "1"), ("body", "More")],
    )
    .await;
    assert_page(&r, StatusCode::CONFLICT);
    worker.shutdown().await;
}

#[tokio::test]
async fn another_workspace_s_review_is_a_404_page_and_reading_is_not_building() {
    let app = TestApp::new().await;
    let owner = app.signup("owner@example.com").await;
    let (session, _) = uploaded_clip(&app, &owner, b"video").await;
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/reviews"),
        &[("sessionId", &session.to_string())],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let id = review_of(&r.location());
    // No session chosen: beside the field, nothing written.
    let r = post(
        &app,
        &owner,
        &ws_path(&owner, "/reviews"),
        &[("sessionId", "")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-sessionId"), "{}", r.body);
    assert_eq!(app.count("reviews").await, 1);

    let other = other_workspace(&app).await;
    let r = get(&app, &other, &ws_path(&other, &format!("/reviews/{id}"))).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &other,
        &ws_path(&other, &format!("/reviews/{id}/build")),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &other,
        &ws_path(&other, "/reviews"),
        &[("sessionId", &session.to_string())],
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);

    // A member who reads reviews sees the builder without its forms and may not post.
    let viewer = add_member(&app, owner.org_id, "viewer@example.com", "viewer").await;
    let r = get(&app, &viewer, &ws_path(&viewer, &format!("/reviews/{id}"))).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("/suggest"), "{}", r.body);
    let r = post(
        &app,
        &viewer,
        &ws_path(&viewer, &format!("/reviews/{id}/build")),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert_eq!(review_json(&app, &owner, &id).await["status"], "draft");
}
