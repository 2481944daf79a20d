//! Billing rows (`docs/billing.md`): the provider's customers of workspaces and payers, coaches'
//! payout accounts, offerings and students' access to them, the webhook's events and the
//! per-object tickets that order their re-reads. Platform subscriptions are in
//! `repo::subscriptions`.

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

crate::text_enum! {
    /// How often a student pays for an offering.
    pub enum OfferingInterval {
        OneOff = "one_off",
        Monthly = "monthly",
    }
}

crate::text_enum! {
    /// Whether a student may use an offering they (or their guardian) paid for.
    pub enum AccessStatus {
        Active = "active",
        Ended = "ended",
    }
}

crate::text_enum! {
    /// What became of a stored webhook event.
    pub enum EventStatus {
        /// Waiting for its job.
        Pending = "pending",
        /// Its object was re-read and applied (or a later re-read already was).
        Applied = "applied",
        /// A type we do not act on: acknowledged and kept for the record.
        Ignored = "ignored",
    }
}

// ---- customers ----

/// The provider customer of workspace `org` (platform billing).
pub async fn org_customer(x: &mut impl Executor, org: Id) -> Result<Option<String>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar("SELECT provider_customer_id FROM billing_customers WHERE org_id = $1")
        .bind(org).fetch_optional(&mut *c).await)
}

/// The provider customer of user `user` (a payer in the marketplace).
pub async fn user_customer(x: &mut impl Executor, user: Id) -> Result<Option<String>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar("SELECT provider_customer_id FROM billing_customers WHERE user_id = $1")
        .bind(user).fetch_optional(&mut *c).await)
}

/// Records a customer of a workspace or a user; a concurrent twin's row wins (the provider
/// returned the same customer to both, by idempotency key).
pub async fn insert_customer(
    x: &mut impl Executor,
    org: Option<Id>,
    user: Option<Id>,
    provider_id: &str,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO billing_customers (id, org_id, user_id, provider_customer_id, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING")
        .bind(Id::new()).bind(org).bind(user).bind(provider_id).bind(Ts::now()))?;
    Ok(())
}

/// The workspace whose customer `provider_id` is.
pub async fn org_of_customer(
    x: &mut impl Executor,
    provider_id: &str,
) -> Result<Option<Id>, sqlx::Error> {
    let v: Option<Option<Id>> = sql!(x, c => sqlx::query_scalar(
        "SELECT org_id FROM billing_customers WHERE provider_customer_id = $1")
        .bind(provider_id).fetch_optional(&mut *c).await)?;
    Ok(v.flatten())
}

// ---- payout accounts ----

#[derive(Debug, Clone, FromRow)]
pub struct PayoutAccount {
    pub id: Id,
    pub org_id: Id,
    pub user_id: Id,
    pub provider_account_id: String,
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
    pub details_submitted: bool,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const ACCOUNT_COLUMNS: &str = "id, org_id, user_id, provider_account_id, charges_enabled, payouts_enabled, details_submitted, created_at, updated_at";

pub async fn payout_account(
    x: &mut impl Executor,
    org: Id,
    user: Id,
) -> Result<Option<PayoutAccount>, sqlx::Error> {
    let q =
        format!("SELECT {ACCOUNT_COLUMNS} FROM payout_accounts WHERE org_id = $1 AND user_id = $2");
    sql!(x, c => sqlx::query_as::<_, PayoutAccount>(sqlx::AssertSqlSafe(q)).bind(org).bind(user).fetch_optional(&mut *c).await)
}

/// Records a coach's new account (not yet able to take charges); a concurrent twin's row wins.
pub async fn insert_payout_account(
    x: &mut impl Executor,
    org: Id,
    user: Id,
    provider_id: &str,
) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "INSERT INTO payout_accounts (id, org_id, user_id, provider_account_id, charges_enabled, payouts_enabled, details_submitted, created_at, updated_at)
         VALUES ($1, $2, $3, $4, FALSE, FALSE, FALSE, $5, $5) ON CONFLICT DO NOTHING")
        .bind(Id::new()).bind(org).bind(user).bind(provider_id).bind(now))?;
    Ok(())
}

