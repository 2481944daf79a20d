//! A fake Firebase Cloud Messaging (HTTP v1) with its OAuth 2.0 token endpoint.
//!
//! Why: FCM's server authentication (a service-account JWT exchanged for an access token) and
//! its error answers must be tested offline. The fake makes its own service account
//! ([`FakeFcm::service_account_json`], an RSA key generated at start) and checks, as Google
//! does: at `POST /token`, `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and an RS256
//! `assertion` whose signature verifies with the account's public key, `iss` the account,
//! `aud` this token endpoint, the firebase.messaging scope, at most an hour of life; it answers
//! an access token. At `POST /v1/projects/{project}/messages:send`, a live access token (else
//! 401 UNAUTHENTICATED), the project, `message.token`, a notification with title and body,
//! string data values (else 400 INVALID_ARGUMENT). A token marked [`FakeFcm::unregister`]
//! answers 404 with errorCode UNREGISTERED, one marked [`FakeFcm::invalid`] 400
//! INVALID_ARGUMENT. [`FakeFcm::fail_next`] forces statuses (with `Retry-After`),
//! [`FakeFcm::revoke_tokens`] expires the access tokens issued, [`FakeFcm::refuse_credentials`]
//! makes the token endpoint answer 400 invalid_grant.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{KeyPair, KeySize};
use aws_lc_rs::signature::KeyPair as _;
use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub const PROJECT: &str = "surf-coach-test";
pub const CLIENT_EMAIL: &str = "push@surf-coach-test.iam.gserviceaccount.com";

#[derive(Default)]
struct Inner {
    issued: HashSet<String>,
    next_token: u64,
    token_requests: u64,
    unregistered: HashSet<String>,
    invalid: HashSet<String>,
    failures: VecDeque<(u16, Option<u64>)>,
    refuse: bool,
    delays: VecDeque<std::time::Duration>,
    sends: Vec<(u16, Value)>,
}

struct Shared {
    base_url: String,
    public_key: Vec<u8>,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeFcm {
    shared: Arc<Shared>,
    private_pem: String,
    server: JoinHandle<()>,
}

impl FakeFcm {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start() -> Self {
        // One key for the process: RSA generation is slow, and every test app starts a fake.
        static KEY: std::sync::OnceLock<KeyPair> = std::sync::OnceLock::new();
        let key = KEY.get_or_init(|| KeyPair::generate(KeySize::Rsa2048).expect("RSA key"));
        let der = AsDer::<aws_lc_rs::encoding::Pkcs8V1Der>::as_der(key).expect("PKCS#8");
        let b64 = STANDARD.encode(der.as_ref());
        let lines: Vec<&str> = b64
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).expect("base64"))
            .collect();
        let private_pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            lines.join("\n")
        );
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeFcm: bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let shared = Arc::new(Shared {
            base_url: format!("http://127.0.0.1:{port}"),
            public_key: key.public_key().as_ref().to_vec(),
            inner: Mutex::default(),
        });
        let app = Router::new()
            .route("/token", post(token))
            .route("/v1/projects/{project}/messages:send", post(send))
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeFcm {
            shared,
            private_pem,
            server,
        }
    }

    /// `http://127.0.0.1:PORT` (`FCM_BASE_URL`).
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// The service-account key file's JSON (`FCM_SERVICE_ACCOUNT_JSON`); its `token_uri` is
    /// this fake's token endpoint.
    pub fn service_account_json(&self) -> String {
        json!({
            "type": "service_account",
            "project_id": PROJECT,
            "private_key_id": "test-key-1",
            "private_key": self.private_pem,
            "client_email": CLIENT_EMAIL,
            "token_uri": format!("{}/token", self.shared.base_url),
        })
        .to_string()
    }

    pub fn unregister(&self, token: &str) {
        self.shared.lock().unregistered.insert(token.to_string());
    }

    pub fn invalid(&self, token: &str) {
        self.shared.lock().invalid.insert(token.to_string());
    }

    /// The next `times` sends answer `status` (with `Retry-After` when given).
    pub fn fail_next(&self, status: u16, times: usize, retry_after: Option<u64>) {
        let mut g = self.shared.lock();
        for _ in 0..times {
            g.failures.push_back((status, retry_after));
        }
    }

    /// Every access token issued so far stops working (401 until a new one is fetched).
    pub fn revoke_tokens(&self) {
        self.shared.lock().issued.clear();
    }

    /// The token endpoint refuses the service account (a deleted or rotated key).
    pub fn refuse_credentials(&self, refuse: bool) {
        self.shared.lock().refuse = refuse;
    }

    /// The next `times` requests are answered only after `d` (timeouts).
    pub fn slow_next(&self, d: std::time::Duration, times: usize) {
        let mut g = self.shared.lock();
        for _ in 0..times {
            g.delays.push_back(d);
        }
    }

    pub fn token_requests(&self) -> u64 {
        self.shared.lock().token_requests
    }

    /// Every send request: (status answered, body).
    pub fn sends(&self) -> Vec<(u16, Value)> {
        self.shared.lock().sends.clone()
    }

    /// The messages accepted (status 200).
    pub fn delivered(&self) -> Vec<Value> {
        self.sends()
            .into_iter()
            .filter(|(s, _)| *s == 200)
            .map(|(_, b)| b["message"].clone())
            .collect()
    }
}

