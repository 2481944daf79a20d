//! A fake Twilio: the Verify API (`POST /v2/Services/{sid}/Verifications` and
//! `/VerificationCheck`) and a signer for inbound webhooks.
//!
//! Why: phone verification must be tested offline with Twilio's real answers. The fake checks
//! HTTP Basic auth (account SID and auth token; 401 code 20003 otherwise) and the service SID
//! (404 code 20404), refuses a `To` that is not E.164 (400 code 60200), more than 5 sends to
//! one number in 10 minutes (429 code 60203), and keeps one pending verification per number:
//! a check with the right code answers `approved`, a wrong code `pending` (5 checks at most,
//! then 429 code 60202), and a check without a pending verification (never sent, approved,
//! or expired with [`FakeTwilio::expire`]) 404 code 20404, as Twilio does. The code sent is
//! readable with [`FakeTwilio::code_for`] (the test plays the phone).
//! [`webhook_signature`] computes `X-Twilio-Signature` independently of the app's code.
//!
//! The Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`) checks the same Basic
//! auth, a `To` in E.164 (400 code 21211), a `From` or `MessagingServiceSid`, refuses a number
//! marked [`FakeTwilio::opt_out`] with 400 code 21610 as Twilio does after STOP, and answers
//! [`FakeTwilio::fail_messages`] statuses first; accepted messages are in
//! [`FakeTwilio::messages`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Form, Json, Router};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub const MAX_SENDS: usize = 5;
pub const MAX_CHECKS: u32 = 5;
pub const SEND_WINDOW: Duration = Duration::from_secs(600);

struct Pending {
    code: String,
    checks: u32,
}

#[derive(Default)]
struct Inner {
    pending: HashMap<String, Pending>,
    sends: HashMap<String, Vec<Instant>>,
    next_code: u32,
    messages: Vec<HashMap<String, String>>,
    opted_out: std::collections::HashSet<String>,
    message_failures: std::collections::VecDeque<(u16, Option<u64>)>,
    message_delays: std::collections::VecDeque<Duration>,
}

