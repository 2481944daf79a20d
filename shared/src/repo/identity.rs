//! Cross-source identity and dedup (migration 17): rejected match candidates, dismissed
//! duplicate pairs, the workspace's links as listed, and the roster's competition data read
//! in bulk for scoring (`domain::competition::{matching, dedup}`).

use crate::db::{Executor, Id, Ts};
use crate::model::competition::Source;
use crate::repo::competition::Link;
use crate::{execute, sql};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::types::Json;

// ---- rejected candidates ----

#[derive(Debug, Clone, FromRow)]
pub struct Rejection {
    pub id: Id,
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub provider: Source,
    pub external_id: String,
    pub name: Option<String>,
    pub score: Option<f64>,
    pub created_at: Ts,
}

const REJECTION: &str = "r.id, r.athlete_id, a.first_name, a.last_name, r.provider, r.external_id, r.name, r.score, r.created_at
     FROM identity_rejections r JOIN athletes a ON a.id = r.athlete_id";

/// Remembers that `external_id` of `provider` is not the athlete; whether a row was added (a
/// second rejection keeps the first).
#[allow(clippy::too_many_arguments)]
pub async fn reject(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    provider: Source,
    external_id: &str,
    name: Option<&str>,
    score: Option<f64>,
    by: Id,
    now: Ts,
) -> Result<bool, sqlx::Error> {
    Ok(execute!(x, sqlx::query(
        "INSERT INTO identity_rejections (id, org_id, athlete_id, provider, external_id, name, score, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (athlete_id, provider, external_id) DO NOTHING")
        .bind(Id::new()).bind(org).bind(athlete).bind(provider).bind(external_id).bind(name)
        .bind(score).bind(by).bind(now))? == 1)
}

pub async fn rejection(
    x: &mut impl Executor,
    athlete: Id,
    provider: Source,
    external_id: &str,
) -> Result<Option<Rejection>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Rejection>(sqlx::AssertSqlSafe(format!(
        "SELECT {REJECTION} WHERE r.athlete_id = $1 AND r.provider = $2 AND r.external_id = $3")))
        .bind(athlete).bind(provider).bind(external_id).fetch_optional(&mut *c).await)
}

/// The profiles rejected for the athlete: `(provider, external id)`.
pub async fn rejected_of(
    x: &mut impl Executor,
    athlete: Id,
) -> Result<Vec<(Source, String)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT provider, external_id FROM identity_rejections WHERE athlete_id = $1")
        .bind(athlete).fetch_all(&mut *c).await)
}

pub async fn delete_rejection(
    x: &mut impl Executor,
    athlete: Id,
    provider: Source,
    external_id: &str,
) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "DELETE FROM identity_rejections WHERE athlete_id = $1 AND provider = $2 AND external_id = $3"
        )
        .bind(athlete)
        .bind(provider)
        .bind(external_id)
    )
}

