//! The footage pages over form posts, checked through the JSON API: the sessions list, a
//! session's clip tiles and numbers, storing and deleting a session, the batch upload from a
//! manifest and its page, the clip page (player on the signed URL, timeline, analysis state)
//! and label correction feeding the training set.

use super::{get, post, ws_path};
use crate::support::*;
use axum::http::StatusCode;
use serde_json::json;
use shared::db::Id;

/// What a finished analysis records: two rides and three maneuvers in 20 s.
fn analysed() -> serde_json::Value {
    json!({
        "duration_ms": 20_000,
        "wave_count": 2,
        "top_speed_kmh": 31.5,
        "avg_speed_kmh": 22.0,
        "rides": [
            { "start_ms": 2000, "end_ms": 8000, "top_speed_kmh": 31.5 },
            { "start_ms": 11000, "end_ms": 18000, "top_speed_kmh": 28.0 }
        ],
        "maneuvers": [
            { "type": "cutback", "at_ms": 4000, "confidence": 0.91, "ride_index": 0 },
            { "type": "floater", "at_ms": 6000, "confidence": 0.42, "ride_index": 0 },
            { "type": "snap", "at_ms": 15000, "confidence": 0.7, "ride_index": 1 }
        ]
    })
}

/// A footage session with a stored, analysed clip (`wave.mp4`) and an uploaded one.
async fn filmed(app: &TestApp, coach: &Session) -> (Id, Id, Id) {
    let (session, clip) = uploaded_clip(app, coach, &mp4_bytes(4096)).await;
    set_clip_stats(app, clip, analysed()).await;
    let other = add_clip_of(app, coach, session, &mp4_bytes(2048), None, "second.mp4").await;
    (session, clip, other)
}

async fn set_status(app: &TestApp, clip: Id, status: &str) {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE clips SET status = $1 WHERE id = $2")
            .bind(status)
            .bind(clip)
    )
    .unwrap();
}

#[tokio::test]
async fn the_sessions_list_newest_first_and_a_session_shows_its_clips_as_tiles() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (session, clip, other) = filmed(&app, &coach).await;
    let r = get(&app, &coach, &ws_path(&coach, "/footage")).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains(&format!("/footage/{session}")) && r.body.contains("2 clips, 1 stored"),
        "{}",
        r.body
    );
    assert!(
        r.body.contains(">Footage</a>"),
        "the navigation lists it: {}",
        r.body
    );
    // The session: each clip a tile linking to its page, the numbers, no polling when idle.
    let r = get(
        &app,
        &coach,
        &ws_path(&coach, &format!("/footage/{session}")),
    )
    .await;
    assert_page(&r, StatusCode::OK);
    for want in [
        format!("/clips/{clip}\""),
        "wave.mp4".into(),
        "second.mp4".into(),
        "0:20".into(),
        "31.5 km/h".into(),
        "Stored".into(),
    ] {
        assert!(r.body.contains(&want), "{want}: {}", r.body);
    }
    // The uploaded second clip waits for its probe: the tiles follow it until it is read.
    assert!(r.body.contains("hx-trigger=\"every"), "{}", r.body);
    set_status(&app, other, "probed").await;
    let r = get(
        &app,
        &coach,
        &ws_path(&coach, &format!("/footage/{session}")),
    )
    .await;
    assert!(!r.body.contains("hx-trigger=\"every"), "nothing in flight");
    // The training session links to it.
    let training = app
        .get(&format!("/api/sessions/{session}"))
        .session(&coach)
        .send()
        .await
        .json["trainingSessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let r = get(
        &app,
        &coach,
        &ws_path(&coach, &format!("/training/{training}")),
    )
    .await;
    assert!(
        r.body.contains(&format!("/footage/{session}\"")),
        "{}",
        r.body
    );
    // The dashboard's recent clips link to the clip page.
    let r = get(&app, &coach, &ws_path(&coach, "/")).await;
    assert!(r.body.contains(&format!("/clips/{clip}\"")), "{}", r.body);
}

