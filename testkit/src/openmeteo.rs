//! A fake of the fallback forecast provider in the Open-Meteo protocol, as
//! `shared::providers::openmeteo` speaks it: the marine API (`GET /v1/marine`) and the weather
//! API (`GET /v1/forecast`) on one loopback server (point both configured URLs at
//! [`FakeOpenMeteo::base_url`]). Each answers `hourly.time[]` (`YYYY-MM-DDTHH:MM`, from today's
//! midnight GMT, `forecast_days` × 24 hours, default 7) and one array per asked variable, with
//! values made up from the point and the hour. A point on land (inside a box given to
//! [`FakeOpenMeteo::land`]) has null marine values, as the real API answers. Missing
//! coordinates or `hourly` answer 400 `{"error": true, "reason"}`. Failures can be injected in
//! order ([`FakeOpenMeteo::fail`]) or for good ([`FakeOpenMeteo::down`]); every request is
//! recorded.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use chrono::DurationRound;
use serde_json::{Map, Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// One request received.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// `marine` or `forecast`.
    pub api: &'static str,
    /// The query parameters as sent.
    pub params: HashMap<String, String>,
}

#[derive(Default)]
struct Inner {
    requests: Vec<Request>,
    failures: VecDeque<u16>,
    down: bool,
    land: Vec<(f64, f64, f64, f64)>,
    /// Answers made, by API, query, land and day: made once (the simulations ask thousands).
    bodies: HashMap<String, String>,
}

