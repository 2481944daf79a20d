//! Phone uploads over tus 1.0: resume after a dropped connection, checksums, the same client
//! upload id, the type and size checks, termination, tenancy and expiry.

use crate::support::*;
use axum::body::Body;
use axum::http::{Method, StatusCode};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use shared::db::Id;
use shared::storage::Store;

fn sha1_header(bytes: &[u8]) -> String {
    use sha1::Digest;
    format!("sha1 {}", STANDARD.encode(sha1::Sha1::digest(bytes)))
}

async fn part_keys(app: &TestApp, upload: Id) -> Vec<String> {
    let mut c = app.state.db.acquire().await.unwrap();
    shared::repo::uploads::parts(&mut c, upload)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.object_key)
        .collect()
}

#[tokio::test]
async fn a_dropped_upload_resumes_at_the_stored_offset_and_makes_one_clip() {
    resume_and_join(TestApp::new().await).await;
}

#[tokio::test]
async fn on_s3_a_dropped_upload_resumes_and_makes_one_clip() {
    let Some(app) = s3_app().await else {
        return;
    };
    resume_and_join(app).await;
}

async fn resume_and_join(app: TestApp) {
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let session = footage_session(&app, &coach).await;
    let file = mp4_bytes(300_000);

    let created = tus_create(&app, &coach, session, file.len(), Some("phone-42")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    assert_eq!(created.headers["tus-resumable"], "1.0.0");
    assert_eq!(created.headers["upload-offset"], "0");
    let path = tus_path(&created);
    let upload: Id = created.json["id"].as_str().unwrap().parse().unwrap();

    // The first 100 kB arrive.
    let r = tus_patch(&app, &coach, &path, 0, &file[..100_000]).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(r.headers["upload-offset"], "100000");

    // The connection drops halfway through the next PATCH: what arrived is kept (tus 1.0: the
    // server SHOULD keep as much as it received), and the phone resumes after it.
    let cut = |from: usize, to: usize| {
        futures::stream::iter(vec![
            Ok::<_, std::io::Error>(Bytes::copy_from_slice(&file[from..to])),
            Err(std::io::Error::other("connection reset")),
        ])
    };
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", "100000")
        .stream(
            "application/offset+octet-stream",
            Body::from_stream(cut(100_000, 150_000)),
        )
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(tus_offset(&app, &coach, &path).await, 150_000);

    // With a checksum a cut body cannot be verified, so nothing of it is kept.
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", "150000")
        .header("upload-checksum", &sha1_header(&file[150_000..]))
        .stream(
            "application/offset+octet-stream",
            Body::from_stream(cut(150_000, 170_000)),
        )
        .send()
        .await;
    assert_eq!(r.code(), "upload_interrupted", "{}", r.body);
    assert_eq!(tus_offset(&app, &coach, &path).await, 150_000);

    // A PATCH at a stale offset is refused; so is one whose checksum does not match.
    tus_patch(&app, &coach, &path, 0, &file[..10])
        .await
        .assert_error(StatusCode::CONFLICT, "upload_offset_mismatch");
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", "150000")
        .header("upload-checksum", &sha1_header(b"something else"))
        .raw("application/offset+octet-stream", &file[150_000..])
        .send()
        .await;
    assert_eq!(r.status.as_u16(), 460, "{}", r.body);
    assert_eq!(r.code(), "checksum_mismatch");
    assert_eq!(tus_offset(&app, &coach, &path).await, 150_000);
    assert_eq!(part_keys(&app, upload).await.len(), 2, "two parts kept");

    // The phone asks the offset and sends the rest, with its checksum.
    let r = app
        .req(Method::PATCH, &path)
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", "150000")
        .header("upload-checksum", &sha1_header(&file[150_000..]))
        .raw("application/offset+octet-stream", &file[150_000..])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(r.headers["upload-offset"], "300000");
    let parts = part_keys(&app, upload).await;
    assert_eq!(parts.len(), 3);

    // The join job makes the clip; its original holds exactly the file.
    let job: Id = {
        let r = app.get(&path).session(&coach).send().await;
        r.json["jobId"].as_str().unwrap().parse().unwrap()
    };
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    assert_eq!(p.status, "succeeded", "{p:?}");
    let r = app.get(&path).session(&coach).send().await;
    assert_eq!(r.json["status"], "complete", "{}", r.body);
    let clip = r.json["clipId"].as_str().unwrap().to_string();
    let k = app
        .get(&format!("/api/clips/{clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(k.json["sizeBytes"], 300_000);
    assert_eq!(k.json["fileName"], "wave.mp4");
    assert!(k.json["jobId"].is_string(), "a probe follows the upload");
    let key = shared::domain::footage::keys::original(coach.org_id, session, clip.parse().unwrap());
    let obj = app
        .state
        .storage
        .get(Store::RawUploads, &key, None)
        .await
        .unwrap();
    let chunks: Vec<Bytes> = futures::TryStreamExt::try_collect(obj.body).await.unwrap();
    let stored = chunks.concat();
    assert!(stored == file, "the original is the file, byte for byte");
    for p in &parts {
        assert!(
            object_gone(&app, Store::RawUploads, p).await,
            "part {p} removed after the join"
        );
    }

    // The same client upload id never makes a second upload or clip.
    let again = tus_create(&app, &coach, session, file.len(), Some("phone-42")).await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.json["id"], upload.to_string());
    assert_eq!(again.json["clipId"], clip);
    assert_eq!(app.count("clip_uploads").await, 1);
    assert_eq!(app.count("clips").await, 1);
    tus_patch(&app, &coach, &path, 300_000, b"more")
        .await
        .assert_error(StatusCode::CONFLICT, "upload_finished");
    worker.shutdown().await;
}

#[tokio::test]
async fn what_is_not_a_video_too_large_or_off_protocol_is_refused() {
    let app = TestApp::with_env(&[("UPLOAD_MAX_BYTES", "1000000")]).await;
    let coach = app.signup("coach@example.com").await;
    let session = footage_session(&app, &coach).await;

    let r = tus_create(&app, &coach, session, 1_000_001, None).await;
    r.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "upload_too_large");
    assert_eq!(r.headers["tus-max-size"], "1000000");
    let r = app
        .post("/api/clips/native-ingest")
        .session(&coach)
        .header("upload-length", "10")
        .send()
        .await;
    r.assert_error(StatusCode::PRECONDITION_FAILED, "tus_version_unsupported");
    assert_eq!(r.headers["tus-version"], "1.0.0");
    let r = app
        .post("/api/clips/native-ingest")
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-length", "10")
        .header("upload-metadata", &tus_metadata(&[("filename", "a.mp4")]))
        .send()
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "validation_failed");
    tus_create(&app, &coach, Id::new(), 10, None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(app.count("clip_uploads").await, 0);

    let created = tus_create(&app, &coach, session, 5000, None).await;
    let path = tus_path(&created);
    // A PDF renamed .mp4 is caught by its first bytes.
    let mut pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    pdf.resize(4000, b'x');
    tus_patch(&app, &coach, &path, 0, &pdf)
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "upload_not_video");
    // Wrong content type; a body past Upload-Length.
    app.req(Method::PATCH, &path)
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", "0")
        .raw("application/octet-stream", &mp4_bytes(100))
        .send()
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");
    tus_patch(&app, &coach, &path, 0, &mp4_bytes(5001))
        .await
        .assert_error(StatusCode::PAYLOAD_TOO_LARGE, "upload_exceeds_length");
    assert_eq!(tus_offset(&app, &coach, &path).await, 0, "nothing was kept");
    assert_eq!(app.count("clip_upload_parts").await, 0);
}

