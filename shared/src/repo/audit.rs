use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::types::Json;

/// One audit entry. `actor` is who acted; during impersonation `impersonator` is the admin
/// behind it. Entries are never updated or deleted by the service.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub org_id: Option<Id>,
    pub actor: Option<Id>,
    pub impersonator: Option<Id>,
    pub action: &'a str,
    pub target_type: &'a str,
    pub target_id: Option<String>,
    pub data: Value,
}

pub async fn record(x: &mut impl Executor, e: Entry<'_>) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO audit_log (id, org_id, actor_user_id, impersonator_user_id, action, target_type, target_id, data, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
        .bind(id).bind(e.org_id).bind(e.actor).bind(e.impersonator).bind(e.action)
        .bind(e.target_type).bind(&e.target_id).bind(Json(&e.data)).bind(Ts::now()))?;
    Ok(id)
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Row {
    pub id: Id,
    pub org_id: Option<Id>,
    pub actor_user_id: Option<Id>,
    pub impersonator_user_id: Option<Id>,
    pub action: String,
    pub target_type: String,
    pub target_id: Option<String>,
    pub data: Json<Value>,
    pub created_at: Ts,
}

pub async fn for_org(
    x: &mut impl Executor,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Row>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Row>(
        "SELECT id, org_id, actor_user_id, impersonator_user_id, action, target_type, target_id, data, created_at
         FROM audit_log WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3")
        .bind(org).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn by_actor_action(
    x: &mut impl Executor,
    actor: Id,
    action: &str,
) -> Result<Vec<Row>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Row>(
        "SELECT id, org_id, actor_user_id, impersonator_user_id, action, target_type, target_id, data, created_at
         FROM audit_log WHERE actor_user_id = $1 AND action = $2 ORDER BY created_at, id")
        .bind(actor).bind(action).fetch_all(&mut *c).await)
}

/// What to search the audit log for; `None` fields do not filter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    pub org_id: Option<Id>,
    pub actor: Option<Id>,
    /// Exact action, or a prefix when it ends with `.`.
    pub action: Option<&'a str>,
    pub from: Option<Ts>,
    pub to: Option<Ts>,
}

pub async fn search(
    x: &mut impl Executor,
    f: Filter<'_>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Row>, sqlx::Error> {
    let action_pattern = f.action.map(|a| {
        if a.ends_with('.') {
            format!("{}%", a.replace('%', "").replace('_', "\\_"))
        } else {
            a.to_string()
        }
    });
    // Each filter is "parameter IS NULL OR condition", so one SQL text serves every combination.
    sql!(x, c => sqlx::query_as::<_, Row>(
        "SELECT id, org_id, actor_user_id, impersonator_user_id, action, target_type, target_id, data, created_at
         FROM audit_log
         WHERE ($1 IS NULL OR org_id = $1)
           AND ($2 IS NULL OR actor_user_id = $2)
           AND ($3 IS NULL OR action LIKE $3 ESCAPE '\\')
           AND ($4 IS NULL OR created_at >= $4)
           AND ($5 IS NULL OR created_at < $5)
         ORDER BY created_at DESC, id DESC LIMIT $6 OFFSET $7")
        .bind(f.org_id).bind(f.actor).bind(&action_pattern).bind(f.from).bind(f.to).bind(limit).bind(offset)
        .fetch_all(&mut *c).await)
}
