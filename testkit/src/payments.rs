//! A fake payment processor speaking the Stripe protocol's parts the service uses: customers,
//! Checkout Sessions, customer portal sessions, prices, subscriptions (read and update),
//! Connect accounts and account links, with state, and the events a real processor would send,
//! signed with the endpoint's secret (`Stripe-Signature: t=…,v1=…`).
//!
//! Why: billing must be tested offline with the processor's real behaviours: the fake checks the
//! secret key (401), replays the first answer of a repeated `Idempotency-Key` (and refuses the
//! same key with other parameters, 400 `idempotency_error`), answers 404 `resource_missing` for
//! unknown or removed objects, and can be made to fail (`fail_next`). A test plays the customer
//! (`complete_checkout`), the processor's dashboard (`set_status`, `cancel`, `remove`,
//! `enable_account`) and the delivery (`signed`): the state changes first, the events come after,
//! in whatever order the test sends them.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// One request the fake received (POSTs only), for assertions on the exact traffic.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub idempotency_key: Option<String>,
    pub form: Vec<(String, String)>,
}

impl Received {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Inner {
    next: u64,
    customers: HashMap<String, Value>,
    sessions: HashMap<String, Value>,
    /// The form each session was created with (line items, subscription data).
    session_forms: HashMap<String, Vec<(String, String)>>,
    subscriptions: HashMap<String, Value>,
    accounts: HashMap<String, Value>,
    prices: HashMap<String, Value>,
    idempotency: HashMap<String, (String, u16, Value)>,
    received: Vec<Received>,
    fail_next: Vec<u16>,
}

impl Inner {
    fn id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}_{}", self.next)
    }
}

