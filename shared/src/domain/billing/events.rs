//! The payment webhook: [`verify`] checks a delivery and builds its row (no database);
//! [`store`] stores its event once and enqueues its job in the same transaction, and
//! [`EventStore`] group-commits concurrent deliveries' stores into one transaction on SQLite
//! ([`store_batch`]), so the acknowledgement costs one signature check and a share of one
//! commit; [`apply`] (the `payments.apply_event` job) re-reads the event's object from the
//! provider and applies what it says now.
//!
//! Order: events arrive late, twice and out of order, so an event's payload is used only to
//! find its object. Each application takes a ticket for the object before re-reading it and
//! applies the re-read only if no later ticket's re-read was applied already; the last ticket
//! re-read after the last change, so the stored state converges on the provider's.

use super::jobs::ApplyPaymentEvent;
use crate::config::PaymentsConfig;
use crate::db::group_commit::GroupCommit;
use crate::db::{Db, Id, Ts, Tx};
use crate::job::{Owner, enqueue};
use crate::providers::payments::{self, CheckoutSession, Payments, Subscription};
use crate::providers::webhooks::WebhookError;
use crate::repo::billing::{self, Access, AccessStatus, EventStatus, PaymentEvent};
use crate::repo::subscriptions::{self, ProviderState, SubscriptionStatus};
use crate::repo::{athletes, audit, orgs};
use crate::{Error, ErrorKind, Result};
use serde_json::json;
use sqlx::types::Json;

/// The provider object an event is about, found from the payload's ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Subscription(String),
    CheckoutSession(String),
    Account(String),
}

impl Target {
    fn kind(&self) -> &'static str {
        match self {
            Target::Subscription(_) => "subscription",
            Target::CheckoutSession(_) => "checkout.session",
            Target::Account(_) => "account",
        }
    }
    fn id(&self) -> &str {
        match self {
            Target::Subscription(id) | Target::CheckoutSession(id) | Target::Account(id) => id,
        }
    }
}

/// The object to re-read for an event we act on; `None` for every other type (acknowledged
/// and ignored).
pub fn target(e: &payments::Event) -> Option<Target> {
    let o = &e.object;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    match e.event_type.as_str() {
        "customer.subscription.created"
        | "customer.subscription.updated"
        | "customer.subscription.deleted"
        | "customer.subscription.paused"
        | "customer.subscription.resumed" => Some(Target::Subscription(e.object_id.clone())),
        "invoice.paid" | "invoice.payment_failed" => text(&o["subscription"])
            .or_else(|| text(&o["parent"]["subscription_details"]["subscription"]))
            .map(Target::Subscription),
        "checkout.session.completed" | "checkout.session.async_payment_succeeded" => {
            match (o["mode"].as_str(), text(&o["subscription"])) {
                (Some("subscription"), Some(sub)) => Some(Target::Subscription(sub)),
                _ => Some(Target::CheckoutSession(e.object_id.clone())),
            }
        }
        "account.updated" => Some(Target::Account(e.object_id.clone())),
        _ => None,
    }
}

/// What the webhook answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received {
    /// The event id was stored before: nothing was stored or enqueued now.
    pub duplicate: bool,
    /// A type we do not act on.
    pub ignored: bool,
}

/// A delivery that passed every check, with the row to store for it.
#[derive(Debug, Clone)]
pub struct Verified {
    row: PaymentEvent,
    /// A type we act on: its `payments.apply_event` job is enqueued with the row.
    act: bool,
}

impl Verified {
    /// The provider's event id (what deliveries are deduplicated by).
    pub fn event_id(&self) -> &str {
        &self.row.id
    }
}

