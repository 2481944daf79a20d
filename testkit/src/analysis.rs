//! A fake AI analysis backend that follows `docs/providers/analysis-backend.md`, and
//! [`FakeSource`], a tiny server for a test's source video.
//!
//! Why: clip analysis must be tested offline, fast and deterministically, including the
//! backend's failures. [`FakeAnalysis`] is a real HTTP server on loopback:
//!
//! - `POST /v1/analyses` (bearer API key; 401 otherwise) creates a job for a new
//!   `client_request_token` (201) or returns the token's job (200) whatever the new body says.
//!   The fake then `GET`s `source_url` itself, as the backend does (status and byte count are
//!   recorded in [`SubmitRecord`]; a non-2xx or unreachable source fails the job with
//!   `source_unreachable`), stays `queued` for `queued_for`, runs for `run_for` in
//!   `progress_steps` steps, and ends as [`Outcome`] says.
//! - A succeeded job's `video` is the source's own bytes, served by the fake at
//!   `{base}/files/{id}/video.mp4?expires=…&sig=…` (a time-limited URL, 403 when tampered or
//!   expired), its `overlay` a JSON document at `…/overlay.json`, each with `size` and
//!   `sha256`; `stats` derive from the source's length only, so a test can predict them.
//! - `GET /v1/analyses/{id}`, `POST /v1/analyses/{id}/cancel` as documented.
//! - With a `webhook_url`, the terminal job is POSTed there as `analysis.completed`, signed per
//!   Standard Webhooks with the secret given to [`FakeAnalysis::start`]; a non-2xx answer is
//!   retried (3 attempts, 50 ms then 100 ms apart). The signature is computed here, independently
//!   of the app's code, so a test that verifies it with the app checks both against the document.
//!
//! Failure injection: [`FakeAnalysis::fail_next_submits`], [`FakeAnalysis::fail_next_polls`],
//! [`FakeAnalysis::hang_next_polls`], [`FakeAnalysis::set_outcome`],
//! [`FakeAnalysis::corrupt_result_sha256`], [`FakeAnalysis::disable_webhooks`]. Every request is
//! recorded for assertions.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A valid `whsec_` secret for tests (the base64 of 32 bytes).
pub const TEST_WEBHOOK_SECRET: &str = "whsec_ZmFrZS1hbmFseXNpcy13ZWJob29rLXNlY3JldC0zMmI=";

/// The maneuver types the fake predicts from.
pub const MANEUVER_TYPES: [&str; 6] = [
    "cutback",
    "snap",
    "bottom_turn",
    "floater",
    "aerial",
    "tube",
];

/// How a job that ran to the end finishes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Succeed,
    Fail { code: String, message: String },
}

/// One submit request, as received (recorded even when refused).
#[derive(Clone, Debug)]
pub struct SubmitRecord {
    pub token: String,
    pub source_url: String,
    pub webhook_url: Option<String>,
    /// The status the fake answered (201 new, 200 existing, or an error).
    pub status: u16,
    /// The job answered with, if any.
    pub job_id: Option<String>,
    /// Whether this request created the job (and so made the fake fetch the source).
    pub created: bool,
    /// For the creating request: the status the source answered (`None` while the fetch is
    /// under way, or when the source was unreachable).
    pub fetch_status: Option<u16>,
    /// For the creating request: bytes read from the source.
    pub bytes_fetched: u64,
}

/// One webhook delivery attempt.
#[derive(Clone, Debug)]
pub struct WebhookDelivery {
    pub url: String,
    pub webhook_id: String,
    pub timestamp: i64,
    pub signature: String,
    pub body: Vec<u8>,
    /// The receiver's status, `None` when it did not answer.
    pub status: Option<u16>,
}

impl WebhookDelivery {
    /// The headers as sent, for feeding a verifier.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        vec![
            ("webhook-id", self.webhook_id.clone()),
            ("webhook-timestamp", self.timestamp.to_string()),
            ("webhook-signature", self.signature.clone()),
        ]
    }
}