#[tokio::test]
async fn another_workspace_module_and_permission_are_refused() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let (session, clip, _) = filmed(&app, &coach).await;
    // Another workspace's session and clip are not found from there.
    for rest in [format!("/footage/{session}"), format!("/clips/{clip}")] {
        let r = get(&app, &other, &ws_path(&other, &rest)).await;
        assert_page(&r, StatusCode::NOT_FOUND);
    }
    // A viewer reads but has no buttons, and a post is refused.
    let r = get(&app, &viewer, &ws_path(&coach, &format!("/clips/{clip}"))).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("/labels\""), "{}", r.body);
    let r = post(
        &app,
        &viewer,
        &ws_path(&coach, &format!("/clips/{clip}/labels")),
        &[("prediction", "0"), ("verdict", "confirmed")],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = post(
        &app,
        &viewer,
        &ws_path(&coach, &format!("/footage/{session}/delete")),
        &[],
    )
    .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    // The module off: out of the navigation, its pages 403.
    let m = app
        .req(
            axum::http::Method::PATCH,
            &format!("/api/orgs/{}/modules", coach.org_id),
        )
        .session(&coach)
        .json(json!({ "modules": { "footage": false } }))
        .send()
        .await;
    assert_eq!(m.status, StatusCode::OK, "{}", m.body);
    let r = get(&app, &coach, &ws_path(&coach, "/")).await;
    assert!(!r.body.contains(">Footage</a>"), "{}", r.body);
    let r = get(&app, &coach, &ws_path(&coach, "/footage")).await;
    assert_page(&r, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_clip_page_plays_the_signed_url_and_draws_rides_and_maneuvers() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip, _) = filmed(&app, &coach).await;
    let page = ws_path(&coach, &format!("/clips/{clip}"));
    let r = get(&app, &coach, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains("<video controls preload=\"metadata\""),
        "{}",
        r.body
    );
    let src = r
        .body
        .split("src=\"")
        .find(|s| s.contains("/api/video/stream?token="))
        .map(|s| s[..s.find('"').unwrap()].replace("&amp;", "&"))
        .expect("the player's source");
    let at = src.find("/api/").unwrap();
    let stream = app
        .get(&src[at..])
        .header("range", "bytes=0-9")
        .send()
        .await;
    assert_eq!(
        stream.status,
        StatusCode::PARTIAL_CONTENT,
        "the signed URL plays"
    );
    for want in [
        "Ride 1",
        "Ride 2",
        "0:02–0:08",
        "cutback",
        "0:04",
        "data-seek",
        "data-start=\"2.0\" data-end=\"8.0\"",
        "?t=2.0#player",
        "<svg class=\"timeline\"",
        "31.5 km/h",
        "Waves",
    ] {
        assert!(r.body.contains(want), "{want}: {}", r.body);
    }
    // Without script a mark's link starts the player there.
    let r = get(&app, &coach, &format!("{page}?t=11")).await;
    assert!(r.body.contains("#t=11.0\""), "{}", r.body);
    // A clip still waiting for its analysis says so; one without a file has no player.
    let no_file = {
        let s = footage_session(&app, &coach).await;
        let k = add_clip(&app, &coach, s, b"x").await;
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(
            &mut c,
            sqlx::query(
                "UPDATE clips SET raw_key = NULL, status = 'awaiting_upload' WHERE id = $1"
            )
            .bind(k)
        )
        .unwrap();
        k
    };
    let r = get(&app, &coach, &ws_path(&coach, &format!("/clips/{no_file}"))).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("<video"), "{}", r.body);
    assert!(r.body.contains("Waiting for its file"), "{}", r.body);
}

