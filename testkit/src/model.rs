//! A fake generative model speaking the OpenAI-compatible API the adapter uses
//! (`shared::providers::model`): `POST /v1/audio/transcriptions` (multipart) and
//! `POST /v1/chat/completions` (JSON-schema answers).
//!
//! Why: transcription and coaching text must be tested offline, with every failure mode. A
//! transcription answers `{"text": "transcript of <file name> (<n> bytes)"}`, so a test can
//! predict it; a completion answers the next queued answer ([`FakeModel::answer_with`]) or
//! `{"summary": "…"}`. Bearer key checked (401 otherwise). Failure injection, consumed in order
//! per endpoint: [`Failure::Status`] (with `Retry-After` for 429), [`Failure::Hang`] (never
//! answers), [`Failure::Malformed`] (a body that is not JSON). Every request is recorded.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// An injected failure.
#[derive(Clone, Debug)]
pub enum Failure {
    /// Answer this status (429 comes with `Retry-After: 1`).
    Status(u16),
    /// Never answer (the client times out).
    Hang,
    /// 200 with a body that is not JSON.
    Malformed,
}

/// One transcription request as received.
#[derive(Clone, Debug)]
pub struct TranscriptionRequest {
    pub model: String,
    pub file_name: String,
    pub content_type: String,
    pub bytes: usize,
}

#[derive(Default)]
struct Inner {
    transcriptions: Vec<TranscriptionRequest>,
    completions: Vec<Value>,
    transcription_failures: VecDeque<Failure>,
    completion_failures: VecDeque<Failure>,
    answers: VecDeque<Value>,
}

type Shared = Arc<(Mutex<Inner>, String)>;

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    s.0.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeModel {
    base_url: String,
    shared: Shared,
    server: JoinHandle<()>,
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeModel {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start(api_key: &str) -> Self {
        let shared: Shared = Arc::new((Mutex::default(), api_key.to_string()));
        let app = Router::new()
            .route("/v1/audio/transcriptions", post(transcribe))
            .route("/v1/chat/completions", post(complete))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeModel: bind 127.0.0.1:0");
        let port = listener.local_addr().expect("FakeModel: address").port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeModel {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The next transcription requests fail like this, in order.
    pub fn fail_transcriptions(&self, failures: &[Failure]) {
        lock(&self.shared)
            .transcription_failures
            .extend(failures.iter().cloned());
    }

    /// The next completion requests fail like this, in order.
    pub fn fail_completions(&self, failures: &[Failure]) {
        lock(&self.shared)
            .completion_failures
            .extend(failures.iter().cloned());
    }

    /// The next completion answers this JSON document (whatever the schema asked).
    pub fn answer_with(&self, answer: Value) {
        lock(&self.shared).answers.push_back(answer);
    }

    pub fn transcriptions(&self) -> Vec<TranscriptionRequest> {
        lock(&self.shared).transcriptions.clone()
    }

    /// The completion request bodies received.
    pub fn completions(&self) -> Vec<Value> {
        lock(&self.shared).completions.clone()
    }
}

fn authorized(s: &Shared, headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {}", s.1))
}

/// Plays an injected failure; `None` lets the request through.
async fn failure(f: Option<Failure>) -> Option<Response> {
    match f? {
        Failure::Status(429) => Some(
            (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "1")],
                Json(json!({ "error": { "message": "rate limited", "type": "rate_limit_exceeded" } })),
            )
                .into_response(),
        ),
        Failure::Status(code) => Some(
            (
                StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                Json(json!({ "error": { "message": "injected failure" } })),
            )
                .into_response(),
        ),
        Failure::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            None
        }
        Failure::Malformed => Some(
            (
                [(header::CONTENT_TYPE, "application/json")],
                "{\"text\": not json",
            )
                .into_response(),
        ),
    }
}

/// One part of a multipart body.
struct FormPart {
    name: String,
    file_name: Option<String>,
    content_type: Option<String>,
    bytes: Vec<u8>,
}

/// The parts of a multipart body.
fn parts(content_type: &str, body: &[u8]) -> Vec<FormPart> {
    let Some(boundary) = content_type.split("boundary=").nth(1) else {
        return Vec::new();
    };
    let delim = format!("--{}", boundary.trim_matches('"'));
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = find(rest, delim.as_bytes()) {
        rest = &rest[start + delim.len()..];
        if rest.starts_with(b"--") {
            break;
        }
        let Some(head_end) = find(rest, b"\r\n\r\n") else {
            break;
        };
        let head = String::from_utf8_lossy(&rest[..head_end]).to_string();
        let content = &rest[head_end + 4..];
        let end = find(content, format!("\r\n{delim}").as_bytes()).unwrap_or(content.len());
        // `name="…"` (after a space, so not the tail of `filename="…"`) and `filename="…"`.
        let attr = |pat: &str| {
            let i = head.find(pat)? + pat.len();
            let j = head[i..].find('"')? + i;
            Some(head[i..j].to_string())
        };
        let ct = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Type: "))
            .map(str::to_string);
        out.push(FormPart {
            name: attr(" name=\"").unwrap_or_default(),
            file_name: attr("filename=\""),
            content_type: ct,
            bytes: content[..end].to_vec(),
        });
        rest = &content[end..];
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

async fn transcribe(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    if !authorized(&s, &headers) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({ "error": { "message": "bad key" } })),
        )
            .into_response();
    }
    let f = lock(&s).transcription_failures.pop_front();
    if let Some(r) = failure(f).await {
        return r;
    }
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let parts = parts(ct, &body);
    let field = |n: &str| parts.iter().find(|p| p.name == n);
    let (Some(model), Some(file)) = (field("model"), field("file")) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({ "error": { "message": "model and file are required" } })),
        )
            .into_response();
    };
    let req = TranscriptionRequest {
        model: String::from_utf8_lossy(&model.bytes).to_string(),
        file_name: file.file_name.clone().unwrap_or_default(),
        content_type: file.content_type.clone().unwrap_or_default(),
        bytes: file.bytes.len(),
    };
    let text = format!("transcript of {} ({} bytes)", req.file_name, req.bytes);
    lock(&s).transcriptions.push(req);
    Json(json!({ "text": text })).into_response()
}

async fn complete(State(s): State<Shared>, headers: HeaderMap, Json(req): Json<Value>) -> Response {
    if !authorized(&s, &headers) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({ "error": { "message": "bad key" } })),
        )
            .into_response();
    }
    let f = lock(&s).completion_failures.pop_front();
    if let Some(r) = failure(f).await {
        return r;
    }
    let answer = {
        let mut g = lock(&s);
        g.completions.push(req.clone());
        g.answers.pop_front()
    }
    .unwrap_or_else(|| json!({ "summary": "Good session." }));
    let model = req["model"].as_str().unwrap_or("fake").to_string();
    Json(json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": format!("{model}-2026-01-01"),
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": answer.to_string() },
            "finish_reason": "stop"
        }]
    }))
    .into_response()
}