/// Verifies one delivery and builds its row, touching no database. Unsigned, stale, future or
/// forged: 401 with the failed check's code; no secret configured: 503; the other mode's
/// event: 400 `livemode_mismatch`. Nothing is stored unless every check passed: only a
/// [`Verified`] can be stored.
pub fn verify(
    cfg: &PaymentsConfig,
    signature: Option<&str>,
    body: &[u8],
    now_unix: i64,
) -> Result<Verified> {
    let secrets: Vec<String> = cfg
        .webhook_secrets
        .iter()
        .map(|s| s.expose().clone())
        .collect();
    payments::verify_signature(&secrets, signature, body, now_unix).map_err(|e| match e {
        WebhookError::NotConfigured => Error::provider_not_configured("payments webhook"),
        e => Error::new(ErrorKind::Unauthenticated, e.code(), e.to_string()),
    })?;
    let ev =
        payments::parse_event(body).map_err(|e| Error::bad_request(e.code(), e.to_string()))?;
    if ev.livemode != cfg.livemode {
        return Err(Error::bad_request(
            "livemode_mismatch",
            format!(
                "a {} event sent to a {} endpoint",
                if ev.livemode { "live" } else { "test" },
                if cfg.livemode { "live" } else { "test" }
            ),
        ));
    }
    let target = target(&ev);
    let row = PaymentEvent {
        id: ev.id.clone(),
        event_type: ev.event_type.clone(),
        object_type: target
            .as_ref()
            .map_or(ev.object_type.clone(), |t| t.kind().to_string()),
        object_id: target
            .as_ref()
            .map_or(ev.object_id.clone(), |t| t.id().to_string()),
        livemode: ev.livemode,
        provider_created: ev.created,
        payload: Json(serde_json::from_slice(body).unwrap_or_default()),
        status: if target.is_some() {
            EventStatus::Pending
        } else {
            EventStatus::Ignored
        },
        note: target.is_none().then(|| "not a type we act on".to_string()),
        received_at: Ts::now(),
        processed_at: None,
    };
    Ok(Verified {
        row,
        act: target.is_some(),
    })
}

/// Stores a verified delivery's event once and enqueues its job, in one transaction of its
/// own. A stored id (an earlier delivery, or a concurrent twin that committed first) is a
/// duplicate: nothing is written.
pub async fn store(db: &Db, v: &Verified) -> Result<Received> {
    let mut tx = db.begin().await?;
    let r = store_in(&mut tx, v).await?;
    tx.commit().await?;
    Ok(r)
}

/// Stores `v` in the caller's transaction.
async fn store_in(tx: &mut Tx, v: &Verified) -> Result<Received> {
    let stored = billing::insert_event(tx, &v.row).await?;
    if stored && v.act {
        let job = ApplyPaymentEvent {
            event_id: v.row.id.clone(),
        };
        enqueue(tx, &job, Owner::default()).await?;
    }
    Ok(Received {
        duplicate: !stored,
        ignored: !v.act,
    })
}

/// Stores a batch of verified deliveries, answering each in order: all in ONE transaction
/// (on SQLite one turn at the write gate); if anything in it fails, the batch is rolled back and
/// each item is stored in a transaction of its own, so one bad item fails alone. Items are
/// written in event-id order, so two processes' batches take the id index's locks in the same
/// order (no deadlock on PostgreSQL); twins inside one batch find the first one's row (the
/// same transaction sees it) and answer duplicate.
pub async fn store_batch(db: &Db, items: &[Verified]) -> Vec<Result<Received>> {
    let n = items.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| items[a].row.id.cmp(&items[b].row.id));
    let mut tx = match db.begin().await {
        Ok(tx) => tx,
        // The database's failure, not an item's: one transaction per item would only wait
        // for it n times.
        Err(e) => {
            let e = Error::from(e);
            return (0..n).map(|_| Err(same_error(&e))).collect();
        }
    };
    let mut answers: Vec<Option<Received>> = vec![None; n];
    let mut failure = None;
    for &i in &order {
        match store_in(&mut tx, &items[i]).await {
            Ok(r) => answers[i] = Some(r),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let failure = match failure {
        None => match tx.commit().await {
            Ok(()) => {
                return answers
                    .into_iter()
                    .map(|a| Ok(a.expect("every item of a committed batch answered")))
                    .collect();
            }
            Err(e) => Error::from(e),
        },
        Some(e) => {
            // Rolled back before the write gate is let go (see `Tx::rollback`).
            let _ = tx.rollback().await;
            e
        }
    };
    tracing::warn!(error = %failure, items = n, "payment events: batch failed; storing one by one");
    let mut out: Vec<Option<Result<Received>>> = (0..n).map(|_| None).collect();
    for (k, &i) in order.iter().enumerate() {
        let mut tx = match db.begin().await {
            Ok(tx) => tx,
            Err(e) => {
                let e = Error::from(e);
                for &j in &order[k..] {
                    out[j] = Some(Err(same_error(&e)));
                }
                break;
            }
        };
        let r = match store_in(&mut tx, &items[i]).await {
            Ok(r) => tx.commit().await.map(|()| r).map_err(Error::from),
            Err(e) => {
                let _ = tx.rollback().await;
                Err(e)
            }
        };
        out[i] = Some(r);
    }
    out.into_iter()
        .map(|a| a.expect("every item answered"))
        .collect()
}

/// The same answer again, for each item of a batch the database refused as a whole.
fn same_error(e: &Error) -> Error {
    Error {
        kind: e.kind,
        code: e.code,
        message: e.message.clone(),
        details: e.details.clone(),
        retry_after_secs: e.retry_after_secs,
        source: e.source.as_ref().map(|s| anyhow::anyhow!("{s:#}")),
    }
}

/// Most deliveries one transaction stores.
const MAX_BATCH: usize = 64;

/// Where the webhook stores verified deliveries: one per process, in the api's state.
#[derive(Clone)]
pub enum EventStore {
    /// Group commit: concurrent deliveries share a transaction ([`store_batch`]); each caller
    /// is answered once its own row and job are committed. The service's store on SQLite.
    GroupCommit(GroupCommit<Verified, Result<Received>>),
    /// One transaction per delivery ([`store`]): the service's store on PostgreSQL, where
    /// concurrent transactions run side by side (one flushing task serialising them was slower
    /// there, `scripts/bench-webhook`).
    OnePerDelivery(Db),
}

impl EventStore {
    /// Starts the group commit's flushing task (on the current tokio runtime).
    pub fn group_commit(db: Db) -> Self {
        EventStore::GroupCommit(GroupCommit::spawn(
            MAX_BATCH,
            move |items: Vec<Verified>| {
                let db = db.clone();
                async move { Ok(store_batch(&db, &items).await) }
            },
        ))
    }

    pub fn one_per_delivery(db: Db) -> Self {
        EventStore::OnePerDelivery(db)
    }

    /// Stores `v` (see [`store`]); returns once its row and job are committed.
    pub async fn store(&self, v: Verified) -> Result<Received> {
        match self {
            EventStore::GroupCommit(gc) => gc.call(v).await?,
            EventStore::OnePerDelivery(db) => store(db, &v).await,
        }
    }
}

/// What applying an event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Applied (the note says what changed, or that nothing did).
    Done(String),
    /// A later re-read of the same object was applied already.
    Superseded,
    /// The event is unknown or no longer pending (a job run twice).
    AlreadyDone,
}

