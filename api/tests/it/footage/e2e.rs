//! The whole footage path with the jobs in separate `worker` processes: a phone's tus upload,
//! the join and the probe, analysis against the fake backend (whose completion webhook reaches
//! the api over TCP), the web rendition, poster and scrub strip, the store, signed URLs and a
//! ranged read through the stream proxy.
//! Runs on both stores (S3 when the test server is configured) and on the suite's database,
//! so on PostgreSQL in its pass.

use crate::support::*;
use axum::http::StatusCode;
use serde_json::{Value, json};
use shared::db::Id;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use testkit::analysis::{FakeAnalysis, TEST_WEBHOOK_SECRET};

const SECRET_KEY: &str = "test-secret-key-test-secret-key-0123456789";

/// A `worker` process (the binary next to the api's in the target directory).
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn worker_binary() -> std::path::PathBuf {
    let p = std::path::Path::new(env!("CARGO_BIN_EXE_api"))
        .parent()
        .unwrap()
        .join("worker");
    assert!(
        p.exists(),
        "{} is missing: build the workspace (cargo nextest run --workspace builds it)",
        p.display()
    );
    p
}

fn spawn_worker(name: &str, app: &TestApp, env: &[(&str, String)]) -> Worker {
    let log = std::fs::File::create(app.tdb.dir.join(format!("{name}.log"))).unwrap();
    let mut cmd = Command::new(worker_binary());
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", &app.tdb.url)
        .env("DATA_DIR", app.tdb.dir.join(name))
        .env("SECRET_KEY", SECRET_KEY)
        .env("WORKER_POLL_MS", "20")
        .env("WORKER_BACKOFF_BASE_MS", "200")
        .env("SCHEDULER", "off")
        .env("RUST_LOG", "info,sqlx=warn")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    Worker(cmd.spawn().expect("the worker binary starts"))
}

