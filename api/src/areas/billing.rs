//! Billing (issue 13, `docs/billing.md`): the workspace's platform subscription (status for
//! every member; subscribe and portal with `billing.manage`, also under `/api/mobile/billing/*`),
//! the marketplace (a coach's payout account and offerings; a student's or guardian's checkout
//! and portal; what a user has access to) and the payment webhook. The rules are in
//! `shared::domain::billing`; handlers extract, call one operation and map the answer.

use crate::auth::{Acting, Caller};
use crate::http::Result;
use crate::http::extract::Body;
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::billing::{self as domain, Subscribed, events, marketplace};
use shared::repo::billing::{Access, AccessStatus, Offering, OfferingInterval};
use shared::repo::subscriptions::SubscriptionStatus;
use utoipa::ToSchema;

/// The client's `Idempotency-Key` header, checked.
fn client_key(headers: &HeaderMap) -> Result<Option<String>> {
    let raw = match headers.get("idempotency-key") {
        None => None,
        Some(v) => Some(v.to_str().unwrap_or("\u{0}")),
    };
    Ok(domain::client_key(raw)?)
}

// ---- platform subscription ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionSummary {
    pub status: SubscriptionStatus,
    pub plan: String,
    pub seats: i64,
    pub current_period_end: Option<Ts>,
    /// True for a provider subscription, false for an admin grant.
    pub paid: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillingStatus {
    pub plan: String,
    /// The newest subscription's status (`granted` for a grant), `free` without one.
    pub status: String,
    /// The seat cap in force.
    pub seats: i64,
    /// Members plus pending invites.
    pub used: i64,
    pub subscription: Option<SubscriptionSummary>,
    /// Whether the caller may subscribe and open the portal (`billing.manage`).
    pub can_manage: bool,
}

