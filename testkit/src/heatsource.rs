//! A fake of the competition provider `heatsource`: the LiveHeats-style GraphQL endpoint
//! (`POST /api/graphql`) and its OAuth client-credentials token endpoint (`POST /oauth/token`),
//! as `shared::providers::heatsource` speaks them.
//!
//! Why: competition reads and syncs must be tested offline, with every failure mode. The fake
//! serves the saved fixture `fixtures/heatsource.json` (three organisations, a series with two
//! ranked divisions, an event with a final heat and its results, five athletes). It does not
//! evaluate GraphQL selections: it reads the query's root field (`organisationByShortName`,
//! `series`, `event`, `athlete`, `athleteSearch`) and its variables and answers the fixture's
//! object, which holds exactly the fields the adapter selects. `athlete` and `athleteSearch`
//! are licensed: without a live bearer token they answer an `UNAUTHENTICATED` GraphQL error.
//!
//! Failure injection, consumed in order by GraphQL requests ([`FakeHeatsource::fail`]):
//! [`Failure::Status`] (429 comes with `Retry-After: 1`), [`Failure::Hang`],
//! [`Failure::Malformed`] (a 200 body that is not JSON), [`Failure::Graphql`] (a 200 answer with
//! `errors` and `data: null`). [`FakeHeatsource::set`] changes a fixture field between calls.
//! Every GraphQL request and every token request is recorded.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use base64::Engine;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The saved answers the fake serves.
pub const FIXTURE: &str = include_str!("../fixtures/heatsource.json");

/// An injected failure of one GraphQL request.
#[derive(Clone, Debug)]
pub enum Failure {
    /// Answer this status (429 comes with `Retry-After: 1`).
    Status(u16),
    /// Never answer (the client times out).
    Hang,
    /// 200 with a body that is not JSON.
    Malformed,
    /// 200 with a GraphQL error carrying this `extensions.code`.
    Graphql(&'static str),
}

/// One GraphQL request as received.
#[derive(Clone, Debug)]
pub struct GraphqlRequest {
    /// The query's root field, e.g. `event`.
    pub field: String,
    pub operation_name: Option<String>,
    pub variables: Value,
    /// The bearer token it carried.
    pub token: Option<String>,
}

struct Inner {
    data: Value,
    requests: Vec<GraphqlRequest>,
    failures: VecDeque<Failure>,
    token_requests: usize,
    tokens: HashSet<String>,
    issued: usize,
    expires_in: u64,
}

struct Shared {
    inner: Mutex<Inner>,
    client_id: String,
    client_secret: String,
}

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    s.inner.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeHeatsource {
    base_url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl Drop for FakeHeatsource {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeHeatsource {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start(client_id: &str, client_secret: &str) -> Self {
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                data: serde_json::from_str(FIXTURE).expect("the heatsource fixture is JSON"),
                requests: Vec::new(),
                failures: VecDeque::new(),
                token_requests: 0,
                tokens: HashSet::new(),
                issued: 0,
                expires_in: 3600,
            }),
            client_id: client_id.to_string(),
            client_secret: client_secret.to_string(),
        });
        let app = Router::new()
            .route("/api/graphql", post(graphql))
            .route("/oauth/token", post(token))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeHeatsource: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("FakeHeatsource: address")
            .port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeHeatsource {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The next GraphQL requests fail like this, in order.
    pub fn fail(&self, failures: &[Failure]) {
        lock(&self.shared).failures.extend(failures.iter().cloned());
    }

    /// Changes the fixture at a JSON pointer (e.g. `/events/200/name`): the provider's data
    /// changed between two calls.
    ///
    /// # Panics
    /// If nothing is at `pointer`.
    pub fn set(&self, pointer: &str, value: Value) {
        let mut g = lock(&self.shared);
        *g.data
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("FakeHeatsource: nothing at {pointer}")) = value;
    }

    /// Tokens issued from now on live this long.
    pub fn token_lifetime(&self, secs: u64) {
        lock(&self.shared).expires_in = secs;
    }

    /// Forgets every issued token, as a provider-side revocation would.
    pub fn revoke_tokens(&self) {
        lock(&self.shared).tokens.clear();
    }

    /// The GraphQL requests received (failed ones included).
    pub fn requests(&self) -> Vec<GraphqlRequest> {
        lock(&self.shared).requests.clone()
    }

    /// How many GraphQL requests asked for `field`.
    pub fn count(&self, field: &str) -> usize {
        lock(&self.shared)
            .requests
            .iter()
            .filter(|r| r.field == field)
            .count()
    }