fn logs(app: &TestApp) -> String {
    ["worker-1", "worker-2"]
        .iter()
        .map(|n| std::fs::read_to_string(app.tdb.dir.join(format!("{n}.log"))).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n---\n")
}

async fn wait_for(
    app: &TestApp,
    what: &str,
    mut done: impl AsyncFnMut() -> Option<Value>,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(v) = done().await {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not happen\nworker logs:\n{}",
            logs(app)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn upload_to_stream_with_worker_processes_on_s3() {
    let Some(s3) = s3_env() else {
        eprintln!("skipped: TEST_S3_ENDPOINT is not set");
        return;
    };
    end_to_end(s3).await;
}

/// The local store: the backend reads the original through the api's signed storage URL, and
/// the worker processes share the api's storage directory.
#[tokio::test]
async fn upload_to_stream_with_worker_processes_on_local_storage() {
    end_to_end(Vec::new()).await;
}

async fn end_to_end(s3: Vec<(&'static str, String)>) {
    let local = s3.is_empty();
    // The api serves on a real port, so the backend's webhooks reach it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let fake = FakeAnalysis::start("analysis-key", TEST_WEBHOOK_SECRET).await;
    fake.set_timing(Duration::from_millis(100), Duration::from_millis(400), 4);
    let mut env = s3.clone();
    env.extend([
        ("PUBLIC_BASE_URL", base.clone()),
        ("ANALYSIS_BASE_URL", fake.base_url()),
        ("ANALYSIS_API_KEY", "analysis-key".to_string()),
        ("ANALYSIS_WEBHOOK_SECRET", TEST_WEBHOOK_SECRET.to_string()),
    ]);
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let app = TestApp::with_env(&vars).await;
    let router = app.router.clone();
    let server = tokio::spawn(async move {
        api::serve::serve_http(
            listener,
            router,
            std::future::pending(),
            api::serve::SHUTDOWN_GRACE,
        )
        .await;
    });
    if local {
        let objects = app.tdb.dir.join("objects").display().to_string();
        env.push(("STORAGE_DIR", objects));
    }
    let _w1 = spawn_worker("worker-1", &app, &env);
    let _w2 = spawn_worker("worker-2", &app, &env);

    let coach = app.signup("coach@example.com").await;
    let session = footage_session(&app, &coach).await;
    let file = ffmpeg_clip(Some(90));

    // The phone uploads in two PATCHes.
    let created = tus_create(&app, &coach, session, file.len(), Some("e2e-1")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let path = tus_path(&created);
    let half = file.len() / 2;
    assert_eq!(
        tus_patch(&app, &coach, &path, 0, &file[..half])
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    let r = tus_patch(&app, &coach, &path, half, &file[half..]).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);

    // A worker process joins the parts and probes the clip.
    let clip: Id = wait_for(&app, "the join", async || {
        let r = app.get(&path).session(&coach).send().await;
        (r.json["status"] == "complete").then(|| r.json["clipId"].clone())
    })
    .await
    .as_str()
    .unwrap()
    .parse()
    .unwrap();
    let probed = wait_for(&app, "the probe", async || {
        let r = app
            .get(&format!("/api/clips/{clip}"))
            .session(&coach)
            .send()
            .await;
        assert_ne!(r.json["status"], "failed", "{}", r.body);
        (r.json["status"] == "probed").then_some(r.json)
    })
    .await;
    assert_eq!(probed["probe"]["rotation"], 90);

    // The probe asked for the web media: a worker renders it with ffmpeg.
    let media = wait_for(&app, "the render", async || {
        let r = app
            .get(&format!("/api/clips/{clip}/media"))
            .session(&coach)
            .send()
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert_ne!(r.json["status"], "failed", "{}", r.body);
        (r.json["status"] == "ready").then_some(r.json)
    })
    .await;
    let ready = &media["ready"];
    assert_eq!(ready["source"], "original");
    assert_eq!(
        (&ready["web"]["width"], &ready["web"]["height"]),
        (&json!(240), &json!(320)),
        "the rotation is applied: {media}"
    );
    assert!(
        ready["low"].is_null(),
        "a short clip has no lower rendition"
    );
    let http = reqwest::Client::new();
    let web = http
        .get(ready["web"]["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(web.headers()["content-type"], "video/mp4");
    let web = web.bytes().await.unwrap();
    assert_eq!(&web[4..8], b"ftyp");
    assert_eq!(
        web.len() as i64,
        ready["web"]["sizeBytes"].as_i64().unwrap()
    );
    assert_eq!(media["poster"]["width"], 240, "{media}");
    for image in [&media["poster"]["url"], &ready["strip"]["url"]] {
        let r = http.get(image.as_str().unwrap()).send().await.unwrap();
        assert_eq!(r.headers()["content-type"], "image/jpeg");
        assert_eq!(&r.bytes().await.unwrap()[..2], &[0xFF, 0xD8], "a JPEG");
    }
    let vtt = app
        .get(&format!("/api/clips/{clip}/thumbnails.vtt"))
        .session(&coach)
        .send()
        .await;
    assert!(vtt.body.starts_with("WEBVTT"), "{}", vtt.body);
    assert!(vtt.body.contains("#xywh=0,0,"), "{}", vtt.body);

    // Analysis: submit, polls, the webhook over TCP, then the store.
    let r = app
        .post("/api/clips/analyze")
        .session(&coach)
        .json(json!({ "clipId": clip }))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    let stored = wait_for(&app, "the store", async || {
        let r = app
            .get(&format!("/api/clips/{clip}"))
            .session(&coach)
            .send()
            .await;
        assert_ne!(r.json["status"], "failed", "{}", r.body);
        (r.json["status"] == "stored").then_some(r.json)
    })
    .await;
    assert_eq!(stored["progress"], 100);
    assert!(stored["stats"]["maneuvers"].is_array(), "{stored}");
    let delivered: Vec<Option<u16>> = fake.webhooks_sent().iter().map(|d| d.status).collect();
    assert!(
        delivered.contains(&Some(204)),
        "the webhook reached the api: {delivered:?}"
    );
    assert_eq!(fake.submits().len(), 1, "one backend job for the clip");

    // A signed URL plays the web rendition by default, and a range of the stored processed
    // video on request.
    let default = app
        .get(&format!("/api/video/sign?clipId={clip}"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(default.json["variant"], "web", "{}", default.body);
    let signed = app
        .get(&format!("/api/video/sign?clipId={clip}&variant=processed"))
        .session(&coach)
        .send()
        .await;
    assert_eq!(signed.json["variant"], "processed", "{}", signed.body);
    let url = signed.json["url"].as_str().unwrap();
    assert!(url.starts_with(&base), "{url}");
    let resp = reqwest::Client::new()
        .get(url)
        .header("range", "bytes=100-1099")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 206);
    assert_eq!(
        resp.headers()["content-range"].to_str().unwrap(),
        format!("bytes 100-1099/{}", file.len())
    );
    let body = resp.bytes().await.unwrap();
    assert!(
        body[..] == file[100..1100],
        "the processed video is the backend's bytes"
    );
    server.abort();
}