/// Applies stored event `event_id` (the `payments.apply_event` job). A provider failure is
/// returned as is (the job retries it with a new ticket).
pub async fn apply(db: &Db, payments: &Payments, event_id: &str) -> Result<Applied> {
    let ev = match billing::event(&mut db.acquire().await?, event_id).await? {
        Some(e) if e.status == EventStatus::Pending => e,
        _ => return Ok(Applied::AlreadyDone),
    };
    let object = ev.object_id.clone();
    let ticket = {
        let mut tx = db.begin().await?;
        let t = billing::take_ticket(&mut tx, &object).await?;
        tx.commit().await?;
        t
    };
    enum Read {
        Subscription(Option<Subscription>),
        Checkout(Option<CheckoutSession>),
        Account(Option<payments::Account>),
    }
    let read = match ev.object_type.as_str() {
        "subscription" => Read::Subscription(payments.subscription(&object).await?),
        "checkout.session" => Read::Checkout(payments.checkout_session(&object).await?),
        "account" => Read::Account(payments.account(&object).await?),
        other => {
            let mut tx = db.begin().await?;
            billing::finish_event(
                &mut tx,
                &ev.id,
                EventStatus::Ignored,
                &format!("unknown object type {other}"),
            )
            .await?;
            tx.commit().await?;
            return Ok(Applied::Done("ignored".into()));
        }
    };
    let mut tx = db.begin().await?;
    if billing::lock_object(&mut tx, &object).await? > ticket {
        billing::finish_event(
            &mut tx,
            &ev.id,
            EventStatus::Applied,
            "superseded by a later re-read",
        )
        .await?;
        tx.commit().await?;
        return Ok(Applied::Superseded);
    }
    let note = match read {
        Read::Subscription(s) => apply_subscription(&mut tx, &ev, &object, s.as_ref()).await?,
        Read::Checkout(s) => apply_checkout(&mut tx, &ev, &object, s.as_ref()).await?,
        Read::Account(a) => apply_account(&mut tx, &object, a.as_ref()).await?,
    };
    billing::set_applied(&mut tx, &object, ticket).await?;
    if !billing::finish_event(&mut tx, &ev.id, EventStatus::Applied, &note).await? {
        // Another run of this job got there first: leave its work as it is.
        drop(tx);
        return Ok(Applied::AlreadyDone);
    }
    tx.commit().await?;
    Ok(Applied::Done(note))
}

