//! Batch uploads from a spreadsheet manifest: CSV and Excel, row errors with line numbers,
//! idempotent re-runs, the resume read with live statuses, and a file uploaded into a row.

use crate::support::*;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

const MANIFEST: &str = "\
Date,Spot,Start time,File,Athletes,Title
2026-05-01,Pipeline,07:30,GOPR0001.MP4,kai@example.com; Lena Hart,Dawn patrol
2026-05-01,Pipeline,07:30,GOPR0002.MP4,Kai Lopes,
2026-05-02,Bells Beach,,GOPR0001.MP4,,
";

async fn athletes(app: &TestApp, coach: &Session) {
    for (first, last, email) in [
        ("Kai", "Lopes", "kai@example.com"),
        ("Lena", "Hart", "lena@example.com"),
    ] {
        new_athlete(
            app,
            coach,
            json!({ "firstName": first, "lastName": last, "email": email }),
        )
        .await;
    }
}

async fn prepare(app: &TestApp, s: &Session, ct: &str, body: &[u8]) -> Resp {
    app.post("/api/training-sessions/batch-upload?fileName=day.csv")
        .session(s)
        .raw(ct, body)
        .send()
        .await
}

#[tokio::test]
async fn a_manifest_prepares_sessions_and_clips_once_as_csv_or_excel() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    athletes(&app, &coach).await;

    let r = prepare(&app, &coach, "text/csv", MANIFEST.as_bytes()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["existing"], false);
    assert_eq!(r.json["report"]["created"], 3);
    let batch = r.json["batch"]["id"].as_str().unwrap().to_string();
    let rows = r.json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["line"], 2);
    assert_eq!(rows[0]["title"], "Dawn patrol");
    assert_eq!(rows[0]["athletes"].as_array().unwrap().len(), 2);
    assert_eq!(
        rows[0]["sessionId"], rows[1]["sessionId"],
        "same day, spot and start: one session"
    );
    assert_ne!(rows[0]["sessionId"], rows[2]["sessionId"]);
    assert_eq!(rows[2]["title"], "Bells Beach 2026-05-02");
    assert_eq!(rows[2]["startTime"], "08:00");
    assert_eq!(app.count("training_sessions").await, 2);
    assert_eq!(app.count("footage_sessions").await, 2);
    assert_eq!(app.count("clips").await, 3);
    assert_eq!(
        app.count("training_participants").await,
        2,
        "Kai and Lena, once each"
    );
    let k = app
        .get(&format!(
            "/api/clips/{}",
            rows[1]["clipId"].as_str().unwrap()
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(k.json["status"], "awaiting_upload");
    assert_eq!(k.json["fileName"], "GOPR0002.MP4");
    assert!(k.json["athleteId"].is_string());

    // The same manifest again, and the same rows as an Excel workbook (a styled date cell
    // and a text one): the same batch, nothing created.
    let again = prepare(&app, &coach, "text/csv", MANIFEST.as_bytes()).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.json["existing"], true);
    assert_eq!(again.json["batch"]["id"], batch);
    assert_eq!(again.json["report"]["created"], 0);
    assert_eq!(again.json["report"]["duplicates"], 3);
    use XCell::{Date, Text};
    let book = xlsx(&[
        vec![
            Text("date"),
            Text("spot"),
            Text("start_time"),
            Text("file"),
            Text("athletes"),
            Text("title"),
        ],
        vec![
            Date(46143),
            Text("Pipeline"),
            Text("07:30"),
            Text("GOPR0001.MP4"),
            Text("kai@example.com; Lena Hart"),
            Text("Dawn patrol"),
        ],
        vec![
            Text("2026-05-01"),
            Text("Pipeline"),
            Text("07:30"),
            Text("GOPR0002.MP4"),
            Text("Kai Lopes"),
        ],
        vec![
            Date(46144),
            Text("Bells Beach"),
            Text(""),
            Text("GOPR0001.MP4"),
        ],
    ]);
    let excel = prepare(&app, &coach, XLSX, &book).await;
    assert_eq!(excel.status, StatusCode::OK, "{}", excel.body);
    assert_eq!(excel.json["batch"]["id"], batch);
    assert_eq!(excel.json["report"]["created"], 0);
    assert_eq!(app.count("clips").await, 3);
    assert_eq!(app.count("training_sessions").await, 2);
    assert_eq!(app.count("batch_upload_jobs").await, 1);

    // A new workbook is a new batch; its Excel date becomes the session's day.
    let other = xlsx(&[
        vec![Text("Date"), Text("Spot"), Text("File")],
        vec![Date(46150), Text("Uluwatu"), Text("DJI_0001.MP4")],
    ]);
    let r = prepare(&app, &coach, XLSX, &other).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.json["batch"]["format"], "xlsx");
    assert_eq!(r.json["rows"][0]["date"], "2026-05-08");
}

