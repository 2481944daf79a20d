//! A fake of the surf-spot provider, `spotsource`: `GET /api/spots/search?q=&limit=` over five
//! saved spots (two of them "Manly Beach ...", for ambiguous names), as
//! `shared::providers::spotsource` speaks it. With a key, requests without that bearer token
//! answer 401. Failures can be injected in order ([`FakeSpotsource::fail`]); every query is
//! recorded.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

fn spots() -> Value {
    json!([
        { "slug": "bells-beach", "name": "Bells Beach", "region": "Victoria", "country": "AU", "latitude": -38.3686, "longitude": 144.2811 },
        { "slug": "snapper-rocks", "name": "Snapper Rocks", "region": "Gold Coast", "country": "AU", "latitude": -28.1625, "longitude": 153.5497 },
        { "slug": "pipeline", "name": "Banzai Pipeline", "region": "Oahu", "country": "US", "latitude": 21.6650, "longitude": -158.0530 },
        { "slug": "manly-north", "name": "Manly Beach North", "region": "Sydney", "country": "AU", "latitude": -33.7900, "longitude": 151.2880 },
        { "slug": "manly-south", "name": "Manly Beach South", "region": "Sydney", "country": "AU", "latitude": -33.7990, "longitude": 151.2870 }
    ])
}

struct Inner {
    queries: Vec<String>,
    failures: VecDeque<u16>,
}

struct Shared {
    inner: Mutex<Inner>,
    key: Option<String>,
}

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    s.inner.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeSpotsource {
    base_url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl Drop for FakeSpotsource {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeSpotsource {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start(key: Option<&str>) -> Self {
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                queries: Vec::new(),
                failures: VecDeque::new(),
            }),
            key: key.map(str::to_string),
        });
        let app = Router::new()
            .route("/api/spots/search", get(search))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeSpotsource: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("FakeSpotsource: address")
            .port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeSpotsource {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The next searches answer these statuses, in order.
    pub fn fail(&self, statuses: &[u16]) {
        lock(&self.shared).failures.extend(statuses);
    }

    /// The `q` of every search received.
    pub fn queries(&self) -> Vec<String> {
        lock(&self.shared).queries.clone()
    }
}

async fn search(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let query = q.get("q").cloned().unwrap_or_default();
    let failure = {
        let mut g = lock(&s);
        g.queries.push(query.clone());
        g.failures.pop_front()
    };
    if let Some(code) = failure {
        return (
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "injected failure",
        )
            .into_response();
    }
    if let Some(key) = &s.key {
        let sent = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if sent != Some(key.as_str()) {
            return (
                StatusCode::UNAUTHORIZED,
                Json(json!({ "error": "bad key" })),
            )
                .into_response();
        }
    }
    let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(10);
    let needle = query.to_lowercase();
    let found: Vec<Value> = spots()
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| {
            s["name"]
                .as_str()
                .is_some_and(|n| n.to_lowercase().contains(&needle))
        })
        .take(limit)
        .cloned()
        .collect();
    Json(json!({ "spots": found })).into_response()
}
