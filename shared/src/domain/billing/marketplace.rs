//! The marketplace: a coach (a member who may work with athletes, `athletes.update`, as in the
//! coach directory) connects a payout account and sells offerings; a student, or a guardian for
//! a minor, pays through a Checkout Session as a destination charge with the platform's
//! application fee. Access is granted and ended by the webhook's events only (`events`).

use super::{open_portal, pair, provider_key};
use crate::authz::Module;
use crate::config::Config;
use crate::db::{Db, Id, Ts};
use crate::domain::{Actor, InWorkspace};
use crate::error::Validator;
use crate::providers::payments::Payments;
use crate::repo::billing::{self, Access, Offering, OfferingInterval, PayoutAccount};
use crate::repo::{athletes, audit, orgs, users};
use crate::{Error, Result};
use serde_json::json;

/// A coach's payout account and the link that continues its onboarding.
#[derive(Debug, Clone)]
pub struct Connected {
    pub account: PayoutAccount,
    /// Short-lived; a login to the provider's onboarding: returned, never logged.
    pub onboarding_url: String,
}

/// Creates the coach's payout account once (by idempotency key, so a retry or a double click
/// makes one), then an onboarding link.
pub async fn connect(
    db: &Db,
    cfg: &Config,
    payments: &Payments,
    ws: &InWorkspace,
    client: Option<&str>,
) -> Result<Connected> {
    let user = ws.actor.user_id;
    let existing = billing::payout_account(&mut db.acquire().await?, ws.org_id, user).await?;
    let account = match existing {
        Some(a) => a,
        None => {
            let form = vec![
                pair("type", "express"),
                pair("metadata[org_id]", ws.org_id),
                pair("metadata[user_id]", user),
            ];
            let created = payments
                .create_account(&form, &format!("account:{}:{user}", ws.org_id))
                .await?;
            let mut tx = db.begin().await?;
            billing::insert_payout_account(&mut tx, ws.org_id, user, &created.id).await?;
            let row = billing::payout_account(&mut tx, ws.org_id, user)
                .await?
                .ok_or_else(|| Error::internal(anyhow::anyhow!("payout account vanished")))?;
            audit::record(
                &mut tx,
                ws.audit(
                    "payments.payout_account_created",
                    "payout_account",
                    &row.provider_account_id,
                    json!({}),
                ),
            )
            .await?;
            tx.commit().await?;
            row
        }
    };
    let refresh = cfg.public_url("/payments/connect?refresh=1");
    let back = cfg.public_url("/payments/connect?done=1");
    // A link is single-use: a new one per request unless the client retries with its key.
    let nonce = Id::new().to_string();
    let form = vec![
        pair("account", &account.provider_account_id),
        pair("nonce", client.map_or(nonce.as_str(), |_| "")),
    ];
    let key = provider_key("account_link", ws.org_id, client, &form);
    let link = payments
        .create_account_link(&account.provider_account_id, &refresh, &back, &key)
        .await?;
    Ok(Connected {
        account,
        onboarding_url: link.url,
    })
}

/// The acting coach's payout account in this workspace, if connected (what their page shows).
pub async fn payout_account(db: &Db, ws: &InWorkspace) -> Result<Option<PayoutAccount>> {
    let mut c = db.acquire().await?;
    Ok(billing::payout_account(&mut c, ws.org_id, ws.actor.user_id).await?)
}

/// A new offering, parsed.
#[derive(Debug, Clone)]
pub struct NewOffering {
    pub name: String,
    pub amount: i64,
    pub currency: String,
    pub interval: OfferingInterval,
}

impl NewOffering {
    pub fn parse(name: &str, amount: i64, currency: &str, interval: &str) -> Result<NewOffering> {
        let mut v = Validator::new();
        let name = v.text("name", name, 120);
        v.check(
            (100..=10_000_000).contains(&amount),
            "amount",
            "out_of_range",
            "in minor units, between 100 and 10000000",
        );
        let currency = currency.trim().to_lowercase();
        v.check(
            currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_lowercase()),
            "currency",
            "invalid",
            "a three-letter ISO 4217 code",
        );
        let interval = v.choice_of::<OfferingInterval>("interval", interval);
        v.finish()?;
        Ok(NewOffering {
            name,
            amount,
            currency,
            interval: interval.expect("checked by finish"),
        })
    }
}

/// The caller offers something for sale in this workspace.
pub async fn create_offering(db: &Db, ws: &InWorkspace, new: NewOffering) -> Result<Offering> {
    let now = Ts::now();
    let o = Offering {
        id: Id::new(),
        org_id: ws.org_id,
        coach_user_id: ws.actor.user_id,
        name: new.name,
        amount: new.amount,
        currency: new.currency,
        interval: new.interval,
        active: true,
        created_at: now,
        updated_at: now,
    };
    let mut tx = db.begin().await?;
    billing::insert_offering(&mut tx, &o).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "payments.offering_created",
            "offering",
            o.id,
            json!({ "name": o.name, "amount": o.amount, "currency": o.currency, "interval": o.interval }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(o)
}

pub async fn offerings(
    db: &Db,
    ws: &InWorkspace,
    limit: i64,
    offset: i64,
) -> Result<Vec<Offering>> {
    let mut c = db.acquire().await?;
    Ok(billing::offerings(&mut c, ws.org_id, limit, offset).await?)
}

/// Who pays: the athlete's own login (an adult) or one of the athlete's guardians.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payer {
    Athlete,
    Guardian,
}

