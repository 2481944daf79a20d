//! Billing (issue 13, `docs/billing.md`): the platform subscription a workspace pays
//! (`subscribe`, `portal`, `status`, here), the marketplace where a student or a minor's
//! guardian pays a coach (`marketplace`), and the payment webhook (`events`: stored and
//! acknowledged at once, applied by the `payments.apply_event` job).
//!
//! Nothing is granted from a redirect or a request: plans, seats and access change only when an
//! event's object, re-read from the provider, says so. Every create sent to the provider carries
//! an idempotency key ([`provider_key`]), so a retried request never makes a second session.

pub mod events;
pub mod jobs;
pub mod marketplace;

use crate::authz::Perm;
use crate::config::{Config, PaymentsConfig};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::Validator;
use crate::providers::payments::{Form, Payments};
use crate::repo::subscriptions::{self, Subscription};
use crate::repo::{audit, billing, invites, orgs};
use crate::{Error, Result};
use serde_json::json;

/// The payments adapter, or 503 `provider_not_configured`.
pub fn adapter(cfg: &Config) -> Result<Payments> {
    Ok(Payments::from_config(
        cfg.payments.as_ref(),
        crate::providers::http::shared_client().clone(),
    )?)
}

/// A client's `Idempotency-Key` header: at most 255 visible ASCII characters.
pub fn client_key(raw: Option<&str>) -> Result<Option<String>> {
    match raw {
        None => Ok(None),
        Some(k) if !k.is_empty() && k.len() <= 255 && k.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(k.to_string()))
        }
        Some(_) => Err(Error::field(
            "Idempotency-Key",
            "invalid",
            "1 to 255 visible ASCII characters",
        )),
    }
}

/// The `Idempotency-Key` sent to the provider for a create: the purpose and scope, and a digest
/// of the parameters with the client's own key, or with today's date when the client sent none
/// (the same request repeated on the same day replays the first session instead of opening a
/// second one; a changed request is a new key, never the provider's "same key, other
/// parameters" error).
pub fn provider_key(purpose: &str, scope: Id, client: Option<&str>, params: &Form) -> String {
    let day = Ts::now().0.date_naive().to_string();
    let mut text = client.map_or_else(|| format!("day:{day}"), |k| format!("client:{k}"));
    for (k, v) in params {
        text.push('\n');
        text.push_str(k);
        text.push('=');
        text.push_str(v);
    }
    format!(
        "{purpose}:{scope}:{}",
        crate::crypto::sha256_b64url(text.as_bytes())
    )
}

fn pair(k: &str, v: impl ToString) -> (String, String) {
    (k.to_string(), v.to_string())
}

/// What every member sees of the workspace's billing.
#[derive(Debug, Clone)]
pub struct Status {
    pub plan: String,
    /// The newest subscription's status (`granted` for a grant), `free` without one.
    pub status: String,
    pub seats: i64,
    pub used: i64,
    pub subscription: Option<Subscription>,
    /// Whether the caller may subscribe and open the portal (`billing.manage`).
    pub can_manage: bool,
}

