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