struct Shared {
    secret_key: String,
    webhook_secret: String,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The fake on `127.0.0.1:<random port>`; it stops when dropped.
pub struct FakePayments {
    base_url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn price(id: &str, recurring: Option<(&str, i64)>, lookup: &str, active: bool) -> Value {
    json!({
        "id": id, "object": "price", "active": active, "currency": "eur", "unit_amount": 900,
        "lookup_key": lookup, "nickname": null,
        "recurring": recurring.map(|(i, c)| json!({ "interval": i, "interval_count": c })),
    })
}

/// `Stripe-Signature` for `body` signed with `secret` at `t` (computed here independently of the
/// service's code).
pub fn signature(secret: &str, t: i64, body: &str) -> String {
    let mut m = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key");
    m.update(format!("{t}.{body}").as_bytes());
    let hex: String = m
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("t={t},v1={hex}")
}

impl FakePayments {
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start(secret_key: &str, webhook_secret: &str) -> Self {
        let mut inner = Inner::default();
        for p in [
            price("price_team_monthly", Some(("month", 1)), "team", true),
            price("price_club_monthly", Some(("month", 1)), "club", true),
            price("price_team_yearly", Some(("year", 1)), "team_yearly", true),
            price(
                "price_team_quarterly",
                Some(("month", 3)),
                "team_quarterly",
                true,
            ),
            price("price_once", None, "once", true),
            price("price_retired", Some(("month", 1)), "retired", false),
        ] {
            inner
                .prices
                .insert(p["id"].as_str().unwrap().to_string(), p);
        }
        let shared = Arc::new(Shared {
            secret_key: secret_key.into(),
            webhook_secret: webhook_secret.into(),
            inner: Mutex::new(inner),
        });
        let app = Router::new()
            .route("/v1/customers", post(create_customer))
            .route("/v1/checkout/sessions", post(create_session))
            .route("/v1/checkout/sessions/{id}", get(read_session))
            .route("/v1/billing_portal/sessions", post(create_portal))
            .route("/v1/prices/{id}", get(read_price))
            .route(
                "/v1/subscriptions/{id}",
                get(read_subscription).post(update_subscription),
            )
            .route("/v1/accounts", post(create_account))
            .route("/v1/accounts/{id}", get(read_account))
            .route("/v1/account_links", post(create_account_link))
            .route("/test/checkout/{id}/complete", post(complete_by_http))
            .route("/test/accounts/{id}/enable", post(enable_by_http))
            .with_state(Arc::clone(&shared));
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("FakePayments: bind 127.0.0.1:0");
        let port = listener.local_addr().expect("FakePayments: address").port();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakePayments {
            base_url: format!("http://127.0.0.1:{port}"),
            shared,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The next `n` requests answer `status` (e.g. 503) without doing anything.
    pub fn fail_next(&self, n: usize, status: u16) {
        self.shared
            .lock()
            .fail_next
            .extend(std::iter::repeat_n(status, n));
    }

    /// Every POST received so far to `path` (e.g. `/v1/checkout/sessions`).
    pub fn received(&self, path: &str) -> Vec<Received> {
        self.shared
            .lock()
            .received
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    pub fn session_count(&self) -> usize {
        self.shared.lock().sessions.len()
    }

    pub fn subscription(&self, id: &str) -> Option<Value> {
        self.shared.lock().subscriptions.get(id).cloned()
    }

    /// A new event of `event_type` about `object` (not yet sent: see [`FakePayments::signed`]).
    pub fn event(&self, event_type: &str, object: &Value) -> Value {
        event_of(&self.shared, event_type, object)
    }

    /// The body and `Stripe-Signature` of a delivery of `event`, signed now with the endpoint's
    /// secret.
    pub fn signed(&self, event: &Value) -> (String, String) {
        let body = event.to_string();
        let sig = signature(&self.shared.webhook_secret, now(), &body);
        (body, sig)
    }

    /// The customer pays: the session completes; in subscription mode the subscription is
    /// created (active). Returns the events the processor sends: `checkout.session.completed`
    /// (and `customer.subscription.created`).
    pub fn complete_checkout(&self, session_id: &str) -> Vec<Value> {
        complete(&self.shared, session_id)
    }

    /// The subscription's status changes (e.g. `past_due`, `unpaid`); returns the
    /// `customer.subscription.updated` event.
    pub fn set_status(&self, sub_id: &str, status: &str) -> Value {
        let s = {
            let mut g = self.shared.lock();
            let s = g.subscriptions.get_mut(sub_id).expect("a subscription");
            s["status"] = json!(status);
            s.clone()
        };
        self.event("customer.subscription.updated", &s)
    }

    /// The subscription is cancelled now; returns `customer.subscription.deleted`. It can still
    /// be read (status `canceled`), as at the real processor.
    pub fn cancel(&self, sub_id: &str) -> Value {
        let s = {
            let mut g = self.shared.lock();
            let s = g.subscriptions.get_mut(sub_id).expect("a subscription");
            s["status"] = json!("canceled");
            s.clone()
        };
        self.event("customer.subscription.deleted", &s)
    }

    /// The subscription is gone: reads answer 404 `resource_missing`.
    pub fn remove(&self, sub_id: &str) {
        self.shared.lock().subscriptions.remove(sub_id);
    }

    /// The coach finished onboarding: charges and payouts enabled; returns `account.updated`.
    pub fn enable_account(&self, account_id: &str) -> Value {
        enable(&self.shared, account_id).expect("an account")
    }
}

impl Drop for FakePayments {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn metadata(form: &[(String, String)], prefix: &str) -> Value {
    let mut m = BTreeMap::new();
    for (k, v) in form {
        if let Some(rest) = k.strip_prefix(prefix)
            && let Some(name) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']'))
        {
            m.insert(name.to_string(), v.clone());
        }
    }
    json!(m)
}

fn error(status: StatusCode, kind: &str, code: &str, message: &str) -> Response {
    (
        status,
        Json(json!({ "error": { "type": kind, "code": code, "message": message } })),
    )
        .into_response()
}

fn missing(what: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "resource_missing",
        &format!("No such {what}"),
    )
}

/// Authentication and injected failures, common to every request.
fn gate(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    let expected = format!("Bearer {}", shared.secret_key);
    if headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        != Some(expected.as_str())
    {
        return Some(error(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            "api_key_invalid",
            "Invalid API Key provided",
        ));
    }
    let mut g = shared.lock();
    if !g.fail_next.is_empty() {
        let status = g.fail_next.remove(0);
        return Some(error(
            StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
            "api_error",
            "injected",
            "injected failure",
        ));
    }
    None
}

/// Runs a create once per idempotency key: a repeat with the same parameters replays the first
/// answer; with other parameters it is refused.
fn create(
    shared: &Shared,
    path: &str,
    headers: &HeaderMap,
    form: Vec<(String, String)>,
    make: impl FnOnce(&mut Inner, &[(String, String)]) -> Result<Value, Box<Response>>,
) -> Response {
    if let Some(r) = gate(shared, headers) {
        return r;
    }
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut g = shared.lock();
    g.received.push(Received {
        path: path.to_string(),
        idempotency_key: key.clone(),
        form: form.clone(),
    });
    let fingerprint = format!("{path}?{form:?}");
    if let Some(k) = &key
        && let Some((fp, status, body)) = g.idempotency.get(k)
    {
        if *fp != fingerprint {
            return error(
                StatusCode::BAD_REQUEST,
                "idempotency_error",
                "idempotency_key_in_use",
                "Keys for idempotent requests can only be used with the same parameters they were first used with.",
            );
        }
        return (StatusCode::from_u16(*status).unwrap(), Json(body.clone())).into_response();
    }
    match make(&mut g, &form) {
        Ok(v) => {
            if let Some(k) = key {
                g.idempotency.insert(k, (fingerprint, 200, v.clone()));
            }
            Json(v).into_response()
        }
        Err(r) => *r,
    }
}

fn field<'a>(form: &'a [(String, String)], k: &str) -> Option<&'a str> {
    form.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str())
}