/// A page of the workspace's rejections (one athlete's, one provider's), newest first.
pub async fn list_rejections(
    x: &mut impl Executor,
    org: Id,
    athlete: Option<Id>,
    provider: Option<Source>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Rejection>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Rejection>(sqlx::AssertSqlSafe(format!(
        "SELECT {REJECTION} WHERE r.org_id = $1 AND ($2 IS NULL OR r.athlete_id = $2)
           AND ($3 IS NULL OR r.provider = $3)
         ORDER BY r.created_at DESC, r.id DESC LIMIT $4 OFFSET $5")))
        .bind(org).bind(athlete).bind(provider).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

// ---- links as listed ----

#[derive(Debug, Clone, FromRow)]
pub struct LinkRow {
    pub id: Id,
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub provider: Source,
    pub external_id: String,
    pub data: Option<Json<Value>>,
    pub synced_at: Option<Ts>,
    pub created_at: Ts,
}

const LINK_ROW: &str = "l.id, l.athlete_id, a.first_name, a.last_name, l.provider, l.external_id, l.data, l.synced_at, l.created_at
     FROM athlete_provider_links l JOIN athletes a ON a.id = l.athlete_id";

/// A page of the workspace's links (one athlete's, one provider's), newest first.
pub async fn list_links(
    x: &mut impl Executor,
    org: Id,
    athlete: Option<Id>,
    provider: Option<Source>,
    limit: i64,
    offset: i64,
) -> Result<Vec<LinkRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, LinkRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {LINK_ROW} WHERE l.org_id = $1 AND ($2 IS NULL OR l.athlete_id = $2)
           AND ($3 IS NULL OR l.provider = $3)
         ORDER BY l.created_at DESC, l.id DESC LIMIT $4 OFFSET $5")))
        .bind(org).bind(athlete).bind(provider).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// One link as listed.
pub async fn link_row(x: &mut impl Executor, id: Id) -> Result<Option<LinkRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, LinkRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {LINK_ROW} WHERE l.id = $1")))
        .bind(id).fetch_optional(&mut *c).await)
}

pub async fn delete_link(x: &mut impl Executor, org: Id, id: Id) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM athlete_provider_links WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )
}

/// Deletes the athlete's results from `provider`.
pub async fn delete_results(
    x: &mut impl Executor,
    athlete: Id,
    provider: Source,
) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM competition_results WHERE athlete_id = $1 AND provider = $2")
            .bind(athlete)
            .bind(provider)
    )
}

// ---- dismissed duplicate pairs ----

/// Orders a pair as it is stored (the smaller id first).
pub fn ordered(a: Id, b: Id) -> (Id, Id) {
    if a < b { (a, b) } else { (b, a) }
}

/// Remembers that `a` and `b` are not one person; whether a row was added.
pub async fn dismiss(
    x: &mut impl Executor,
    org: Id,
    a: Id,
    b: Id,
    by: Option<Id>,
    now: Ts,
) -> Result<bool, sqlx::Error> {
    let (a, b) = ordered(a, b);
    Ok(execute!(
        x,
        sqlx::query(
            "INSERT INTO dedup_dismissals (org_id, athlete_a, athlete_b, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (athlete_a, athlete_b) DO NOTHING"
        )
        .bind(org)
        .bind(a)
        .bind(b)
        .bind(by)
        .bind(now)
    )? == 1)
}

/// The workspace's dismissed pairs, each ordered.
pub async fn dismissed(x: &mut impl Executor, org: Id) -> Result<Vec<(Id, Id)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT athlete_a, athlete_b FROM dedup_dismissals WHERE org_id = $1")
        .bind(org).fetch_all(&mut *c).await)
}

// ---- the roster's competition data, in bulk ----

/// The workspace's links (one athlete's), oldest first.
pub async fn org_links(
    x: &mut impl Executor,
    org: Id,
    athlete: Option<Id>,
) -> Result<Vec<Link>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Link>(
        "SELECT id, org_id, athlete_id, provider, external_id, data, synced_at FROM athlete_provider_links
         WHERE org_id = $1 AND ($2 IS NULL OR athlete_id = $2) ORDER BY created_at, id")
        .bind(org).bind(athlete).fetch_all(&mut *c).await)
}

/// One stored result, as identity compares it.
#[derive(Debug, Clone, FromRow)]
pub struct ResultRef {
    pub athlete_id: Id,
    pub provider: Source,
    pub event_name: String,
    pub event_date: Option<String>,
    pub division: String,
}

/// The workspace's roster results (one athlete's).
pub async fn org_results(
    x: &mut impl Executor,
    org: Id,
    athlete: Option<Id>,
) -> Result<Vec<ResultRef>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ResultRef>(
        "SELECT athlete_id, provider, event_name, event_date, division FROM competition_results
         WHERE org_id = $1 AND ($2 IS NULL OR athlete_id = $2)")
        .bind(org).bind(athlete).fetch_all(&mut *c).await)
}

