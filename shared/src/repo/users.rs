use crate::db::{AuthChange, Executor, Id, Ts};
use crate::{execute, sql};
use sqlx::FromRow;

#[derive(Debug, Clone, FromRow)]
pub struct User {
    pub id: Id,
    pub email: String,
    pub password_hash: Option<String>,
    pub name: String,
    pub email_verified_at: Option<Ts>,
    pub is_platform_admin: bool,
    pub default_org_id: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str = "id, email, password_hash, name, email_verified_at, is_platform_admin, default_org_id, created_at, updated_at";

pub async fn insert(
    x: &mut impl Executor,
    email: &str,
    name: &str,
    password_hash: &str,
) -> Result<User, sqlx::Error> {
    let now = Ts::now();
    let user = User {
        id: Id::new(),
        email: email.to_string(),
        password_hash: Some(password_hash.to_string()),
        name: name.to_string(),
        email_verified_at: None,
        is_platform_admin: false,
        default_org_id: None,
        created_at: now,
        updated_at: now,
    };
    execute!(x, sqlx::query(
        "INSERT INTO users (id, email, password_hash, name, email_verified_at, is_platform_admin, default_org_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, NULL, FALSE, NULL, $5, $5)")
        .bind(user.id).bind(&user.email).bind(&user.password_hash).bind(&user.name).bind(now))?;
    Ok(user)
}

pub async fn by_id(x: &mut impl Executor, id: Id) -> Result<Option<User>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM users WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, User>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

pub async fn by_email(x: &mut impl Executor, email: &str) -> Result<Option<User>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM users WHERE email = $1");
    sql!(x, c => sqlx::query_as::<_, User>(sqlx::AssertSqlSafe(q)).bind(email).fetch_optional(&mut *c).await)
}

/// The email addresses of every platform admin, sorted.
pub async fn platform_admin_emails(x: &mut impl Executor) -> Result<Vec<String>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, String>(
        "SELECT email FROM users WHERE is_platform_admin = TRUE ORDER BY email")
        .fetch_all(&mut *c).await)
}

/// Users created in `[since, until)` who have not verified their email address.
pub async fn unverified_created_between(
    x: &mut impl Executor,
    since: Ts,
    until: Ts,
) -> Result<Vec<User>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM users WHERE email_verified_at IS NULL AND created_at >= $1 AND created_at < $2"
    );
    sql!(x, c => sqlx::query_as::<_, User>(sqlx::AssertSqlSafe(q)).bind(since).bind(until).fetch_all(&mut *c).await)
}

pub async fn set_password(
    x: &mut impl Executor,
    id: Id,
    password_hash: &str,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(password_hash)
            .bind(Ts::now())
    )?;
    x.auth_changed(AuthChange::User(id));
    Ok(())
}

pub async fn mark_email_verified(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    let now = Ts::now();
    execute!(x, sqlx::query(
        "UPDATE users SET email_verified_at = COALESCE(email_verified_at, $2), updated_at = $2 WHERE id = $1")
        .bind(id).bind(now))?;
    x.auth_changed(AuthChange::User(id));
    Ok(())
}

pub async fn set_default_org(
    x: &mut impl Executor,
    id: Id,
    org: Option<Id>,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE users SET default_org_id = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(org)
            .bind(Ts::now())
    )?;
    x.auth_changed(AuthChange::User(id));
    Ok(())
}

/// Deletes the user row; memberships, sessions, tokens and provider connections cascade.
pub async fn delete(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query("DELETE FROM users WHERE id = $1").bind(id))?;
    x.auth_changed(AuthChange::User(id));
    Ok(())
}

/// Users whose email or name contains `q` (case-insensitive), newest first.
pub async fn search(
    x: &mut impl Executor,
    q: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<User>, sqlx::Error> {
    let pattern = q.map(|q| format!("%{}%", q.to_lowercase().replace(['%', '_'], "")));
    let sql = format!("SELECT {COLUMNS} FROM users WHERE ($1 IS NULL OR LOWER(email) LIKE $1 OR LOWER(name) LIKE $1)
        ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3");
    sql!(x, c => sqlx::query_as::<_, User>(sqlx::AssertSqlSafe(sql)).bind(&pattern).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Locks the user row for the rest of the transaction (PostgreSQL; SQLite's write lock is
/// already exclusive), so two concurrent requests of one user run one after the other.
pub async fn lock(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE users SET updated_at = updated_at WHERE id = $1").bind(id)
    )?;
    Ok(())
}

pub async fn set_name(x: &mut impl Executor, id: Id, name: &str) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE users SET name = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(name)
            .bind(Ts::now())
    )?;
    x.auth_changed(AuthChange::User(id));
    Ok(())
}

/// Sets or clears the platform admin flag of the user with this email; rows changed.
pub async fn set_platform_admin(
    x: &mut impl Executor,
    email: &str,
    on: bool,
) -> Result<u64, sqlx::Error> {
    crate::execute!(
        x,
        sqlx::query("UPDATE users SET is_platform_admin = $2 WHERE email = $1")
            .bind(email)
            .bind(on)
    )
}
