//! A fake OAuth 2.0 authorization server for the video-review provider (Vimeo-style protocol).
//!
//! Why: coaches connect their video-review account through the authorization-code flow. Tests
//! cannot drive the provider's real consent page, so [`FakeReviewVideo`] plays both sides the app
//! does not own: [`FakeReviewVideo::approve`] / [`FakeReviewVideo::deny`] stand in for the user
//! on the provider's page (they check the authorize URL the app built and give back the callback
//! URL the browser would be sent to), and a real HTTP token endpoint on a loopback port checks
//! the app's code exchange the way the provider does: HTTP Basic client authentication,
//! single-use codes that expire, the same `redirect_uri`, and PKCE (`S256`). Every token request
//! and every issued access token is recorded so tests can assert on what the app sent and on
//! what it stored (for example, that the token is kept encrypted).
//!
//! Endpoints, relative to [`FakeReviewVideo::base_url`]:
//! - `GET /oauth/authorize`: a placeholder consent page (200), for apps that fetch it.
//! - `POST /oauth/access_token`: form-encoded `grant_type=authorization_code&code&redirect_uri
//!   [&code_verifier]`, client authenticated with `Authorization: Basic base64(id:secret)`.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use url::Url;

/// How long an authorization code stays valid.
pub const CODE_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// The scope the token endpoint grants unless [`FakeReviewVideo::set_scope`] says otherwise.
pub const DEFAULT_SCOPE: &str = "public private video_files";

/// One call to the token endpoint, as received (recorded even when it was refused).
#[derive(Clone, Debug)]
pub struct TokenRequest {
    /// The user part of an `Authorization: Basic` header, if one could be decoded.
    pub basic_client_id: Option<String>,
    /// The password part of an `Authorization: Basic` header, if one could be decoded.
    pub basic_client_secret: Option<String>,
    /// The form-encoded body (for a repeated field, the last value).
    pub form: BTreeMap<String, String>,
}

struct Grant {
    redirect_uri: String,
    code_challenge: Option<String>,
    expires_at: Instant,
    used: bool,
}

struct Inner {
    codes: HashMap<String, Grant>,
    token_requests: Vec<TokenRequest>,
    issued_tokens: Vec<String>,
    scope: String,
}

