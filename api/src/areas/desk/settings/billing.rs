//! The workspace's billing tab: the plan, the seats used of the cap, subscribing or changing
//! the plan (Checkout, or the live subscription changed in place) and the customer portal,
//! through `shared::domain::billing` as `GET /api/billing`, `POST /api/billing/subscribe` and
//! `…/portal`; the tab needs `billing.manage`, as the changes do (not the billing module: a
//! workspace pays for its seats with the module off). Nothing is granted by coming back from
//! Checkout: the page says the plan follows once the processor's event is applied.

use super::super::leave::{back_to_workspace, leave};
use super::super::{Chrome, Desk, DeskForm, Empty, page_at, status_of};
use super::{TabLink, tabs};
use crate::areas::pages::{Notice, PageUser, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::domain::billing::{self as domain, Subscribed};

/// This page's tab (`super::TABS`).
pub const TAB: &str = "/settings/billing";

#[derive(Template)]
#[template(path = "desk/billing/settings.html")]
pub struct BillingPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    plan: String,
    status: String,
    seats: i64,
    used: i64,
    renews: Option<(String, String)>,
    /// Whether a provider subscription is live (the form changes it rather than starting one).
    paid: bool,
    /// The payment processor is configured; else why subscribing is unavailable is shown.
    configured: bool,
    prices: Vec<(String, bool)>,
    seats_typed: String,
    /// `success` or `cancelled` after coming back from Checkout.
    checkout: Option<String>,
    notice: Option<Notice>,
    subscribe_action: String,
    portal_action: String,
}

#[derive(Deserialize, Default)]
pub struct BillingQuery {
    checkout: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeForm {
    #[serde(default)]
    price_id: String,
    #[serde(default)]
    seats: String,
}

async fn billing_page(
    state: &AppState,
    desk: &Desk,
    form: Option<&SubscribeForm>,
    checkout: Option<String>,
    notice: Option<Notice>,
) -> Result<BillingPage, Error> {
    let s = domain::status(&state.db, &desk.acting()).await?;
    let sub = s.subscription.as_ref();
    let paid = sub.is_some_and(|x| x.provider_subscription_id.is_some() && x.status.counts());
    let chosen = form.map(|f| f.price_id.as_str());
    let prices = state
        .cfg
        .payments
        .as_ref()
        .map(|p| {
            p.price_ids
                .iter()
                .enumerate()
                .map(|(i, id)| (id.clone(), chosen.map_or(i == 0, |c| c == id)))
                .collect()
        })
        .unwrap_or_default();
    Ok(BillingPage {
        c: Chrome::new(desk, desk.cat.t("bill.title")),
        tabs: tabs(desk, TAB),
        renews: sub
            .and_then(|x| x.current_period_end)
            .map(|t| (desk.time(t), t.0.to_rfc3339())),
        plan: s.plan,
        status: s.status,
        seats_typed: form.map_or_else(|| s.seats.max(s.used).to_string(), |f| f.seats.clone()),
        seats: s.seats,
        used: s.used,
        paid,
        configured: state.cfg.payments.is_some(),
        prices,
        checkout: checkout.filter(|c| c == "success" || c == "cancelled"),
        notice,
        subscribe_action: desk.path("/settings/billing/subscribe"),
        portal_action: desk.path("/settings/billing/portal"),
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<BillingQuery>,
) -> Response {
    match billing_page(&state, &desk, None, q.checkout, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// The page again with why a post failed, at the API's status.
async fn failed(
    state: &AppState,
    desk: &Desk,
    form: Option<&SubscribeForm>,
    e: &Error,
) -> Response {
    match billing_page(state, desk, form, None, Some(Notice::of(e))).await {
        Ok(p) => page_at(desk, status_of(e), &p, TAB),
        Err(e2) => desk.error(&e2),
    }
}

/// Subscribe or change the plan: Checkout opens at the processor, or the live subscription is
/// changed there (its event applies it here).
pub async fn subscribe(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<SubscribeForm>,
) -> Response {
    let done = async {
        let payments = domain::adapter(&state.cfg)?;
        // A seat count that is not a number is out of range, as the API's parse says.
        let seats = f.seats.trim().parse::<i64>().unwrap_or(0);
        let parsed = domain::Subscribe::parse(payments.config(), &f.price_id, seats)?;
        domain::subscribe(
            &state.db,
            &state.cfg,
            &payments,
            &desk.acting(),
            parsed,
            None,
        )
        .await
    }
    .await;
    match done {
        Ok(Subscribed::Checkout { url, .. }) => leave(desk.cat, &url, Some(desk.org())),
        Ok(Subscribed::Updated { .. }) => desk.done(TAB, "bill.updated"),
        Ok(Subscribed::Unchanged { .. }) => desk.done(TAB, "bill.unchanged"),
        Err(e) => failed(&state, &desk, Some(&f), &e).await,
    }
}

/// The customer portal (409 `no_billing_account` before the first checkout, shown on the page).
pub async fn portal(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let url = async {
        let payments = domain::adapter(&state.cfg)?;
        domain::portal(&state.db, &state.cfg, &payments, &desk.acting(), None).await
    }
    .await;
    match url {
        Ok(url) => leave(desk.cat, &url, Some(desk.org())),
        Err(e) => failed(&state, &desk, None, &e).await,
    }
}

/// `GET /billing`: where Checkout and the portal send the browser back (the domain's
/// `success_url`, `cancel_url` and `return_url`): on to this tab of the workspace that left.
pub async fn returned(who: PageUser, headers: HeaderMap, uri: Uri) -> Response {
    let Some(who) = who.0 else {
        return crate::areas::pages::sign_in_first(
            uri.path_and_query().map_or("/billing", |p| p.as_str()),
        );
    };
    back_to_workspace(&headers, &who, TAB, uri.query())
}
