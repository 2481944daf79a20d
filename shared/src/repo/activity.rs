//! Client activity events (page views, actions) that the admin Live page reads.

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

#[derive(Debug, Clone, FromRow)]
pub struct Event {
    pub id: Id,
    pub user_id: Option<Id>,
    pub org_id: Option<Id>,
    pub kind: String,
    pub path: Option<String>,
    pub data: Json<Value>,
    pub created_at: Ts,
}

pub async fn insert(
    x: &mut impl Executor,
    user: Id,
    org: Option<Id>,
    kind: &str,
    path: Option<&str>,
    data: &Value,
    at: Ts,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO activity_events (id, user_id, org_id, kind, path, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)")
        .bind(Id::new()).bind(user).bind(org).bind(kind).bind(path).bind(Json(data)).bind(at))?;
    Ok(())
}

pub async fn list(
    x: &mut impl Executor,
    user: Option<Id>,
    org: Option<Id>,
    kind: Option<&str>,
    since: Option<Ts>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Event>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Event>(
        "SELECT id, user_id, org_id, kind, path, data, created_at FROM activity_events
         WHERE ($1 IS NULL OR user_id = $1) AND ($2 IS NULL OR org_id = $2) AND ($3 IS NULL OR kind = $3) AND ($4 IS NULL OR created_at >= $4)
         ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6")
        .bind(user).bind(org).bind(kind).bind(since).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// (events, distinct users) since `since`.
pub async fn counts_since(x: &mut impl Executor, since: Ts) -> Result<(i64, i64), sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, (i64, i64)>(
        "SELECT COUNT(*), COUNT(DISTINCT user_id) FROM activity_events WHERE created_at >= $1")
        .bind(since).fetch_one(&mut *c).await)
}