pub async fn status(db: &Db, ws: &InWorkspace) -> Result<Status> {
    let mut c = db.acquire().await?;
    let org = orgs::by_id(&mut c, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let seats = orgs::seat_cap(&mut c, &org).await?;
    let used =
        orgs::count_members(&mut c, org.id).await? + invites::count_pending(&mut c, org.id).await?;
    let subscription = subscriptions::latest(&mut c, org.id).await?;
    Ok(Status {
        plan: org.plan,
        status: subscription
            .as_ref()
            .map_or_else(|| "free".to_string(), |s| s.status.to_string()),
        seats,
        used,
        subscription,
        can_manage: ws.can(Perm::BillingManage),
    })
}

/// A subscription request, parsed: a configured platform price and a seat count.
#[derive(Debug, Clone)]
pub struct Subscribe {
    pub price_id: String,
    pub seats: i64,
}

impl Subscribe {
    pub fn parse(cfg: &PaymentsConfig, price_id: &str, seats: i64) -> Result<Subscribe> {
        let mut v = Validator::new();
        let price_id = price_id.trim().to_string();
        v.check(
            cfg.price_ids.contains(&price_id),
            "priceId",
            "invalid_choice",
            "not one of the platform's prices",
        );
        v.check(
            (1..=10_000).contains(&seats),
            "seats",
            "out_of_range",
            "between 1 and 10000",
        );
        v.finish()?;
        Ok(Subscribe { price_id, seats })
    }
}

/// What a subscription request did.
#[derive(Debug, Clone, PartialEq)]
pub enum Subscribed {
    /// No live subscription: pay through this Checkout Session.
    Checkout { session_id: String, url: String },
    /// The live subscription was changed in place (plan or seats); the webhook applies it.
    Updated { subscription_id: String },
    /// The live subscription already has this price and seat count.
    Unchanged { subscription_id: String },
}

/// Starts or modifies the workspace's platform subscription: monthly prices only (400
/// `price_not_monthly`), a live subscription is changed in place, never duplicated.
pub async fn subscribe(
    db: &Db,
    cfg: &Config,
    payments: &Payments,
    ws: &InWorkspace,
    req: Subscribe,
    client: Option<&str>,
) -> Result<Subscribed> {
    let price = payments
        .price(&req.price_id)
        .await?
        .filter(|p| p.active)
        .ok_or_else(|| {
            Error::bad_request("price_unavailable", "the provider has no such active price")
        })?;
    if !price.is_monthly() {
        return Err(Error::bad_request(
            "price_not_monthly",
            "the platform subscription is billed monthly only",
        )
        .with_details(json!({ "priceId": price.id, "recurring": price.recurring.as_ref().map(|r| json!({"interval": r.interval, "intervalCount": r.interval_count})) })));
    }
    let (org, live) = {
        let mut c = db.acquire().await?;
        let org = orgs::by_id(&mut c, ws.org_id)
            .await?
            .ok_or_else(|| Error::not_found("workspace"))?;
        (org, subscriptions::live_provider(&mut c, ws.org_id).await?)
    };
    // A live subscription is changed, not duplicated (re-read: the provider is the truth).
    if let Some(row) = live.and_then(|s| s.provider_subscription_id)
        && let Some(sub) = payments.subscription(&row).await?
        && matches!(sub.status.as_str(), "active" | "trialing" | "past_due")
        && let Some(item) = sub.item()
    {
        if item.price.id == req.price_id && item.quantity == Some(req.seats) {
            return Ok(Subscribed::Unchanged {
                subscription_id: sub.id,
            });
        }
        let form = vec![
            pair("items[0][id]", &item.id),
            pair("items[0][price]", &req.price_id),
            pair("items[0][quantity]", req.seats),
            pair("proration_behavior", "create_prorations"),
            pair("metadata[kind]", "platform"),
            pair("metadata[org_id]", org.id),
        ];
        let key = provider_key("subscription_update", org.id, client, &form);
        let updated = payments.update_subscription(&sub.id, &form, &key).await?;
        let mut tx = db.begin().await?;
        audit::record(
            &mut tx,
            ws.audit(
                "billing.subscription_change_requested",
                "subscription",
                &updated.id,
                json!({ "priceId": req.price_id, "seats": req.seats, "plan": price.plan_name() }),
            ),
        )
        .await?;
        tx.commit().await?;
        return Ok(Subscribed::Updated {
            subscription_id: updated.id,
        });
    }
    let customer = org_customer(db, payments, org.id, &org.name).await?;
    let form = vec![
        pair("mode", "subscription"),
        pair("customer", &customer),
        pair("client_reference_id", org.id),
        pair("line_items[0][price]", &req.price_id),
        pair("line_items[0][quantity]", req.seats),
        pair(
            "success_url",
            cfg.public_url("/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}"),
        ),
        pair("cancel_url", cfg.public_url("/billing?checkout=cancelled")),
        pair("metadata[kind]", "platform"),
        pair("metadata[org_id]", org.id),
        pair("subscription_data[metadata][kind]", "platform"),
        pair("subscription_data[metadata][org_id]", org.id),
    ];
    let key = provider_key("subscribe", org.id, client, &form);
    let session = payments.create_checkout_session(&form, &key).await?;
    let url = session
        .url
        .clone()
        .ok_or_else(|| Error::provider_failed("payments", "the checkout session has no URL"))?;
    let mut tx = db.begin().await?;
    audit::record(
        &mut tx,
        ws.audit(
            "billing.checkout_started",
            "checkout_session",
            &session.id,
            json!({ "priceId": req.price_id, "seats": req.seats, "plan": price.plan_name() }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(Subscribed::Checkout {
        session_id: session.id,
        url,
    })
}

/// The provider customer of a workspace, created once (by idempotency key, so two concurrent
/// first subscriptions get the same customer).
async fn org_customer(db: &Db, payments: &Payments, org: Id, name: &str) -> Result<String> {
    if let Some(c) = billing::org_customer(&mut db.acquire().await?, org).await? {
        return Ok(c);
    }
    let form = vec![pair("name", name), pair("metadata[org_id]", org)];
    let created = payments
        .create_customer(&form, &format!("customer:org:{org}"))
        .await?;
    let mut tx = db.begin().await?;
    billing::insert_customer(&mut tx, Some(org), None, &created.id).await?;
    let id = billing::org_customer(&mut tx, org)
        .await?
        .unwrap_or(created.id);
    tx.commit().await?;
    Ok(id)
}

/// A customer portal session for the workspace (409 `no_billing_account` before its first
/// checkout). The URL is a login: it is returned, never logged.
pub async fn portal(
    db: &Db,
    cfg: &Config,
    payments: &Payments,
    ws: &InWorkspace,
    client: Option<&str>,
) -> Result<String> {
    let customer = billing::org_customer(&mut db.acquire().await?, ws.org_id)
        .await?
        .ok_or_else(|| {
            Error::conflict(
                "no_billing_account",
                "this workspace has not subscribed yet",
            )
        })?;
    let return_url = cfg.public_url("/billing");
    let session = open_portal(payments, ws.org_id, &customer, &return_url, client).await?;
    let mut tx = db.begin().await?;
    audit::record(
        &mut tx,
        ws.audit("billing.portal_opened", "customer", &customer, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(session)
}

/// A portal session; without a client key each call opens a fresh one (they are short-lived),
/// keyed by the minute so a retried request in flight replays.
async fn open_portal(
    payments: &Payments,
    scope: Id,
    customer: &str,
    return_url: &str,
    client: Option<&str>,
) -> Result<String> {
    let minute = Ts::now().0.timestamp() / 60;
    let form = vec![
        pair("customer", customer),
        pair("return_url", return_url),
        pair("minute", minute),
    ];
    let key = provider_key("portal", scope, client, &form);
    Ok(payments
        .create_portal_session(customer, return_url, &key)
        .await?
        .url)
}
