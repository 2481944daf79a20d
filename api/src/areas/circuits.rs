//! A workspace's circuits (`/api/circuits`): the provider series it follows, with enrolled
//! athletes, events and rankings. Created and filled by the competition imports
//! (`areas::competition_jobs`), with members' event edits and the scoring rules the
//! standings view (`areas::strategy`) counts under.

use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path, nullable};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::competition::circuits::{self, CircuitSummary, CircuitView};
use shared::domain::competition::events::{self, EventFields, EventView};
use shared::domain::competition::roster;
use shared::domain::competition::strategy::{self, RulesPatch, RulesView};
use shared::repo::competition::ResultRow;
use utoipa::ToSchema;

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<Json<Paged<CircuitSummary>>> {
    let rows = circuits::list(&state.db, &ws, page.fetch_limit(), page.offset).await?;
    Ok(Json(page.wrap(rows)))
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<Json<CircuitView>> {
    Ok(Json(circuits::get(&state.db, &ws, id).await?))
}

/// A roster athlete's competition results from the providers (resync, import-results,
/// import-standings), newest first.
pub async fn athlete_results(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<Json<Vec<ResultRow>>> {
    Ok(Json(roster::results(&state.db, &ws, id).await?))
}

/// The circuit's events, manual edits applied (which fields are manual, what the provider has).
pub async fn events(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Path(id): Path<Id>,
) -> Result<Json<Paged<EventView>>> {
    Ok(Json(page.slice(events::list(&state.db, &ws, id).await?)))
}

/// A new event, or a change. In a change a field left out stays; `null` clears a synced
/// event's override (the provider's value returns).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventBody {
    /// 1-200 characters (required for a new event).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub name: Option<Option<String>>,
    /// YYYY-MM-DD.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub date: Option<Option<String>>,
    /// 1-40 characters of a-z and _ (e.g. upcoming, completed, cancelled).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub status: Option<Option<String>>,
}

impl EventBody {
    fn fields(self) -> EventFields {
        EventFields::new(self.name, self.date, self.status)
    }
}

/// Adds a member's own event to the circuit.
pub async fn add_event(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<EventBody>,
) -> Result<(StatusCode, Json<EventView>)> {
    let e = events::create(&state.db, &ws, id, &b.fields()).await?;
    Ok((StatusCode::CREATED, Json(e)))
}

pub async fn event(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((id, event)): Path<(Id, Id)>,
) -> Result<Json<EventView>> {
    Ok(Json(events::get(&state.db, &ws, id, event).await?))
}

pub async fn edit_event(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((id, event)): Path<(Id, Id)>,
    Body(b): Body<EventBody>,
) -> Result<Json<EventView>> {
    Ok(Json(
        events::update(&state.db, &ws, id, event, &b.fields()).await?,
    ))
}

/// Deletes a member's own event; a synced one is hidden for good (the next sync does not bring
/// it back).
pub async fn delete_event(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((id, event)): Path<(Id, Id)>,
) -> Result<StatusCode> {
    events::delete(&state.db, &ws, id, event).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A change to the circuit's scoring rules: a field left out stays, `null` returns it to the
/// default.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RulesBody {
    /// How many of an athlete's best results count (1-100); all when null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i64>)]
    pub results_to_count: Option<Option<i64>>,
    /// Places 1..=this qualify (1-10000); no qualification line when null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i64>)]
    pub qualification_place: Option<Option<i64>>,
    /// Points for 1st, 2nd, ... (1-256 entries, never rising); the default table when null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<f64>>)]
    pub points_table: Option<Option<Vec<f64>>>,
}

/// Sets the circuit's scoring rules (the standings view counts under them).
pub async fn set_rules(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
    Body(b): Body<RulesBody>,
) -> Result<Json<RulesView>> {
    let patch = RulesPatch {
        results_to_count: b.results_to_count,
        qualification_place: b.qualification_place,
        points_table: b.points_table,
    };
    Ok(Json(strategy::set_rules(&state.db, &ws, id, &patch).await?))
}