#[derive(Clone, Copy)]
struct Timing {
    queued_for: Duration,
    run_for: Duration,
    steps: u8,
}

struct Job {
    id: String,
    token: String,
    webhook_url: Option<String>,
    metadata: Option<Value>,
    state: &'static str,
    progress: u8,
    created_at: String,
    updated_at: String,
    error: Option<(String, String)>,
    fetch_status: Option<u16>,
    bytes_fetched: u64,
    /// Set on success: stats, the two files, and the sha256 values the result reports.
    output: Option<Output>,
}

struct Output {
    stats: Value,
    video: Vec<u8>,
    overlay: Vec<u8>,
    video_sha256: String,
    overlay_sha256: String,
}

impl Job {
    fn is_terminal(&self) -> bool {
        matches!(self.state, "succeeded" | "failed" | "canceled")
    }
}

struct Inner {
    timing: Timing,
    outcome: Outcome,
    corrupt_sha256: bool,
    webhooks_enabled: bool,
    submit_failures: VecDeque<u16>,
    poll_failures: VecDeque<u16>,
    poll_hangs: usize,
    polls: usize,
    jobs: Vec<Job>,
    submits: Vec<SubmitRecord>,
    cancels: Vec<String>,
    webhooks: Vec<WebhookDelivery>,
    next_id: u64,
}

struct Shared {
    base_url: String,
    api_key: String,
    webhook_key: Vec<u8>,
    client: reqwest::Client,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

type St = Arc<Shared>;

/// The fake backend on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeAnalysis {
    shared: St,
    server: JoinHandle<()>,
}

impl FakeAnalysis {
    /// Starts the fake. Default timing: queued 50 ms, running 200 ms in 4 progress steps.
    ///
    /// # Panics
    /// If `webhook_secret` is not `whsec_<base64>`, or no loopback port can be bound.
    pub async fn start(api_key: &str, webhook_secret: &str) -> Self {
        let webhook_key = STANDARD
            .decode(
                webhook_secret
                    .strip_prefix("whsec_")
                    .expect("FakeAnalysis: the webhook secret starts with whsec_"),
            )
            .expect("FakeAnalysis: the webhook secret is whsec_<base64>");
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeAnalysis: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("FakeAnalysis: local address")
            .port();
        let shared = Arc::new(Shared {
            base_url: format!("http://127.0.0.1:{port}"),
            api_key: api_key.to_string(),
            webhook_key,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(10))
                .build()
                .expect("FakeAnalysis: http client"),
            inner: Mutex::new(Inner {
                timing: Timing {
                    queued_for: Duration::from_millis(50),
                    run_for: Duration::from_millis(200),
                    steps: 4,
                },
                outcome: Outcome::Succeed,
                corrupt_sha256: false,
                webhooks_enabled: true,
                submit_failures: VecDeque::new(),
                poll_failures: VecDeque::new(),
                poll_hangs: 0,
                polls: 0,
                jobs: Vec::new(),
                submits: Vec::new(),
                cancels: Vec::new(),
                webhooks: Vec::new(),
                next_id: 0,
            }),
        });
        let app = Router::new()
            .route("/v1/analyses", post(submit))
            .route("/v1/analyses/{id}", get(read))
            .route("/v1/analyses/{id}/cancel", post(cancel))
            .route("/files/{id}/{name}", get(file))
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeAnalysis { shared, server }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// How long new jobs stay queued and run, and in how many progress steps (at least 1).
    pub fn set_timing(&self, queued_for: Duration, run_for: Duration, progress_steps: u8) {
        self.shared.lock().timing = Timing {
            queued_for,
            run_for,
            steps: progress_steps.max(1),
        };
    }

    /// How jobs that reach the end of their run finish (read when they get there).
    pub fn set_outcome(&self, outcome: Outcome) {
        self.shared.lock().outcome = outcome;
    }

    /// Jobs that succeed from now on report a `sha256` that does not match their files.
    pub fn corrupt_result_sha256(&self) {
        self.shared.lock().corrupt_sha256 = true;
    }