fn lock(s: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    s.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeOpenMeteo {
    base_url: String,
    inner: Arc<Mutex<Inner>>,
    server: JoinHandle<()>,
}

impl Drop for FakeOpenMeteo {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeOpenMeteo {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start() -> Self {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new()
            .route("/v1/marine", get(marine))
            .route("/v1/forecast", get(weather))
            .with_state(Arc::clone(&inner));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeOpenMeteo: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("FakeOpenMeteo: address")
            .port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeOpenMeteo {
            base_url: format!("http://127.0.0.1:{port}"),
            inner,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The next requests (either API) answer these statuses, in order.
    pub fn fail(&self, statuses: &[u16]) {
        lock(&self.inner).failures.extend(statuses);
    }

    /// Every request answers 500 while `down`.
    pub fn down(&self, down: bool) {
        lock(&self.inner).down = down;
    }

    /// Points with latitude in `[lat0, lat1]` and longitude in `[lon0, lon1]` are land.
    pub fn land(&self, (lat0, lat1): (f64, f64), (lon0, lon1): (f64, f64)) {
        lock(&self.inner).land.push((lat0, lat1, lon0, lon1));
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.inner).requests.clone()
    }

    /// Requests received by one API: `marine` or `forecast` (failed ones included).
    pub fn calls(&self, api: &str) -> usize {
        lock(&self.inner)
            .requests
            .iter()
            .filter(|r| r.api == api)
            .count()
    }

    /// Requests received by both APIs.
    pub fn total_calls(&self) -> usize {
        lock(&self.inner).requests.len()
    }
}

fn bad(reason: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(json!({ "error": true, "reason": reason })),
    )
        .into_response()
}

/// What a request asked for.
struct Asked {
    lat: f64,
    lon: f64,
    vars: Vec<String>,
    days: i64,
    on_land: bool,
    /// The answer's cache key.
    key: String,
}

/// Records the request; its injected failure (boxed: a response is large), or what it asked.
fn admit(
    inner: &Mutex<Inner>,
    api: &'static str,
    params: HashMap<String, String>,
) -> Result<Asked, Box<Response>> {
    let (failure, land) = {
        let mut g = lock(inner);
        g.requests.push(Request {
            api,
            params: params.clone(),
        });
        let f = g.failures.pop_front().or(g.down.then_some(500));
        (f, g.land.clone())
    };
    if let Some(code) = failure {
        return Err(Box::new(
            (
                StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                "injected failure",
            )
                .into_response(),
        ));
    }
    let coord = |k: &str| params.get(k).and_then(|v| v.parse::<f64>().ok());
    let (Some(lat), Some(lon)) = (coord("latitude"), coord("longitude")) else {
        return Err(Box::new(bad(
            "Parameter 'latitude' and 'longitude' must be set",
        )));
    };
    let Some(hourly) = params.get("hourly") else {
        return Err(Box::new(bad("Parameter 'hourly' must be set")));
    };
    let vars = hourly.split(',').map(|v| v.trim().to_string()).collect();
    let days = params
        .get("forecast_days")
        .and_then(|d| d.parse().ok())
        .unwrap_or(7i64)
        .clamp(1, 16);
    let on_land = land
        .iter()
        .any(|&(a, b, c, d)| (a..=b).contains(&lat) && (c..=d).contains(&lon));
    let mut query: Vec<_> = params.iter().collect();
    query.sort();
    let key = format!(
        "{api} {query:?} {on_land} {}",
        chrono::Utc::now().date_naive()
    );
    if let Some(body) = lock(inner).bodies.get(&key) {
        return Err(Box::new(json_body(body.clone())));
    }
    Ok(Asked {
        key,
        lat,
        lon,
        vars,
        days,
        on_land,
    })
}

fn json_body(body: String) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// The answer's envelope with `hourly` filled by `value(variable, hour index)`, remembered.
fn answer(inner: &Mutex<Inner>, a: &Asked, value: impl Fn(&str, i64) -> Value) -> Response {
    let (lat, lon, vars, days) = (a.lat, a.lon, &a.vars, a.days);
    let midnight = chrono::Utc::now()
        .duration_trunc(chrono::Duration::days(1))
        .expect("a day divides any time");
    let n = days * 24;
    let mut hourly = Map::new();
    hourly.insert(
        "time".into(),
        (0..n)
            .map(|i| {
                json!(
                    (midnight + chrono::Duration::hours(i))
                        .format("%Y-%m-%dT%H:%M")
                        .to_string()
                )
            })
            .collect(),
    );
    for v in vars {
        hourly.insert(v.clone(), (0..n).map(|i| value(v, i)).collect());
    }
    let body = json!({
        "latitude": lat, "longitude": lon, "generationtime_ms": 0.5, "utc_offset_seconds": 0,
        "timezone": "GMT", "timezone_abbreviation": "GMT", "hourly": hourly
    })
    .to_string();
    lock(inner).bodies.insert(a.key.clone(), body.clone());
    json_body(body)
}

async fn marine(
    State(inner): State<Arc<Mutex<Inner>>>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let a = match admit(&inner, "marine", params) {
        Ok(a) => a,
        Err(r) => return *r,
    };
    let lat = a.lat;
    answer(&inner, &a, |var, i| {
        if a.on_land {
            return Value::Null;
        }
        let phase = (i as f64 / 24.0 * std::f64::consts::TAU).cos();
        let swell = ((1.2 + lat.abs() / 100.0 + phase * 0.4) * 100.0).round() / 100.0;
        match var {
            "wave_height" => json!(swell + 0.2),
            "wave_period" => json!(10.5),
            "wave_direction" => json!(230.0),
            "swell_wave_height" => json!(swell),
            "swell_wave_period" => json!(12.5),
            "swell_wave_direction" => json!(225.0),
            "wind_wave_height" => json!(0.2),
            "sea_surface_temperature" => json!(18.0),
            "sea_level_height_msl" => json!((phase * 0.8 * 100.0).round() / 100.0),
            _ => Value::Null,
        }
    })
}

async fn weather(
    State(inner): State<Arc<Mutex<Inner>>>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let knots = params.get("wind_speed_unit").map(String::as_str) == Some("kn");
    let a = match admit(&inner, "forecast", params) {
        Ok(a) => a,
        Err(r) => return *r,
    };
    // km/h unless knots were asked, as the real API.
    let unit = if knots { 1.0 } else { 1.852 };
    answer(&inner, &a, |var, i| {
        let phase = (i as f64 / 24.0 * std::f64::consts::TAU).sin();
        match var {
            "wind_speed_10m" => json!(((10.0 + phase * 5.0) * unit * 10.0).round() / 10.0),
            "wind_direction_10m" => json!(90.0),
            "wind_gusts_10m" => json!(((16.0 + phase * 6.0) * unit * 10.0).round() / 10.0),
            _ => Value::Null,
        }
    })
}