/// A roster athlete enrolled in a circuit.
#[derive(Debug, Clone, FromRow)]
pub struct Enrollment {
    pub athlete_id: Id,
    pub circuit_id: Id,
    pub circuit_name: String,
}

/// The workspace's circuit enrollments (one athlete's).
pub async fn org_enrollments(
    x: &mut impl Executor,
    org: Id,
    athlete: Option<Id>,
) -> Result<Vec<Enrollment>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Enrollment>(
        "SELECT ca.athlete_id, ca.circuit_id, ci.name AS circuit_name FROM circuit_athletes ca
         JOIN circuits ci ON ci.id = ca.circuit_id
         WHERE ca.org_id = $1 AND ($2 IS NULL OR ca.athlete_id = $2)")
        .bind(org).bind(athlete).fetch_all(&mut *c).await)
}

/// A provider athlete ranked in one of the workspace's circuits.
#[derive(Debug, Clone, FromRow)]
pub struct Ranked {
    pub circuit_id: Id,
    pub circuit_name: String,
    pub provider: Source,
    pub division_name: String,
    pub athlete_external_id: String,
    pub athlete_name: String,
}

/// Every ranking line of the workspace's circuits.
pub async fn org_rankings(x: &mut impl Executor, org: Id) -> Result<Vec<Ranked>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Ranked>(
        "SELECT r.circuit_id, ci.name AS circuit_name, ci.provider, r.division_name,
                r.athlete_external_id, r.athlete_name
         FROM circuit_rankings r JOIN circuits ci ON ci.id = r.circuit_id WHERE r.org_id = $1")
        .bind(org).fetch_all(&mut *c).await)
}

/// Every stored tour-index event, as read (`TourEvent` JSON).
pub async fn tour_events(x: &mut impl Executor) -> Result<Vec<Value>, sqlx::Error> {
    let rows: Vec<Json<Value>> = sql!(x, c => sqlx::query_scalar(
        "SELECT data FROM tourindex_events ORDER BY provider_id")
        .fetch_all(&mut *c).await)?;
    Ok(rows.into_iter().map(|j| j.0).collect())
}

// ---- merge ----

/// Moves `from`'s rejections and dismissals to `into` (both in `org`), in a merge's
/// transaction after its links moved: `into`'s own rows win a collision, a rejection of a
/// profile `into` is now linked to goes, and the pair `(from, into)` itself goes.
pub async fn move_athlete(
    x: &mut impl Executor,
    org: Id,
    from: Id,
    into: Id,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "DELETE FROM identity_rejections WHERE athlete_id = $1 AND EXISTS (SELECT 1 FROM identity_rejections k
           WHERE k.athlete_id = $2 AND k.provider = identity_rejections.provider
             AND k.external_id = identity_rejections.external_id)")
        .bind(from).bind(into))?;
    execute!(
        x,
        sqlx::query(
            "UPDATE identity_rejections SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    execute!(x, sqlx::query(
        "DELETE FROM identity_rejections WHERE athlete_id = $1 AND EXISTS (SELECT 1 FROM athlete_provider_links l
           WHERE l.athlete_id = $1 AND l.provider = identity_rejections.provider
             AND l.external_id = identity_rejections.external_id)")
        .bind(into))?;
    let rows: Vec<(Id, Id, Option<Id>, Ts)> = sql!(x, c => sqlx::query_as(
        "SELECT athlete_a, athlete_b, created_by, created_at FROM dedup_dismissals
         WHERE athlete_a = $1 OR athlete_b = $1")
        .bind(from).fetch_all(&mut *c).await)?;
    execute!(
        x,
        sqlx::query("DELETE FROM dedup_dismissals WHERE athlete_a = $1 OR athlete_b = $1")
            .bind(from)
    )?;
    for (a, b, by, at) in rows {
        let other = if a == from { b } else { a };
        if other != into {
            dismiss(x, org, into, other, by, at).await?;
        }
    }
    Ok(())
}