#[tokio::test]
async fn uploads_are_their_owners_and_terminated_ones_leave_nothing() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let assistant = add_member(&app, coach.org_id, "assistant@example.com", "coach").await;
    let viewer = add_member(&app, coach.org_id, "viewer@example.com", "viewer").await;
    let other = other_workspace(&app).await;
    let session = footage_session(&app, &coach).await;

    // Another workspace cannot upload into the session; a viewer cannot upload at all.
    tus_create(&app, &other, session, 100, None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    tus_create(&app, &viewer, session, 100, None)
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");

    let created = tus_create(&app, &coach, session, 100_000, None).await;
    let path = tus_path(&created);
    let upload: Id = created.json["id"].as_str().unwrap().parse().unwrap();
    let r = tus_patch(&app, &coach, &path, 0, &mp4_bytes(100_000)[..40_000]).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    let parts = part_keys(&app, upload).await;

    // Someone else's upload is a 404, for a colleague and another workspace alike.
    for s in [&assistant, &other] {
        let r = app
            .req(Method::HEAD, &path)
            .session(s)
            .header("tus-resumable", "1.0.0")
            .send()
            .await;
        assert_eq!(r.status, StatusCode::NOT_FOUND);
        tus_patch(&app, s, &path, 40_000, b"0123456789")
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
        app.req(Method::DELETE, &path)
            .session(s)
            .header("tus-resumable", "1.0.0")
            .send()
            .await
            .assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(tus_offset(&app, &coach, &path).await, 40_000);

    // Termination: the upload is gone at once, its parts through a job.
    let r = app
        .req(Method::DELETE, &path)
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    app.get(&path)
        .session(&coach)
        .send()
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    for p in &parts {
        assert!(
            object_gone(&app, Store::RawUploads, p).await,
            "part {p} removed"
        );
    }
    assert_eq!(app.count("clips").await, 0);
    worker.shutdown().await;
}

#[tokio::test]
async fn idle_uploads_expire_on_schedule_and_their_parts_go() {
    let app = TestApp::new().await;
    let worker = app.start_worker(&[]).await;
    let coach = app.signup("coach@example.com").await;
    let session = footage_session(&app, &coach).await;
    let created = tus_create(&app, &coach, session, 50_000, None).await;
    let path = tus_path(&created);
    let upload: Id = created.json["id"].as_str().unwrap().parse().unwrap();
    tus_patch(&app, &coach, &path, 0, &mp4_bytes(20_000)).await;
    let parts = part_keys(&app, upload).await;
    assert_eq!(parts.len(), 1);
    // A second, fresh upload must survive the run.
    let fresh = tus_create(&app, &coach, session, 50_000, None).await;

    {
        let mut c = app.state.db.acquire().await.unwrap();
        shared::execute!(
            &mut c,
            sqlx::query("UPDATE clip_uploads SET expires_at = $1 WHERE id = $2")
                .bind(shared::db::Ts::now().minus(chrono::Duration::minutes(1)))
                .bind(upload)
        )
        .unwrap();
    }
    let r = app
        .post("/api/cron/uploads-expire")
        .bearer("cron-secret-for-tests")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let job: Id = r.json["jobId"].as_str().unwrap().parse().unwrap();
    let p = app
        .wait_job(job, |p| p.status != "queued" && p.status != "running")
        .await;
    assert_eq!(p.result.as_ref().unwrap().0["expired"], 1, "{p:?}");

    let r = app
        .req(Method::HEAD, &path)
        .session(&coach)
        .header("tus-resumable", "1.0.0")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::GONE);
    tus_patch(&app, &coach, &path, 20_000, b"late bytes")
        .await
        .assert_error(StatusCode::GONE, "upload_expired");
    for p in &parts {
        assert!(
            object_gone(&app, Store::RawUploads, p).await,
            "part {p} removed"
        );
    }
    let r = app.get(&tus_path(&fresh)).session(&coach).send().await;
    assert_eq!(r.json["status"], "uploading");
    worker.shutdown().await;
}