async fn create_customer(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    create(&shared, "/v1/customers", &headers, form, |g, f| {
        let id = g.id("cus");
        let c = json!({ "id": id, "object": "customer", "email": field(f, "email"), "metadata": metadata(f, "metadata") });
        g.customers.insert(id, c.clone());
        Ok(c)
    })
}

async fn create_session(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    create(&shared, "/v1/checkout/sessions", &headers, form, |g, f| {
        let mode = field(f, "mode").unwrap_or("");
        let bad = |m: &str| -> Result<Value, Box<Response>> {
            Err(error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                "parameter_invalid",
                m,
            )
            .into())
        };
        if !["payment", "subscription"].contains(&mode) {
            return bad("mode");
        }
        if field(f, "success_url").is_none() {
            return bad("success_url is required");
        }
        if let Some(c) = field(f, "customer")
            && !g.customers.contains_key(c)
        {
            return Err(missing("customer").into());
        }
        if let Some(p) = field(f, "line_items[0][price]") {
            match g.prices.get(p) {
                None => return Err(missing("price").into()),
                Some(pr) if mode == "subscription" && pr["recurring"].is_null() => {
                    return bad("a subscription needs a recurring price");
                }
                _ => {}
            }
        }
        // Destination charges: the fee parameter must match the mode.
        if mode == "payment" && field(f, "subscription_data[application_fee_percent]").is_some() {
            return bad("application_fee_percent is for subscription mode");
        }
        if mode == "subscription"
            && field(f, "payment_intent_data[application_fee_amount]").is_some()
        {
            return bad("application_fee_amount is for payment mode");
        }
        let id = g.id("cs");
        let s = json!({
            "id": id, "object": "checkout.session", "mode": mode, "status": "open", "payment_status": "unpaid",
            "url": format!("https://checkout.payments.test/c/pay/{id}"),
            "customer": field(f, "customer"), "subscription": null,
            "client_reference_id": field(f, "client_reference_id"),
            "metadata": metadata(f, "metadata"),
        });
        g.session_forms.insert(id.clone(), f.to_vec());
        g.sessions.insert(id, s.clone());
        Ok(s)
    })
}

async fn read_session(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(r) = gate(&shared, &headers) {
        return r;
    }
    match shared.lock().sessions.get(&id) {
        Some(s) => Json(s.clone()).into_response(),
        None => missing("checkout.session"),
    }
}

async fn create_portal(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    create(
        &shared,
        "/v1/billing_portal/sessions",
        &headers,
        form,
        |g, f| {
            let Some(c) = field(f, "customer").filter(|c| g.customers.contains_key(*c)) else {
                return Err(missing("customer").into());
            };
            let c = c.to_string();
            let id = g.id("bps");
            Ok(
                json!({ "id": id, "object": "billing_portal.session", "customer": c,
                   "url": format!("https://billing.payments.test/p/session/{id}"), "return_url": field(f, "return_url") }),
            )
        },
    )
}

async fn read_price(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(r) = gate(&shared, &headers) {
        return r;
    }
    match shared.lock().prices.get(&id) {
        Some(p) => Json(p.clone()).into_response(),
        None => missing("price"),
    }
}

async fn read_subscription(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(r) = gate(&shared, &headers) {
        return r;
    }
    match shared.lock().subscriptions.get(&id) {
        Some(s) => Json(s.clone()).into_response(),
        None => missing("subscription"),
    }
}

async fn update_subscription(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    let path = format!("/v1/subscriptions/{id}");
    create(&shared, &path, &headers, form, |g, f| {
        let price = match field(f, "items[0][price]") {
            Some(p) => Some(g.prices.get(p).cloned().ok_or_else(|| missing("price"))?),
            None => None,
        };
        let s = g
            .subscriptions
            .get_mut(&id)
            .ok_or_else(|| missing("subscription"))?;
        if s["status"] == "canceled" {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                "resource_missing",
                "a canceled subscription cannot be updated",
            )
            .into());
        }
        if let Some(p) = price {
            s["items"]["data"][0]["price"] = p;
        }
        if let Some(q) = field(f, "items[0][quantity]").and_then(|q| q.parse::<i64>().ok()) {
            s["items"]["data"][0]["quantity"] = json!(q);
        }
        Ok(s.clone())
    })
}

async fn create_account(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    create(&shared, "/v1/accounts", &headers, form, |g, f| {
        let id = g.id("acct");
        let a = json!({ "id": id, "object": "account", "type": field(f, "type"), "charges_enabled": false,
                        "payouts_enabled": false, "details_submitted": false, "metadata": metadata(f, "metadata") });
        g.accounts.insert(id, a.clone());
        Ok(a)
    })
}

