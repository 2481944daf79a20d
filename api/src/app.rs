//! Assembles the service: the registry's router (each route in its guard: auth and timeout)
//! wrapped in the cross-cutting layers (request id, tracing, panic guard, body limit), and JSON
//! answers for unknown routes and methods.

use crate::http::{ApiError, Error};
use crate::routes;
use crate::state::AppState;
use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use shared::ErrorKind;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{OnResponse, TraceLayer};

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub fn build(state: AppState) -> Router {
    let registry = routes::registry();
    std::sync::LazyLock::force(&crate::areas::system::OPENAPI_JSON);
    let router = registry
        .router(&state)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    // Per route (it reads the matched route); the request timeout is the guard's.
    let router = if state.cfg.metrics_addr.is_some() {
        router.layer(middleware::from_fn(http_metrics))
    } else {
        router
    };
    let body_limit = state.cfg.body_limit_bytes;
    let page_policy = state.page_policy.clone();
    // The cross-cutting layers wrap the router once. Given to `Router::layer` they would wrap
    // each route in a boxed service of its own, which every request clones (a box each).
    let service = ServiceBuilder::new()
        .layer(SetRequestIdLayer::new(REQUEST_ID, NewRequestId))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| {
                    let id = req
                        .extensions()
                        .get::<RequestId>()
                        .and_then(|r| r.header_value().to_str().ok())
                        .unwrap_or("-");
                    tracing::info_span!("request", request_id = %id, method = %req.method(), path = %crate::http::loggable_path(req.uri().path()))
                })
                .on_response(AccessLog),
        )
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(CatchPanicLayer::custom(|_| {
            ApiError(Error::new(ErrorKind::Internal, "internal", "internal error")).into_response()
        }))
        .map_response(move |res| protective_headers(res, page_policy.as_ref()))
        .layer(DefaultBodyLimit::max(body_limit))
        .service(router.with_state(state));
    Router::new().fallback_service(service)
}

/// On every response, `nosniff`, so that no browser runs a body as anything but its declared
/// type; on JSON and HTML that did not choose a policy, `Cache-Control: no-store`, since nearly
/// every answer carries personal data (athletes, many of them minors) and no shared cache, proxy
/// or back button should keep it. A page's policy is widened to the object store's origin
/// when its signed URLs are another's (`page_policy`).
fn protective_headers(mut res: Response, page_policy: Option<&HeaderValue>) -> Response {
    let h = res.headers_mut();
    if let Some(p) = page_policy
        && h.get(header::CONTENT_SECURITY_POLICY)
            .is_some_and(|v| v.as_bytes() == crate::areas::pages::CSP.as_bytes())
    {
        h.insert(header::CONTENT_SECURITY_POLICY, p.clone());
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let dynamic = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| {
            let t = t.split(';').next().unwrap_or("").trim();
            t == "text/html" || t == "application/json" || t.ends_with("+json")
        });
    if dynamic && !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

/// The access log line, one per response in the request's span (id, method, path): its
/// status and the time to the response head in microseconds, as integers (tower-http's
/// default line formats a latency type and its unit for each response).
#[derive(Clone, Copy)]
struct AccessLog;

impl<B> OnResponse<B> for AccessLog {
    fn on_response(self, res: &Response<B>, latency: std::time::Duration, _: &tracing::Span) {
        tracing::info!(
            status = res.status().as_u16(),
            latency_us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
            "finished processing request"
        );
    }
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
