//! Subscriptions: platform (the workspace pays) and admin grants. The payment webhook's events
//! write the paid ones (one row per provider subscription, `docs/billing.md`); grants are
//! written by platform admins.

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use sqlx::FromRow;

crate::text_enum! {
    /// Who a subscription is with: the platform (the workspace pays the platform or an admin
    /// granted it).
    pub enum SubscriptionKind {
        Platform = "platform",
    }
}

crate::text_enum! {
    /// A subscription's state: the provider's subscription statuses, and `granted` for admin
    /// grants. Active, trialing, past-due (the provider still retries the payment) and granted
    /// ones count toward the seat cap ([`COUNTING`]).
    pub enum SubscriptionStatus {
        Active = "active",
        Trialing = "trialing",
        Granted = "granted",
        PastDue = "past_due",
        Incomplete = "incomplete",
        IncompleteExpired = "incomplete_expired",
        Unpaid = "unpaid",
        Paused = "paused",
        Canceled = "canceled",
    }
}

/// The statuses that give a workspace its plan and seats.
pub const COUNTING: [SubscriptionStatus; 4] = [
    SubscriptionStatus::Active,
    SubscriptionStatus::Trialing,
    SubscriptionStatus::PastDue,
    SubscriptionStatus::Granted,
];

impl SubscriptionStatus {
    pub fn counts(self) -> bool {
        COUNTING.contains(&self)
    }
}

