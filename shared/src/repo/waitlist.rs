use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};

/// Records a request for access. Idempotent per email: a repeat keeps the first entry, and the
/// caller answers the same either way so the list cannot be probed for who is on it.
pub async fn add(
    x: &mut impl Executor,
    email: &str,
    name: Option<&str>,
    note: Option<&str>,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO waitlist (id, email, name, note, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING")
        .bind(Id::new()).bind(email).bind(name).bind(note).bind(Ts::now()))?;
    Ok(())
}

pub async fn count(x: &mut impl Executor) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM waitlist").fetch_one(&mut *c).await)
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Entry {
    pub id: Id,
    pub email: String,
    pub name: Option<String>,
    pub note: Option<String>,
    pub created_at: Ts,
    pub invited_at: Option<Ts>,
}

pub async fn list(
    x: &mut impl Executor,
    limit: i64,
    offset: i64,
) -> Result<Vec<Entry>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Entry>(
        "SELECT id, email, name, note, created_at, invited_at FROM waitlist ORDER BY created_at, id LIMIT $1 OFFSET $2")
        .bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Entries created in `[since, until)`, oldest first (the admins' digest).
pub async fn created_between(
    x: &mut impl Executor,
    since: Ts,
    until: Ts,
) -> Result<Vec<Entry>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Entry>(
        "SELECT id, email, name, note, created_at, invited_at FROM waitlist WHERE created_at >= $1 AND created_at < $2 ORDER BY created_at")
        .bind(since).bind(until).fetch_all(&mut *c).await)
}

pub async fn get(x: &mut impl Executor, id: Id) -> Result<Option<Entry>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Entry>("SELECT id, email, name, note, created_at, invited_at FROM waitlist WHERE id = $1")
        .bind(id).fetch_optional(&mut *c).await)
}

pub async fn mark_invited(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    crate::execute!(
        x,
        sqlx::query("UPDATE waitlist SET invited_at = $2 WHERE id = $1")
            .bind(id)
            .bind(Ts::now())
    )?;
    Ok(())
}
