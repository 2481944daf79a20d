//! A fake of the tour index, `tourindex`, serving the site that
//! `shared::providers::tourindex` reads (`docs/competition.md`): JSON search and typeahead,
//! HTML profile, directory, event-list and event pages, and headshot images.
//!
//! Why: the tour index has no contract, so the adapter's tolerance is what needs testing. The
//! pages are rendered from the saved fixture `fixtures/tourindex.json` (four athletes on two
//! tours, two events; one profile with rows a reader must skip or half-read), so a test can
//! change a field between two syncs ([`FakeTourindex::set`]), replace any page with a
//! malformed or partial one ([`FakeTourindex::page`]), or inject failures in order
//! ([`FakeTourindex::fail`]: a status, 429 with `Retry-After: 1`, a hang). The directory
//! shows two athletes per page. Every request's path is recorded.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub const FIXTURE: &str = include_str!("../fixtures/tourindex.json");

/// Athletes per directory page.
pub const PAGE_SIZE: usize = 2;

/// An injected failure of one request.
#[derive(Clone, Debug)]
pub enum Failure {
    /// Answer this status (429 comes with `Retry-After: 1`).
    Status(u16),
    /// Never answer (the client times out).
    Hang,
}

struct Inner {
    data: Value,
    requests: Vec<String>,
    failures: VecDeque<Failure>,
    /// Path (with query) → (status, content type, body) served instead of the rendering.
    pages: HashMap<String, (u16, String, String)>,
}

type Shared = Arc<Mutex<Inner>>;

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    s.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakeTourindex {
    base_url: String,
    shared: Shared,
    server: JoinHandle<()>,
}

impl Drop for FakeTourindex {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeTourindex {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start() -> Self {
        let shared: Shared = Arc::new(Mutex::new(Inner {
            data: serde_json::from_str(FIXTURE).expect("the tourindex fixture is JSON"),
            requests: Vec::new(),
            failures: VecDeque::new(),
            pages: HashMap::new(),
        }));
        let app = Router::new()
            .route("/api/athletes/search", get(search))
            .route("/api/live-search", get(live))
            .route("/athletes/{id}", get(profile))
            .route("/tours/{tour}/athletes", get(directory))
            .route("/tours/{tour}/events", get(event_list))
            .route("/events/{id}", get(event))
            .route("/img/{file}", get(image))
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&shared),
                intercept,
            ))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakeTourindex: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("FakeTourindex: address")
            .port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeTourindex {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The next requests fail like this, in order.
    pub fn fail(&self, failures: &[Failure]) {
        lock(&self.shared).failures.extend(failures.iter().cloned());
    }

    /// Changes the fixture at a JSON pointer (e.g. `/athletes/ti-1/country`).
    ///
    /// # Panics
    /// If nothing is at `pointer`.
    pub fn set(&self, pointer: &str, value: Value) {
        let mut g = lock(&self.shared);
        *g.data
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("FakeTourindex: nothing at {pointer}")) = value;
    }

    /// Serves `body` (HTML) with `status` at `path_and_query` from now on, instead of the
    /// rendered page: a malformed, partial or changed page.
    pub fn page(&self, path_and_query: &str, status: u16, body: &str) {
        lock(&self.shared).pages.insert(
            path_and_query.to_string(),
            (status, "text/html; charset=utf-8".into(), body.to_string()),
        );
    }

    /// The paths (with query) requested, in order.
    pub fn requests(&self) -> Vec<String> {
        lock(&self.shared).requests.clone()
    }

    /// How many requests had a path starting with `prefix`.
    pub fn count(&self, prefix: &str) -> usize {
        lock(&self.shared)
            .requests
            .iter()
            .filter(|r| r.starts_with(prefix))
            .count()
    }
}

/// Records the request, then serves an injected failure or page override if there is one.
async fn intercept(
    State(s): State<Shared>,
    uri: Uri,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let key = uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let (failure, page) = {
        let mut g = lock(&s);
        g.requests.push(key.clone());
        (g.failures.pop_front(), g.pages.get(&key).cloned())
    };
    match failure {
        Some(Failure::Status(429)) => {
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "1")],
                "slow down",
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
        Some(Failure::Hang) => tokio::time::sleep(Duration::from_secs(3600)).await,
        None => {}
    }
    if let Some((status, ct, body)) = page {
        return (
            StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
            [(header::CONTENT_TYPE, ct)],
            body,
        )
            .into_response();
    }
    next.run(req).await
}

fn html(body: String) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        format!("<!doctype html><html><head><meta charset=utf-8></head><body>{body}</body></html>"),
    )
        .into_response()
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found").into_response()
}

fn esc(v: &Value) -> String {
    v.as_str()
        .unwrap_or("")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn matches(name: &Value, q: &str) -> bool {
    name.as_str()
        .is_some_and(|n| n.to_lowercase().contains(&q.to_lowercase()))
}

async fn search(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let g = lock(&s);
    let query = q.get("q").cloned().unwrap_or_default();
    let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(20);
    let found: Vec<Value> = g.data["athletes"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, a)| matches(&a["name"], &query))
        .take(limit)
        .map(|(id, a)| {
            json!({ "id": id, "name": a["name"], "country": a["country"], "tour": a["tour"],
                    "image": a["image"] })
        })
        .collect();
    axum::Json(json!({ "athletes": found })).into_response()
}