    /// No webhooks are sent from now on (the polling fallback).
    pub fn disable_webhooks(&self) {
        self.shared.lock().webhooks_enabled = false;
    }

    /// The next `times` submits answer `status` with an error body, creating nothing (a 429
    /// carries `Retry-After: 1`).
    pub fn fail_next_submits(&self, status: u16, times: usize) {
        self.shared
            .lock()
            .submit_failures
            .extend(std::iter::repeat_n(status, times));
    }

    /// The next `times` job reads answer `status` with an error body.
    pub fn fail_next_polls(&self, status: u16, times: usize) {
        self.shared
            .lock()
            .poll_failures
            .extend(std::iter::repeat_n(status, times));
    }

    /// The next `times` job reads never answer (the client's timeout must end them).
    pub fn hang_next_polls(&self, times: usize) {
        self.shared.lock().poll_hangs += times;
    }

    /// Every submit request so far.
    pub fn submits(&self) -> Vec<SubmitRecord> {
        let g = self.shared.lock();
        g.submits
            .iter()
            .map(|s| {
                let mut s = s.clone();
                if s.created
                    && let Some(j) = g.jobs.iter().find(|j| Some(&j.id) == s.job_id.as_ref())
                {
                    s.fetch_status = j.fetch_status;
                    s.bytes_fetched = j.bytes_fetched;
                }
                s
            })
            .collect()
    }

    /// Every job, as `GET` would answer it now.
    pub fn jobs(&self) -> Vec<Value> {
        let g = self.shared.lock();
        g.jobs.iter().map(|j| render(&self.shared, j)).collect()
    }

    /// One job, as `GET` would answer it now.
    pub fn job(&self, id: &str) -> Option<Value> {
        let g = self.shared.lock();
        g.jobs
            .iter()
            .find(|j| j.id == id)
            .map(|j| render(&self.shared, j))
    }

    /// The ids of every cancel request, in order (unknown ids included).
    pub fn cancel_requests(&self) -> Vec<String> {
        self.shared.lock().cancels.clone()
    }

    /// Every webhook delivery attempt so far.
    pub fn webhooks_sent(&self) -> Vec<WebhookDelivery> {
        self.shared.lock().webhooks.clone()
    }

    /// How many job reads (`GET /v1/analyses/{id}`) arrived, answered or not.
    pub fn polls(&self) -> usize {
        self.shared.lock().polls
    }

    /// The stats a source of `len` bytes gets.
    pub fn expected_stats(len: u64) -> Value {
        stats_for(len)
    }
}

