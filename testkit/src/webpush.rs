//! A fake Web Push service (RFC 8030): plays the browser's push service and the browser.
//!
//! Why: a wrongly encrypted or unsigned message must fail a test. [`FakePushService::subscribe`]
//! makes a subscription as a browser would (a fresh P-256 key pair, a 16-byte auth secret, an
//! endpoint `…/push/{id}`). Each `POST` to an endpoint is checked as a push service and a
//! browser would: `Content-Encoding: aes128gcm`, a `TTL`, `Authorization: vapid t=<JWT>,
//! k=<key>` whose ES256 signature verifies with `k`, `aud` this service's origin, `exp` in the
//! future and at most 24 hours ahead, `sub` a `mailto:` or `https:` URL; then the body is
//! decrypted with the subscription's private key. The decryption is written here from RFC 8291
//! and RFC 8188, with RustCrypto's HKDF and AES-GCM (the sender uses AWS-LC), so a mistake in
//! the sender's key schedule cannot cancel out. Anything wrong answers 400 (401 for VAPID) and
//! is recorded with its reason; only a message that decrypts is delivered.
//!
//! [`FakePushService::expire`] makes an endpoint answer 410 Gone (404 with
//! [`FakePushService::forget`]); [`FakePushService::fail_next`] makes the next requests answer
//! a status (with a `Retry-After` when given).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes128Gcm, Nonce};
use aws_lc_rs::agreement::{self, ECDH_P256, UnparsedPublicKey};
use aws_lc_rs::encoding::{AsBigEndian, EcPrivateKeyBin};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use sha2::Sha256;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A subscription as the browser's `PushSubscription.toJSON()` gives it.
#[derive(Clone, Debug)]
pub struct FakeSubscription {
    pub id: u64,
    pub endpoint: String,
    /// base64url of the uncompressed public key.
    pub p256dh: String,
    /// base64url of the 16-byte auth secret.
    pub auth: String,
}

/// A message that arrived and decrypted.
#[derive(Clone, Debug)]
pub struct Received {
    pub subscription: u64,
    pub plaintext: Vec<u8>,
    pub ttl: u32,
    pub urgency: Option<String>,
    pub topic: Option<String>,
    /// The VAPID `k` (the application server's public key).
    pub vapid_key: String,
    pub vapid_sub: String,
}

impl Received {
    /// The plaintext as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.plaintext).unwrap_or(Value::Null)
    }
}

/// Every request, as answered.
#[derive(Clone, Debug)]
pub struct Attempt {
    pub subscription: u64,
    pub status: u16,
    /// Why it was refused, when it was.
    pub reason: Option<String>,
}

struct Sub {
    private: Vec<u8>,
    public: Vec<u8>,
    auth: Vec<u8>,
    state: u16,
}

#[derive(Default)]
struct Inner {
    subs: HashMap<u64, Sub>,
    next: u64,
    received: Vec<Received>,
    attempts: Vec<Attempt>,
    failures: VecDeque<(u16, Option<u64>)>,
    delays: VecDeque<std::time::Duration>,
}