struct Shared {
    client_id: String,
    client_secret: String,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The fake provider: token endpoint on `127.0.0.1:<random port>`, consent played in-process.
///
/// The server runs on the current tokio runtime and stops when this value is dropped.
pub struct FakeReviewVideo {
    base_url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

/// The parts of a valid authorize URL that approve/deny need.
struct AuthorizeRequest {
    /// As written in the authorize URL: the token request must repeat it exactly.
    redirect_uri: String,
    callback: Url,
    state: String,
    code_challenge: Option<String>,
}

impl FakeReviewVideo {
    /// Starts the provider for one registered client (`client_id`, `client_secret`).
    ///
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start(client_id: &str, client_secret: &str) -> Self {
        let shared = Arc::new(Shared {
            client_id: client_id.to_string(),
            client_secret: client_secret.to_string(),
            inner: Mutex::new(Inner {
                codes: HashMap::new(),
                token_requests: Vec::new(),
                issued_tokens: Vec::new(),
                scope: DEFAULT_SCOPE.to_string(),
            }),
        });
        let app = Router::new()
            .route("/oauth/authorize", get(authorize_page))
            .route("/oauth/authorize/approve", get(approve_in_browser))
            .route("/oauth/access_token", post(access_token))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeReviewVideo: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("FakeReviewVideo: local address")
            .port();
        let server = tokio::spawn(async move {
            // Serving only ends with an I/O error on the listener; nothing to report to a test.
            let _ = axum::serve(listener, app).await;
        });
        FakeReviewVideo {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Plays the user approving access on the provider's page.
    ///
    /// Checks the authorize URL the app built, issues a new single-use code bound to its
    /// `redirect_uri` (and `code_challenge`, if any), and returns the callback URL the provider
    /// would redirect the browser to: `{redirect_uri}?code=...&state=...` (any query already in
    /// `redirect_uri` is kept).
    ///
    /// # Panics
    /// If the authorize URL is not one this provider would accept: it must start with
    /// `{base_url}/oauth/authorize` and carry `response_type=code`, the registered `client_id`,
    /// a non-empty `state` and an absolute `redirect_uri`, and with a `code_challenge`, also
    /// `code_challenge_method=S256`.
    pub fn approve(&self, authorize_url: &str) -> String {
        approve_at(&self.shared, &self.base_url, authorize_url)
    }

    /// Plays the user clicking "deny": returns
    /// `{redirect_uri}?error=access_denied&error_description=...&state=...`.
    ///
    /// # Panics
    /// Under the same conditions as [`FakeReviewVideo::approve`].
    pub fn deny(&self, authorize_url: &str) -> String {
        let request = self.parse_authorize_url(authorize_url);
        let mut callback = request.callback;
        callback
            .query_pairs_mut()
            .append_pair("error", "access_denied")
            .append_pair("error_description", "The user denied the request.")
            .append_pair("state", &request.state);
        callback.into()
    }

    /// Every call to the token endpoint so far, in order.
    pub fn token_requests(&self) -> Vec<TokenRequest> {
        self.shared.lock().token_requests.clone()
    }

    /// Every access token handed out so far, in order.
    pub fn issued_tokens(&self) -> Vec<String> {
        self.shared.lock().issued_tokens.clone()
    }

    /// The scope the token endpoint reports from now on (default [`DEFAULT_SCOPE`]). Real
    /// providers may grant a different scope than the one requested.
    pub fn set_scope(&self, scope: &str) {
        self.shared.lock().scope = scope.to_string();
    }

    /// Makes every code issued so far expired, as if [`CODE_LIFETIME`] had passed.
    pub fn expire_codes(&self) {
        let now = Instant::now();
        for grant in self.shared.lock().codes.values_mut() {
            grant.expires_at = now;
        }
    }

    fn parse_authorize_url(&self, authorize_url: &str) -> AuthorizeRequest {
        parse_authorize(&self.shared, &self.base_url, authorize_url)
    }
}

impl Drop for FakeReviewVideo {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// The provider's authorization page: in-process tests approve or deny with
/// [`FakeReviewVideo::approve`] / `deny`; a browser follows the "Approve" link.
async fn authorize_page(RawQuery(q): RawQuery) -> Response {
    let q = q
        .unwrap_or_default()
        .replace('&', "&amp;")
        .replace('"', "&quot;");
    axum::response::Html(format!(
        "<!doctype html><html lang=\"en\"><title>Fake ReviewVideo</title><main><h1>Fake ReviewVideo</h1>\
         <p><a id=\"approve\" href=\"/oauth/authorize/approve?{q}\">Approve</a></p></main></html>"
    ))
    .into_response()
}

/// `GET /oauth/authorize/approve?…`: the user approved in the browser; to the callback.
async fn approve_in_browser(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let base = format!("http://{host}");
    let url = format!("{base}/oauth/authorize?{}", q.unwrap_or_default());
    let back = approve_at(&shared, &base, &url);
    (StatusCode::SEE_OTHER, [(header::LOCATION, back)]).into_response()
}

fn parse_authorize(shared: &Shared, base_url: &str, authorize_url: &str) -> AuthorizeRequest {
    let endpoint = format!("{}/oauth/authorize", base_url);
    let url = Url::parse(authorize_url)
        .unwrap_or_else(|e| panic!("FakeReviewVideo: authorize URL {authorize_url:?}: {e}"));
    assert!(
        authorize_url.starts_with(&endpoint) && url.path() == "/oauth/authorize",
        "FakeReviewVideo: authorize URL {authorize_url:?} does not start with {endpoint:?}"
    );
    let params: HashMap<String, String> = url.query_pairs().into_owned().collect();
    let param = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
    assert_eq!(
        param("response_type"),
        "code",
        "FakeReviewVideo: response_type in {authorize_url:?}"
    );
    assert_eq!(
        param("client_id"),
        shared.client_id,
        "FakeReviewVideo: unknown client_id in {authorize_url:?}"
    );
    assert!(
        !param("state").is_empty(),
        "FakeReviewVideo: missing state in {authorize_url:?}"
    );
    let callback = Url::parse(param("redirect_uri")).unwrap_or_else(|e| {
        panic!("FakeReviewVideo: redirect_uri in {authorize_url:?} is not an absolute URL: {e}")
    });
    let code_challenge = params.get("code_challenge").cloned();
    if code_challenge.is_some() {
        assert_eq!(
            param("code_challenge_method"),
            "S256",
            "FakeReviewVideo: code_challenge_method in {authorize_url:?}"
        );
    }
    AuthorizeRequest {
        redirect_uri: param("redirect_uri").to_string(),
        callback,
        state: param("state").to_string(),
        code_challenge,
    }
}

fn approve_at(shared: &Shared, base_url: &str, authorize_url: &str) -> String {
    let request = parse_authorize(shared, base_url, authorize_url);
    let code = random_hex(16);
    shared.lock().codes.insert(
        code.clone(),
        Grant {
            redirect_uri: request.redirect_uri,
            code_challenge: request.code_challenge,
            expires_at: Instant::now() + CODE_LIFETIME,
            used: false,
        },
    );
    let mut callback = request.callback;
    callback
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &request.state);
    callback.into()
}

fn oauth_error(status: StatusCode, error: &str) -> Response {
    let mut response = (status, Json(json!({ "error": error }))).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"reviewvideo\""),
        );
    }
    response
}

/// `Authorization: Basic base64(id:secret)` gives `(id, secret)`.
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    Some((id.to_string(), secret.to_string()))
}