impl Drop for FakeAnalysis {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

fn rfc3339() -> String {
    now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn error(status: u16, code: &str, message: &str) -> Response {
    let s = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = (
        s,
        Json(json!({ "error": { "code": code, "message": message } })),
    )
        .into_response();
    if status == 429 {
        r.headers_mut()
            .insert(header::RETRY_AFTER, "1".parse().expect("static header"));
    }
    r
}

/// The error code the document gives a status, for injected failures.
fn code_for(status: u16) -> &'static str {
    match status {
        400 => "bad_request",
        401 => "unauthorized",
        404 => "not_found",
        409 => "request_in_progress",
        422 => "invalid_source_url",
        429 => "rate_limited",
        503 => "unavailable",
        _ => "internal",
    }
}

fn authorized(st: &Shared, headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {}", st.api_key))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The signature of a result file URL: HMAC-SHA256 keyed by the API key (any fake-private key
/// would do) over `{id}/{name}/{expires}`.
fn file_sig(st: &Shared, id: &str, name: &str, expires: i64) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(st.api_key.as_bytes()).expect("any key");
    mac.update(format!("{id}/{name}/{expires}").as_bytes());
    hex(&mac.finalize().into_bytes())
}

fn file_url(st: &Shared, id: &str, name: &str) -> String {
    let expires = now().timestamp() + 3600;
    let sig = file_sig(st, id, name, expires);
    format!(
        "{}/files/{id}/{name}?expires={expires}&sig={sig}",
        st.base_url
    )
}

fn render(st: &Shared, j: &Job) -> Value {
    let mut v = json!({
        "id": j.id,
        "state": j.state,
        "progress": j.progress,
        "created_at": j.created_at,
        "updated_at": j.updated_at,
    });
    if let Some(m) = &j.metadata {
        v["metadata"] = m.clone();
    }
    if let Some((code, message)) = &j.error {
        v["error"] = json!({ "code": code, "message": message });
    }
    if let (Some(o), "succeeded") = (&j.output, j.state) {
        v["result"] = json!({
            "video": {
                "url": file_url(st, &j.id, "video.mp4"),
                "size": o.video.len(),
                "sha256": o.video_sha256,
                "content_type": "video/mp4",
            },
            "overlay": {
                "url": file_url(st, &j.id, "overlay.json"),
                "size": o.overlay.len(),
                "sha256": o.overlay_sha256,
                "content_type": "application/json",
            },
            "stats": o.stats,
        });
    }
    v
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Stats that depend on the source's length only: two rides, three maneuvers.
fn stats_for(len: u64) -> Value {
    let d = 20_000 + len % 40_000;
    let rides = [
        (d / 10, d * 4 / 10, round1(24.0 + (len % 7) as f64 * 0.5)),
        (
            d * 55 / 100,
            d * 9 / 10,
            round1(27.0 + (len % 5) as f64 * 0.5),
        ),
    ];
    let top = rides[0].2.max(rides[1].2);
    let avg = round1((rides[0].2 + rides[1].2) / 2.0 - 6.0);
    let pick = |i: u64| MANEUVER_TYPES[((len + i * 2) % MANEUVER_TYPES.len() as u64) as usize];
    let (r0, r1) = (rides[0], rides[1]);
    let maneuvers = [
        (pick(0), r0.0 + (r0.1 - r0.0) / 3, 0.9, 0),
        (pick(1), r0.0 + (r0.1 - r0.0) * 2 / 3, 0.75, 0),
        (
            pick(2),
            (r1.0 + r1.1) / 2,
            round1(0.6 - (len % 5) as f64 * 0.01),
            1,
        ),
    ];
    json!({
        "duration_ms": d,
        "wave_count": 2,
        "top_speed_kmh": top,
        "avg_speed_kmh": avg,
        "rides": rides.iter().map(|(s, e, t)| json!({"start_ms": s, "end_ms": e, "top_speed_kmh": t})).collect::<Vec<_>>(),
        "maneuvers": maneuvers.iter().map(|(k, at, c, r)| json!({"type": k, "at_ms": at, "confidence": c, "ride_index": r})).collect::<Vec<_>>(),
    })
}

/// The overlay document the players would draw: the stats' windows and a coarse track.
fn overlay_for(id: &str, stats: &Value) -> Vec<u8> {
    let d = stats["duration_ms"].as_u64().unwrap_or(0);
    let track: Vec<Value> = (0..=d / 2000)
        .map(|i| json!({"t_ms": i * 2000, "x": (i * 37 % 100) as f64 / 100.0, "y": (i * 53 % 100) as f64 / 100.0}))
        .collect();
    serde_json::to_vec(&json!({
        "version": 1,
        "analysis_id": id,
        "duration_ms": d,
        "rides": stats["rides"],
        "maneuvers": stats["maneuvers"],
        "track": track,
    }))
    .expect("json")
}

/// Records a refused submit and answers its error.
fn refuse(g: &mut Inner, mut rec: SubmitRecord, status: u16, code: &str, msg: &str) -> Response {
    rec.status = status;
    g.submits.push(rec);
    error(status, code, msg)
}

fn valid_token(t: &str) -> bool {
    (1..=128).contains(&t.len())
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

fn http_url(u: &str) -> bool {
    reqwest::Url::parse(u)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

async fn submit(State(st): State<St>, headers: HeaderMap, body: Bytes) -> Response {
    let parsed: Option<Value> = serde_json::from_slice(&body).ok();
    let field = |k: &str| {
        parsed
            .as_ref()
            .and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut rec = SubmitRecord {
        token: field("client_request_token").unwrap_or_default(),
        source_url: field("source_url").unwrap_or_default(),
        webhook_url: field("webhook_url"),
        status: 0,
        job_id: None,
        created: false,
        fetch_status: None,
        bytes_fetched: 0,
    };
    let mut g = st.lock();
    if !authorized(&st, &headers) {
        return refuse(&mut g, rec, 401, "unauthorized", "missing or wrong API key");
    }
    if let Some(status) = g.submit_failures.pop_front() {
        return refuse(&mut g, rec, status, code_for(status), "injected failure");
    }
    let Some(v) = parsed.as_ref().filter(|v| v.is_object()) else {
        return refuse(
            &mut g,
            rec,
            400,
            "invalid_json",
            "the body is not a JSON object",
        );
    };
    if field("source_url").is_none() || field("client_request_token").is_none() {
        return refuse(
            &mut g,
            rec,
            400,
            "bad_request",
            "source_url and client_request_token are required strings",
        );
    }
    // Idempotency first: a repeated token answers its job whatever the body says now.
    if let Some(j) = g.jobs.iter().find(|j| j.token == rec.token) {
        let out = render(&st, j);
        rec.status = 200;
        rec.job_id = Some(j.id.clone());
        g.submits.push(rec);
        return (StatusCode::OK, Json(out)).into_response();
    }
    if !valid_token(&rec.token) {
        return refuse(
            &mut g,
            rec,
            422,
            "invalid_token",
            "1-128 of A-Z a-z 0-9 - _ . :",
        );
    }
    if !http_url(&rec.source_url) {
        return refuse(
            &mut g,
            rec,
            422,
            "invalid_source_url",
            "an http(s) URL is required",
        );
    }
    if v.get("webhook_url").is_some_and(|w| !w.is_null())
        && !rec.webhook_url.as_deref().is_some_and(http_url)
    {
        return refuse(
            &mut g,
            rec,
            422,
            "invalid_webhook_url",
            "an http(s) URL is required",
        );
    }
    let metadata = v.get("metadata").filter(|m| !m.is_null()).cloned();
    if metadata.as_ref().is_some_and(|m| !m.is_object()) {
        return refuse(
            &mut g,
            rec,
            422,
            "invalid_metadata",
            "metadata is an object",
        );
    }
    g.next_id += 1;
    let id = format!("an_{:06}", g.next_id);
    let t = rfc3339();
    let job = Job {
        id: id.clone(),
        token: rec.token.clone(),
        webhook_url: rec.webhook_url.clone(),
        metadata,
        state: "queued",
        progress: 0,
        created_at: t.clone(),
        updated_at: t,
        error: None,
        fetch_status: None,
        bytes_fetched: 0,
        output: None,
    };
    let out = render(&st, &job);
    g.jobs.push(job);
    rec.status = 201;
    rec.job_id = Some(id.clone());
    rec.created = true;
    let source = rec.source_url.clone();
    g.submits.push(rec);
    drop(g);
    tokio::spawn(drive(Arc::clone(&st), id, source));
    (StatusCode::CREATED, Json(out)).into_response()
}

/// Runs one job: fetch the source, stay queued, run in steps, finish, send the webhook. Stops
/// as soon as the job is terminal (cancelled).
async fn drive(st: St, id: String, source: String) {
    let fetched = match st.client.get(&source).send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            match r.bytes().await {
                Ok(b) => Ok((status, b.to_vec())),
                Err(e) => Err((Some(status), e.to_string())),
            }
        }
        Err(e) => Err((None, e.without_url().to_string())),
    };
    // Decide under the lock, act after it: a guard must not live across an await.
    let fetched: Result<(Vec<u8>, Timing), String> = {
        let mut g = st.lock();
        let timing = g.timing;
        let Some(j) = g.jobs.iter_mut().find(|j| j.id == id) else {
            return;
        };
        match fetched {
            Ok((status, bytes)) => {
                j.fetch_status = Some(status);
                j.bytes_fetched = bytes.len() as u64;
                if (200..300).contains(&status) {
                    Ok((bytes, timing))
                } else {
                    Err(format!("the source answered {status}"))
                }
            }
            Err((status, e)) => {
                j.fetch_status = status;
                Err(format!("the source could not be fetched: {e}"))
            }
        }
    };
    let (video, timing) = match fetched {
        Ok(v) => v,
        Err(msg) => return finish(&st, &id, Err(("source_unreachable".into(), msg))).await,
    };
    tokio::time::sleep(timing.queued_for).await;
    let step = timing.run_for / u32::from(timing.steps);
    for k in 0..timing.steps {
        {
            let mut g = st.lock();
            let Some(j) = g.jobs.iter_mut().find(|j| j.id == id) else {
                return;
            };
            if j.is_terminal() {
                return;
            }
            j.state = "running";
            j.progress = (u32::from(k) * 100 / u32::from(timing.steps)) as u8;
            j.updated_at = rfc3339();
        }
        tokio::time::sleep(step).await;
    }
    let outcome = st.lock().outcome.clone();
    let end = match outcome {
        Outcome::Succeed => Ok(video),
        Outcome::Fail { code, message } => Err((code, message)),
    };
    finish(&st, &id, end).await;
}

/// Moves a live job to its end (succeeded with `video`, or failed) and sends the webhook.
async fn finish(st: &St, id: &str, end: Result<Vec<u8>, (String, String)>) {
    {
        let mut g = st.lock();
        let corrupt = g.corrupt_sha256;
        let Some(j) = g.jobs.iter_mut().find(|j| j.id == id) else {
            return;
        };
        if j.is_terminal() {
            return;
        }
        match end {
            Ok(video) => {
                let stats = stats_for(video.len() as u64);
                let overlay = overlay_for(id, &stats);
                let mut video_sha256 = sha256_hex(&video);
                if corrupt {
                    video_sha256 = sha256_hex(video_sha256.as_bytes());
                }
                j.output = Some(Output {
                    overlay_sha256: sha256_hex(&overlay),
                    stats,
                    video,
                    overlay,
                    video_sha256,
                });
                j.state = "succeeded";
                j.progress = 100;
            }
            Err((code, message)) => {
                j.state = "failed";
                j.error = Some((code, message));
            }
        }
        j.updated_at = rfc3339();
    }
    deliver(st, id).await;
}

/// POSTs the completion webhook of a terminal job, if it asked for one.
async fn deliver(st: &St, id: &str) {
    let (url, body) = {
        let g = st.lock();
        let Some(j) = g.jobs.iter().find(|j| j.id == id) else {
            return;
        };
        let (Some(url), true) = (j.webhook_url.clone(), g.webhooks_enabled) else {
            return;
        };
        let event = json!({
            "type": "analysis.completed",
            "timestamp": j.updated_at,
            "data": render(st, j),
        });
        (url, serde_json::to_vec(&event).expect("json"))
    };
    let webhook_id = format!("msg_{id}");
    for attempt in 0..3u32 {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(50 << (attempt - 1))).await;
        }
        let timestamp = now().timestamp();
        let mut mac = Hmac::<Sha256>::new_from_slice(&st.webhook_key).expect("any key");
        mac.update(format!("{webhook_id}.{timestamp}.").as_bytes());
        mac.update(&body);
        let signature = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
        let status = st
            .client
            .post(&url)
            .header("webhook-id", &webhook_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", &signature)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.clone())
            .send()
            .await
            .ok()
            .map(|r| r.status().as_u16());
        st.lock().webhooks.push(WebhookDelivery {
            url: url.clone(),
            webhook_id: webhook_id.clone(),
            timestamp,
            signature,
            body: body.clone(),
            status,
        });
        if status.is_some_and(|s| (200..300).contains(&s)) {
            return;
        }
    }
}

async fn read(State(st): State<St>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    {
        let mut g = st.lock();
        g.polls += 1;
        if !authorized(&st, &headers) {
            return error(401, "unauthorized", "missing or wrong API key");
        }
        if g.poll_hangs == 0 {
            if let Some(status) = g.poll_failures.pop_front() {
                return error(status, code_for(status), "injected failure");
            }
            return match g.jobs.iter().find(|j| j.id == id) {
                Some(j) => Json(render(&st, j)).into_response(),
                None => error(404, "not_found", "no such analysis"),
            };
        }
        g.poll_hangs -= 1;
    }
    // Never answers; the client's timeout ends the request (and the runtime ends this task).
    std::future::pending::<Response>().await
}

async fn cancel(State(st): State<St>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let notify = {
        let mut g = st.lock();
        if !authorized(&st, &headers) {
            return error(401, "unauthorized", "missing or wrong API key");
        }
        g.cancels.push(id.clone());
        let Some(j) = g.jobs.iter_mut().find(|j| j.id == id) else {
            return error(404, "not_found", "no such analysis");
        };
        if j.is_terminal() {
            return Json(render(&st, j)).into_response();
        }
        j.state = "canceled";
        j.updated_at = rfc3339();
        render(&st, j)
    };
    let st2 = Arc::clone(&st);
    tokio::spawn(async move { deliver(&st2, &id).await });
    Json(notify).into_response()
}

#[derive(serde::Deserialize)]
struct FileQuery {
    expires: Option<i64>,
    sig: Option<String>,
}

async fn file(
    State(st): State<St>,
    Path((id, name)): Path<(String, String)>,
    Query(q): Query<FileQuery>,
) -> Response {
    let (Some(expires), Some(sig)) = (q.expires, q.sig) else {
        return error(403, "forbidden", "unsigned file URL");
    };
    if file_sig(&st, &id, &name, expires) != sig {
        return error(403, "forbidden", "bad file URL signature");
    }
    if expires < now().timestamp() {
        return error(403, "expired", "the file URL has expired");
    }
    let g = st.lock();
    let Some(o) = g
        .jobs
        .iter()
        .find(|j| j.id == id && j.state == "succeeded")
        .and_then(|j| j.output.as_ref())
    else {
        return error(404, "not_found", "no such file");
    };
    let (bytes, ct) = match name.as_str() {
        "video.mp4" => (o.video.clone(), "video/mp4"),
        "overlay.json" => (o.overlay.clone(), "application/json"),
        _ => return error(404, "not_found", "no such file"),
    };
    ([(header::CONTENT_TYPE, ct)], bytes).into_response()
}

/// A source video server for tests: `GET /source.mp4` answers the bytes given (or a chosen
/// error status), and counts requests.
pub struct FakeSource {
    base_url: String,
    state: Arc<Mutex<SourceState>>,
    server: JoinHandle<()>,
}

struct SourceState {
    bytes: Vec<u8>,
    status: u16,
    hits: usize,
}

impl FakeSource {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start(bytes: Vec<u8>) -> Self {
        let state = Arc::new(Mutex::new(SourceState {
            bytes,
            status: 200,
            hits: 0,
        }));
        let s = Arc::clone(&state);
        let app = Router::new().route(
            "/source.mp4",
            get(move || {
                let s = Arc::clone(&s);
                async move {
                    let mut g = s.lock().unwrap_or_else(PoisonError::into_inner);
                    g.hits += 1;
                    if g.status != 200 {
                        let st = StatusCode::from_u16(g.status)
                            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                        return (st, "refused").into_response();
                    }
                    ([(header::CONTENT_TYPE, "video/mp4")], g.bytes.clone()).into_response()
                }
            }),
        );
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeSource: bind 127.0.0.1:0");
        let port = listener.local_addr().expect("FakeSource: address").port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeSource {
            base_url: format!("http://127.0.0.1:{port}"),
            state,
            server,
        }
    }

    /// The source's URL (with a query, as a signed URL has).
    pub fn url(&self) -> String {
        format!("{}/source.mp4?token=test", self.base_url)
    }

    /// Answer `status` (with no video) from now on; 200 restores the bytes.
    pub fn set_status(&self, status: u16) {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .status = status;
    }

    /// Requests so far.
    pub fn hits(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .hits
    }
}

impl Drop for FakeSource {
    fn drop(&mut self) {
        self.server.abort();
    }
}
