//! `/me/payments`: a student's (an adult athlete's) or a guardian's payments to coaches
//! (issue 39): for each athlete they may pay for, the workspace's offerings with a Pay button
//! (Checkout at the processor, as `POST /api/payments/checkout`), what they paid for (as
//! `GET /api/payments/access`), and the processor's customer portal to manage it (as
//! `POST /api/payments/portal`). `GET /payments` is where Checkout and the portal return.

use super::leave::leave;
use super::lessons::price;
use super::{Chrome, DeskForm, Empty, Me, Pager, Seat, status_of};
use crate::areas::pages::{Notice, PageUser, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::db::Id;
use shared::domain::billing::{self as billing, marketplace};
use shared::repo::billing::{AccessStatus, OfferingInterval};

const PAGE: i64 = 25;

pub struct OfferingRow {
    pub id: String,
    pub name: String,
    pub price: String,
    pub monthly: bool,
}

pub struct AthleteBlock {
    pub id: String,
    pub name: String,
    pub org: String,
    pub guardian: bool,
    pub offerings: Vec<OfferingRow>,
}

pub struct PaidRow {
    pub name: String,
    pub price: String,
    pub active: bool,
    pub until: Option<String>,
    pub since: String,
}

#[derive(Template)]
#[template(path = "desk/billing/payments.html")]
pub struct PaymentsPage {
    c: Chrome,
    configured: bool,
    /// `success` or `cancelled`: back from Checkout.
    checkout: Option<&'static str>,
    athletes: Vec<AthleteBlock>,
    paid: Vec<PaidRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
    /// A fresh idempotency key per rendering: a resent form starts no second Checkout.
    client: String,
}

#[derive(Deserialize, Default)]
pub struct PaymentsQuery {
    offset: Option<i64>,
    checkout: Option<String>,
}

async fn payments_page(
    state: &AppState,
    me: &Me,
    offset: i64,
    checkout: Option<&'static str>,
    notice: Option<Notice>,
) -> Result<PaymentsPage, Error> {
    let actor = me.actor();
    let athletes = marketplace::payable(&state.db, &actor)
        .await?
        .into_iter()
        .map(|p| AthleteBlock {
            id: p.athlete.athlete.id.to_string(),
            name: format!(
                "{} {}",
                p.athlete.athlete.first_name, p.athlete.athlete.last_name
            ),
            org: p.athlete.org_name,
            guardian: p.athlete.athlete.user_id != Some(actor.user_id),
            offerings: p
                .offerings
                .into_iter()
                .map(|o| OfferingRow {
                    id: o.id.to_string(),
                    price: price(o.amount, &o.currency),
                    monthly: o.interval == OfferingInterval::Monthly,
                    name: o.name,
                })
                .collect(),
        })
        .collect();
    let mut paid =
        marketplace::my_access_with_offerings(&state.db, &actor, PAGE + 1, offset).await?;
    let pager = Pager::cut(&mut paid, offset, PAGE);
    let paid = paid
        .into_iter()
        .map(|(a, o)| PaidRow {
            name: o.as_ref().map_or_else(|| "—".into(), |o| o.name.clone()),
            price: o
                .as_ref()
                .map_or_else(String::new, |o| price(o.amount, &o.currency)),
            active: a.status == AccessStatus::Active,
            until: a.current_period_end.map(|t| me.time(t)),
            since: me.time(a.created_at),
        })
        .collect();
    let link = |o: i64| me.path(&format!("/payments?offset={o}"));
    Ok(PaymentsPage {
        c: me.chrome(me.cat.t("pay.title").into()),
        configured: state.cfg.payments.is_some(),
        checkout,
        athletes,
        paid,
        prev_href: pager.prev.map(link),
        next_href: pager.next.map(link),
        notice,
        client: Id::new().to_string(),
    })
}

/// `GET /me/payments`.
pub async fn show(
    State(state): State<AppState>,
    me: Me,
    Query(q): Query<PaymentsQuery>,
) -> Response {
    let checkout = match q.checkout.as_deref() {
        Some("success") => Some("success"),
        Some("cancelled") => Some("cancelled"),
        _ => None,
    };
    let offset = q.offset.unwrap_or(0).max(0);
    match payments_page(&state, &me, offset, checkout, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => me.error(&e),
    }
}

/// The page again with what went wrong, at the error's status.
async fn refused(state: &AppState, me: &Me, e: &Error) -> Response {
    match payments_page(state, me, 0, None, Some(Notice::of(e))).await {
        Ok(p) => page(status_of(e), &p),
        Err(e2) => me.error(&e2),
    }
}

#[derive(Deserialize)]
pub struct PayForm {
    offering: Id,
    athlete: Id,
    #[serde(default)]
    client: String,
}

/// Pay an offering for an athlete: on to Checkout at the processor.
pub async fn pay(
    State(state): State<AppState>,
    me: Me,
    DeskForm(f): DeskForm<PayForm>,
) -> Response {
    let started = async {
        let payments = billing::adapter(&state.cfg)?;
        let key = billing::client_key(Some(f.client.as_str()).filter(|k| !k.is_empty()))?;
        marketplace::checkout(
            &state.db,
            &state.cfg,
            &payments,
            &me.actor(),
            f.offering,
            f.athlete,
            key.as_deref(),
        )
        .await
    }
    .await;
    match started {
        Ok(c) => leave(me.cat, &c.url, None),
        Err(e) => refused(&state, &me, &e).await,
    }
}

/// Manage my payments at the processor's customer portal.
pub async fn portal(
    State(state): State<AppState>,
    me: Me,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let opened = async {
        let payments = billing::adapter(&state.cfg)?;
        marketplace::portal(&state.db, &state.cfg, &payments, &me.actor(), None).await
    }
    .await;
    match opened {
        Ok(url) => leave(me.cat, &url, None),
        Err(e) => refused(&state, &me, &e).await,
    }
}

/// `GET /payments`: where Checkout (`?checkout=success|cancelled`) and the portal return: on
/// to the payments page, with what happened.
pub async fn returned(who: PageUser, uri: Uri) -> Response {
    let here = uri.path_and_query().map_or("/payments", |p| p.as_str());
    if who.0.is_none() {
        return crate::areas::pages::sign_in_first(here);
    }
    let q = uri.query().unwrap_or("");
    let checkout = if q.contains("checkout=success") {
        "?checkout=success"
    } else if q.contains("checkout=cancelled") {
        "?checkout=cancelled"
    } else {
        ""
    };
    crate::areas::pages::see_other(
        &format!("/me/payments{checkout}"),
        axum::http::HeaderMap::new(),
    )
}