/// PKCE `S256`: BASE64URL-no-pad(SHA-256(verifier)).
fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

async fn access_token(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let credentials = basic_credentials(&headers);
    let form: BTreeMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let mut inner = shared.lock();
    inner.token_requests.push(TokenRequest {
        basic_client_id: credentials.as_ref().map(|(id, _)| id.clone()),
        basic_client_secret: credentials.as_ref().map(|(_, secret)| secret.clone()),
        form: form.clone(),
    });

    let authenticated = credentials
        .is_some_and(|(id, secret)| id == shared.client_id && secret == shared.client_secret);
    if !authenticated {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type");
    }
    let field = |name: &str| form.get(name).map(String::as_str);
    let Some(grant) = field("code").and_then(|code| inner.codes.get_mut(code)) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
    };
    // Any authenticated attempt consumes the code, as a cautious provider would.
    let already_used = std::mem::replace(&mut grant.used, true);
    let valid = !already_used
        && Instant::now() < grant.expires_at
        && field("redirect_uri") == Some(grant.redirect_uri.as_str())
        && match &grant.code_challenge {
            None => true,
            Some(challenge) => field("code_verifier").is_some_and(|v| s256(v) == *challenge),
        };
    if !valid {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
    }

    let access_token = random_hex(32);
    inner.issued_tokens.push(access_token.clone());
    let body = json!({
        "access_token": access_token,
        "token_type": "bearer",
        "scope": inner.scope,
        "user": {
            "uri": "/users/12345",
            "name": "Fake Coach",
            "link": "https://reviewvideo.example/user12345",
        },
    });
    (
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(body),
    )
        .into_response()
}

