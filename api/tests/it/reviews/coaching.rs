//! Coaching: feedback generated from analysed clips and the coach's keypoints (per clip or
//! batch, versions kept), every model failure at the job level, progress numbers from stored
//! stats with or without a narrative, the export (JSON and an escaped HTML report), and who may
//! do what.

use crate::support::*;
use axum::http::{Method, StatusCode, header};
use serde_json::{Value, json};
use shared::db::Id;
use testkit::model::{Failure, FakeModel};

const KEY: &str = "model-key";

/// The app with the fake model configured (chat model `coach-model`, 300 ms per request).
pub async fn app_with_model() -> (TestApp, FakeModel) {
    let fake = FakeModel::start(KEY).await;
    let url = fake.base_url();
    let app = TestApp::with_env(&[
        ("MODEL_BASE_URL", url.as_str()),
        ("MODEL_API_KEY", KEY),
        ("MODEL_CHAT", "coach-model"),
        ("MODEL_TIMEOUT_MS", "300"),
    ])
    .await;
    (app, fake)
}

/// A structured answer that matches the feedback schema.
pub fn answer(summary: &str) -> Value {
    json!({
        "summary": summary,
        "strengths": ["Early, balanced pop-up"],
        "improvements": ["Compress more through the bottom turn"],
        "drills": [{ "name": "Pop-up reps", "description": "20 on the beach before paddling out" }],
        "maneuvers": [{ "type": "cutback", "note": "Look back at the foam" }]
    })
}

/// Stats with `waves` waves, a top speed, ride windows (start, end ms) and maneuver types.
fn stats(waves: u32, top: f64, rides: &[(u64, u64)], maneuvers: &[&str]) -> Value {
    json!({
        "duration_ms": 60_000, "wave_count": waves, "top_speed_kmh": top, "avg_speed_kmh": 12.0,
        "rides": rides.iter().map(|(s, e)| json!({ "start_ms": s, "end_ms": e })).collect::<Vec<_>>(),
        "maneuvers": maneuvers.iter().enumerate()
            .map(|(i, m)| json!({ "type": m, "at_ms": 1000 * i as u64, "confidence": 0.8 }))
            .collect::<Vec<_>>(),
    })
}

/// A footage session with `n` analysed clips.
async fn analysed_session(app: &TestApp, coach: &Session, n: usize) -> (Id, Vec<Id>) {
    let session = footage_session(app, coach).await;
    let mut clips = Vec::new();
    for i in 0..n {
        let clip = add_clip(app, coach, session, b"video").await;
        let rides = [(1000, 6000 + 1000 * i as u64)];
        set_clip_stats(app, clip, stats(2, 25.0, &rides, &["cutback", "snap"])).await;
        clips.push(clip);
    }
    (session, clips)
}

async fn generate(app: &TestApp, s: &Session, body: Value) -> Resp {
    app.post("/api/sessions/coaching")
        .session(s)
        .json(body)
        .send()
        .await
}

fn job_of(r: &Resp) -> Id {
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    r.json["jobId"].as_str().unwrap().parse().unwrap()
}

/// Waits until the job has succeeded or failed for good.
async fn finished(app: &TestApp, job: Id) -> jobs::progress::Progress {
    app.wait_job(job, |p| p.status == "succeeded" || p.status == "failed")
        .await
}

async fn feedback(app: &TestApp, s: &Session, query: &str) -> Vec<Value> {
    let r = app
        .get(&format!("/api/sessions/coaching{query}"))
        .session(s)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    items(&r).clone()
}