struct Shared {
    origin: String,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakePushService {
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl FakePushService {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start() -> Self {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakePushService: bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let shared = Arc::new(Shared {
            origin: format!("http://127.0.0.1:{port}"),
            inner: Mutex::default(),
        });
        let app = Router::new()
            .route("/push/{id}", post(push))
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakePushService { shared, server }
    }

    /// `http://127.0.0.1:PORT`: what `WEB_PUSH_ENDPOINT_HOSTS` must allow.
    pub fn origin(&self) -> String {
        self.shared.origin.clone()
    }

    /// A new subscription, as a browser's `pushManager.subscribe` would make.
    pub fn subscribe(&self) -> FakeSubscription {
        let key = agreement::PrivateKey::generate(&ECDH_P256).expect("P-256 key");
        let raw: EcPrivateKeyBin = key.as_be_bytes().expect("scalar");
        let public = key
            .compute_public_key()
            .expect("public key")
            .as_ref()
            .to_vec();
        let mut auth = [0u8; 16];
        aws_lc_rs::rand::fill(&mut auth).expect("rng");
        let mut g = self.shared.lock();
        g.next += 1;
        let id = g.next;
        g.subs.insert(
            id,
            Sub {
                private: raw.as_ref().to_vec(),
                public: public.clone(),
                auth: auth.to_vec(),
                state: 0,
            },
        );
        FakeSubscription {
            id,
            endpoint: format!("{}/push/{id}", self.shared.origin),
            p256dh: URL_SAFE_NO_PAD.encode(&public),
            auth: URL_SAFE_NO_PAD.encode(auth),
        }
    }

    /// The subscription expired: its endpoint answers 410.
    pub fn expire(&self, id: u64) {
        if let Some(s) = self.shared.lock().subs.get_mut(&id) {
            s.state = 410;
        }
    }

    /// The push service does not know it: 404.
    pub fn forget(&self, id: u64) {
        if let Some(s) = self.shared.lock().subs.get_mut(&id) {
            s.state = 404;
        }
    }

    /// The next `times` requests answer `status`, with `Retry-After: retry_after` when given.
    pub fn fail_next(&self, status: u16, times: usize, retry_after: Option<u64>) {
        let mut g = self.shared.lock();
        for _ in 0..times {
            g.failures.push_back((status, retry_after));
        }
    }

    /// The next `times` requests are answered only after `d` (timeouts).
    pub fn slow_next(&self, d: std::time::Duration, times: usize) {
        let mut g = self.shared.lock();
        for _ in 0..times {
            g.delays.push_back(d);
        }
    }

    /// Messages that decrypted, in arrival order.
    pub fn received(&self) -> Vec<Received> {
        self.shared.lock().received.clone()
    }

    pub fn attempts(&self) -> Vec<Attempt> {
        self.shared.lock().attempts.clone()
    }
}

impl Drop for FakePushService {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn b64(s: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).ok()
}

/// Checks `Authorization: vapid t=…, k=…` (RFC 8292 §3): returns (k, sub).
fn check_vapid(headers: &HeaderMap, origin: &str) -> Result<(String, String), String> {
    let h = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .ok_or("no Authorization")?;
    let rest = h.strip_prefix("vapid ").ok_or("not the vapid scheme")?;
    let mut t = None;
    let mut k = None;
    for part in rest.split(',') {
        let part = part.trim();
        if let Some(v) = part.strip_prefix("t=") {
            t = Some(v);
        } else if let Some(v) = part.strip_prefix("k=") {
            k = Some(v);
        }
    }
    let (t, k) = (t.ok_or("no t=")?, k.ok_or("no k=")?);
    let key = b64(k).ok_or("k is not base64url")?;
    if key.len() != 65 || key[0] != 4 {
        return Err("k is not an uncompressed P-256 key".into());
    }
    let mut parts = t.split('.');
    let (Some(h64), Some(c64), Some(s64), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("t is not a JWT".into());
    };
    let header: Value =
        serde_json::from_slice(&b64(h64).ok_or("header")?).map_err(|e| e.to_string())?;
    if header["alg"] != "ES256" {
        return Err(format!("alg {} is not ES256", header["alg"]));
    }
    let sig = b64(s64).ok_or("signature is not base64url")?;
    aws_lc_rs::signature::UnparsedPublicKey::new(
        &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED,
        &key,
    )
    .verify(format!("{h64}.{c64}").as_bytes(), &sig)
    .map_err(|_| "the JWT signature does not verify with k")?;
    let claims: Value =
        serde_json::from_slice(&b64(c64).ok_or("claims")?).map_err(|e| e.to_string())?;
    if claims["aud"] != origin {
        return Err(format!("aud {} is not {origin}", claims["aud"]));
    }
    let now = chrono::Utc::now().timestamp();
    let exp = claims["exp"].as_i64().ok_or("no exp")?;
    if exp <= now || exp > now + 24 * 3600 {
        return Err("exp must be in the next 24 hours".into());
    }
    let sub = claims["sub"].as_str().unwrap_or_default().to_string();
    if !(sub.starts_with("mailto:") || sub.starts_with("https:")) {
        return Err("sub must be a mailto: or https: URL".into());
    }
    Ok((k.to_string(), sub))
}

/// RFC 8291 §3.4 and RFC 8188, from the browser's side.
fn decrypt(sub: &Sub, body: &[u8]) -> Result<Vec<u8>, String> {
    if body.len() < 21 {
        return Err("body shorter than the aes128gcm header".into());
    }
    let salt = &body[..16];
    let rs = u32::from_be_bytes(body[16..20].try_into().expect("4 bytes")) as usize;
    let idlen = body[20] as usize;
    if body.len() < 21 + idlen {
        return Err("truncated keyid".into());
    }
    let as_public = &body[21..21 + idlen];
    let records = &body[21 + idlen..];
    if idlen != 65 {
        return Err(format!("keyid of {idlen} bytes is not a P-256 public key"));
    }
    if rs < 18 || records.len() > rs {
        return Err(format!(
            "one record expected (rs {rs}, {} bytes)",
            records.len()
        ));
    }
    let mine =
        agreement::PrivateKey::from_private_key(&ECDH_P256, &sub.private).map_err(|_| "key")?;
    let ecdh = agreement::agree(
        &mine,
        UnparsedPublicKey::new(&ECDH_P256, as_public),
        (),
        |s| Ok(s.to_vec()),
    )
    .map_err(|_| "the sender's key is not on P-256")?;
    // IKM: HKDF with the auth secret as salt, over "WebPush: info\0" ‖ ua_public ‖ as_public.
    let mut info = b"WebPush: info\x00".to_vec();
    info.extend_from_slice(&sub.public);
    info.extend_from_slice(as_public);
    let mut ikm = [0u8; 32];
    hkdf::Hkdf::<Sha256>::new(Some(&sub.auth), &ecdh)
        .expand(&info, &mut ikm)
        .map_err(|_| "hkdf")?;
    let prk = hkdf::Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    let mut nonce = [0u8; 12];
    prk.expand(b"Content-Encoding: aes128gcm\x00", &mut cek)
        .map_err(|_| "hkdf")?;
    prk.expand(b"Content-Encoding: nonce\x00", &mut nonce)
        .map_err(|_| "hkdf")?;
    let cipher = Aes128Gcm::new_from_slice(&cek).map_err(|_| "cek")?;
    let n = Nonce::try_from(&nonce[..]).map_err(|_| "nonce")?;
    let mut plain = cipher
        .decrypt(&n, records)
        .map_err(|_| "the record does not decrypt (wrong keys or key schedule)")?;
    // Padding: zeros after the delimiter; the last record's delimiter is 2.
    while plain.last() == Some(&0) {
        plain.pop();
    }
    match plain.pop() {
        Some(2) => Ok(plain),
        other => Err(format!("last record delimiter {other:?}, not 2")),
    }
}

async fn push(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<u64>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let delay = shared.lock().delays.pop_front();
    if let Some(d) = delay {
        tokio::time::sleep(d).await;
    }
    let mut g = shared.lock();
    let answer = |g: &mut Inner, status: u16, reason: Option<String>| {
        g.attempts.push(Attempt {
            subscription: id,
            status,
            reason: reason.clone(),
        });
        let s = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (s, reason.unwrap_or_default()).into_response()
    };
    if let Some((status, retry)) = g.failures.pop_front() {
        let mut r = answer(&mut g, status, Some("forced failure".into()));
        if let Some(secs) = retry {
            r.headers_mut()
                .insert("retry-after", secs.to_string().parse().expect("header"));
        }
        return r;
    }
    let state = match g.subs.get(&id) {
        None => 404,
        Some(s) => s.state,
    };
    if state != 0 {
        return answer(&mut g, state, Some("subscription gone".into()));
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    if header("content-encoding").as_deref() != Some("aes128gcm") {
        return answer(
            &mut g,
            400,
            Some("Content-Encoding must be aes128gcm".into()),
        );
    }
    let Some(ttl) = header("ttl").and_then(|t| t.parse::<u32>().ok()) else {
        return answer(&mut g, 400, Some("TTL header missing".into()));
    };
    let (vapid_key, vapid_sub) = match check_vapid(&headers, &shared.origin) {
        Ok(v) => v,
        Err(e) => return answer(&mut g, 401, Some(format!("VAPID: {e}"))),
    };
    let sub = g.subs.get(&id).expect("checked above");
    let plaintext = match decrypt(sub, &body) {
        Ok(p) => p,
        Err(e) => return answer(&mut g, 400, Some(format!("decryption: {e}"))),
    };
    g.received.push(Received {
        subscription: id,
        plaintext,
        ttl,
        urgency: header("urgency"),
        topic: header("topic"),
        vapid_key,
        vapid_sub,
    });
    answer(&mut g, 201, None)
}