#[tokio::test]
async fn every_bad_row_is_reported_with_its_line_and_nothing_is_made() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    athletes(&app, &coach).await;
    let bad = "\
date,spot,file,athletes,start_time
2026-05-01,Pipeline,a.mp4,,
01/05/2026,Pipeline,b.mp4,,
2026-05-01,,c.mp4,,
2026-05-01,Pipeline,e.mp4,nobody@example.com; Lena Hart,
2026-05-01,Pipeline,dir/d.mp4,,25:00
2026-05-01,Pipeline,a.mp4,,
";
    let r = prepare(&app, &coach, "text/csv", bad.as_bytes()).await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    let errors: Vec<(u64, String)> = r.json["error"]["details"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["field"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        (3, "date"),
        (4, "spot"),
        (5, "athletes"),
        (6, "file"),
        (6, "start_time"),
    ] {
        assert!(
            errors.contains(&(want.0, want.1.to_string())),
            "{want:?} missing from {errors:?}"
        );
    }
    assert_eq!(
        r.json["error"]["details"]["duplicates"], 1,
        "line 7 repeats line 2"
    );
    assert_eq!(app.count("clips").await, 0);
    assert_eq!(app.count("training_sessions").await, 0);
    assert_eq!(app.count("batch_upload_jobs").await, 0);

    let r = prepare(
        &app,
        &coach,
        "text/csv",
        b"date,spot\n2026-05-01,Pipeline\n",
    )
    .await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    prepare(&app, &coach, "application/json", b"{}")
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");
    let r = app
        .post("/api/training-sessions/batch-upload?dryRun=true")
        .session(&coach)
        .raw("text/csv", MANIFEST.as_bytes())
        .send()
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json["report"]["created"], 3);
    assert_eq!(r.json["batch"], Value::Null);
    assert_eq!(app.count("clips").await, 0, "a dry run makes nothing");
}

#[tokio::test]
async fn a_reopened_tab_sees_live_statuses_and_files_arrive_by_resumable_upload() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    athletes(&app, &coach).await;
    let r = prepare(&app, &coach, "text/csv", MANIFEST.as_bytes()).await;
    let batch = r.json["batch"]["id"].as_str().unwrap().to_string();
    let clip = r.json["rows"][0]["clipId"].as_str().unwrap().to_string();

    // The file of row 2 arrives over tus, naming its clip.
    let file = mp4_bytes(40_000);
    let created = app
        .post("/api/clips/native-ingest")
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-length", &file.len().to_string())
        .header("upload-metadata", &tus_metadata(&[("clipId", &clip)]))
        .send()
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let path = tus_path(&created);
    let r = tus_patch(&app, &coach, &path, 0, &file).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let job: shared::db::Id = app.get(&path).session(&coach).send().await.json["jobId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");

    let s = app
        .get(&format!(
            "/api/training-sessions/batch-upload?batchId={batch}"
        ))
        .session(&viewer)
        .send()
        .await;
    assert_eq!(s.status, StatusCode::OK, "{}", s.body);
    assert_eq!(s.json["batch"]["fileName"], "day.csv");
    let rows = s.json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["clip"]["id"], clip);
    assert_ne!(rows[0]["clip"]["status"], "awaiting_upload", "{}", rows[0]);
    assert_eq!(rows[0]["clip"]["sizeBytes"], 40_000);
    assert_eq!(rows[1]["clip"]["status"], "awaiting_upload");
    assert_eq!(
        app.count("clips").await,
        3,
        "the upload filled the batch clip"
    );

    // A clip that has its file takes no second one.
    app.post("/api/clips/native-ingest")
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-length", "100")
        .header(
            "upload-metadata",
            &tus_metadata(&[("clipId", &clip), ("clientUploadId", "again")]),
        )
        .send()
        .await
        .assert_error(StatusCode::CONFLICT, "clip_not_awaiting_upload");

    // Tenancy, permissions and bad input.
    app.get("/api/training-sessions/batch-upload")
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_query");
    app.get(&format!(
        "/api/training-sessions/batch-upload?batchId={batch}"
    ))
    .session(&other)
    .send()
    .await
    .assert_error(StatusCode::NOT_FOUND, "not_found");
    prepare(&app, &viewer, "text/csv", MANIFEST.as_bytes())
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = prepare(&app, &other, "text/csv", MANIFEST.as_bytes()).await;
    r.assert_error(StatusCode::BAD_REQUEST, "import_invalid");
    assert_eq!(
        app.count("batch_upload_jobs").await,
        1,
        "another workspace's athletes are not found"
    );
    app.req(Method::DELETE, &format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await;
    let s = app
        .get(&format!(
            "/api/training-sessions/batch-upload?batchId={batch}"
        ))
        .session(&coach)
        .send()
        .await;
    assert_eq!(
        s.json["rows"][0]["clip"],
        Value::Null,
        "a deleted clip shows as gone"
    );
    worker.shutdown().await;
}
