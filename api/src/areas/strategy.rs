//! An athlete's standings view and qualification goals (`/api/strategy/{athleteId}`): the
//! arithmetic and its decisions live in `shared::domain::competition::{standings, strategy}`.

use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::competition::strategy::{self, GoalFields, StrategyView};
use shared::repo::strategy::Goal;
use utoipa::ToSchema;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewQuery {
    /// Only this circuit (else every circuit the athlete is enrolled in, ranked in or has a
    /// goal in).
    pub circuit_id: Option<Id>,
    /// Only this division (its provider id), even without a result in it.
    pub division_id: Option<String>,
}

/// The athlete's standings: results counted under each circuit's rules, rank, the gap to the
/// qualification line and the finishes in the remaining events that would reach it.
pub async fn view(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(athlete): Path<Id>,
    Query(q): Query<ViewQuery>,
) -> Result<Json<StrategyView>> {
    Ok(Json(
        strategy::view(
            &state.db,
            &ws,
            athlete,
            q.circuit_id,
            q.division_id.as_deref(),
        )
        .await?,
    ))
}

/// The athlete's goal in a circuit (one per circuit: setting it again replaces it).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoalBody {
    pub circuit_id: Id,
    /// The division (its provider id); the athlete's division(s) when left out.
    #[serde(default)]
    pub division_id: Option<String>,
    /// The rank to reach (1-10000); the circuit's qualification place when left out.
    #[serde(default)]
    pub target_rank: Option<i64>,
    /// Up to 2000 characters.
    #[serde(default)]
    pub note: Option<String>,
}

/// Sets the goal: 201 when new, 200 when it replaced the athlete's goal in that circuit.
pub async fn set_goal(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(athlete): Path<Id>,
    Body(b): Body<GoalBody>,
) -> Result<(StatusCode, Json<Goal>)> {
    let f = GoalFields {
        circuit_id: b.circuit_id,
        division_id: b.division_id,
        target_rank: b.target_rank,
        note: b.note,
    };
    let (goal, created) = strategy::set_goal(&state.db, &ws, athlete, &f).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(goal)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoalQuery {
    pub circuit_id: Id,
}

/// Removes the athlete's goal in the circuit given by `circuitId`.
pub async fn delete_goal(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(athlete): Path<Id>,
    Query(q): Query<GoalQuery>,
) -> Result<StatusCode> {
    strategy::delete_goal(&state.db, &ws, athlete, q.circuit_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
