//! Subscriptions: platform (the workspace pays) and admin grants. The payment webhooks will
//! write the paid ones; grants are written by platform admins.

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
    /// A subscription's state; active, trialing and granted ones count toward the seat cap.
    pub enum SubscriptionStatus {
        Active = "active",
        Trialing = "trialing",
        Granted = "granted",
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
    pub created_at: Ts,
}

const COLUMNS: &str = "id, org_id, kind, status, plan, seats, current_period_end, granted_by, grant_reason, created_at";

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
