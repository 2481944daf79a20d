//! A fake Expo push service (`POST /--/api/v2/push/send`).
//!
//! Why: push delivery must be tested offline, with the exact traffic checked. [`FakeExpo`]
//! answers the way Expo does: a JSON array of messages (or one object) in, `{"data": [ticket,
//! …]}` out with one ticket per message, in order. A token marked with
//! [`FakeExpo::unregister`] gets the ticket `{"status": "error", "details": {"error":
//! "DeviceNotRegistered"}}`; [`FakeExpo::fail_next`] makes the next requests answer a chosen
//! status (e.g. 503 for an outage, 400 for a rejected request) before any ticket is issued.
//! With [`FakeExpo::require_token`] a request without that bearer token is refused 401, as
//! Expo's enhanced push security does. Every request is recorded.
//!
//! Receipts (`POST /--/api/v2/push/getReceipts`, `{"ids": […]}`, at most 1,000 else 400):
//! `{"data": {id: receipt}}` for the tickets it issued, `ok`, or `DeviceNotRegistered` for a
//! token marked with [`FakeExpo::unregister_after_ticket`] (the phone uninstalled the app after
//! the ticket was issued), or another error set with [`FakeExpo::receipt_error`].

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// One request to the send endpoint, as received (recorded even when refused).
#[derive(Clone, Debug)]
pub struct PushRequest {
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The messages of the request (a single object is recorded as a one-element list).
    pub messages: Vec<Value>,
    /// The status the fake answered.
    pub status: u16,
}

#[derive(Default)]
struct Inner {
    requests: Vec<PushRequest>,
    unregistered: HashSet<String>,
    failures: VecDeque<u16>,
    access_token: Option<String>,
    next_ticket: u64,
    /// ticket id → token
    tickets: std::collections::HashMap<String, String>,
    /// token → receipt error
    receipt_errors: std::collections::HashMap<String, String>,
    /// the number of ids of each receipts request
    receipt_requests: Vec<usize>,
    delays: VecDeque<std::time::Duration>,
}

type Shared = Arc<Mutex<Inner>>;

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    s.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The fake service on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeExpo {
    base_url: String,
    shared: Shared,
    server: JoinHandle<()>,
}

impl FakeExpo {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start() -> Self {
        let shared: Shared = Arc::default();
        let app = Router::new()
            .route("/--/api/v2/push/send", post(send))
            .route("/--/api/v2/push/getReceipts", post(receipts))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeExpo: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("FakeExpo: local address")
            .port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeExpo {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Tickets for `token` say `DeviceNotRegistered` from now on.
    pub fn unregister(&self, token: &str) {
        lock(&self.shared).unregistered.insert(token.to_string());
    }

    /// The next `times` requests answer `status` (with an Expo-style error body).
    pub fn fail_next(&self, status: u16, times: usize) {
        let mut g = lock(&self.shared);
        for _ in 0..times {
            g.failures.push_back(status);
        }
    }

    /// Requests must carry `Authorization: Bearer <token>`, else 401.
    pub fn require_token(&self, token: &str) {
        lock(&self.shared).access_token = Some(token.to_string());
    }

    /// Tickets for `token` are ok, but their receipts say `DeviceNotRegistered`.
    pub fn unregister_after_ticket(&self, token: &str) {
        self.receipt_error(token, "DeviceNotRegistered");
    }

    /// Receipts for `token` carry this error (`MessageTooBig`, `InvalidCredentials`, …).
    pub fn receipt_error(&self, token: &str, error: &str) {
        lock(&self.shared)
            .receipt_errors
            .insert(token.to_string(), error.to_string());
    }

    /// The size of each receipts request so far.
    pub fn receipt_requests(&self) -> Vec<usize> {
        lock(&self.shared).receipt_requests.clone()
    }

    /// The next `times` send requests are answered only after `d` (timeouts).
    pub fn slow_next(&self, d: std::time::Duration, times: usize) {
        let mut g = lock(&self.shared);
        for _ in 0..times {
            g.delays.push_back(d);
        }
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<PushRequest> {
        lock(&self.shared).requests.clone()
    }

    /// The messages of the requests that were answered 200.
    pub fn delivered(&self) -> Vec<Value> {
        lock(&self.shared)
            .requests
            .iter()
            .filter(|r| r.status == 200)
            .flat_map(|r| r.messages.clone())
            .collect()
    }
}

impl Drop for FakeExpo {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn error(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        Json(json!({ "errors": [{ "code": code, "message": message }] })),
    )
        .into_response()
}

async fn send(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let delay = lock(&shared).delays.pop_front();
    if let Some(d) = delay {
        tokio::time::sleep(d).await;
    }
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let parsed: Option<Value> = serde_json::from_slice(&body).ok();
    let messages = match parsed {
        Some(Value::Array(a)) => a,
        Some(v @ Value::Object(_)) => vec![v],
        _ => Vec::new(),
    };
    let mut g = lock(&shared);
    let record = |g: &mut Inner, status: u16| {
        g.requests.push(PushRequest {
            authorization: authorization.clone(),
            messages: messages.clone(),
            status,
        })
    };
    if let Some(want) = &g.access_token
        && authorization.as_deref() != Some(&format!("Bearer {want}"))
    {
        record(&mut g, 401);
        return error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "bad access token");
    }
    if let Some(status) = g.failures.pop_front() {
        record(&mut g, status);
        let s = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return error(s, "INTERNAL_SERVER_ERROR", "forced failure");
    }
    if messages.is_empty() || messages.len() > 100 {
        record(&mut g, 400);
        return error(
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
            "between 1 and 100 messages",
        );
    }
    let mut tickets = Vec::new();
    for m in &messages {
        let to = m["to"].as_str().unwrap_or_default();
        if !(to.starts_with("ExponentPushToken[") || to.starts_with("ExpoPushToken[")) {
            tickets.push(json!({ "status": "error", "message": format!("\"{to}\" is not a valid push token"), "details": { "error": "DeviceNotRegistered" } }));
        } else if g.unregistered.contains(to) {
            tickets.push(json!({ "status": "error", "message": format!("\"{to}\" is not a registered push notification recipient"), "details": { "error": "DeviceNotRegistered", "expoPushToken": to } }));
        } else {
            g.next_ticket += 1;
            let id = format!("ticket-{:08}", g.next_ticket);
            g.tickets.insert(id.clone(), to.to_string());
            tickets.push(json!({ "status": "ok", "id": id }));
        }
    }
    record(&mut g, 200);
    Json(json!({ "data": tickets })).into_response()
}

async fn receipts(State(shared): State<Shared>, Json(body): Json<Value>) -> Response {
    let ids: Vec<String> = body["ids"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut g = lock(&shared);
    g.receipt_requests.push(ids.len());
    if ids.len() > 1000 {
        return error(
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
            "at most 1000 ids",
        );
    }
    let mut data = serde_json::Map::new();
    for id in ids {
        let Some(token) = g.tickets.get(&id) else {
            continue;
        };
        let receipt = match g.receipt_errors.get(token) {
            Some(e) => {
                json!({ "status": "error", "message": format!("receipt error {e}"), "details": { "error": e } })
            }
            None => json!({ "status": "ok" }),
        };
        data.insert(id, receipt);
    }
    Json(json!({ "data": data })).into_response()
}
