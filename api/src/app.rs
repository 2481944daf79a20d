//! Assembles the service: the registry's router plus the cross-cutting layers (request id,
//! tracing, timeout, body limit, panic guard) and JSON answers for unknown routes and methods.

use crate::http::{ApiError, Error};
use crate::routes;
use crate::state::AppState;
use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{HeaderName, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use shared::ErrorKind;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{DefaultOnResponse, TraceLayer};

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub fn build(state: AppState) -> Router {
    let registry = routes::registry();
    std::sync::LazyLock::force(&crate::areas::system::OPENAPI_JSON);
    let router = registry
        .router(&state)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), timeout));
    // Outside the timeout, so a request that timed out counts with its 503.
    let router = if state.cfg.metrics_addr.is_some() {
        router.layer(middleware::from_fn(http_metrics))
    } else {
        router
    };
    router
        .layer(DefaultBodyLimit::max(state.cfg.body_limit_bytes))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID, NewRequestId))
                .layer(
                    TraceLayer::new_for_http().make_span_with(|req: &Request| {
                        let id = req
                            .extensions()
                            .get::<RequestId>()
                            .and_then(|r| r.header_value().to_str().ok())
                            .unwrap_or("-");
                        tracing::info_span!("request", request_id = %id, method = %req.method(), path = %crate::http::loggable_path(req.uri().path()))
                    })
                    .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
                )
                .layer(PropagateRequestIdLayer::new(REQUEST_ID))
                .layer(CatchPanicLayer::custom(|_| {
                    ApiError(Error::new(ErrorKind::Internal, "internal", "internal error"))
                        .into_response()
                })),
        )
        .with_state(state)
}

/// Each request's `x-request-id` (unless the client sent one): a random UUID.
#[derive(Clone, Copy)]
struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        let id = shared::crypto::random_uuid();
        let mut buf = uuid::Uuid::encode_buffer();
        axum::http::HeaderValue::from_str(id.hyphenated().encode_lower(&mut buf))
            .ok()
            .map(RequestId::new)
    }
}

async fn not_found() -> ApiError {
    ApiError(Error::new(
        ErrorKind::NotFound,
        "route_not_found",
        "no such route",
    ))
}

async fn method_not_allowed() -> ApiError {
    ApiError(Error::new(
        ErrorKind::MethodNotAllowed,
        "method_not_allowed",
        "this route does not accept that method",
    ))
}

/// Routes whose handler reads a large body as it streams in (a phone on a slow network may
/// take many minutes for one chunk). They are exempt from the request timeout and bound the
/// time between two chunks of the body instead ([`crate::http::BODY_IDLE`]).
const STREAMED_BODIES: &[(&str, &str)] = &[
    ("PATCH", "/api/clips/native-ingest/{uploadId}"),
    ("PUT", "/api/storage/{store}/{*key}"),
    ("POST", "/api/reviews/{id}/voice-notes"),
    ("POST", "/api/mobile/reviews/{id}/replies"),
    ("POST", "/api/wearable/import"),
    ("POST", "/api/mobile/wearable/import"),
];

/// Bounds every request's handling time; answers JSON 503 `timeout` past it.
async fn timeout(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let streamed = req.extensions().get::<MatchedPath>().is_some_and(|p| {
        STREAMED_BODIES
            .iter()
            .any(|(m, path)| req.method().as_str() == *m && p.as_str() == *path)
    });
    if streamed {
        return next.run(req).await;
    }
    match tokio::time::timeout(state.cfg.request_timeout, next.run(req)).await {
        Ok(r) => r,
        Err(_) => ApiError(Error::unavailable(
            "timeout",
            "the request took too long",
            1,
        ))
        .into_response(),
    }
}

pub const HTTP_REQUESTS: &str = "http_requests_total";
pub const HTTP_DURATION: &str = "http_request_duration_seconds";

/// The HTTP metrics' help texts (after `worker::metrics::start`).
pub fn describe_metrics() {
    metrics::describe_counter!(
        HTTP_REQUESTS,
        "HTTP requests answered, by method, route template and status class"
    );
    metrics::describe_histogram!(
        HTTP_DURATION,
        metrics::Unit::Seconds,
        "Time from a request's arrival to its response head, by method, route template and status class"
    );
}

/// Counts every request and times it to its response head (a streamed body may run on), by
/// method, route template (`/api/jobs/{id}`, never the raw path: the label set stays the size
/// of the route table; `unmatched` for no route) and status class (`2xx`…). Only installed
/// with `METRICS_ADDR`.
async fn http_metrics(req: Request, next: Next) -> Response {
    // axum routes the fallback through a catch-all of its own (`/{*__private__axum_fallback}`).
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str())
        .filter(|p| !p.contains("__private__axum"))
        .unwrap_or("unmatched")
        .to_string();
    let method: &'static str = match *req.method() {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    };
    let began = std::time::Instant::now();
    let res = next.run(req).await;
    let status = match res.status().as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    };
    let labels = [
        ("method", method),
        ("route", route.as_str()),
        ("status", status),
    ];
    let labels: Vec<metrics::Label> = labels
        .iter()
        .map(|(k, v)| metrics::Label::new(*k, v.to_string()))
        .collect();
    metrics::histogram!(HTTP_DURATION, labels.clone()).record(began.elapsed().as_secs_f64());
    metrics::counter!(HTTP_REQUESTS, labels).increment(1);
    res
}
