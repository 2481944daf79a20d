//! Achievement definitions and awards (migration 18), and the numbers the rules are evaluated
//! on: results, attended training sessions and wearable rides, per athlete. No rules here.

use crate::db::{Executor, Id, Ts};
use crate::model::competition::Metric;
use crate::{execute, sql};
use sqlx::FromRow;

#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct Definition {
    pub id: Id,
    pub org_id: Id,
    pub code: String,
    pub name: String,
    pub description: String,
    pub metric: Metric,
    pub threshold: i64,
    pub created_at: Ts,
}

const DEFINITION: &str = "id, org_id, code, name, description, metric, threshold, created_at";

/// Adds the definition unless the workspace has one with its code; whether it was added.
pub async fn insert_definition(x: &mut impl Executor, d: &Definition) -> Result<bool, sqlx::Error> {
    Ok(execute!(x, sqlx::query(
        "INSERT INTO achievement_definitions (id, org_id, code, name, description, metric, threshold, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (org_id, code) DO NOTHING")
        .bind(d.id).bind(d.org_id).bind(&d.code).bind(&d.name).bind(&d.description).bind(d.metric)
        .bind(d.threshold).bind(d.created_at))? == 1)
}

/// The workspace's definitions, by metric and threshold.
pub async fn definitions(x: &mut impl Executor, org: Id) -> Result<Vec<Definition>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Definition>(sqlx::AssertSqlSafe(format!(
        "SELECT {DEFINITION} FROM achievement_definitions WHERE org_id = $1 ORDER BY metric, threshold, code")))
        .bind(org).fetch_all(&mut *c).await)
}

/// An award as read: the achievement's definition with the athlete and when.
#[derive(Debug, Clone, FromRow)]
pub struct AwardRow {
    pub id: Id,
    pub athlete_id: Id,
    pub achievement_id: Id,
    pub code: String,
    pub name: String,
    pub description: String,
    pub value: i64,
    pub awarded_at: Ts,
}

/// Records the award unless the athlete has it; the new award's id, or none.
pub async fn award(
    x: &mut impl Executor,
    org: Id,
    achievement: Id,
    athlete: Id,
    value: i64,
    now: Ts,
) -> Result<Option<Id>, sqlx::Error> {
    let id = Id::new();
    let added = execute!(x, sqlx::query(
        "INSERT INTO achievement_awards (id, org_id, achievement_id, athlete_id, value, awarded_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (athlete_id, achievement_id) DO NOTHING")
        .bind(id).bind(org).bind(achievement).bind(athlete).bind(value).bind(now))?;
    Ok((added == 1).then_some(id))
}

/// The athlete's awards, newest first.
pub async fn awards_of(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<AwardRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, AwardRow>(
        "SELECT w.id, w.athlete_id, w.achievement_id, d.code, d.name, d.description, w.value, w.awarded_at
         FROM achievement_awards w JOIN achievement_definitions d ON d.id = w.achievement_id
         WHERE w.org_id = $1 AND w.athlete_id = $2 ORDER BY w.awarded_at DESC, d.code LIMIT $3 OFFSET $4")
        .bind(org).bind(athlete).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// The achievements the athlete has (their definitions' ids).
pub async fn awarded_ids(x: &mut impl Executor, athlete: Id) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT achievement_id FROM achievement_awards WHERE athlete_id = $1")
        .bind(athlete).fetch_all(&mut *c).await)
}

/// The workspace's athletes a workspace-wide check evaluates: every one not archived.
pub async fn athletes_to_check(x: &mut impl Executor, org: Id) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT id FROM athletes WHERE org_id = $1 AND status <> 'archived' ORDER BY created_at, id")
        .bind(org).fetch_all(&mut *c).await)
}

// ---- the numbers ----

/// Results with a place from 1 to `best` (1: wins, 3: podiums).
pub async fn places_within(
    x: &mut impl Executor,
    athlete: Id,
    best: i64,
) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM competition_results WHERE athlete_id = $1 AND place >= 1 AND place <= $2")
        .bind(athlete).bind(best).fetch_one(&mut *c).await)
}

/// Training sessions the athlete attended.
pub async fn sessions_attended(x: &mut impl Executor, athlete: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM training_participants WHERE athlete_id = $1 AND status = 'attended'")
        .bind(athlete).fetch_one(&mut *c).await)
}

/// Rides per wearable session of the athlete (the session's current detection only).
pub async fn rides_per_session(
    x: &mut impl Executor,
    athlete: Id,
) -> Result<Vec<i64>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM wearable_rides r JOIN wearable_sessions s
            ON s.id = r.session_id AND s.detector_version = r.detector_version
         WHERE s.athlete_id = $1 GROUP BY s.id")
        .bind(athlete).fetch_all(&mut *c).await)
}