/// Sets an account's onboarding state as re-read from the provider; returns the row before,
/// `None` when no coach has that account.
pub async fn update_payout_account(
    x: &mut impl Executor,
    provider_id: &str,
    charges: bool,
    payouts: bool,
    details: bool,
) -> Result<Option<PayoutAccount>, sqlx::Error> {
    let q = format!("SELECT {ACCOUNT_COLUMNS} FROM payout_accounts WHERE provider_account_id = $1");
    let before = sql!(x, c => sqlx::query_as::<_, PayoutAccount>(sqlx::AssertSqlSafe(q)).bind(provider_id).fetch_optional(&mut *c).await)?;
    if before.is_some() {
        execute!(x, sqlx::query(
            "UPDATE payout_accounts SET charges_enabled = $2, payouts_enabled = $3, details_submitted = $4, updated_at = $5
             WHERE provider_account_id = $1")
            .bind(provider_id).bind(charges).bind(payouts).bind(details).bind(Ts::now()))?;
    }
    Ok(before)
}

// ---- offerings ----

#[derive(Debug, Clone, FromRow)]
pub struct Offering {
    pub id: Id,
    pub org_id: Id,
    pub coach_user_id: Id,
    pub name: String,
    pub amount: i64,
    pub currency: String,
    #[sqlx(rename = "billing_interval")]
    pub interval: OfferingInterval,
    pub active: bool,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const OFFERING_COLUMNS: &str = "id, org_id, coach_user_id, name, amount, currency, billing_interval, active, created_at, updated_at";

pub async fn insert_offering(x: &mut impl Executor, o: &Offering) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO offerings (id, org_id, coach_user_id, name, amount, currency, billing_interval, active, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
        .bind(o.id).bind(o.org_id).bind(o.coach_user_id).bind(&o.name).bind(o.amount).bind(&o.currency)
        .bind(o.interval).bind(o.active).bind(o.created_at).bind(o.updated_at))?;
    Ok(())
}

/// An offering by id, in any workspace (a student is not a member).
pub async fn offering(x: &mut impl Executor, id: Id) -> Result<Option<Offering>, sqlx::Error> {
    let q = format!("SELECT {OFFERING_COLUMNS} FROM offerings WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, Offering>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

pub async fn offerings(
    x: &mut impl Executor,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Offering>, sqlx::Error> {
    let q = format!(
        "SELECT {OFFERING_COLUMNS} FROM offerings WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
    );
    sql!(x, c => sqlx::query_as::<_, Offering>(sqlx::AssertSqlSafe(q)).bind(org).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

// ---- access ----

#[derive(Debug, Clone, FromRow)]
pub struct Access {
    pub id: Id,
    pub org_id: Id,
    pub offering_id: Id,
    pub athlete_id: Id,
    pub payer_user_id: Option<Id>,
    pub status: AccessStatus,
    pub provider_ref: String,
    pub current_period_end: Option<Ts>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const ACCESS_COLUMNS: &str = "id, org_id, offering_id, athlete_id, payer_user_id, status, provider_ref, current_period_end, created_at, updated_at";

/// Whether the athlete has active access to the offering.
pub async fn has_access(
    x: &mut impl Executor,
    offering: Id,
    athlete: Id,
) -> Result<bool, sqlx::Error> {
    let n: i64 = sql!(x, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM offering_access WHERE offering_id = $1 AND athlete_id = $2 AND status = $3")
        .bind(offering).bind(athlete).bind(AccessStatus::Active).fetch_one(&mut *c).await)?;
    Ok(n > 0)
}

/// The access row paid through provider object `provider_ref` (a subscription or a checkout
/// session).
pub async fn access_by_ref(
    x: &mut impl Executor,
    provider_ref: &str,
) -> Result<Option<Access>, sqlx::Error> {
    let q = format!("SELECT {ACCESS_COLUMNS} FROM offering_access WHERE provider_ref = $1");
    sql!(x, c => sqlx::query_as::<_, Access>(sqlx::AssertSqlSafe(q)).bind(provider_ref).fetch_optional(&mut *c).await)
}

/// Inserts or updates the access row of `a.provider_ref`.
pub async fn upsert_access(x: &mut impl Executor, a: &Access) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO offering_access (id, org_id, offering_id, athlete_id, payer_user_id, status, provider_ref, current_period_end, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (provider_ref) DO UPDATE SET status = excluded.status, current_period_end = excluded.current_period_end,
            updated_at = excluded.updated_at")
        .bind(a.id).bind(a.org_id).bind(a.offering_id).bind(a.athlete_id).bind(a.payer_user_id).bind(a.status)
        .bind(&a.provider_ref).bind(a.current_period_end).bind(a.created_at).bind(a.updated_at))?;
    Ok(())
}

/// Access rows where `user` paid or is the athlete's login, newest first.
pub async fn access_of_user(
    x: &mut impl Executor,
    user: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Access>, sqlx::Error> {
    let q = format!(
        "SELECT {ACCESS_COLUMNS} FROM offering_access WHERE payer_user_id = $1
           OR athlete_id IN (SELECT id FROM athletes WHERE user_id = $1)
         ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
    );
    sql!(x, c => sqlx::query_as::<_, Access>(sqlx::AssertSqlSafe(q)).bind(user).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

// ---- webhook events ----

#[derive(Debug, Clone, FromRow)]
pub struct PaymentEvent {
    pub id: String,
    #[sqlx(rename = "type")]
    pub event_type: String,
    pub object_type: String,
    pub object_id: String,
    pub livemode: bool,
    pub provider_created: i64,
    pub payload: Json<Value>,
    pub status: EventStatus,
    pub note: Option<String>,
    pub received_at: Ts,
    pub processed_at: Option<Ts>,
}

const EVENT_COLUMNS: &str = "id, type, object_type, object_id, livemode, provider_created, payload, status, note, received_at, processed_at";

/// Stores an event unless its id is already stored; returns whether this call stored it. Two
/// concurrent deliveries of one event store it once (the primary key decides).
pub async fn insert_event(x: &mut impl Executor, e: &PaymentEvent) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "INSERT INTO payment_events (id, type, object_type, object_id, livemode, provider_created, payload, status, note, received_at, processed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING")
        .bind(&e.id).bind(&e.event_type).bind(&e.object_type).bind(&e.object_id).bind(e.livemode)
        .bind(e.provider_created).bind(&e.payload).bind(e.status).bind(&e.note).bind(e.received_at).bind(e.processed_at))?;
    Ok(n == 1)
}

pub async fn event(x: &mut impl Executor, id: &str) -> Result<Option<PaymentEvent>, sqlx::Error> {
    let q = format!("SELECT {EVENT_COLUMNS} FROM payment_events WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, PaymentEvent>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// Closes a pending event with what became of it; false when it was no longer pending.
pub async fn finish_event(
    x: &mut impl Executor,
    id: &str,
    status: EventStatus,
    note: &str,
) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "UPDATE payment_events SET status = $2, note = $3, processed_at = $4 WHERE id = $1 AND status = $5")
        .bind(id).bind(status).bind(note).bind(Ts::now()).bind(EventStatus::Pending))?;
    Ok(n == 1)
}

// ---- per-object tickets ----

/// Takes the next ticket of provider object `object` (committed before the object is re-read).
pub async fn take_ticket(x: &mut impl Executor, object: &str) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "INSERT INTO payment_objects (object_id, ticket, applied_ticket, updated_at) VALUES ($1, 1, 0, $2)
         ON CONFLICT (object_id) DO UPDATE SET ticket = payment_objects.ticket + 1, updated_at = excluded.updated_at
         RETURNING ticket")
        .bind(object).bind(Ts::now()).fetch_one(&mut *c).await)
}

/// Locks the object's row for the rest of the transaction and returns the ticket whose re-read
/// was applied last.
pub async fn lock_object(x: &mut impl Executor, object: &str) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "UPDATE payment_objects SET updated_at = $2 WHERE object_id = $1 RETURNING applied_ticket")
        .bind(object).bind(Ts::now()).fetch_one(&mut *c).await)
}

pub async fn set_applied(
    x: &mut impl Executor,
    object: &str,
    ticket: i64,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE payment_objects SET applied_ticket = $2 WHERE object_id = $1")
            .bind(object)
            .bind(ticket)
    )?;
    Ok(())
}