async fn read_account(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(r) = gate(&shared, &headers) {
        return r;
    }
    match shared.lock().accounts.get(&id) {
        Some(a) => Json(a.clone()).into_response(),
        None => missing("account"),
    }
}

async fn create_account_link(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    create(&shared, "/v1/account_links", &headers, form, |g, f| {
        let Some(a) = field(f, "account").filter(|a| g.accounts.contains_key(*a)) else {
            return Err(missing("account").into());
        };
        Ok(
            json!({ "object": "account_link", "url": format!("https://connect.payments.test/setup/{a}"),
                   "expires_at": now() + 300 }),
        )
    })
}

fn event_of(shared: &Shared, event_type: &str, object: &Value) -> Value {
    let id = shared.lock().id("evt");
    json!({ "id": id, "object": "event", "type": event_type, "created": now(), "livemode": false,
            "api_version": "2024-06-20", "data": { "object": object } })
}

/// `POST /test/checkout/{id}/complete`: the customer pays on the hosted page (what a browser
/// test cannot do at the real processor): the events, each with the body and signature the
/// processor would deliver, for the test to post to the webhook.
async fn complete_by_http(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    if !s.lock().sessions.contains_key(&id) {
        return (StatusCode::NOT_FOUND, "no such session").into_response();
    }
    let events: Vec<Value> = complete(&s, &id)
        .iter()
        .map(|e| {
            let body = e.to_string();
            json!({ "body": body, "signature": signature(&s.webhook_secret, now(), &body) })
        })
        .collect();
    Json(events).into_response()
}

/// The coach finishes onboarding: the account can take charges and pay out; its
/// `account.updated` event (`None`: no such account).
fn enable(shared: &Shared, account_id: &str) -> Option<Value> {
    let a = {
        let mut g = shared.lock();
        let a = g.accounts.get_mut(account_id)?;
        a["charges_enabled"] = json!(true);
        a["payouts_enabled"] = json!(true);
        a["details_submitted"] = json!(true);
        a.clone()
    };
    Some(event_of(shared, "account.updated", &a))
}

/// `POST /test/accounts/{id}/enable`: onboarding finished at the hosted page (for browser
/// tests): the `account.updated` event with its body and signature, to post to the webhook.
async fn enable_by_http(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    match enable(&s, &id) {
        None => (StatusCode::NOT_FOUND, "no such account").into_response(),
        Some(e) => {
            let body = e.to_string();
            let sig = signature(&s.webhook_secret, now(), &body);
            Json(vec![json!({ "body": body, "signature": sig })]).into_response()
        }
    }
}

fn complete(shared: &Shared, session_id: &str) -> Vec<Value> {
    let (session, sub) = {
        let mut g = shared.lock();
        let form = g.session_forms.get(session_id).cloned().expect("a session");
        let mut session = g.sessions.get(session_id).cloned().expect("a session");
        session["status"] = json!("complete");
        session["payment_status"] = json!("paid");
        let mut sub = None;
        if session["mode"] == "subscription" {
            let sid = g.id("sub");
            let item = g.id("si");
            let f = |k: &str| form.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
            let price = match f("line_items[0][price]") {
                Some(p) => g.prices.get(&p).cloned().expect("a known price"),
                None => {
                    let pid = g.id("price");
                    json!({ "id": pid, "object": "price", "active": true,
                            "currency": f("line_items[0][price_data][currency]"),
                            "unit_amount": f("line_items[0][price_data][unit_amount]").and_then(|v| v.parse::<i64>().ok()),
                            "recurring": { "interval": "month", "interval_count": 1 }, "lookup_key": null, "nickname": null })
                }
            };
            let quantity: i64 = f("line_items[0][quantity]")
                .and_then(|q| q.parse().ok())
                .unwrap_or(1);
            let s = json!({
                "id": sid, "object": "subscription", "status": "active",
                "customer": session["customer"], "metadata": metadata(&form, "subscription_data[metadata]"),
                "current_period_end": now() + 30 * 86400,
                "items": { "object": "list", "data": [
                    { "id": item, "price": price, "quantity": quantity, "current_period_end": now() + 30 * 86400 } ] },
            });
            session["subscription"] = json!(sid);
            g.subscriptions.insert(sid.clone(), s.clone());
            sub = Some(s);
        }
        g.sessions.insert(session_id.to_string(), session.clone());
        (session, sub)
    };
    let mut events = vec![event_of(shared, "checkout.session.completed", &session)];
    if let Some(s) = sub {
        events.push(event_of(shared, "customer.subscription.created", &s));
    }
    events
}