impl Drop for FakeFcm {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn google_error(
    status: StatusCode,
    canonical: &str,
    message: &str,
    code: Option<&str>,
) -> Response {
    let mut details = vec![];
    if let Some(c) = code {
        details.push(json!({ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": c }));
    }
    (
        status,
        Json(json!({ "error": { "code": status.as_u16(), "message": message, "status": canonical, "details": details } })),
    )
        .into_response()
}

fn check_assertion(shared: &Shared, jwt: &str) -> Result<(), String> {
    let mut parts = jwt.split('.');
    let (Some(h), Some(c), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("not a JWT".into());
    };
    let d = |x: &str| {
        URL_SAFE_NO_PAD
            .decode(x)
            .map_err(|_| "not base64url".to_string())
    };
    let header: Value = serde_json::from_slice(&d(h)?).map_err(|e| e.to_string())?;
    if header["alg"] != "RS256" {
        return Err("alg must be RS256".into());
    }
    aws_lc_rs::signature::UnparsedPublicKey::new(
        &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
        &shared.public_key,
    )
    .verify(format!("{h}.{c}").as_bytes(), &d(s)?)
    .map_err(|_| "invalid JWT signature".to_string())?;
    let claims: Value = serde_json::from_slice(&d(c)?).map_err(|e| e.to_string())?;
    let now = chrono::Utc::now().timestamp();
    let (iat, exp) = (
        claims["iat"].as_i64().unwrap_or(0),
        claims["exp"].as_i64().unwrap_or(0),
    );
    if claims["iss"] != CLIENT_EMAIL {
        return Err("iss is not the service account".into());
    }
    if claims["aud"] != format!("{}/token", shared.base_url) {
        return Err(format!("aud {} is not the token endpoint", claims["aud"]));
    }
    if !claims["scope"]
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .any(|s| s == "https://www.googleapis.com/auth/firebase.messaging")
    {
        return Err("scope lacks firebase.messaging".into());
    }
    if exp <= now || exp - iat > 3600 || iat > now + 60 {
        return Err("iat/exp out of range".into());
    }
    Ok(())
}

async fn token(
    State(shared): State<Arc<Shared>>,
    Form(form): Form<std::collections::HashMap<String, String>>,
) -> Response {
    let mut g = shared.lock();
    g.token_requests += 1;
    let bad = |m: &str| {
        (
            StatusCode::BAD_REQUEST,
            Json(json!({ "error": "invalid_grant", "error_description": m })),
        )
            .into_response()
    };
    if g.refuse {
        return bad("Invalid JWT Signature.");
    }
    if form.get("grant_type").map(String::as_str)
        != Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({ "error": "unsupported_grant_type" })),
        )
            .into_response();
    }
    if let Err(e) = check_assertion(
        &shared,
        form.get("assertion").map(String::as_str).unwrap_or(""),
    ) {
        return bad(&e);
    }
    g.next_token += 1;
    let t = format!("ya29.fake-{}", g.next_token);
    g.issued.insert(t.clone());
    Json(json!({ "access_token": t, "expires_in": 3599, "token_type": "Bearer" })).into_response()
}

async fn send(
    State(shared): State<Arc<Shared>>,
    Path(project): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let delay = shared.lock().delays.pop_front();
    if let Some(d) = delay {
        tokio::time::sleep(d).await;
    }
    let mut g = shared.lock();
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_string();
    let record = |g: &mut Inner, status: u16| g.sends.push((status, body.clone()));
    if !g.issued.contains(&bearer) {
        record(&mut g, 401);
        return google_error(
            StatusCode::UNAUTHORIZED,
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials.",
            None,
        );
    }
    if let Some((status, retry)) = g.failures.pop_front() {
        record(&mut g, status);
        let s = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut r = google_error(s, "UNAVAILABLE", "forced failure", None);
        if let Some(secs) = retry {
            r.headers_mut()
                .insert("retry-after", secs.to_string().parse().expect("header"));
        }
        return r;
    }
    if project != PROJECT {
        record(&mut g, 404);
        return google_error(StatusCode::NOT_FOUND, "NOT_FOUND", "unknown project", None);
    }
    let m = &body["message"];
    let token = m["token"].as_str().unwrap_or_default().to_string();
    let data_ok = m["data"]
        .as_object()
        .is_none_or(|o| o.values().all(Value::is_string));
    let shape_ok = !token.is_empty()
        && m["notification"]["title"].is_string()
        && m["notification"]["body"].is_string()
        && data_ok;
    if !shape_ok || g.invalid.contains(&token) {
        record(&mut g, 400);
        return google_error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "The registration token is not a valid FCM registration token",
            Some("INVALID_ARGUMENT"),
        );
    }
    if g.unregistered.contains(&token) {
        record(&mut g, 404);
        return google_error(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            "Requested entity was not found.",
            Some("UNREGISTERED"),
        );
    }
    record(&mut g, 200);
    let n = g.sends.len();
    Json(json!({ "name": format!("projects/{PROJECT}/messages/{n}") })).into_response()
}