    /// How many token requests were received (refused ones included).
    pub fn token_requests(&self) -> usize {
        lock(&self.shared).token_requests
    }
}

async fn token(State(s): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .map(|b| String::from_utf8_lossy(&b).to_string());
    let mut g = lock(&s);
    g.token_requests += 1;
    if basic.as_deref() != Some(&format!("{}:{}", s.client_id, s.client_secret)) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({ "error": "invalid_client" })),
        )
            .into_response();
    }
    if !body
        .split('&')
        .any(|p| p == "grant_type=client_credentials")
    {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({ "error": "unsupported_grant_type" })),
        )
            .into_response();
    }
    g.issued += 1;
    let t = format!("hs_token_{}", g.issued);
    g.tokens.insert(t.clone());
    Json(json!({ "access_token": t, "token_type": "Bearer", "expires_in": g.expires_in }))
        .into_response()
}

/// The root field of a query: the first name after the operation's opening brace.
fn root_field(query: &str) -> String {
    let Some(i) = query.find('{') else {
        return String::new();
    };
    query[i + 1..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

fn gql_error(code: &str, message: &str) -> Response {
    Json(json!({
        "errors": [{ "message": message, "extensions": { "code": code } }],
        "data": null
    }))
    .into_response()
}

async fn graphql(State(s): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    let Ok(req) = serde_json::from_str::<Value>(&body) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({ "errors": [{ "message": "body is not JSON" }] })),
        )
            .into_response();
    };
    let field = root_field(req["query"].as_str().unwrap_or(""));
    let vars = req["variables"].clone();
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let failure = {
        let mut g = lock(&s);
        g.requests.push(GraphqlRequest {
            field: field.clone(),
            operation_name: req["operationName"].as_str().map(str::to_string),
            variables: vars.clone(),
            token: token.clone(),
        });
        g.failures.pop_front()
    };
    match failure {
        None => {}
        Some(Failure::Status(429)) => {
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "1")],
                "rate limited",
            )
                .into_response();
        }
        Some(Failure::Status(code)) => {
            return (
                StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                "injected failure",
            )
                .into_response();
        }
        Some(Failure::Hang) => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Some(Failure::Malformed) => {
            return (
                [(header::CONTENT_TYPE, "application/json")],
                "{\"data\": {\"event\": ",
            )
                .into_response();
        }
        Some(Failure::Graphql(code)) => return gql_error(code, "injected GraphQL error"),
    }
    let g = lock(&s);
    let licensed = matches!(field.as_str(), "athlete" | "athleteSearch");
    if licensed && !token.as_ref().is_some_and(|t| g.tokens.contains(t)) {
        return gql_error("UNAUTHENTICATED", "a valid access token is required");
    }
    let d = &g.data;
    let id = vars["id"].as_str().unwrap_or("");
    let answer = match field.as_str() {
        "organisationByShortName" => {
            d["organisations"][vars["shortName"].as_str().unwrap_or("")].clone()
        }
        "series" => match d["series"].get(id) {
            None => Value::Null,
            Some(sr) => {
                let mut out = json!({
                    "id": sr["id"], "name": sr["name"], "rankingsDivisions": sr["rankingsDivisions"],
                });
                if let Some(div) = vars["divisionId"].as_str() {
                    out["rankings"] = sr["rankingsByDivision"]
                        .get(div)
                        .cloned()
                        .unwrap_or_else(|| json!([]));
                }
                out
            }
        },
        "event" => d["events"].get(id).cloned().unwrap_or(Value::Null),
        "athlete" => d["athletes"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["id"] == id).cloned())
            .unwrap_or(Value::Null),
        "athleteSearch" => {
            let q = vars["query"].as_str().unwrap_or("").to_lowercase();
            let limit = vars["limit"].as_u64().unwrap_or(10) as usize;
            let found: Vec<Value> = d["athletes"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|x| {
                            x["name"]
                                .as_str()
                                .is_some_and(|n| n.to_lowercase().contains(&q))
                        })
                        .take(limit)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            Value::Array(found)
        }
        other => {
            return gql_error(
                "GRAPHQL_VALIDATION_FAILED",
                &format!("Cannot query field \"{other}\" on type \"Query\"."),
            );
        }
    };
    let mut data = serde_json::Map::new();
    data.insert(field, answer);
    Json(json!({ "data": data })).into_response()
}