pub async fn status(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<axum::Json<BillingStatus>> {
    let s = domain::status(&state.db, &ws).await?;
    Ok(axum::Json(BillingStatus {
        plan: s.plan,
        status: s.status,
        seats: s.seats,
        used: s.used,
        subscription: s.subscription.map(|s| SubscriptionSummary {
            status: s.status,
            plan: s.plan,
            seats: s.seats,
            current_period_end: s.current_period_end,
            paid: s.provider_subscription_id.is_some(),
        }),
        can_manage: s.can_manage,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubscribeRequest {
    /// One of the platform's monthly prices (`PAYMENTS_PRICE_IDS`).
    pub price_id: String,
    /// The seat cap to pay for (members plus pending invites), 1 to 10000.
    pub seats: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeAnswer {
    /// `checkout` (pay at `checkoutUrl`), `updated` (the live subscription was changed; the
    /// webhook applies it) or `unchanged`.
    pub action: &'static str,
    pub checkout_url: Option<String>,
    pub session_id: Option<String>,
    pub subscription_id: Option<String>,
}

pub async fn subscribe(
    State(state): State<AppState>,
    Acting(ws): Acting,
    headers: HeaderMap,
    Body(req): Body<SubscribeRequest>,
) -> Result<axum::Json<SubscribeAnswer>> {
    let key = client_key(&headers)?;
    let payments = domain::adapter(&state.cfg)?;
    let parsed = domain::Subscribe::parse(payments.config(), &req.price_id, req.seats)?;
    let done = domain::subscribe(
        &state.db,
        &state.cfg,
        &payments,
        &ws,
        parsed,
        key.as_deref(),
    )
    .await?;
    let (action, url, session, sub) = match done {
        Subscribed::Checkout { session_id, url } => ("checkout", Some(url), Some(session_id), None),
        Subscribed::Updated { subscription_id } => ("updated", None, None, Some(subscription_id)),
        Subscribed::Unchanged { subscription_id } => {
            ("unchanged", None, None, Some(subscription_id))
        }
    };
    Ok(axum::Json(SubscribeAnswer {
        action,
        checkout_url: url,
        session_id: session,
        subscription_id: sub,
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortalLink {
    /// Short-lived, and a login to the provider's portal: open it at once, never share it.
    pub url: String,
}

pub async fn portal(
    State(state): State<AppState>,
    Acting(ws): Acting,
    headers: HeaderMap,
) -> Result<axum::Json<PortalLink>> {
    let key = client_key(&headers)?;
    let payments = domain::adapter(&state.cfg)?;
    let url = domain::portal(&state.db, &state.cfg, &payments, &ws, key.as_deref()).await?;
    Ok(axum::Json(PortalLink { url }))
}

// ---- marketplace ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PayoutAccountView {
    pub account_id: String,
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
    /// Continue (or finish) onboarding at the provider; short-lived.
    pub onboarding_url: String,
}

pub async fn connect(
    State(state): State<AppState>,
    Acting(ws): Acting,
    headers: HeaderMap,
) -> Result<axum::Json<PayoutAccountView>> {
    let key = client_key(&headers)?;
    let payments = domain::adapter(&state.cfg)?;
    let c = marketplace::connect(&state.db, &state.cfg, &payments, &ws, key.as_deref()).await?;
    Ok(axum::Json(PayoutAccountView {
        account_id: c.account.provider_account_id,
        charges_enabled: c.account.charges_enabled,
        payouts_enabled: c.account.payouts_enabled,
        onboarding_url: c.onboarding_url,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateOffering {
    #[schema(min_length = 1, max_length = 120, example = "Monthly coaching")]
    pub name: String,
    /// In minor units (cents), 100 to 10000000.
    #[schema(minimum = 100, maximum = 10_000_000)]
    pub amount: i64,
    /// ISO 4217, e.g. `eur` (either case).
    #[schema(pattern = "^[A-Za-z]{3}$", example = "eur")]
    pub currency: String,
    #[schema(value_type = OfferingInterval)]
    pub interval: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OfferingView {
    pub id: Id,
    pub coach_user_id: Id,
    pub name: String,
    pub amount: i64,
    pub currency: String,
    pub interval: OfferingInterval,
    pub active: bool,
    pub created_at: Ts,
}

fn offering_view(o: Offering) -> OfferingView {
    OfferingView {
        id: o.id,
        coach_user_id: o.coach_user_id,
        name: o.name,
        amount: o.amount,
        currency: o.currency,
        interval: o.interval,
        active: o.active,
        created_at: o.created_at,
    }
}

pub async fn create_offering(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<CreateOffering>,
) -> Result<(StatusCode, axum::Json<OfferingView>)> {
    let new = marketplace::NewOffering::parse(&req.name, req.amount, &req.currency, &req.interval)?;
    let o = marketplace::create_offering(&state.db, &ws, new).await?;
    Ok((StatusCode::CREATED, axum::Json(offering_view(o))))
}

pub async fn offerings(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<axum::Json<Paged<OfferingView>>> {
    let rows = marketplace::offerings(&state.db, &ws, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(offering_view).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckoutRequest {
    pub offering_id: Id,
    /// The athlete who gets access: the caller's own athlete login, or a minor they guard.
    pub athlete_id: Id,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutAnswer {
    pub checkout_url: String,
    pub session_id: String,
    /// `athlete` or `guardian`.
    pub payer: &'static str,
}

pub async fn checkout(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Body(req): Body<CheckoutRequest>,
) -> Result<axum::Json<CheckoutAnswer>> {
    let key = client_key(&headers)?;
    let payments = domain::adapter(&state.cfg)?;
    let c = marketplace::checkout(
        &state.db,
        &state.cfg,
        &payments,
        &caller.actor(),
        req.offering_id,
        req.athlete_id,
        key.as_deref(),
    )
    .await?;
    Ok(axum::Json(CheckoutAnswer {
        checkout_url: c.url,
        session_id: c.session_id,
        payer: match c.payer {
            marketplace::Payer::Athlete => "athlete",
            marketplace::Payer::Guardian => "guardian",
        },
    }))
}

pub async fn payer_portal(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<axum::Json<PortalLink>> {
    let key = client_key(&headers)?;
    let payments = domain::adapter(&state.cfg)?;
    let url = marketplace::portal(
        &state.db,
        &state.cfg,
        &payments,
        &caller.actor(),
        key.as_deref(),
    )
    .await?;
    Ok(axum::Json(PortalLink { url }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessView {
    pub offering_id: Id,
    pub athlete_id: Id,
    pub payer_user_id: Option<Id>,
    pub status: AccessStatus,
    pub current_period_end: Option<Ts>,
    pub updated_at: Ts,
}

pub async fn my_access(
    State(state): State<AppState>,
    caller: Caller,
    page: Page,
) -> Result<axum::Json<Paged<AccessView>>> {
    let rows =
        marketplace::my_access(&state.db, &caller.actor(), page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(
            rows.into_iter()
                .map(|a: Access| AccessView {
                    offering_id: a.offering_id,
                    athlete_id: a.athlete_id,
                    payer_user_id: a.payer_user_id,
                    status: a.status,
                    current_period_end: a.current_period_end,
                    updated_at: a.updated_at,
                })
                .collect(),
        ),
    ))
}

// ---- webhook ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookAck {
    pub received: bool,
    /// The event was stored before (a retry or a concurrent twin): nothing was done now.
    pub duplicate: bool,
    /// A type the service does not act on.
    pub ignored: bool,
}

/// Verifies the signature on the raw body, then stores the event once and enqueues its job
/// through the state's `EventStore` (on SQLite a group commit: concurrent deliveries share one
/// transaction); answers once this delivery's row and job are committed. The event is applied by the job, so the answer
/// comes at once.
pub async fn webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: bytes::Bytes,
) -> Result<axum::Json<WebhookAck>> {
    let signature = headers
        .get("stripe-signature")
        .map(|v| v.to_str().unwrap_or(""));
    // An unsigned request is refused before anything else (also where payments are not set up).
    let Some(signature) = signature else {
        return Err(shared::Error::unauthorized(
            "webhook_header_missing",
            "the Stripe-Signature header is missing",
        )
        .into());
    };
    let cfg = state
        .cfg
        .payments
        .as_ref()
        .ok_or_else(|| shared::Error::provider_not_configured("payments"))?;
    let now = Ts::now().0.timestamp();
    let verified = events::verify(cfg, Some(signature), &body, now)?;
    let r = state.payment_events.store(verified).await?;
    Ok(axum::Json(WebhookAck {
        received: true,
        duplicate: r.duplicate,
        ignored: r.ignored,
    }))
}
