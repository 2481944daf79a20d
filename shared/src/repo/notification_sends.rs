//! Sends: one person's notification to one or more recipients, as the sender sees it (what
//! went out on each channel), and the deliveries of one send per recipient.

use crate::db::{Executor, Id, Ts};
use crate::repo::notifications::{Channel, DeliveryStatus, SkipReason};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct Send {
    pub id: Id,
    pub sender_id: Id,
    pub org_id: Id,
    pub kind: String,
    pub title: String,
    pub recipients: i64,
    pub created_at: Ts,
}

const S_COLUMNS: &str = "id, sender_id, org_id, kind, title, recipients, created_at";

/// Records a send of these notifications (already inserted) by `sender` in `org`.
pub async fn insert(
    x: &mut impl Executor,
    sender: Id,
    org: Id,
    kind: &str,
    title: &str,
    notifications: &[Id],
) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO notification_sends (id, sender_id, org_id, kind, title, recipients, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)")
        .bind(id).bind(sender).bind(org).bind(kind).bind(title).bind(notifications.len() as i64).bind(Ts::now()))?;
    for chunk in notifications.chunks(500) {
        let list = (2..=chunk.len() + 1)
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let q = format!("UPDATE notifications SET send_id = $1 WHERE id IN ({list})");
        execute!(x, {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(q.clone())).bind(id);
            for n in chunk {
                query = query.bind(*n);
            }
            query
        })?;
    }
    Ok(id)
}

/// `sender`'s sends in `org`, newest first.
pub async fn of_sender(
    x: &mut impl Executor,
    sender: Id,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Send>, sqlx::Error> {
    let q = format!(
        "SELECT {S_COLUMNS} FROM notification_sends WHERE sender_id = $1 AND org_id = $2
         ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"
    );
    sql!(x, c => sqlx::query_as::<_, Send>(sqlx::AssertSqlSafe(q)).bind(sender).bind(org)
        .bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn get(x: &mut impl Executor, id: Id) -> Result<Option<Send>, sqlx::Error> {
    let q = format!("SELECT {S_COLUMNS} FROM notification_sends WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, Send>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// How many deliveries of a send are in one state on one channel.
#[derive(Debug, Clone, FromRow)]
pub struct Count {
    pub send_id: Id,
    pub channel: Channel,
    pub status: DeliveryStatus,
    pub skip_reason: Option<SkipReason>,
    pub n: i64,
}

/// Deliveries of these sends counted by channel, status and skip reason.
pub async fn counts(x: &mut impl Executor, sends: &[Id]) -> Result<Vec<Count>, sqlx::Error> {
    if sends.is_empty() {
        return Ok(vec![]);
    }
    let list = (1..=sends.len())
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let q = format!(
        "SELECT n.send_id, d.channel, d.status, d.skip_reason, COUNT(*) AS n
         FROM notifications n JOIN notification_deliveries d ON d.notification_id = n.id
         WHERE n.send_id IN ({list})
         GROUP BY n.send_id, d.channel, d.status, d.skip_reason"
    );
    sql!(x, c => {
        let mut query = sqlx::query_as::<_, Count>(sqlx::AssertSqlSafe(q));
        for id in sends {
            query = query.bind(*id);
        }
        query.fetch_all(&mut *c).await
    })
}

/// One delivery of a send, with its recipient.
#[derive(Debug, Clone, FromRow)]
pub struct RecipientDelivery {
    pub user_id: Id,
    pub name: String,
    pub channel: Channel,
    pub status: DeliveryStatus,
    pub skip_reason: Option<SkipReason>,
    pub attempts: i64,
    pub sent_at: Option<Ts>,
    pub updated_at: Ts,
    pub devices: Option<Json<Value>>,
}

/// A send's deliveries by recipient (name, then id) and channel.
pub async fn deliveries(
    x: &mut impl Executor,
    send: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<RecipientDelivery>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, RecipientDelivery>(
        "SELECT n.user_id, u.name, d.channel, d.status, d.skip_reason, d.attempts, d.sent_at, d.updated_at, d.devices
         FROM notifications n JOIN notification_deliveries d ON d.notification_id = n.id JOIN users u ON u.id = n.user_id
         WHERE n.send_id = $1 ORDER BY u.name, n.user_id, d.channel LIMIT $2 OFFSET $3")
        .bind(send).bind(limit).bind(offset).fetch_all(&mut *c).await)
}
