//! Athletes' qualification goals (migration 15): one per athlete and circuit.

use crate::db::{Executor, Id, Ts};
use crate::{execute, sql};
use serde::Serialize;
use sqlx::FromRow;
use utoipa::ToSchema;

/// A goal as stored and shown.
#[derive(Debug, Clone, PartialEq, FromRow, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Goal {
    pub id: Id,
    pub athlete_id: Id,
    pub circuit_id: Id,
    /// The division the goal is in; the athlete's division(s) when null.
    pub division_id: Option<String>,
    /// The rank to reach; the circuit's qualification place when null.
    pub target_rank: Option<i32>,
    pub note: Option<String>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const GOAL: &str = "id, athlete_id, circuit_id, division_id, target_rank, note, created_by, created_at, updated_at";

/// The athlete's goal in a circuit.
pub async fn goal(
    x: &mut impl Executor,
    athlete: Id,
    circuit: Id,
) -> Result<Option<Goal>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Goal>(sqlx::AssertSqlSafe(format!(
        "SELECT {GOAL} FROM strategy_goals WHERE athlete_id = $1 AND circuit_id = $2")))
        .bind(athlete).bind(circuit).fetch_optional(&mut *c).await)
}

/// The athlete's goals, by circuit.
pub async fn goals_of(x: &mut impl Executor, athlete: Id) -> Result<Vec<Goal>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Goal>(sqlx::AssertSqlSafe(format!(
        "SELECT {GOAL} FROM strategy_goals WHERE athlete_id = $1 ORDER BY circuit_id")))
        .bind(athlete).fetch_all(&mut *c).await)
}

/// Sets the athlete's goal in a circuit (inside a transaction): inserted, or the existing one
/// replaced; whether it was inserted.
#[allow(clippy::too_many_arguments)]
pub async fn upsert_goal(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    circuit: Id,
    division: Option<&str>,
    target_rank: Option<i32>,
    note: Option<&str>,
    by: Id,
    now: Ts,
) -> Result<bool, sqlx::Error> {
    let inserted = execute!(x, sqlx::query(
        "INSERT INTO strategy_goals (id, org_id, athlete_id, circuit_id, division_id, target_rank, note,
            created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) ON CONFLICT (athlete_id, circuit_id) DO NOTHING")
        .bind(Id::new()).bind(org).bind(athlete).bind(circuit).bind(division).bind(target_rank)
        .bind(note).bind(by).bind(now))?;
    if inserted == 0 {
        execute!(x, sqlx::query(
            "UPDATE strategy_goals SET division_id = $1, target_rank = $2, note = $3, updated_at = $4
             WHERE athlete_id = $5 AND circuit_id = $6")
            .bind(division).bind(target_rank).bind(note).bind(now).bind(athlete).bind(circuit))?;
    }
    Ok(inserted == 1)
}

/// Removes the athlete's goal in a circuit; whether there was one.
pub async fn delete_goal(
    x: &mut impl Executor,
    athlete: Id,
    circuit: Id,
) -> Result<bool, sqlx::Error> {
    Ok(execute!(
        x,
        sqlx::query("DELETE FROM strategy_goals WHERE athlete_id = $1 AND circuit_id = $2")
            .bind(athlete)
            .bind(circuit)
    )? == 1)
}