fn meta_id(m: &std::collections::BTreeMap<String, String>, k: &str) -> Option<Id> {
    m.get(k).and_then(|v| v.parse().ok())
}

fn entry<'a>(
    org: Id,
    action: &'a str,
    target_type: &'a str,
    target: &str,
    data: serde_json::Value,
) -> crate::repo::audit::Entry<'a> {
    crate::repo::audit::Entry {
        org_id: Some(org),
        actor: None,
        impersonator: None,
        action,
        target_type,
        target_id: Some(target.to_string()),
        data,
    }
}

/// Applies a re-read subscription (`None`: the provider no longer has it, so it has ended).
async fn apply_subscription(
    tx: &mut Tx,
    ev: &PaymentEvent,
    id: &str,
    sub: Option<&Subscription>,
) -> Result<String> {
    let kind = sub.and_then(|s| s.metadata.get("kind").cloned());
    let platform = subscriptions::by_provider_id(tx, id).await?;
    let is_platform = kind.as_deref() == Some("platform") || (sub.is_none() && platform.is_some());
    if is_platform {
        return apply_platform(tx, ev, id, sub, platform).await;
    }
    if kind.as_deref() == Some("marketplace") || sub.is_none() {
        let period_end = sub.and_then(|s| s.period_end()).and_then(unix_ts);
        let active =
            sub.is_some_and(|s| matches!(s.status.as_str(), "active" | "trialing" | "past_due"));
        return apply_access(tx, ev, id, sub.map(|s| &s.metadata), active, period_end).await;
    }
    Ok("not one of our subscriptions".into())
}

fn unix_ts(t: i64) -> Option<Ts> {
    chrono::DateTime::from_timestamp(t, 0).map(Ts::from_datetime)
}

async fn apply_platform(
    tx: &mut Tx,
    ev: &PaymentEvent,
    id: &str,
    sub: Option<&Subscription>,
    before: Option<subscriptions::Subscription>,
) -> Result<String> {
    let Some(s) = sub else {
        let before = before.expect("a platform row when the subscription is gone");
        if before.status == SubscriptionStatus::Canceled {
            return Ok("gone; already canceled".into());
        }
        subscriptions::set_provider_status(tx, id, SubscriptionStatus::Canceled).await?;
        let plan = subscriptions::refresh_org_plan(tx, before.org_id).await?;
        audit::record(
            tx,
            entry(
                before.org_id,
                "billing.subscription_changed",
                "subscription",
                id,
                json!({ "status": "canceled", "plan": plan, "event": ev.id, "reason": "gone at the provider" }),
            ),
        )
        .await?;
        return Ok("gone at the provider: canceled".into());
    };
    let mut org = meta_id(&s.metadata, "org_id");
    if org.is_none() {
        org = billing::org_of_customer(tx, &s.customer).await?;
    }
    let org = match org {
        Some(o) if orgs::by_id(tx, o).await?.is_some() => o,
        _ => return Ok("no such workspace".into()),
    };
    let Some(item) = s.item() else {
        return Ok("a subscription without items".into());
    };
    let status = SubscriptionStatus::parse(&s.status).unwrap_or(SubscriptionStatus::Incomplete);
    let state = ProviderState {
        status,
        plan: item.price.plan_name(),
        seats: item.quantity.unwrap_or(1).max(1),
        price_id: item.price.id.clone(),
        customer: s.customer.clone(),
        current_period_end: s.period_end().and_then(unix_ts),
    };
    let unchanged = before.as_ref().is_some_and(|b| {
        b.status == state.status
            && b.plan == state.plan
            && b.seats == state.seats
            && b.price_id.as_deref() == Some(state.price_id.as_str())
            && b.current_period_end == state.current_period_end
    });
    if unchanged {
        return Ok("no change".into());
    }
    subscriptions::upsert_provider(tx, org, id, &state).await?;
    billing::insert_customer(tx, Some(org), None, &state.customer).await?;
    let plan = subscriptions::refresh_org_plan(tx, org).await?;
    let seat_cap = {
        let o = orgs::by_id(tx, org)
            .await?
            .ok_or_else(|| Error::not_found("workspace"))?;
        orgs::seat_cap(tx, &o).await?
    };
    audit::record(
        tx,
        entry(
            org,
            "billing.subscription_changed",
            "subscription",
            id,
            json!({ "status": state.status, "plan": plan, "seats": state.seats, "seatCap": seat_cap, "event": ev.id }),
        ),
    )
    .await?;
    Ok(format!("{} with {} seats", state.status, state.seats))
}

