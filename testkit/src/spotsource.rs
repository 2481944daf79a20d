//! A fake of the surf-spot provider, `spotsource`, as `shared::providers::spotsource` speaks it
//! (`docs/forecasts.md`): `GET /api/spots/search?q=&limit=` over five saved spots (two of them
//! "Manly Beach ...", for ambiguous names) and any added with [`FakeSpotsource::add_spot`],
//! `GET /api/spots/{slug}` and the primary forecast `GET /api/spots/{slug}/forecast?hours=`
//! (hourly rows from the current hour, values made up from the spot and the hour). With a key,
//! requests without that bearer token answer 401. Search failures can be injected in order
//! ([`FakeSpotsource::fail`]), forecast failures likewise ([`FakeSpotsource::fail_forecasts`])
//! or for good ([`FakeSpotsource::forecasts_down`]); every search query is recorded and every
//! request counted by kind (`search`, `spot`, `forecast`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use chrono::DurationRound;
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
    forecast_failures: VecDeque<u16>,
    forecasts_down: bool,
    added: Vec<Value>,
    counts: HashMap<&'static str, usize>,
    /// Forecast answers made, by spot, hours and first hour: made once (the simulations ask
    /// thousands).
    bodies: HashMap<(String, i64, i64), String>,
}

impl Inner {
    fn all_spots(&self) -> Vec<Value> {
        let mut all = spots().as_array().cloned().unwrap_or_default();
        all.extend(self.added.iter().cloned());
        all
    }
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
                forecast_failures: VecDeque::new(),
                forecasts_down: false,
                added: Vec::new(),
                counts: HashMap::new(),
                bodies: HashMap::new(),
            }),
            key: key.map(str::to_string),
        });
        let app = Router::new()
            .route("/api/spots/search", get(search))
            .route("/api/spots/{slug}", get(spot))
            .route("/api/spots/{slug}/forecast", get(forecast))
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

    /// The next forecast reads answer these statuses, in order.
    pub fn fail_forecasts(&self, statuses: &[u16]) {
        lock(&self.shared).forecast_failures.extend(statuses);
    }

    /// Every forecast read answers 500 while `down`.
    pub fn forecasts_down(&self, down: bool) {
        lock(&self.shared).forecasts_down = down;
    }

    /// Adds a spot (`{slug, name, region, country, latitude, longitude}`).
    pub fn add_spot(&self, spot: Value) {
        lock(&self.shared).added.push(spot);
    }

    /// Requests received of one kind: `search`, `spot` or `forecast` (failed ones included).
    pub fn calls(&self, kind: &str) -> usize {
        lock(&self.shared).counts.get(kind).copied().unwrap_or(0)
    }
}

/// Counts the request; a 401 when the key is wrong.
fn admit(s: &Shared, kind: &'static str, headers: &HeaderMap) -> Option<Response> {
    *lock(s).counts.entry(kind).or_default() += 1;
    let key = s.key.as_ref()?;
    let sent = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    (sent != Some(key.as_str())).then(|| {
        (
            StatusCode::UNAUTHORIZED,
            Json(json!({ "error": "bad key" })),
        )
            .into_response()
    })
}

fn find(s: &Shared, slug: &str) -> Option<Value> {
    lock(s)
        .all_spots()
        .into_iter()
        .find(|v| v["slug"].as_str() == Some(slug))
}

async fn spot(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(slug): Path<String>,
) -> Response {
    if let Some(r) = admit(&s, "spot", &headers) {
        return r;
    }
    match find(&s, &slug) {
        Some(v) => Json(v).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({ "error": "no such spot" })),
        )
            .into_response(),
    }
}

/// Hourly rows from the current hour: a swell that rises and falls over the day, made up
/// from the spot's latitude so that two spots differ.
async fn forecast(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    if let Some(r) = admit(&s, "forecast", &headers) {
        return r;
    }
    let failure = {
        let mut g = lock(&s);
        g.forecast_failures
            .pop_front()
            .or(g.forecasts_down.then_some(500))
    };
    if let Some(code) = failure {
        return (
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "injected failure",
        )
            .into_response();
    }
    let Some(spot) = find(&s, &slug) else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({ "error": "no such spot" })),
        )
            .into_response();
    };
    let hours: i64 = q
        .get("hours")
        .and_then(|h| h.parse().ok())
        .unwrap_or(24)
        .clamp(1, 384);
    let lat = spot["latitude"].as_f64().unwrap_or(0.0);
    let start = chrono::Utc::now()
        .duration_trunc(chrono::Duration::hours(1))
        .expect("an hour divides any time");
    let key = (slug.clone(), hours, start.timestamp());
    if let Some(body) = lock(&s).bodies.get(&key) {
        return ([(header::CONTENT_TYPE, "application/json")], body.clone()).into_response();
    }
    let rows: Vec<Value> = (0..hours)
        .map(|i| {
            let t = start + chrono::Duration::hours(i);
            let phase = (i as f64 / 24.0 * std::f64::consts::TAU).sin();
            let swell = ((1.5 + lat.abs() / 100.0 + phase * 0.5) * 100.0).round() / 100.0;
            json!({
                "time": t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                "waveHeightM": swell + 0.3, "wavePeriodS": 11.0, "waveDirectionDeg": 225.0,
                "swellHeightM": swell, "swellPeriodS": 13.0, "swellDirectionDeg": 220.0,
                "windWaveHeightM": 0.3, "windSpeedKn": 8.0 + phase * 4.0,
                "windDirectionDeg": 300.0, "gustKn": 14.0, "seaTempC": 17.5, "seaLevelM": 0.4
            })
        })
        .collect();
    let body = json!({ "spot": slug, "hours": rows }).to_string();
    lock(&s).bodies.insert(key, body.clone());
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn search(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let query = q.get("q").cloned().unwrap_or_default();
    *lock(&s).counts.entry("search").or_default() += 1;
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
    let all = lock(&s).all_spots();
    let found: Vec<Value> = all
        .iter()
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