/// `bytes` unpredictable bytes as lowercase hex (at most 32 bytes per call).
///
/// Std-only: SHA-256 over a randomly keyed std hasher, the clock and a counter. Unpredictable
/// enough for a test fake, and keeps a RNG crate out of the dependency tree.
fn random_hex(bytes: usize) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let mut hasher = Sha256::new();
    // Each RandomState is keyed from OS randomness: four of them give 256 unpredictable bits.
    for round in 0..4u64 {
        let mut keyed = std::collections::hash_map::RandomState::new().build_hasher();
        keyed.write_u64(count);
        keyed.write_u64(round);
        keyed.write_u128(nanos);
        hasher.update(keyed.finish().to_le_bytes());
    }
    hasher.update(nanos.to_le_bytes());
    hasher.update(std::process::id().to_le_bytes());
    let digest = hasher.finalize();
    digest
        .iter()
        .take(bytes)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    const CLIENT_ID: &str = "client-abc";
    const CLIENT_SECRET: &str = "s3cret";
    const REDIRECT: &str = "http://127.0.0.1:9/integrations/reviewvideo/callback?from=settings";

    fn authorize_url(provider: &FakeReviewVideo, challenge: Option<&str>) -> String {
        let mut url = Url::parse(&format!("{}/oauth/authorize", provider.base_url())).unwrap();
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", CLIENT_ID)
            .append_pair("redirect_uri", REDIRECT)
            .append_pair("scope", "public private video_files")
            .append_pair("state", "st4te");
        if let Some(challenge) = challenge {
            url.query_pairs_mut()
                .append_pair("code_challenge", challenge)
                .append_pair("code_challenge_method", "S256");
        }
        url.into()
    }

    fn query(url: &str) -> HashMap<String, String> {
        Url::parse(url)
            .unwrap()
            .query_pairs()
            .into_owned()
            .collect()
    }

    /// POSTs the token request over a raw HTTP/1.1 connection; gives the status and JSON body.
    async fn token_request(
        provider: &FakeReviewVideo,
        basic: Option<(&str, &str)>,
        form: &[(&str, &str)],
    ) -> (u16, Value) {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let address = provider
            .base_url()
            .trim_start_matches("http://")
            .to_string();
        let mut request = format!(
            "POST /oauth/access_token HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        );
        if let Some((id, secret)) = basic {
            let credentials = STANDARD.encode(format!("{id}:{secret}"));
            request.push_str(&format!("Authorization: Basic {credentials}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);

        let mut stream = TcpStream::connect(&address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, serde_json::from_str(body).unwrap())
    }

    async fn exchange(
        provider: &FakeReviewVideo,
        code: &str,
        verifier: Option<&str>,
    ) -> (u16, Value) {
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
        ];
        if let Some(verifier) = verifier {
            form.push(("code_verifier", verifier));
        }
        token_request(provider, Some((CLIENT_ID, CLIENT_SECRET)), &form).await
    }

    #[tokio::test]
    async fn approved_code_is_exchanged_for_a_token_once() {
        let provider = FakeReviewVideo::start(CLIENT_ID, CLIENT_SECRET).await;
        let callback = provider.approve(&authorize_url(&provider, None));
        assert!(callback.starts_with(
            "http://127.0.0.1:9/integrations/reviewvideo/callback?from=settings&code="
        ));
        let params = query(&callback);
        assert_eq!(params["state"], "st4te");
        assert_eq!(params["from"], "settings");

        let (status, body) = exchange(&provider, &params["code"], None).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["token_type"], "bearer");
        assert_eq!(body["scope"], DEFAULT_SCOPE);
        assert_eq!(body["user"]["uri"], "/users/12345");
        assert_eq!(body["user"]["name"], "Fake Coach");
        let token = body["access_token"].as_str().unwrap();
        assert_eq!(token.len(), 64);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(provider.issued_tokens(), [token]);

        let requests = provider.token_requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].basic_client_id.as_deref(), Some(CLIENT_ID));
        assert_eq!(
            requests[0].basic_client_secret.as_deref(),
            Some(CLIENT_SECRET)
        );
        assert_eq!(requests[0].form["redirect_uri"], REDIRECT);
        assert_eq!(requests[0].form["code"], params["code"]);

        let (status, body) = exchange(&provider, &params["code"], None).await;
        assert_eq!((status, body), (400, json!({"error": "invalid_grant"})));
        assert_eq!(provider.issued_tokens().len(), 1);
    }

    #[tokio::test]
    async fn pkce_code_needs_the_matching_verifier() {
        let provider = FakeReviewVideo::start(CLIENT_ID, CLIENT_SECRET).await;
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        // The example pair from RFC 7636, appendix B.
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert_eq!(s256(verifier), challenge);
        provider.set_scope("public");

        let code = &query(&provider.approve(&authorize_url(&provider, Some(challenge))))["code"];
        let (status, body) = exchange(&provider, code, Some(verifier)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["scope"], "public");

        let code = &query(&provider.approve(&authorize_url(&provider, Some(challenge))))["code"];
        let (status, body) = exchange(&provider, code, Some("wrong-verifier")).await;
        assert_eq!((status, body), (400, json!({"error": "invalid_grant"})));

        let code = &query(&provider.approve(&authorize_url(&provider, Some(challenge))))["code"];
        let (status, body) = exchange(&provider, code, None).await;
        assert_eq!((status, body), (400, json!({"error": "invalid_grant"})));
        assert_eq!(provider.issued_tokens().len(), 1);
    }

    #[tokio::test]
    async fn bad_client_credentials_and_grants_are_refused() {
        let provider = FakeReviewVideo::start(CLIENT_ID, CLIENT_SECRET).await;
        let code = query(&provider.approve(&authorize_url(&provider, None)))["code"].clone();
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
        ];

        let refused = json!({"error": "invalid_client"});
        let wrong_secret = token_request(&provider, Some((CLIENT_ID, "nope")), &form).await;
        assert_eq!(wrong_secret, (401, refused.clone()));
        let wrong_id = token_request(&provider, Some(("other", CLIENT_SECRET)), &form).await;
        assert_eq!(wrong_id, (401, refused.clone()));
        assert_eq!(token_request(&provider, None, &form).await, (401, refused));

        let basic = Some((CLIENT_ID, CLIENT_SECRET));
        let refresh = [("grant_type", "refresh_token"), ("code", code.as_str())];
        let (status, body) = token_request(&provider, basic, &refresh).await;
        assert_eq!(
            (status, body),
            (400, json!({"error": "unsupported_grant_type"}))
        );

        let (status, body) = exchange(&provider, "unknown-code", None).await;
        assert_eq!((status, body), (400, json!({"error": "invalid_grant"})));

        let other_redirect = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", "http://127.0.0.1:9/elsewhere"),
        ];
        let (status, body) = token_request(&provider, basic, &other_redirect).await;
        assert_eq!((status, body), (400, json!({"error": "invalid_grant"})));

        let code = &query(&provider.approve(&authorize_url(&provider, None)))["code"];
        provider.expire_codes();
        let (status, body) = exchange(&provider, code, None).await;
        assert_eq!((status, body), (400, json!({"error": "invalid_grant"})));

        assert!(provider.issued_tokens().is_empty());
        assert_eq!(provider.token_requests().len(), 7);
        assert_eq!(
            provider.token_requests()[0].basic_client_secret.as_deref(),
            Some("nope")
        );
        assert_eq!(provider.token_requests()[2].basic_client_id, None);
    }

    #[tokio::test]
    async fn deny_redirects_with_access_denied() {
        let provider = FakeReviewVideo::start(CLIENT_ID, CLIENT_SECRET).await;
        let callback = provider.deny(&authorize_url(&provider, None));
        let params = query(&callback);
        assert_eq!(params["error"], "access_denied");
        assert!(!params["error_description"].is_empty());
        assert_eq!(params["state"], "st4te");
        assert_eq!(params["from"], "settings");
        assert!(!params.contains_key("code"));
    }

    #[tokio::test]
    #[should_panic(expected = "unknown client_id")]
    async fn approve_rejects_an_unknown_client() {
        let provider = FakeReviewVideo::start(CLIENT_ID, CLIENT_SECRET).await;
        let url = authorize_url(&provider, None).replace(CLIENT_ID, "someone-else");
        provider.approve(&url);
    }

    #[tokio::test]
    #[should_panic(expected = "does not start with")]
    async fn approve_rejects_another_host() {
        let provider = FakeReviewVideo::start(CLIENT_ID, CLIENT_SECRET).await;
        let url = authorize_url(&provider, None).replace("127.0.0.1", "localhost");
        provider.approve(&url);
    }

    #[test]
    fn random_tokens_differ() {
        assert_ne!(random_hex(32), random_hex(32));
        assert_eq!(random_hex(16).len(), 32);
    }
}