/// A started marketplace checkout.
#[derive(Debug, Clone)]
pub struct Checkout {
    pub session_id: String,
    pub url: String,
    pub payer: Payer,
}

/// A student (or a minor's guardian) pays a coach for `offering` on behalf of `athlete`: a
/// destination charge to the coach's account with the platform's fee (`application_fee_amount`
/// once, `application_fee_percent` monthly). Another workspace's offering or an athlete the
/// caller neither is nor guards: 404.
pub async fn checkout(
    db: &Db,
    cfg: &Config,
    payments: &Payments,
    actor: &Actor,
    offering_id: Id,
    athlete_id: Id,
    client: Option<&str>,
) -> Result<Checkout> {
    let user = actor.user_id;
    let (offering, payer, account, payer_email) = {
        let mut c = db.acquire().await?;
        let offering = billing::offering(&mut c, offering_id)
            .await?
            .filter(|o| o.active)
            .ok_or_else(|| Error::not_found("offering"))?;
        let athlete = athletes::get(&mut c, offering.org_id, athlete_id)
            .await?
            .ok_or_else(|| Error::not_found("athlete"))?;
        let guardian = athletes::guardians(&mut c, athlete.id)
            .await?
            .iter()
            .any(|g| g.user_id == user);
        let payer = if guardian {
            Payer::Guardian
        } else if athlete.user_id == Some(user) {
            if crate::minors::is_minor(athlete.birth_date) {
                return Err(Error::forbidden(
                    "guardian_required",
                    "a minor's guardian pays for them",
                ));
            }
            Payer::Athlete
        } else {
            return Err(Error::not_found("athlete"));
        };
        let org = orgs::by_id(&mut c, offering.org_id)
            .await?
            .ok_or_else(|| Error::not_found("offering"))?;
        if org
            .disabled_modules
            .0
            .iter()
            .any(|m| m == Module::Billing.key())
        {
            return Err(Error::forbidden(
                "module_disabled",
                "payments are switched off in this workspace",
            ));
        }
        if billing::has_access(&mut c, offering.id, athlete.id).await? {
            return Err(Error::conflict(
                "already_paid",
                "this athlete already has access to this offering",
            ));
        }
        let account = billing::payout_account(&mut c, offering.org_id, offering.coach_user_id)
            .await?
            .filter(|a| a.charges_enabled)
            .ok_or_else(|| {
                Error::conflict(
                    "payouts_not_ready",
                    "the coach has not finished connecting a payout account",
                )
            })?;
        let email = users::by_id(&mut c, user).await?.map(|u| u.email);
        (offering, payer, account, email)
    };
    let customer = user_customer(db, payments, user, payer_email.as_deref()).await?;
    let fee_percent = cfg
        .payments
        .as_ref()
        .map_or(0, |p| p.application_fee_percent);
    let dest = account.provider_account_id.clone();
    let mut form = vec![
        pair("customer", &customer),
        pair("client_reference_id", athlete_id),
        pair("line_items[0][quantity]", 1),
        pair("line_items[0][price_data][currency]", &offering.currency),
        pair("line_items[0][price_data][unit_amount]", offering.amount),
        pair(
            "line_items[0][price_data][product_data][name]",
            &offering.name,
        ),
        pair(
            "success_url",
            cfg.public_url("/payments?checkout=success&session_id={CHECKOUT_SESSION_ID}"),
        ),
        pair("cancel_url", cfg.public_url("/payments?checkout=cancelled")),
    ];
    let meta = [
        ("kind", "marketplace".to_string()),
        ("offering_id", offering.id.to_string()),
        ("athlete_id", athlete_id.to_string()),
        ("payer_user_id", user.to_string()),
    ];
    for (k, v) in &meta {
        form.push(pair(&format!("metadata[{k}]"), v));
    }
    match offering.interval {
        OfferingInterval::OneOff => {
            let fee = offering.amount * i64::from(fee_percent) / 100;
            form.push(pair("mode", "payment"));
            form.push(pair("payment_intent_data[application_fee_amount]", fee));
            form.push(pair(
                "payment_intent_data[transfer_data][destination]",
                &dest,
            ));
        }
        OfferingInterval::Monthly => {
            form.push(pair("mode", "subscription"));
            form.push(pair(
                "line_items[0][price_data][recurring][interval]",
                "month",
            ));
            form.push(pair(
                "subscription_data[application_fee_percent]",
                fee_percent,
            ));
            form.push(pair("subscription_data[transfer_data][destination]", &dest));
            for (k, v) in &meta {
                form.push(pair(&format!("subscription_data[metadata][{k}]"), v));
            }
        }
    }
    let key = provider_key("marketplace_checkout", user, client, &form);
    let session = payments.create_checkout_session(&form, &key).await?;
    let url = session
        .url
        .clone()
        .ok_or_else(|| Error::provider_failed("payments", "the checkout session has no URL"))?;
    let mut tx = db.begin().await?;
    audit::record(
        &mut tx,
        actor.audit(
            Some(offering.org_id),
            "payments.checkout_started",
            "checkout_session",
            Some(session.id.clone()),
            json!({ "offeringId": offering.id, "athleteId": athlete_id, "payer": match payer { Payer::Athlete => "athlete", Payer::Guardian => "guardian" } }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(Checkout {
        session_id: session.id,
        url,
        payer,
    })
}

async fn user_customer(
    db: &Db,
    payments: &Payments,
    user: Id,
    email: Option<&str>,
) -> Result<String> {
    if let Some(c) = billing::user_customer(&mut db.acquire().await?, user).await? {
        return Ok(c);
    }
    let mut form = vec![pair("metadata[user_id]", user)];
    if let Some(e) = email {
        form.push(pair("email", e));
    }
    let created = payments
        .create_customer(&form, &format!("customer:user:{user}"))
        .await?;
    let mut tx = db.begin().await?;
    billing::insert_customer(&mut tx, None, Some(user), &created.id).await?;
    let id = billing::user_customer(&mut tx, user)
        .await?
        .unwrap_or(created.id);
    tx.commit().await?;
    Ok(id)
}

/// The payer's customer portal (their subscriptions to coaches; 409 `no_billing_account`
/// before their first checkout).
pub async fn portal(
    db: &Db,
    cfg: &Config,
    payments: &Payments,
    actor: &Actor,
    client: Option<&str>,
) -> Result<String> {
    let customer = billing::user_customer(&mut db.acquire().await?, actor.user_id)
        .await?
        .ok_or_else(|| Error::conflict("no_billing_account", "you have not paid a coach yet"))?;
    let url = open_portal(
        payments,
        actor.user_id,
        &customer,
        &cfg.public_url("/payments"),
        client,
    )
    .await?;
    let mut tx = db.begin().await?;
    audit::record(
        &mut tx,
        actor.audit(
            None,
            "payments.portal_opened",
            "customer",
            Some(customer),
            json!({}),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(url)
}

/// What the caller paid for, or was paid for (as the athlete).
pub async fn my_access(db: &Db, actor: &Actor, limit: i64, offset: i64) -> Result<Vec<Access>> {
    let mut c = db.acquire().await?;
    Ok(billing::access_of_user(&mut c, actor.user_id, limit, offset).await?)
}

/// Offerings shown per athlete on the payer's page.
pub const PAYABLE_SHOWN: i64 = 50;

/// An athlete `actor` may pay for (they are the athlete, an adult, or one of the athlete's
/// guardians), with their workspace's active offerings.
pub struct Payable {
    pub athlete: athletes::Linked,
    pub offerings: Vec<Offering>,
}

/// What `actor` may pay coaches for: as [`checkout`] decides who pays (a minor's own login
/// does not; workspaces with payments switched off are left out), each athlete with the
/// workspace's active offerings (at most [`PAYABLE_SHOWN`], newest first).
pub async fn payable(db: &Db, actor: &Actor) -> Result<Vec<Payable>> {
    let mut c = db.acquire().await?;
    let mut out = vec![];
    for l in athletes::linked_to_user(&mut c, actor.user_id).await? {
        let own = l.athlete.user_id == Some(actor.user_id) && l.relationship.is_none();
        if own && crate::minors::is_minor(l.athlete.birth_date) {
            continue;
        }
        let Some(org) = orgs::by_id(&mut c, l.athlete.org_id).await? else {
            continue;
        };
        if org
            .disabled_modules
            .0
            .iter()
            .any(|m| m == Module::Billing.key())
        {
            continue;
        }
        let mut offerings = billing::offerings(&mut c, org.id, PAYABLE_SHOWN, 0).await?;
        offerings.retain(|o| o.active);
        out.push(Payable {
            athlete: l,
            offerings,
        });
    }
    Ok(out)
}

/// A page of [`my_access`] with each access's offering (gone offerings: `None`).
pub async fn my_access_with_offerings(
    db: &Db,
    actor: &Actor,
    limit: i64,
    offset: i64,
) -> Result<Vec<(Access, Option<Offering>)>> {
    let rows = my_access(db, actor, limit, offset).await?;
    let mut c = db.acquire().await?;
    let mut out = Vec::with_capacity(rows.len());
    for a in rows {
        let o = billing::offering(&mut c, a.offering_id).await?;
        out.push((a, o));
    }
    Ok(out)
}