/// A review of `session` with one coach keypoint on `clip` and one dismissed suggestion.
async fn review_with_keypoints(app: &TestApp, coach: &Session, session: Id, clip: Id, note: &str) {
    let r = app
        .post("/api/reviews")
        .session(coach)
        .json(json!({ "sessionId": session }))
        .send()
        .await;
    let id = r.json["id"].as_str().unwrap().to_string();
    let s = app
        .post(&format!("/api/reviews/{id}/suggest"))
        .session(coach)
        .send()
        .await;
    let snap = s.json["review"]["keypoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["clipId"] == clip.to_string() && k["maneuverType"] == "snap")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let d = app
        .req(
            Method::DELETE,
            &format!("/api/reviews/{id}/keypoints/{snap}"),
        )
        .session(coach)
        .send()
        .await;
    assert_eq!(d.status, StatusCode::NO_CONTENT);
    let k = app
        .post(&format!("/api/reviews/{id}/keypoints"))
        .session(coach)
        .json(json!({ "clipId": clip, "atMs": 1500, "body": note }))
        .send()
        .await;
    assert_eq!(k.status, StatusCode::CREATED, "{}", k.body);
}

#[tokio::test]
async fn batch_feedback_is_stored_with_its_input_and_model_and_regenerating_adds_a_version() {
    let (app, fake) = app_with_model().await;
    let coach = app.signup("coach@example.com").await;
    let (session, clips) = analysed_session(&app, &coach, 2).await;
    review_with_keypoints(&app, &coach, session, clips[0], "Drop your back knee").await;
    fake.answer_with(answer("First look."));
    fake.answer_with(answer("Second look."));

    // A double click is one job.
    let first = generate(&app, &coach, json!({ "sessionId": session })).await;
    let job = job_of(&first);
    let again = generate(&app, &coach, json!({ "sessionId": session })).await;
    assert_eq!(
        (job_of(&again), again.json["existing"].clone()),
        (job, json!(true))
    );
    let worker = app.start_worker(&[]).await;
    let p = finished(&app, job).await;
    assert_eq!((p.status.as_str(), p.attempts), ("succeeded", 1), "{p:?}");

    let rows = feedback(&app, &coach, &format!("?sessionId={session}")).await;
    assert_eq!(rows.len(), 1);
    let f = &rows[0];
    assert_eq!(f["kind"], "batch");
    assert_eq!(f["subject"], format!("batch:{session}"));
    assert_eq!(f["version"], 1);
    assert_eq!(f["model"], "coach-model");
    assert_eq!(f["modelVersion"], "coach-model-2026-01-01");
    assert_eq!(f["jobId"], job.to_string());
    assert_eq!(f["output"], answer("First look."));
    // The input is exactly the message the model was given: both clips' stats, the coach's
    // keypoints, and not the dismissed suggestion.
    let sent = &fake.completions()[0];
    let message: Value =
        serde_json::from_str(sent["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(f["input"], message);
    assert_eq!(
        sent["response_format"]["json_schema"]["name"],
        "coaching_feedback"
    );
    let input_clips = f["input"]["clips"].as_array().unwrap();
    assert_eq!(input_clips.len(), 2);
    assert_eq!(input_clips[0]["stats"]["wave_count"], 2);
    let notes: Vec<&str> = input_clips[0]["keypoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["body"].as_str().unwrap())
        .collect();
    assert!(notes.contains(&"Drop your back knee"), "{notes:?}");
    assert!(!notes.iter().any(|n| n.starts_with("snap")), "{notes:?}");

    // Asking again once the job is over writes version 2 and keeps version 1.
    let job2 = job_of(&generate(&app, &coach, json!({ "sessionId": session })).await);
    assert_ne!(job2, job);
    assert_eq!(finished(&app, job2).await.status, "succeeded");
    let all = feedback(&app, &coach, &format!("?sessionId={session}")).await;
    let versions: Vec<i64> = all.iter().map(|f| f["version"].as_i64().unwrap()).collect();
    assert_eq!(versions, [2, 1], "newest first");
    let latest = feedback(&app, &coach, &format!("?sessionId={session}&latest=true")).await;
    assert_eq!(latest.len(), 1);
    assert_eq!(latest[0]["output"]["summary"], "Second look.");
    let v1 = app
        .get(&format!(
            "/api/sessions/coaching/{}",
            f["id"].as_str().unwrap()
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(v1.json["output"]["summary"], "First look.", "{}", v1.body);
    assert_eq!(audit_count(&app, "coaching.request").await, 2);
    worker.shutdown().await;
}

#[tokio::test]
async fn per_clip_feedback_is_one_row_per_clip_from_one_job() {
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (session, clips) = analysed_session(&app, &coach, 3).await;
    fake.answer_with(answer("Clip A."));
    fake.answer_with(answer("Clip B."));
    let chosen = [clips[2], clips[0]];
    let r = generate(
        &app,
        &coach,
        json!({ "sessionId": session, "clipIds": chosen, "mode": "per_clip" }),
    )
    .await;
    assert_eq!(finished(&app, job_of(&r)).await.status, "succeeded");
    assert_eq!(fake.completions().len(), 2, "one question per clip");
    let rows = feedback(&app, &coach, &format!("?sessionId={session}")).await;
    assert_eq!(rows.len(), 2);
    for f in &rows {
        assert_eq!(f["kind"], "clip");
        assert_eq!(f["version"], 1);
        let clip = f["clipId"].as_str().unwrap();
        assert_eq!(f["subject"], format!("clip:{clip}"));
        assert_eq!(f["input"]["clips"].as_array().unwrap().len(), 1);
        assert_eq!(f["input"]["clips"][0]["clipId"], clip);
    }
    let one = feedback(&app, &coach, &format!("?clipId={}", clips[2])).await;
    assert_eq!(one.len(), 1);
    assert!(
        feedback(&app, &coach, &format!("?clipId={}", clips[1]))
            .await
            .is_empty()
    );
    worker.shutdown().await;
}

#[tokio::test]
async fn bad_requests_name_their_field_and_enqueue_nothing() {
    let (app, _fake) = app_with_model().await;
    let coach = app.signup("coach@example.com").await;
    let (session, clips) = analysed_session(&app, &coach, 1).await;
    let raw = add_clip(&app, &coach, session, b"not analysed").await;
    let (_, elsewhere) = analysed_session(&app, &coach, 1).await;
    let (empty, _) = analysed_session(&app, &coach, 0).await;
    let too_many: Vec<Id> = (0..51).map(|_| Id::new()).collect();
    for (body, field) in [
        (json!({ "sessionId": session, "clipIds": [raw] }), "clipIds"),
        (
            json!({ "sessionId": session, "clipIds": [elsewhere[0]] }),
            "clipIds",
        ),
        (json!({ "sessionId": session, "clipIds": [] }), "clipIds"),
        (
            json!({ "sessionId": session, "clipIds": too_many }),
            "clipIds",
        ),
        (json!({ "sessionId": session, "mode": "weekly" }), "mode"),
        (json!({ "sessionId": empty }), "sessionId"),
    ] {
        let r = generate(&app, &coach, body.clone()).await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert!(
            r.fields().contains(&field.to_string()),
            "{body}: {}",
            r.body
        );
    }
    generate(
        &app,
        &coach,
        json!({ "sessionId": Id::new(), "clipIds": clips }),
    )
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    generate(&app, &coach, json!({ "sessionId": session, "extra": 1 }))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.count("job_progress").await, 0);
    assert_eq!(audit_count(&app, "coaching.request").await, 0);
}

#[tokio::test]
async fn without_a_model_coaching_answers_503_and_enqueues_nothing() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (session, _) = analysed_session(&app, &coach, 1).await;
    generate(&app, &coach, json!({ "sessionId": session }))
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "provider_not_configured");
    assert_eq!(app.count("job_progress").await, 0);
    assert_eq!(app.count("coaching_feedback").await, 0);
}

#[tokio::test]
async fn every_transient_model_failure_is_retried_and_stores_one_version() {
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (session, _) = analysed_session(&app, &coach, 1).await;
    // Each case fails the job's first attempt (the adapter itself tries a 429 and a timeout
    // three times); the second attempt is answered.
    let cases: Vec<(&str, Vec<Failure>, Option<Value>, &str)> = vec![
        ("500", vec![Failure::Status(500)], None, "status 500"),
        (
            "malformed",
            vec![Failure::Malformed],
            None,
            "unexpected response body",
        ),
        (
            "outside the schema",
            vec![],
            Some(json!({ "summary": "no lists" })),
            "is missing",
        ),
        ("timeout", vec![Failure::Hang; 3], None, "timed out"),
        ("429", vec![Failure::Status(429); 3], None, "rate limiting"),
    ];
    for (i, (case, failures, bad_answer, error)) in cases.into_iter().enumerate() {
        fake.fail_completions(&failures);
        if let Some(a) = bad_answer {
            fake.answer_with(a);
        }
        fake.answer_with(answer(case));
        let started = std::time::Instant::now();
        let job = job_of(&generate(&app, &coach, json!({ "sessionId": session })).await);
        // The first attempt's error, while the job waits for its retry.
        let retrying = app
            .wait_job(job, |p| p.last_error.is_some() || p.status == "succeeded")
            .await;
        assert_eq!(retrying.status, "queued", "{case}: {retrying:?}");
        assert!(
            retrying
                .last_error
                .as_deref()
                .unwrap_or_default()
                .contains(error),
            "{case}: {:?}",
            retrying.last_error
        );
        let p = finished(&app, job).await;
        assert_eq!(
            (p.status.as_str(), p.attempts),
            ("succeeded", 2),
            "{case}: {p:?}"
        );
        if case == "429" {
            assert!(
                started.elapsed() >= std::time::Duration::from_secs(1),
                "the retry waits for Retry-After"
            );
        }
        let rows = feedback(&app, &coach, &format!("?sessionId={session}")).await;
        assert_eq!(rows.len(), i + 1, "{case}: one version per job");
        assert_eq!(rows[0]["version"], (i + 1) as i64);
        assert_eq!(rows[0]["output"]["summary"], case);
    }
    worker.shutdown().await;
}

#[tokio::test]
async fn a_rejected_request_fails_the_job_at_once_and_writes_nothing() {
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (session, _) = analysed_session(&app, &coach, 1).await;
    fake.fail_completions(&[Failure::Status(400)]);
    let job = job_of(&generate(&app, &coach, json!({ "sessionId": session })).await);
    let p = finished(&app, job).await;
    assert_eq!((p.status.as_str(), p.attempts), ("failed", 1), "{p:?}");
    let error = p.last_error.unwrap_or_default();
    assert!(error.contains("rejected the request (400)"), "{error}");
    assert_eq!(app.count("coaching_feedback").await, 0);
    worker.shutdown().await;
}

#[tokio::test]
async fn a_job_that_fails_midway_writes_no_feedback_for_any_clip() {
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (session, _) = analysed_session(&app, &coach, 2).await;
    // The first clip is answered, the second never properly: every attempt ends in an answer
    // outside the schema (the fake's default), until the attempts are spent.
    fake.answer_with(answer("only the first"));
    let body = json!({ "sessionId": session, "mode": "per_clip" });
    let job = job_of(&generate(&app, &coach, body).await);
    let p = finished(&app, job).await;
    assert_eq!((p.status.as_str(), p.attempts), ("failed", 5), "{p:?}");
    assert!(p.last_error.unwrap_or_default().contains("out of attempts"));
    assert_eq!(app.count("coaching_feedback").await, 0);
    worker.shutdown().await;
}

// ---- progress ----

/// An athlete with three footage sessions of analysed clips (oldest first), plus noise that
/// must not count: another athlete's clip, an unanalysed clip and another athlete's session.
pub async fn athlete_with_sessions(app: &TestApp, coach: &Session) -> (String, Vec<Id>) {
    let athlete = id(&new_athlete(
        app,
        coach,
        json!({ "firstName": "Mia", "lastName": "Lopes" }),
    )
    .await);
    let other = id(&new_athlete(app, coach, json!({ "firstName": "Kai", "lastName": "M" })).await);
    let mut sessions = Vec::new();
    let plan: Vec<Vec<Value>> = vec![
        vec![stats(
            2,
            25.0,
            &[(0, 4000), (10_000, 16_000)],
            &["cutback", "snap"],
        )],
        vec![stats(
            3,
            28.5,
            &[(0, 5000), (6000, 13_000), (20_000, 29_000)],
            &["cutback", "cutback", "snap", "floater"],
        )],
        vec![
            stats(1, 30.0, &[(0, 10_000)], &["snap"]),
            stats(
                2,
                31.5,
                &[(0, 8000), (10_000, 22_000)],
                &["cutback", "snap", "snap"],
            ),
        ],
    ];
    for clips in plan {
        let s = footage_session(app, coach).await;
        for st in clips {
            let k = add_clip(app, coach, s, b"v").await;
            set_clip_stats(app, k, st).await;
        }
        sessions.push(s);
    }
    // Noise in the last session: another athlete's clip (fast) and an unanalysed clip.
    let theirs = add_clip(app, coach, sessions[2], b"v").await;
    set_clip_stats(app, theirs, stats(9, 99.0, &[(0, 60_000)], &["aerial"])).await;
    add_clip(app, coach, sessions[2], b"v").await;
    // A session of the other athlete.
    let (elsewhere, _) = analysed_session(app, coach, 1).await;
    let mut c = app.state.db.acquire().await.unwrap();
    for s in &sessions {
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE footage_sessions SET athlete_id = $1 WHERE id = $2")
                .bind(athlete.parse::<Id>().unwrap())
                .bind(*s)
        )
        .unwrap();
    }
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE footage_sessions SET athlete_id = $1 WHERE id = $2")
            .bind(other.parse::<Id>().unwrap())
            .bind(elsewhere)
    )
    .unwrap();
    shared::execute!(
        &mut c,
        sqlx::query("UPDATE clips SET athlete_id = $1 WHERE id = $2")
            .bind(other.parse::<Id>().unwrap())
            .bind(theirs)
    )
    .unwrap();
    (athlete, sessions)
}

async fn progress(app: &TestApp, s: &Session, body: Value) -> Resp {
    app.post("/api/sessions/coaching/progress")
        .session(s)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn progress_numbers_come_from_the_stored_stats_and_stand_without_a_model() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (athlete, sessions) = athlete_with_sessions(&app, &coach).await;

    let r = progress(&app, &coach, json!({ "athleteId": athlete })).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["kind"], "progress");
    assert_eq!(r.json["version"], 1);
    assert_eq!(r.json["narrativeJob"], Value::Null);
    let out = &r.json["output"];
    assert_eq!(out["narrative"], Value::Null);
    assert_eq!(out["narrativeStatus"], "unavailable");
    assert_eq!(out["narrativeReason"], "provider_not_configured");
    let s = out["sessions"].as_array().unwrap();
    let ids: Vec<String> = s
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap().into())
        .collect();
    let want: Vec<String> = sessions.iter().map(Id::to_string).collect();
    assert_eq!(ids, want, "the athlete's sessions, oldest first");
    let row = |i: usize, k: &str| s[i][k].clone();
    assert_eq!(
        (0..3).map(|i| row(i, "waves")).collect::<Vec<_>>(),
        [json!(2), json!(3), json!(3)]
    );
    assert_eq!(
        row(2, "clips"),
        2,
        "another athlete's and unanalysed clips left out"
    );
    assert_eq!(
        (0..3)
            .map(|i| row(i, "meanRideSeconds"))
            .collect::<Vec<_>>(),
        [json!(5.0), json!(7.0), json!(10.0)]
    );
    assert_eq!(
        (0..3)
            .map(|i| row(i, "longestRideSeconds"))
            .collect::<Vec<_>>(),
        [json!(6.0), json!(9.0), json!(12.0)]
    );
    assert_eq!(
        (0..3).map(|i| row(i, "topSpeedKmh")).collect::<Vec<_>>(),
        [json!(25.0), json!(28.5), json!(31.5)]
    );
    assert_eq!(
        row(1, "maneuvers"),
        json!({ "cutback": 2, "floater": 1, "snap": 1 })
    );
    assert_eq!(
        row(2, "maneuverMix"),
        json!({ "cutback": 0.25, "snap": 0.75 })
    );
    let t = &out["trends"];
    let trend = |v: &Value| {
        (
            v["first"].clone(),
            v["last"].clone(),
            v["change"].clone(),
            v["slopePerSession"].clone(),
        )
    };
    assert_eq!(
        trend(&t["waves"]),
        (json!(2.0), json!(3.0), json!(1.0), json!(0.5))
    );
    assert_eq!(
        trend(&t["meanRideSeconds"]),
        (json!(5.0), json!(10.0), json!(5.0), json!(2.5))
    );
    assert_eq!(
        trend(&t["longestRideSeconds"]),
        (json!(6.0), json!(12.0), json!(6.0), json!(3.0))
    );
    assert_eq!(
        trend(&t["topSpeedKmh"]),
        (json!(25.0), json!(31.5), json!(6.5), json!(3.25))
    );
    assert_eq!(
        trend(&t["maneuverCount"]),
        (json!(2.0), json!(4.0), json!(2.0), json!(1.0))
    );
    assert_eq!(
        trend(&t["maneuverMix"]["cutback"]),
        (json!(0.5), json!(0.25), json!(-0.25), json!(-0.125))
    );
    assert_eq!(
        trend(&t["maneuverMix"]["floater"]),
        (json!(0.0), json!(0.0), json!(0.0), json!(0.0))
    );
    // The input keeps the stats the numbers came from.
    assert_eq!(r.json["input"]["sessions"].as_array().unwrap().len(), 3);

    // Chosen sessions, and the latest two: new versions of the same subject.
    let r = progress(
        &app,
        &coach,
        json!({ "athleteId": athlete, "sessionIds": [sessions[2], sessions[0]] }),
    )
    .await;
    assert_eq!(r.json["version"], 2);
    assert_eq!(r.json["output"]["trends"]["waves"]["slopePerSession"], 1.0);
    let r = progress(&app, &coach, json!({ "athleteId": athlete, "last": 2 })).await;
    assert_eq!(r.json["version"], 3);
    assert_eq!(
        r.json["output"]["sessions"][0]["sessionId"],
        sessions[1].to_string()
    );
    let latest = feedback(&app, &coach, &format!("?athleteId={athlete}&latest=true")).await;
    assert_eq!(latest.len(), 1);

    // Bad input names its field and stores nothing.
    let before = app.count("coaching_feedback").await;
    for (body, field) in [
        (json!({ "athleteId": athlete, "from": "yesterday" }), "from"),
        (
            json!({ "athleteId": athlete, "from": "2026-05-02", "to": "2026-05-01" }),
            "to",
        ),
        (json!({ "athleteId": athlete, "last": 0 }), "last"),
        (
            json!({ "athleteId": athlete, "from": "2000-01-01", "to": "2000-12-31" }),
            "athleteId",
        ),
    ] {
        let r = progress(&app, &coach, body.clone()).await;
        r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
        assert!(
            r.fields().contains(&field.to_string()),
            "{body}: {}",
            r.body
        );
    }
    progress(&app, &coach, json!({ "athleteId": Id::new() }))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("coaching_feedback").await, before);
}