struct Shared {
    account_sid: String,
    auth_token: String,
    service_sid: String,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeTwilio {
    base_url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl FakeTwilio {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start(account_sid: &str, auth_token: &str, service_sid: &str) -> Self {
        let shared = Arc::new(Shared {
            account_sid: account_sid.into(),
            auth_token: auth_token.into(),
            service_sid: service_sid.into(),
            inner: Mutex::new(Inner {
                next_code: 314_159,
                ..Inner::default()
            }),
        });
        let app = Router::new()
            .route("/v2/Services/{sid}/Verifications", post(start))
            .route("/v2/Services/{sid}/VerificationCheck", post(check))
            .route("/2010-04-01/Accounts/{sid}/Messages.json", post(message))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeTwilio: bind 127.0.0.1:0");
        let port = listener.local_addr().expect("FakeTwilio: address").port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeTwilio {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The code of the pending verification of `to`, as the phone received it.
    pub fn code_for(&self, to: &str) -> Option<String> {
        self.shared.lock().pending.get(to).map(|p| p.code.clone())
    }

    /// The pending verification of `to` expires (Twilio: 10 minutes).
    pub fn expire(&self, to: &str) {
        self.shared.lock().pending.remove(to);
    }

    /// SMS sent to `to` so far.
    pub fn sends_to(&self, to: &str) -> usize {
        self.shared.lock().sends.get(to).map_or(0, Vec::len)
    }
}

impl FakeTwilio {
    /// Accepted text messages, each its form (`To`, `Body`, `From` or `MessagingServiceSid`).
    pub fn messages(&self) -> Vec<HashMap<String, String>> {
        self.shared.lock().messages.clone()
    }

    /// `to` replied STOP: messages to it are refused with 21610.
    pub fn opt_out(&self, to: &str) {
        self.shared.lock().opted_out.insert(to.to_string());
    }

    /// The next `times` message requests are answered only after `d` (timeouts).
    pub fn slow_messages(&self, d: Duration, times: usize) {
        let mut g = self.shared.lock();
        for _ in 0..times {
            g.message_delays.push_back(d);
        }
    }

    /// The next `times` message requests answer `status` (with `Retry-After` when given).
    pub fn fail_messages(&self, status: u16, times: usize, retry_after: Option<u64>) {
        let mut g = self.shared.lock();
        for _ in 0..times {
            g.message_failures.push_back((status, retry_after));
        }
    }
}

async fn message(
    State(shared): State<Arc<Shared>>,
    Path(sid): Path<String>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let expected = format!(
        "Basic {}",
        STANDARD.encode(format!("{}:{}", shared.account_sid, shared.auth_token))
    );
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if given != Some(expected.as_str()) || sid != shared.account_sid {
        return error(StatusCode::UNAUTHORIZED, 20003, "Authenticate");
    }
    let delay = shared.lock().message_delays.pop_front();
    if let Some(d) = delay {
        tokio::time::sleep(d).await;
    }
    let mut g = shared.lock();
    if let Some((status, retry)) = g.message_failures.pop_front() {
        let s = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut r = error(s, 20500, "forced failure");
        if let Some(secs) = retry {
            r.headers_mut()
                .insert("retry-after", secs.to_string().parse().expect("header"));
        }
        return r;
    }
    let to = form.get("To").cloned().unwrap_or_default();
    if !e164(&to) {
        return error(
            StatusCode::BAD_REQUEST,
            21211,
            "The 'To' number is not a valid phone number.",
        );
    }
    if !form.contains_key("From") && !form.contains_key("MessagingServiceSid") {
        return error(
            StatusCode::BAD_REQUEST,
            21603,
            "A 'From' or 'MessagingServiceSid' parameter is required",
        );
    }
    if g.opted_out.contains(&to) {
        return error(
            StatusCode::BAD_REQUEST,
            21610,
            "Attempt to send to unsubscribed recipient",
        );
    }
    g.messages.push(form);
    let n = g.messages.len();
    (
        StatusCode::CREATED,
        Json(json!({ "sid": format!("SM{n:032}"), "status": "queued", "to": to })),
    )
        .into_response()
}

impl Drop for FakeTwilio {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// `X-Twilio-Signature` for a form POST to `url` with `params`.
pub fn webhook_signature(auth_token: &str, url: &str, params: &[(&str, &str)]) -> String {
    let mut sorted = params.to_vec();
    sorted.sort();
    let mut data = url.to_string();
    for (k, v) in sorted {
        data.push_str(k);
        data.push_str(v);
    }
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(auth_token.as_bytes()).expect("any key");
    mac.update(data.as_bytes());
    STANDARD.encode(mac.finalize().into_bytes())
}

fn error(status: StatusCode, code: u32, message: &str) -> Response {
    (
        status,
        Json(json!({ "code": code, "message": message, "status": status.as_u16(), "more_info": format!("https://www.twilio.com/docs/errors/{code}") })),
    )
        .into_response()
}

/// `Some(refusal)` unless the request carries the account's credentials for our service.
fn refusal(shared: &Shared, headers: &HeaderMap, sid: &str) -> Option<Response> {
    let expected = format!(
        "Basic {}",
        STANDARD.encode(format!("{}:{}", shared.account_sid, shared.auth_token))
    );
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if given != Some(expected.as_str()) {
        return Some(error(StatusCode::UNAUTHORIZED, 20003, "Authenticate"));
    }
    if sid != shared.service_sid {
        return Some(error(
            StatusCode::NOT_FOUND,
            20404,
            "The requested resource was not found",
        ));
    }
    None
}

fn e164(to: &str) -> bool {
    let digits = to.strip_prefix('+').unwrap_or("");
    (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0')
}

async fn start(
    State(shared): State<Arc<Shared>>,
    Path(sid): Path<String>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if let Some(r) = refusal(&shared, &headers, &sid) {
        return r;
    }
    let to = form.get("To").cloned().unwrap_or_default();
    if !e164(&to) {
        return error(StatusCode::BAD_REQUEST, 60200, "Invalid parameter `To`");
    }
    if form.get("Channel").map(String::as_str) != Some("sms") {
        return error(StatusCode::BAD_REQUEST, 60200, "Invalid parameter: Channel");
    }
    let mut g = shared.lock();
    let now = Instant::now();
    let sends = g.sends.entry(to.clone()).or_default();
    let recent = sends
        .iter()
        .filter(|t| now.duration_since(**t) < SEND_WINDOW)
        .count();
    if recent >= MAX_SENDS {
        return error(
            StatusCode::TOO_MANY_REQUESTS,
            60203,
            "Max send attempts reached",
        );
    }
    sends.push(now);
    g.next_code += 1;
    let code = format!("{:06}", g.next_code % 1_000_000);
    // A new send keeps the pending verification's code, as Twilio does within its lifetime.
    // A new send within the lifetime resends the same code; after too many wrong checks it
    // starts a new verification.
    let p = g.pending.entry(to.clone()).or_insert(Pending {
        code: code.clone(),
        checks: 0,
    });
    if p.checks >= MAX_CHECKS {
        *p = Pending { code, checks: 0 };
    }
    (
        StatusCode::CREATED,
        Json(json!({ "sid": "VE0000", "service_sid": sid, "to": to, "channel": "sms", "status": "pending", "valid": false })),
    )
        .into_response()
}

async fn check(
    State(shared): State<Arc<Shared>>,
    Path(sid): Path<String>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if let Some(r) = refusal(&shared, &headers, &sid) {
        return r;
    }
    let to = form.get("To").cloned().unwrap_or_default();
    let code = form.get("Code").cloned().unwrap_or_default();
    let mut g = shared.lock();
    let Some(p) = g.pending.get_mut(&to) else {
        return error(
            StatusCode::NOT_FOUND,
            20404,
            "The requested resource was not found",
        );
    };
    if p.checks >= MAX_CHECKS {
        return error(
            StatusCode::TOO_MANY_REQUESTS,
            60202,
            "Max check attempts reached",
        );
    }
    p.checks += 1;
    let status = if p.code == code {
        g.pending.remove(&to);
        "approved"
    } else {
        "pending"
    };
    Json(json!({ "sid": "VE0000", "to": to, "channel": "sms", "status": status, "valid": status == "approved" }))
        .into_response()
}