async fn live(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let g = lock(&s);
    let query = q.get("q").cloned().unwrap_or_default();
    let mut items = Vec::new();
    for (kind, key) in [("athlete", "athletes"), ("event", "events")] {
        for (id, x) in g.data[key].as_object().into_iter().flatten() {
            if matches(&x["name"], &query) {
                items.push(json!({ "type": kind, "id": id, "name": x["name"] }));
            }
        }
    }
    axum::Json(json!({ "items": items })).into_response()
}

async fn profile(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    let g = lock(&s);
    let Some(a) = g.data["athletes"].get(&id) else {
        return not_found();
    };
    let ld = json!({
        "@context": "https://schema.org", "@type": "Person", "name": a["name"],
        "nationality": { "@type": "Country", "name": a["country"] },
        "birthDate": a["birthDate"], "image": a["image"],
        "homeLocation": { "@type": "Place", "name": a["hometown"] },
    });
    let mut rows = String::new();
    for r in a["results"].as_array().into_iter().flatten() {
        let data_id = r["eventId"]
            .as_str()
            .map(|e| format!(" data-event-id=\"{e}\""))
            .unwrap_or_default();
        rows.push_str(&format!(
            "<tr{data_id}><td class=\"event\">{}</td><td class=\"date\">{}</td><td class=\"place\">{}</td><td class=\"points\">{}</td></tr>\n",
            esc(&r["event"]), esc(&r["date"]), esc(&r["place"]), esc(&r["points"])
        ));
    }
    html(format!(
        "<script type=\"application/ld+json\">{ld}</script>\n<h1 class=\"athlete-name\">{}</h1>\n\
         <dl class=\"athlete-facts\"><dt>Stance</dt><dd>{}</dd><dt>Country</dt><dd>{}</dd></dl>\n\
         <table class=\"athlete-results\"><thead><tr><th>Event</th><th>Date</th><th>Place</th><th>Points</th></tr></thead>\n<tbody>{rows}</tbody></table>",
        esc(&a["name"]),
        esc(&a["stance"]),
        esc(&a["country"])
    ))
}

async fn directory(
    State(s): State<Shared>,
    Path(tour): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let g = lock(&s);
    if g.data["tours"].get(&tour).is_none() {
        return not_found();
    }
    let page: usize = q
        .get("page")
        .and_then(|p| p.parse().ok())
        .unwrap_or(1)
        .max(1);
    let on_tour: Vec<(&String, &Value)> = g.data["athletes"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, a)| a["tour"] == tour.as_str())
        .collect();
    let mut items = String::new();
    for (id, a) in on_tour.iter().skip((page - 1) * PAGE_SIZE).take(PAGE_SIZE) {
        let img = a["image"]
            .as_str()
            .map(|src| format!("<img src=\"{src}\" alt=\"\">"))
            .unwrap_or_default();
        items.push_str(&format!(
            "<li class=\"athlete\" data-athlete-id=\"{id}\"><a href=\"/athletes/{id}\">{}</a> <span class=\"country\">{}</span>{img}</li>\n",
            esc(&a["name"]),
            esc(&a["country"])
        ));
    }
    let next = if page * PAGE_SIZE < on_tour.len() {
        format!(
            "<a rel=\"next\" href=\"/tours/{tour}/athletes?page={}\">Next</a>",
            page + 1
        )
    } else {
        String::new()
    };
    html(format!("<ul class=\"athletes\">{items}</ul>{next}"))
}

async fn event_list(State(s): State<Shared>, Path(tour): Path<String>) -> Response {
    let g = lock(&s);
    let Some(t) = g.data["tours"].get(&tour) else {
        return not_found();
    };
    let mut items = String::new();
    for id in t["events"].as_array().into_iter().flatten() {
        let id = id.as_str().unwrap_or("");
        let e = &g.data["events"][id];
        items.push_str(&format!(
            "<li class=\"event\" data-event-id=\"{id}\"><a href=\"/events/{id}\">{}</a> <time datetime=\"{}\">{}</time></li>\n",
            esc(&e["name"]),
            esc(&e["date"]),
            esc(&e["date"])
        ));
    }
    html(format!("<ul class=\"events\">{items}</ul>"))
}

async fn event(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    let g = lock(&s);
    let Some(e) = g.data["events"].get(&id) else {
        return not_found();
    };
    let mut rows = String::new();
    for r in e["results"].as_array().into_iter().flatten() {
        rows.push_str(&format!(
            "<tr data-athlete-id=\"{}\"><td class=\"athlete\">{}</td><td class=\"place\">{}</td><td class=\"points\">{}</td></tr>\n",
            esc(&r["athleteId"]), esc(&r["name"]), esc(&r["place"]), esc(&r["points"])
        ));
    }
    html(format!(
        "<h1 class=\"event-name\">{}</h1><time datetime=\"{}\">{}</time> <span class=\"tour\">{}</span>\n\
         <table class=\"event-results\"><tr><th>Athlete</th><th>Place</th><th>Points</th></tr>\n{rows}</table>",
        esc(&e["name"]),
        esc(&e["date"]),
        esc(&e["date"]),
        esc(&e["tour"])
    ))
}

/// A tiny "JPEG" (the magic bytes and the file name): enough to check what was stored.
async fn image(Path(file): Path<String>) -> Response {
    let mut body = vec![0xFF, 0xD8, 0xFF, 0xE0];
    body.extend_from_slice(file.as_bytes());
    ([(header::CONTENT_TYPE, "image/jpeg")], body).into_response()
}