#[tokio::test]
async fn the_progress_narrative_is_written_by_a_job_and_its_failure_is_recorded() {
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (athlete, _) = athlete_with_sessions(&app, &coach).await;
    fake.answer_with(json!({ "narrative": "Rides are getting longer." }));
    let r = progress(&app, &coach, json!({ "athleteId": athlete })).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["output"]["narrativeStatus"], "pending");
    assert_eq!(r.json["output"]["sessions"].as_array().unwrap().len(), 3);
    let job: Id = r.json["narrativeJob"]["jobId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(finished(&app, job).await.status, "succeeded");
    let id = r.json["id"].as_str().unwrap();
    let f = app
        .get(&format!("/api/sessions/coaching/{id}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(f.json["output"]["narrative"], "Rides are getting longer.");
    assert_eq!(f.json["output"]["narrativeStatus"], "written");
    assert_eq!(f.json["modelVersion"], "coach-model-2026-01-01");
    assert_eq!(
        f.json["output"]["trends"], r.json["output"]["trends"],
        "numbers unchanged"
    );
    // The model was given the numbers, not the raw stats.
    let sent: Value = serde_json::from_str(
        fake.completions()[0]["messages"][1]["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(sent["trends"], r.json["output"]["trends"]);

    // A refused narrative: the job fails, the numbers stay, the report says why.
    fake.fail_completions(&[Failure::Status(400)]);
    let r = progress(&app, &coach, json!({ "athleteId": athlete })).await;
    let job: Id = r.json["narrativeJob"]["jobId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(finished(&app, job).await.status, "failed");
    let id = r.json["id"].as_str().unwrap();
    let f = app
        .get(&format!("/api/sessions/coaching/{id}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(f.json["output"]["narrative"], Value::Null);
    assert_eq!(f.json["output"]["narrativeStatus"], "failed");
    let reason = f.json["output"]["narrativeReason"].as_str().unwrap();
    assert!(reason.contains("rejected"), "{reason}");
    assert_eq!(f.json["output"]["sessions"].as_array().unwrap().len(), 3);
    worker.shutdown().await;
}

// ---- export ----

#[tokio::test]
async fn the_html_report_escapes_every_text_and_allows_no_script() {
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let (session, clips) = analysed_session(&app, &coach, 1).await;
    review_with_keypoints(
        &app,
        &coach,
        session,
        clips[0],
        "<script>alert('kp')</script>",
    )
    .await;
    let mut a = answer("<img src=x onerror=alert(1)> <SCRIPT>steal()</SCRIPT>");
    a["drills"][0]["name"] = json!("\"><style>body{display:none}</style>");
    fake.answer_with(a);
    let job = job_of(&generate(&app, &coach, json!({ "sessionId": session })).await);
    assert_eq!(finished(&app, job).await.status, "succeeded");

    let r = app
        .get(&format!(
            "/api/sessions/coaching/export?format=html&sessionId={session}"
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let h = |name: header::HeaderName| r.headers.get(name).unwrap().to_str().unwrap().to_string();
    assert_eq!(h(header::CONTENT_TYPE), "text/html; charset=utf-8");
    assert_eq!(
        h(header::CONTENT_SECURITY_POLICY),
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    );
    assert_eq!(h(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    assert_eq!(
        h(header::CONTENT_DISPOSITION),
        format!("attachment; filename=\"coaching-session-{session}.html\"")
    );
    let body = r.body.to_lowercase();
    assert!(!body.contains("<script"), "{}", r.body);
    assert!(!body.contains("<img"), "{}", r.body);
    assert_eq!(
        body.matches("<style>").count(),
        1,
        "only the report's own style"
    );
    assert!(
        r.body
            .contains("&lt;script&gt;alert(&#39;kp&#39;)&lt;/script&gt;"),
        "{}",
        r.body
    );
    assert!(r.body.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(
        r.body
            .contains("&quot;&gt;&lt;style&gt;body{display:none}&lt;/style&gt;")
    );
    assert!(r.body.contains("Version 1"));

    // JSON: the same newest versions, raw.
    let j = app
        .get(&format!(
            "/api/sessions/coaching/export?format=json&sessionId={session}"
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(j.status, StatusCode::OK, "{}", j.body);
    assert!(j.headers.get(header::CONTENT_SECURITY_POLICY).is_none());
    assert_eq!(j.json["sessionId"], session.to_string());
    assert_eq!(j.json["sessionTitle"], "Filmed");
    let items = j.json["feedback"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert!(
        items[0]["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("<SCRIPT>")
    );

    app.get(&format!(
        "/api/sessions/coaching/export?format=pdf&sessionId={session}"
    ))
    .session(&coach)
    .send()
    .await
    .assert_error(StatusCode::BAD_REQUEST, "invalid_query");
    app.get("/api/sessions/coaching/export?format=html")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    worker.shutdown().await;
}

#[tokio::test]
async fn an_athletes_report_shows_their_progress_numbers() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (athlete, _) = athlete_with_sessions(&app, &coach).await;
    progress(&app, &coach, json!({ "athleteId": athlete })).await;
    let r = app
        .get(&format!(
            "/api/sessions/coaching/export?format=html&athleteId={athlete}"
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.body.contains("Athlete: Mia Lopes"));
    assert!(r.body.contains("Progress across sessions"));
    assert!(
        r.body
            .contains("<td>Top speed (km/h)</td><td>25</td><td>31.5</td><td>6.5</td><td>3.25</td>"),
        "{}",
        r.body
    );
    assert!(r.body.contains("No narrative (provider_not_configured)"));
}

// ---- who may ----

#[tokio::test]
async fn viewers_read_and_export_managers_generate_and_other_workspaces_see_nothing() {
    let (app, fake) = app_with_model().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let (athlete, sessions) = athlete_with_sessions(&app, &coach).await;
    fake.answer_with(answer("Ours."));
    let job = job_of(&generate(&app, &coach, json!({ "sessionId": sessions[0] })).await);
    assert_eq!(finished(&app, job).await.status, "succeeded");
    let rows = feedback(&app, &coach, "").await;
    let fid = rows[0]["id"].as_str().unwrap().to_string();

    // A viewer (reviews.read, not reviews.manage).
    generate(&app, &viewer, json!({ "sessionId": sessions[0] }))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    progress(&app, &viewer, json!({ "athleteId": athlete }))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert_eq!(feedback(&app, &viewer, "").await.len(), 1);
    for path in [
        format!("/api/sessions/coaching/{fid}"),
        format!(
            "/api/sessions/coaching/export?format=html&sessionId={}",
            sessions[0]
        ),
        format!("/api/sessions/coaching/export?format=json&athleteId={athlete}"),
    ] {
        let r = app.get(&path).session(&viewer).send().await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
    }

    // Another workspace: our session, athlete and feedback do not exist for it.
    generate(&app, &other, json!({ "sessionId": sessions[0] }))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    progress(&app, &other, json!({ "athleteId": athlete }))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    for path in [
        format!("/api/sessions/coaching/{fid}"),
        format!(
            "/api/sessions/coaching/export?format=html&sessionId={}",
            sessions[0]
        ),
        format!("/api/sessions/coaching/export?format=json&athleteId={athlete}"),
    ] {
        app.get(&path)
            .session(&other)
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    assert!(
        feedback(&app, &other, &format!("?sessionId={}", sessions[0]))
            .await
            .is_empty()
    );
    // Their own athlete with our sessions: the sessions are not theirs.
    let theirs = id(&new_athlete(&app, &other, json!({ "firstName": "X", "lastName": "Y" })).await);
    progress(
        &app,
        &other,
        json!({ "athleteId": theirs, "sessionIds": [sessions[0]] }),
    )
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    worker.shutdown().await;
}
