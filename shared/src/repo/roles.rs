use super::orgs::Role;
use crate::db::{AuthChange, Executor, Id, Ts};
use crate::{execute, sql};
use sqlx::types::Json;

const COLUMNS: &str = "id, org_id, key, name, permissions, builtin, created_at, updated_at";

pub async fn list(x: &mut impl Executor, org: Id) -> Result<Vec<Role>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM roles WHERE org_id = $1 ORDER BY builtin DESC, created_at, key"
    );
    sql!(x, c => sqlx::query_as::<_, Role>(sqlx::AssertSqlSafe(q)).bind(org).fetch_all(&mut *c).await)
}

/// A role of `org` (another workspace's role id is not found).
pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Role>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM roles WHERE org_id = $1 AND id = $2");
    sql!(x, c => sqlx::query_as::<_, Role>(sqlx::AssertSqlSafe(q)).bind(org).bind(id).fetch_optional(&mut *c).await)
}

pub async fn by_key(
    x: &mut impl Executor,
    org: Id,
    key: &str,
) -> Result<Option<Role>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM roles WHERE org_id = $1 AND key = $2");
    sql!(x, c => sqlx::query_as::<_, Role>(sqlx::AssertSqlSafe(q)).bind(org).bind(key).fetch_optional(&mut *c).await)
}

pub async fn insert(
    x: &mut impl Executor,
    org: Id,
    key: &str,
    name: &str,
    permissions: &[String],
) -> Result<Role, sqlx::Error> {
    let now = Ts::now();
    let r = Role {
        id: Id::new(),
        org_id: org,
        key: key.into(),
        name: name.into(),
        permissions: Json(permissions.to_vec()),
        builtin: false,
        created_at: now,
        updated_at: now,
    };
    execute!(x, sqlx::query(
        "INSERT INTO roles (id, org_id, key, name, permissions, builtin, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, FALSE, $6, $6)")
        .bind(r.id).bind(org).bind(key).bind(name).bind(&r.permissions).bind(now))?;
    Ok(r)
}

pub async fn update(x: &mut impl Executor, r: &Role) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query("UPDATE roles SET name = $3, permissions = $4, updated_at = $5 WHERE org_id = $1 AND id = $2")
        .bind(r.org_id).bind(r.id).bind(&r.name).bind(&r.permissions).bind(Ts::now()))?;
    x.auth_changed(AuthChange::All);
    Ok(())
}

pub async fn delete(x: &mut impl Executor, org: Id, id: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM roles WHERE org_id = $1 AND id = $2")
            .bind(org)
            .bind(id)
    )?;
    x.auth_changed(AuthChange::All);
    Ok(())
}

/// Members holding the role plus pending invites offering it.
pub async fn usage(x: &mut impl Executor, id: Id) -> Result<(i64, i64), sqlx::Error> {
    let members: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM members WHERE role_id = $1").bind(id).fetch_one(&mut *c).await)?;
    let invites: i64 = sql!(x, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM member_invites WHERE role_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2")
        .bind(id).bind(Ts::now()).fetch_one(&mut *c).await)?;
    Ok((members, invites))
}
