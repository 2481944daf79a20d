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
use shared::storage::Store;
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
    // A recording streams on, bounded as the JSON route bounds it, not by the request body
    // limit: over 25 MiB is refused beside the field and nothing is kept.
    let mut big = b"OggS".to_vec();
    big.resize(25 * 1024 * 1024 + 1, 0);
    let r = post_multipart(
        &app,
        coach,
        &notes,
        &[("keypointId", kid)],
        Some(("note", "audio/ogg", &big)),
    )
    .await;
    assert_page(&r, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(r.body.contains("id=\"e-note\""), "{}", r.body);
    let json = review_json(&app, coach, &id).await;
    assert_eq!(json["voiceNotes"].as_array().unwrap().len(), 0, "{json}");
    let prefix = format!("reviews/{}/{id}/notes/", coach.org_id);
    let left = app.state.storage.delete_prefix(Store::RawUploads, &prefix);
    assert_eq!(left.await.unwrap(), 0, "no object left behind");
    let r = post_multipart(
        &app,
        coach,
        &notes,
        &[("keypointId", kid)],
        Some(("note", "audio/mp4", &m4a(3000))),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    // Five minutes of Opus (3 MiB) is more than a whole request may hold (1 MiB), and is kept.
    big.truncate(3 * 1024 * 1024);
    let r = post_multipart(&app, coach, &notes, &[], Some(("note", "audio/ogg", &big))).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let json = review_json(&app, coach, &id).await;
    assert_eq!(json["voiceNotes"].as_array().unwrap().len(), 2, "{json}");
    assert!(
        json["voiceNotes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["sizeBytes"] == 3 * 1024 * 1024),
        "{json}"
    );
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

/// A review of a new analysed clip for `athlete`, built (no voice note) and published through
/// the API; returns its id.
async fn published(app: &TestApp, coach: &Session, athlete: &str, title: &str) -> String {
    let (session, clip) = uploaded_clip(app, coach, b"video").await;
    analysed(app, clip).await;
    let r = app
        .post("/api/reviews")
        .session(coach)
        .json(serde_json::json!({ "sessionId": session, "athleteId": athlete, "title": title }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let id = r.json["id"].as_str().unwrap().to_string();
    app.post(&format!("/api/reviews/{id}/suggest"))
        .session(coach)
        .send()
        .await;
    crate::reviews::voice::build_until_ready(app, coach, &id).await;
    let p = app
        .post(&format!("/api/reviews/{id}/publish"))
        .session(coach)
        .send()
        .await;
    assert_eq!(p.status, StatusCode::OK, "{}", p.body);
    id
}

#[tokio::test]
async fn the_athlete_reads_a_published_review_replies_and_is_seen_to_have_opened_it() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let w = coach_and_athlete(&app).await;
    let id = published(&app, &w.coach, &w.athlete_id, "Pipe, Tuesday").await;

    let r = get(&app, &w.athlete, "/me/reviews").await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("Pipe, Tuesday"), "{}", r.body);
    let page = format!("/me/reviews/{id}");
    let r = get(&app, &w.athlete, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Ride 1: 7.5 s") && r.body.contains("/api/video/stream?token="),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("id=\"f-body\""),
        "the athlete replies: {}",
        r.body
    );
    // Opened: the coach sees the receipt, as the phone's.
    let json = review_json(&app, &w.coach, &id).await;
    assert_eq!(json["receipts"][0]["deviceId"], "web", "{json}");
    assert!(json["receipts"][0]["openedAt"].is_string());

    // An empty reply is refused beside the field; a written one reaches the coach.
    let replies = format!("{page}/replies");
    let r = post_multipart(
        &app,
        &w.athlete,
        &replies,
        &[("client", "c1"), ("body", "  ")],
        None,
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("id=\"e-body\""), "{}", r.body);
    let r = post_multipart(
        &app,
        &w.athlete,
        &replies,
        &[("client", "c2"), ("body", "Thanks, trying it tomorrow")],
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    // The same form sent twice is one reply; a recording that is not audio is refused.
    let r = post_multipart(
        &app,
        &w.athlete,
        &replies,
        &[("client", "c2"), ("body", "Thanks, trying it tomorrow")],
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = post_multipart(
        &app,
        &w.athlete,
        &replies,
        &[("client", "c3")],
        Some(("note", "audio/ogg", b"<svg onload=alert(1)>")),
    )
    .await;
    assert_page(&r, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let r = post_multipart(
        &app,
        &w.athlete,
        &replies,
        &[("client", "c4")],
        Some((
            "note",
            "audio/ogg",
            b"OggS\0\x02\0\0\0\0\0\0\0\0 a short answer",
        )),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = app
        .get(&format!("/api/reviews/{id}/replies"))
        .session(&w.coach)
        .send()
        .await;
    let items = items(&r);
    assert_eq!(items.len(), 2, "{}", r.body);
    assert_eq!(items[0]["body"], "Thanks, trying it tomorrow");
    assert_eq!(items[1]["kind"], "voice");
    let r = get(
        &app,
        &w.coach,
        &ws_path(&w.coach, &format!("/reviews/{id}")),
    )
    .await;
    assert!(
        r.body.contains("Thanks, trying it tomorrow") && r.body.contains("Opened by the athlete"),
        "{}",
        r.body
    );

    // Someone else's review is a 404 page; a draft is not there yet.
    let r = get(&app, &w.outsider, &page).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = post_multipart(&app, &w.outsider, &replies, &[("body", "hi")], None).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let r = get(&app, &w.outsider, "/me/reviews").await;
    assert!(!r.body.contains("Pipe, Tuesday"), "{}", r.body);
    worker.shutdown().await;
}

#[tokio::test]
async fn a_guardian_reads_a_minor_s_review_without_the_reply_form() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (athlete_id, _leo, ana) = minor_with_guardian(&app, &coach).await;
    let id = published(&app, &coach, &athlete_id, "Leo at the point").await;
    let r = get(&app, &ana, &format!("/me/reviews/{id}")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Leo at the point") && !r.body.contains("id=\"f-body\""),
        "{}",
        r.body
    );
    assert!(r.body.contains("as a guardian"), "{}", r.body);
    let r = post_multipart(
        &app,
        &ana,
        &format!("/me/reviews/{id}/replies"),
        &[("body", "Proud of you")],
        None,
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = app
        .get(&format!("/api/reviews/{id}/replies"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(items(&r).len(), 0, "{}", r.body);
    worker.shutdown().await;
}

#[tokio::test]
async fn coaching_generates_feedback_and_draws_an_athlete_s_progress() {
    use crate::reviews::coaching::{answer, app_with_model, athlete_with_sessions};
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (athlete, sessions) = athlete_with_sessions(&app, &coach).await;
    let r = get(&app, &coach, &ws_path(&coach, "/coaching")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("Mia Lopes") && r.body.contains("Generate feedback"),
        "{}",
        r.body
    );

    // Progress: the numbers at once, drawn as charts with a table of the numbers; the
    // narrative follows from the model.
    fake.answer_with(serde_json::json!({ "narrative": "Rides are getting longer." }));
    let r = post(
        &app,
        &coach,
        &ws_path(&coach, "/coaching/progress"),
        &[("athleteId", "")],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("e-athleteId"), "{}", r.body);
    let r = post(
        &app,
        &coach,
        &ws_path(&coach, "/coaching/progress"),
        &[("athleteId", &athlete), ("last", "10")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let report = r.location();
    let r = get(&app, &coach, &report).await;
    assert_page(&r, StatusCode::OK);
    assert_eq!(r.body.matches("<svg").count(), 5, "{}", r.body);
    assert!(
        r.body.contains("role=\"img\"")
            && r.body
                .contains("<desc id=\"chart-0-d\">Waves over 3 sessions: from 2 to 3.</desc>"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains("<caption>The numbers per session</caption>"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains(&format!("athleteId={athlete}&#38;format=html")),
        "{}",
        r.body
    );

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !get(&app, &coach, &report)
        .await
        .body
        .contains("Rides are getting longer.")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the narrative never came"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    // Feedback for a session: the job's page, then the feedback with its export links.
    fake.answer_with(answer("First look."));
    let r = post(
        &app,
        &coach,
        &ws_path(&coach, "/coaching/generate"),
        &[
            ("sessionId", &sessions[0].to_string()),
            ("mode", "sideways"),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    let r = post(
        &app,
        &coach,
        &ws_path(&coach, "/coaching/generate"),
        &[("sessionId", &sessions[0].to_string()), ("mode", "batch")],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        r.location().contains("/jobs/") && r.location().contains("back="),
        "{}",
        r.location()
    );
    let job: shared::db::Id = r
        .location()
        .split("/jobs/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let list = app
        .get(&format!("/api/sessions/coaching?sessionId={}", sessions[0]))
        .session(&coach)
        .send()
        .await;
    let fid = items(&list)[0]["id"].as_str().unwrap().to_string();
    let r = get(&app, &coach, &ws_path(&coach, "/coaching")).await;
    assert!(r.body.contains(&fid), "{}", r.body);
    let r = get(&app, &coach, &ws_path(&coach, &format!("/coaching/{fid}"))).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("First look.") && r.body.contains("Pop-up reps"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains(&format!("sessionId={}&#38;format=json", sessions[0])),
        "{}",
        r.body
    );

    let other = other_workspace(&app).await;
    let r = get(&app, &other, &ws_path(&other, &format!("/coaching/{fid}"))).await;
    assert_page(&r, StatusCode::NOT_FOUND);
    worker.shutdown().await;
}