#[derive(Debug, Clone, FromRow)]
pub struct Subscription {
    pub id: Id,
    pub org_id: Id,
    pub kind: SubscriptionKind,
    pub status: SubscriptionStatus,
    pub plan: String,
    pub seats: i64,
    pub current_period_end: Option<Ts>,
    pub granted_by: Option<Id>,
    pub grant_reason: Option<String>,
    pub provider_customer_id: Option<String>,
    pub provider_subscription_id: Option<String>,
    pub price_id: Option<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str = "id, org_id, kind, status, plan, seats, current_period_end, granted_by, grant_reason, provider_customer_id, provider_subscription_id, price_id, created_at, updated_at";

pub async fn grant(
    x: &mut impl Executor,
    org: Id,
    plan: &str,
    seats: i64,
    until: Option<Ts>,
    by: Id,
    reason: &str,
) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    let now = Ts::now();
    execute!(x, sqlx::query(
        "INSERT INTO subscriptions (id, org_id, kind, status, plan, seats, current_period_end, granted_by, grant_reason, created_at, updated_at)
         VALUES ($1, $2, $9, $10, $3, $4, $5, $6, $7, $8, $8)")
        .bind(id).bind(org).bind(plan).bind(seats).bind(until).bind(by).bind(reason).bind(now)
        .bind(SubscriptionKind::Platform).bind(SubscriptionStatus::Granted))?;
    execute!(
        x,
        sqlx::query("UPDATE orgs SET plan = $2, updated_at = $3 WHERE id = $1")
            .bind(org)
            .bind(plan)
            .bind(now)
    )?;
    Ok(id)
}

pub async fn list(
    x: &mut impl Executor,
    org: Option<Id>,
    status: Option<SubscriptionStatus>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Subscription>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM subscriptions WHERE ($1 IS NULL OR org_id = $1) AND ($2 IS NULL OR status = $2)
        ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4");
    sql!(x, c => sqlx::query_as::<_, Subscription>(sqlx::AssertSqlSafe(q)).bind(org).bind(status).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// A subscription with its workspace's name and the name of the admin who granted it (the
/// console's list).
#[derive(Debug, Clone, FromRow)]
pub struct SubscriptionRow {
    #[sqlx(flatten)]
    pub sub: Subscription,
    pub org_name: String,
    pub granted_by_name: Option<String>,
}

/// [`list`] with names, the same filters and order.
pub async fn list_rows(
    x: &mut impl Executor,
    org: Option<Id>,
    status: Option<SubscriptionStatus>,
    limit: i64,
    offset: i64,
) -> Result<Vec<SubscriptionRow>, sqlx::Error> {
    let q = "SELECT s.id, s.org_id, s.kind, s.status, s.plan, s.seats, s.current_period_end, s.granted_by,
            s.grant_reason, s.provider_customer_id, s.provider_subscription_id, s.price_id, s.created_at,
            s.updated_at, o.name AS org_name, u.name AS granted_by_name
        FROM subscriptions s JOIN orgs o ON o.id = s.org_id LEFT JOIN users u ON u.id = s.granted_by
        WHERE ($1 IS NULL OR s.org_id = $1) AND ($2 IS NULL OR s.status = $2)
        ORDER BY s.created_at DESC, s.id DESC LIMIT $3 OFFSET $4";
    sql!(x, c => sqlx::query_as::<_, SubscriptionRow>(q).bind(org).bind(status).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// A provider subscription's state as re-read from the provider.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderState {
    pub status: SubscriptionStatus,
    pub plan: String,
    pub seats: i64,
    pub price_id: String,
    pub customer: String,
    pub current_period_end: Option<Ts>,
}

/// The row of provider subscription `id`.
pub async fn by_provider_id(
    x: &mut impl Executor,
    id: &str,
) -> Result<Option<Subscription>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM subscriptions WHERE provider_subscription_id = $1");
    sql!(x, c => sqlx::query_as::<_, Subscription>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// The workspace's provider subscription that still gives it a plan (active, trialing, past
/// due), newest first.
pub async fn live_provider(
    x: &mut impl Executor,
    org: Id,
) -> Result<Option<Subscription>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM subscriptions WHERE org_id = $1 AND provider_subscription_id IS NOT NULL
        AND status IN ($2, $3, $4) ORDER BY created_at DESC, id DESC LIMIT 1");
    sql!(x, c => sqlx::query_as::<_, Subscription>(sqlx::AssertSqlSafe(q)).bind(org)
        .bind(SubscriptionStatus::Active).bind(SubscriptionStatus::Trialing).bind(SubscriptionStatus::PastDue)
        .fetch_optional(&mut *c).await)
}

/// The workspace's newest subscription of any kind and status (what its members see).
pub async fn latest(x: &mut impl Executor, org: Id) -> Result<Option<Subscription>, sqlx::Error> {
    Ok(list(x, Some(org), None, 1, 0).await?.into_iter().next())
}

/// Inserts or updates the row of provider subscription `provider_id` of `org`.
pub async fn upsert_provider(
    x: &mut impl Executor,
    org: Id,
    provider_id: &str,
    s: &ProviderState,
) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "INSERT INTO subscriptions (id, org_id, kind, status, plan, seats, provider_customer_id, provider_subscription_id,
            price_id, current_period_end, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
         ON CONFLICT (provider_subscription_id) DO UPDATE SET status = excluded.status, plan = excluded.plan,
            seats = excluded.seats, provider_customer_id = excluded.provider_customer_id, price_id = excluded.price_id,
            current_period_end = excluded.current_period_end, updated_at = excluded.updated_at")
        .bind(Id::new()).bind(org).bind(SubscriptionKind::Platform).bind(s.status).bind(&s.plan).bind(s.seats)
        .bind(&s.customer).bind(provider_id).bind(&s.price_id).bind(s.current_period_end).bind(now))?;
    Ok(())
}

/// Sets the status of provider subscription `provider_id` (the provider no longer has it).
pub async fn set_provider_status(
    x: &mut impl Executor,
    provider_id: &str,
    status: SubscriptionStatus,
) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query("UPDATE subscriptions SET status = $2, updated_at = $3 WHERE provider_subscription_id = $1")
        .bind(provider_id).bind(status).bind(Ts::now()))
}

/// Sets the workspace's plan from its counting subscriptions and grants (the one with the most
/// seats), `free` when none counts; returns the plan.
pub async fn refresh_org_plan(x: &mut impl Executor, org: Id) -> Result<String, sqlx::Error> {
    let now = Ts::now();
    let plan: Option<String> = sql!(x, c => sqlx::query_scalar(
        "SELECT plan FROM subscriptions WHERE org_id = $1 AND status IN ($3, $4, $5, $6)
           AND (provider_subscription_id IS NOT NULL OR current_period_end IS NULL OR current_period_end > $2)
         ORDER BY seats DESC, created_at DESC LIMIT 1")
        .bind(org).bind(now).bind(COUNTING[0]).bind(COUNTING[1]).bind(COUNTING[2]).bind(COUNTING[3])
        .fetch_optional(&mut *c).await)?;
    let plan = plan.unwrap_or_else(|| "free".to_string());
    execute!(
        x,
        sqlx::query("UPDATE orgs SET plan = $2, updated_at = $3 WHERE id = $1")
            .bind(org)
            .bind(&plan)
            .bind(now)
    )?;
    Ok(plan)
}
