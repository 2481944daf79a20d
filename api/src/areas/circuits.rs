//! A workspace's circuits (`/api/circuits`): the provider series it follows, with enrolled
//! athletes, events and rankings. Created and filled by the competition imports
//! (`areas::competition_jobs`); manual event edits arrive with issue 16.

use crate::auth::{Caller, Ws};
use crate::http::Result;
use crate::http::extract::Path;
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use shared::db::Id;
use shared::domain::competition::circuits::{self, CircuitSummary, CircuitView};
use shared::domain::competition::roster;
use shared::repo::competition::ResultRow;

pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    page: Page,
) -> Result<Json<Paged<CircuitSummary>>> {
    let ws = ws.acting(&caller);
    let rows = circuits::list(&state.db, &ws, page.fetch_limit(), page.offset).await?;
    Ok(Json(page.wrap(rows)))
}

pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<Json<CircuitView>> {
    let ws = ws.acting(&caller);
    Ok(Json(circuits::get(&state.db, &ws, id).await?))
}

/// A roster athlete's competition results from the providers (resync, import-results,
/// import-standings), newest first.
pub async fn athlete_results(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(id): Path<Id>,
) -> Result<Json<Vec<ResultRow>>> {
    let ws = ws.acting(&caller);
    Ok(Json(roster::results(&state.db, &ws, id).await?))
}