#[tokio::test]
async fn analyze_is_polled_while_in_flight_then_cancelled_and_store_refused() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (session, _, clip) = filmed(&app, &coach).await;
    let page = ws_path(&coach, &format!("/clips/{clip}"));
    let r = post(&app, &coach, &format!("{page}/analyze"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().ends_with("?done=footage.analyzing"));
    let api = app
        .get(&format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(api.json["status"], "submitted", "{}", api.body);
    // In flight: the clip page and the session's tiles poll; Cancel is offered.
    let r = get(&app, &coach, &page).await;
    assert!(
        r.body.contains("hx-select=\"#live\"") && r.body.contains("Cancel the analysis"),
        "{}",
        r.body
    );
    let r = get(
        &app,
        &coach,
        &ws_path(&coach, &format!("/footage/{session}")),
    )
    .await;
    assert!(r.body.contains("hx-select=\"#clips\""), "{}", r.body);
    let r = post(&app, &coach, &format!("{page}/cancel"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app
        .get(&format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(api.json["status"], "cancelled");
    // A cancelled clip cannot be stored: said on the page at the API's status.
    let r = post(&app, &coach, &format!("{page}/store"), &[]).await;
    assert_page(&r, StatusCode::CONFLICT);
    assert!(r.body.contains("class=\"notice\""), "{}", r.body);
}

#[tokio::test]
async fn correcting_a_label_on_the_page_feeds_the_training_set() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (_, clip, _) = filmed(&app, &coach).await;
    let labels = ws_path(&coach, &format!("/clips/{clip}/labels"));
    let maneuvers = format!("/api/clips/{clip}/maneuvers");
    // A correction without its type is refused beside the form; nothing is saved.
    let r = post(
        &app,
        &coach,
        &labels,
        &[
            ("prediction", "1"),
            ("verdict", "corrected"),
            ("correctedType", ""),
        ],
    )
    .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("correctedType"), "{}", r.body);
    let api = app.get(&maneuvers).session(&coach).send().await;
    assert_eq!(api.json["labels"].as_array().unwrap().len(), 0);
    // The first verdict labels the prediction, a later one changes that label.
    let r = post(
        &app,
        &coach,
        &labels,
        &[
            ("prediction", "1"),
            ("verdict", "corrected"),
            ("correctedType", "Reentry"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app.get(&maneuvers).session(&coach).send().await;
    let l = &api.json["labels"][0];
    assert_eq!(
        (
            l["predictedType"].as_str(),
            l["correctedType"].as_str(),
            l["verdict"].as_str()
        ),
        (Some("floater"), Some("reentry"), Some("corrected")),
        "{}",
        api.body
    );
    let page = get(&app, &coach, &ws_path(&coach, &format!("/clips/{clip}"))).await;
    assert!(page.body.contains("Corrected: reentry"), "{}", page.body);
    let export = app
        .get("/api/maneuver-labels/export?format=csv")
        .session(&coach)
        .send()
        .await;
    assert!(export.body.contains("reentry"), "{}", export.body);
    let r = post(
        &app,
        &coach,
        &labels,
        // A type typed beside another verdict is not kept.
        &[
            ("prediction", "1"),
            ("verdict", "rejected"),
            ("correctedType", "aerial"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let api = app.get(&maneuvers).session(&coach).send().await;
    assert_eq!(
        api.json["labels"].as_array().unwrap().len(),
        1,
        "changed, not added"
    );
    assert_eq!(api.json["labels"][0]["verdict"], "rejected");
    assert!(api.json["labels"][0]["correctedType"].is_null());
    assert_eq!(
        api.json["labels"][0]["labelledBy"],
        coach.user_id.to_string()
    );
}

#[tokio::test]
async fn a_session_is_stored_through_its_job_page_and_deleted_after_confirming() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (session, _, _) = filmed(&app, &coach).await;
    let base = ws_path(&coach, &format!("/footage/{session}"));
    let r = post(&app, &coach, &format!("{base}/store"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let to = r.location();
    assert!(
        to.contains("/jobs/")
            && to.contains(&format!(
                "back=%2Fw%2F{}%2Ffootage%2F{session}",
                coach.org_id
            )),
        "{to}"
    );
    let job = get(&app, &coach, &to).await;
    assert_page(&job, StatusCode::OK);
    // Delete: a confirmation page, then the session is gone from the API.
    let r = get(&app, &coach, &format!("{base}/delete")).await;
    assert_page(&r, StatusCode::OK);
    assert!(r.body.contains("its 2 clips"), "{}", r.body);
    let r = post(&app, &coach, &format!("{base}/delete"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().contains("/footage?done=deleted"));
    let api = app
        .get(&format!("/api/sessions/{session}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(api.status, StatusCode::NOT_FOUND);
}

const MANIFEST: &str = "\
date,spot,start_time,file,athletes
2026-05-01,Pipeline,07:30,GOPR0001.MP4,kai@example.com
2026-05-01,Pipeline,07:30,GOPR0002.MP4,
";

fn manifest(csrf: &str, csv: &str) -> Vec<u8> {
    format!(
        "--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"day.csv\"\r\nContent-Type: text/csv\r\n\r\n{csv}\r\n--XyZ--\r\n"
    )
    .into_bytes()
}

async fn upload(app: &TestApp, s: &Session, csv: &str) -> Resp {
    app.post(&ws_path(s, "/footage/batch"))
        .header("cookie", &cookies_of(s))
        .header("sec-fetch-site", "same-origin")
        .raw("multipart/form-data; boundary=XyZ", &manifest(&s.csrf, csv))
        .send()
        .await
}

#[tokio::test]
async fn a_manifest_prepares_its_clips_and_the_batch_page_follows_them() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Kai", "lastName": "Lopes", "email": "kai@example.com" }),
    )
    .await;
    let r = get(&app, &coach, &ws_path(&coach, "/footage/batch")).await;
    assert_page(&r, StatusCode::OK);
    // Every bad row by its line; nothing prepared.
    let bad = "date,spot,file\n2026-05-01,Pipeline,a.mp4\n01/05/2026,,b.mp4\n";
    let r = upload(&app, &coach, bad).await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("<td>3</td>"), "{}", r.body);
    assert_eq!(app.count("clips").await, 0);
    // A good manifest: the batch's page, each clip waiting for its file, polled.
    let r = upload(&app, &coach, MANIFEST).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let page = r.location();
    assert!(page.contains("/footage/batches/") && page.ends_with("?done=footage.batch_ready"));
    let batch = page
        .split("/batches/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let r = get(&app, &coach, &page).await;
    assert_page(&r, StatusCode::OK);
    for want in [
        "GOPR0001.MP4",
        "GOPR0002.MP4",
        "Kai Lopes",
        "Waiting for its file",
        "hx-select=\"#batch\"",
    ] {
        assert!(r.body.contains(want), "{want}: {}", r.body);
    }
    // The same rows through the API's resume read.
    let api = app
        .get(&format!(
            "/api/training-sessions/batch-upload?batchId={batch}"
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(api.status, StatusCode::OK, "{}", api.body);
    assert_eq!(api.json["rows"].as_array().unwrap().len(), 2);
    assert_eq!(api.json["rows"][0]["clip"]["status"], "awaiting_upload");
    // Reopened later from its footage session.
    let session = api.json["rows"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let r = get(
        &app,
        &coach,
        &ws_path(&coach, &format!("/footage/{session}")),
    )
    .await;
    assert!(
        r.body.contains(&format!("/footage/batches/{batch}\"")),
        "{}",
        r.body
    );
    // The same manifest again creates nothing.
    let r = upload(&app, &coach, MANIFEST).await;
    assert!(
        r.location().ends_with("?done=footage.batch_existing"),
        "{}",
        r.location()
    );
    assert_eq!(app.count("clips").await, 2);
    // Another workspace's batch is not found.
    let other = other_workspace(&app).await;
    let r = get(
        &app,
        &other,
        &ws_path(&other, &format!("/footage/batches/{batch}")),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
}

/// The clip page's web video: its poster on the player and its scrub strip once the render job
/// made them; while it is made, its state; after a failure, "make it again" for those who may
/// upload (as POST /api/clips/render), not for a viewer.
#[tokio::test]
async fn the_clip_page_shows_the_web_video_its_poster_and_strip_and_renders_again() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let (_, clip) = uploaded_clip(&app, &coach, &ffmpeg_clip(None)).await;
    let page = ws_path(&coach, &format!("/clips/{clip}"));
    let r = get(&app, &coach, &page).await;
    assert!(r.body.contains("Made once the clip"), "{}", r.body);

    let probe = app
        .post("/api/clips/probe")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    let job: Id = probe.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(job, |p| p.status == "succeeded").await;
    let m = app
        .get(&format!("/api/clips/{clip}/media"))
        .session(&coach)
        .send()
        .await;
    let render: Id = m.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(render, |p| p.status == "succeeded").await;

    let r = get(&app, &coach, &page).await;
    assert_page(&r, StatusCode::OK);
    assert!(
        r.body.contains(" poster=\"http"),
        "the player has its poster: {}",
        r.body
    );
    assert!(
        r.body.contains("Jump to a moment") && r.body.contains("<image href=\""),
        "{}",
        r.body
    );
    assert!(r.body.contains("Play the original file"), "{}", r.body);
    assert!(
        !r.body.contains("hx-trigger=\"every"),
        "nothing moves: no polling"
    );

    // A failed render: its reason, and the way to make it again.
    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(&mut c, sqlx::query("UPDATE clip_media SET status = 'failed', status_code = 'render_failed', status_message = 'ffmpeg was killed' WHERE clip_id = $1").bind(clip)).unwrap();
    }
    let r = get(&app, &viewer, &page).await;
    assert!(r.body.contains("ffmpeg was killed") && !r.body.contains("Make the web video again"));
    let r = post(&app, &viewer, &format!("{page}/render"), &[]).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // Another workspace's owner, at their own desk, finds no such clip.
    let other = other_workspace(&app).await;
    let theirs = ws_path(&other, &format!("/clips/{clip}/render"));
    assert_eq!(
        post(&app, &other, &theirs, &[]).await.status,
        StatusCode::NOT_FOUND
    );
    let r = get(&app, &coach, &page).await;
    assert!(r.body.contains("Make the web video again"), "{}", r.body);
    let r = post(&app, &coach, &format!("{page}/render"), &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let m = app
        .get(&format!("/api/clips/{clip}/media"))
        .session(&coach)
        .send()
        .await;
    assert_ne!(m.json["jobId"], json!(render), "a new render: {}", m.body);
    let again: Id = m.json["jobId"].as_str().unwrap().parse().unwrap();
    app.wait_job(again, |p| p.status == "succeeded").await;
    assert_eq!(audit_count(&app, "clip.render").await, 1);
    worker.shutdown().await;
}

/// The value of the first `name="…"` attribute in `html`.
fn attr<'a>(html: &'a str, name: &str) -> &'a str {
    let from = html.find(&format!("{name}=\"")).expect(name) + name.len() + 2;
    &html[from..from + html[from..].find('"').unwrap()]
}

#[tokio::test]
async fn the_session_page_offers_uploads_to_uploaders_only_with_what_the_tus_route_checks() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let session = footage_session(&app, &coach).await;
    let path = ws_path(&coach, &format!("/footage/{session}"));
    let r = get(&app, &coach, &path).await;
    assert_page(&r, StatusCode::OK);
    for want in [
        "<h2 id=\"h-upload\">Upload clips</h2>".to_string(),
        "type=\"file\" multiple accept=\"video/*\"".into(),
        "<noscript><p>Uploading from the browser needs JavaScript".into(),
        "data-endpoint=\"/api/clips/native-ingest\"".into(),
        format!("data-session=\"{session}\""),
        format!("data-ws=\"{}\"", coach.org_id),
        format!("data-clips=\"{path}\""),
    ] {
        assert!(r.body.contains(&want), "{want}: {}", r.body);
    }
    // The tus client is not on the page: upload.mjs loads it where the section is.
    assert!(!r.body.contains("tus.min.js"), "{}", r.body);

    // What the page hands its script is what the tus route checks: the session's CSRF token
    // and the workspace make an upload; without the token the write is refused.
    let csrf = attr(&r.body, "data-csrf").to_string();
    let ws = attr(&r.body, "data-ws").to_string();
    let meta = tus_metadata(&[("sessionId", &session.to_string()), ("filename", "a.mp4")]);
    let create = |token: Option<&str>| {
        let mut q = app
            .post("/api/clips/native-ingest")
            .cookie_only(&coach)
            .header("tus-resumable", "1.0.0")
            .header("x-workspace-id", &ws)
            .header("upload-length", "4096")
            .header("upload-metadata", &meta);
        if let Some(t) = token {
            q = q.header("x-csrf-token", t);
        }
        q.send()
    };
    let made = create(Some(&csrf)).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    assert_eq!(made.json["sessionId"], session.to_string());
    let refused = create(None).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert_eq!(refused.json["error"]["code"], "csrf_failed");

    // A viewer sees the session without the upload section; another workspace gets a 404.
    let r = get(&app, &viewer, &path).await;
    assert_page(&r, StatusCode::OK);
    assert!(!r.body.contains("data-upload"), "{}", r.body);
    let r = get(
        &app,
        &other,
        &ws_path(&other, &format!("/footage/{session}")),
    )
    .await;
    assert_page(&r, StatusCode::NOT_FOUND);
}