/// Grants or ends a student's access paid through provider object `provider_ref`.
async fn apply_access(
    tx: &mut Tx,
    ev: &PaymentEvent,
    provider_ref: &str,
    meta: Option<&std::collections::BTreeMap<String, String>>,
    active: bool,
    period_end: Option<Ts>,
) -> Result<String> {
    let before = billing::access_by_ref(tx, provider_ref).await?;
    let status = if active {
        AccessStatus::Active
    } else {
        AccessStatus::Ended
    };
    let now = Ts::now();
    let row = match (&before, meta) {
        (Some(b), _) => Access {
            status,
            current_period_end: period_end,
            updated_at: now,
            ..b.clone()
        },
        (None, Some(m)) => {
            let (Some(offering), Some(athlete)) =
                (meta_id(m, "offering_id"), meta_id(m, "athlete_id"))
            else {
                return Ok("no offering in the metadata".into());
            };
            let Some(o) = billing::offering(tx, offering).await? else {
                return Ok("no such offering".into());
            };
            if athletes::get(tx, o.org_id, athlete).await?.is_none() {
                return Ok("no such athlete".into());
            }
            if !active {
                return Ok("never active: nothing to grant".into());
            }
            Access {
                id: Id::new(),
                org_id: o.org_id,
                offering_id: o.id,
                athlete_id: athlete,
                payer_user_id: meta_id(m, "payer_user_id"),
                status,
                provider_ref: provider_ref.to_string(),
                current_period_end: period_end,
                created_at: now,
                updated_at: now,
            }
        }
        (None, None) => return Ok("unknown and gone: nothing to end".into()),
    };
    if before
        .as_ref()
        .is_some_and(|b| b.status == row.status && b.current_period_end == row.current_period_end)
    {
        return Ok("no change".into());
    }
    billing::upsert_access(tx, &row).await?;
    if before.as_ref().map(|b| b.status) != Some(row.status) {
        let action = if active {
            "payments.access_granted"
        } else {
            "payments.access_ended"
        };
        audit::record(
            tx,
            entry(
                row.org_id,
                action,
                "offering_access",
                &row.id.to_string(),
                json!({ "offeringId": row.offering_id, "athleteId": row.athlete_id, "providerRef": provider_ref, "event": ev.id }),
            ),
        )
        .await?;
    }
    Ok(format!("access {}", row.status))
}

/// A one-off marketplace payment: access once the re-read session is complete and paid.
async fn apply_checkout(
    tx: &mut Tx,
    ev: &PaymentEvent,
    id: &str,
    session: Option<&CheckoutSession>,
) -> Result<String> {
    let Some(s) = session else {
        return Ok("gone at the provider".into());
    };
    if s.metadata.get("kind").map(String::as_str) != Some("marketplace") || s.mode != "payment" {
        return Ok("not one of our one-off payments".into());
    }
    let paid =
        s.status.as_deref() == Some("complete") && s.payment_status.as_deref() == Some("paid");
    if !paid {
        return Ok("not paid yet".into());
    }
    apply_access(tx, ev, id, Some(&s.metadata), true, None).await
}

/// A coach's account: its onboarding state as re-read.
async fn apply_account(
    tx: &mut Tx,
    id: &str,
    account: Option<&payments::Account>,
) -> Result<String> {
    let Some(a) = account else {
        return Ok("gone at the provider".into());
    };
    match billing::update_payout_account(
        tx,
        id,
        a.charges_enabled,
        a.payouts_enabled,
        a.details_submitted,
    )
    .await?
    {
        None => Ok("no coach has this account".into()),
        Some(before) => {
            if before.charges_enabled != a.charges_enabled
                || before.payouts_enabled != a.payouts_enabled
            {
                audit::record(
                    tx,
                    entry(
                        before.org_id,
                        "payments.payout_account_updated",
                        "payout_account",
                        id,
                        json!({ "chargesEnabled": a.charges_enabled, "payoutsEnabled": a.payouts_enabled, "coach": before.user_id }),
                    ),
                )
                .await?;
            }
            Ok(format!("charges enabled: {}", a.charges_enabled))
        }
    }
}