/// Issue 35, item 6: HEAD and DELETE speak tus too (412 for another version, nothing done),
/// OPTIONS answers the discovery without credentials, and every answer names the version.
#[tokio::test]
async fn head_and_delete_check_the_version_and_options_tells_the_capabilities() {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let session = footage_session(&app, &coach).await;
    let created = tus_create(&app, &coach, session, 5000, None).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    assert_eq!(created.headers["tus-version"], "1.0.0");
    let path = tus_path(&created);
    for version in [None, Some("0.2.2")] {
        for method in [Method::HEAD, Method::DELETE] {
            let mut req = app.req(method.clone(), &path).session(&coach);
            if let Some(v) = version {
                req = req.header("tus-resumable", v);
            }
            let r = req.send().await;
            assert_eq!(
                r.status,
                StatusCode::PRECONDITION_FAILED,
                "{method} {version:?}"
            );
            assert_eq!(r.headers["tus-version"], "1.0.0");
        }
    }
    assert_eq!(app.count("clip_uploads").await, 1, "the DELETE did nothing");
    assert_eq!(tus_offset(&app, &coach, &path).await, 0);
    // The JSON read (GET) is this API's, not tus's: it needs no Tus-Resumable.
    let r = app.get(&path).session(&coach).send().await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    let r = app
        .req(Method::OPTIONS, "/api/clips/native-ingest")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(r.headers["tus-version"], "1.0.0");
    assert_eq!(
        r.headers["tus-extension"],
        "creation,termination,checksum,expiration"
    );
    assert_eq!(
        r.headers["tus-max-size"].to_str().unwrap(),
        app.state.cfg.upload_max_bytes.to_string()
    );
    assert_eq!(r.headers["tus-checksum-algorithm"], "sha1,sha256");
}
