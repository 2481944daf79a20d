//! Competition data from the `heatsource` provider (`/api/heatsource/*` reads): each handler
//! extracts, calls one `shared::domain::competition` operation (cache, else provider) and maps
//! the answer. Provider lists are paginated here like every other list. Provider down: 502
//! `provider_failed`; not configured: 503 `provider_not_configured`.

use crate::http::Result;
use crate::http::extract::{Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use shared::domain::competition as domain;
use shared::providers::heatsource::{Athlete, Event};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrganisationQuery {
    /// The organisation's short name on the provider (e.g. `wsl`).
    #[serde(default)]
    pub short_name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrganisationsQuery {
    /// Look one organisation up at the provider; absent: the synced organisations.
    pub short_name: Option<String>,
}

/// The organisation with this short name (a list of zero or one), or without one the
/// organisations the syncs keep.
pub async fn organisations(
    State(state): State<AppState>,
    page: Page,
    Query(q): Query<OrganisationsQuery>,
) -> Result<Json<Paged<shared::providers::heatsource::Organisation>>> {
    let Some(short_name) = q.short_name else {
        let rows =
            domain::heatsource_synced_organisations(&state.db, page.fetch_limit(), page.offset)
                .await?;
        return Ok(Json(page.wrap(rows)));
    };
    let org =
        domain::heatsource_organisation(&state.db, state.heatsource.as_ref(), &short_name).await?;
    Ok(Json(page.slice(org.into_iter().collect())))
}

/// The series of an organisation, with the divisions each ranks.
pub async fn series(
    State(state): State<AppState>,
    page: Page,
    Query(q): Query<OrganisationQuery>,
) -> Result<Json<Paged<shared::providers::heatsource::Series>>> {
    let s =
        domain::heatsource_series_of(&state.db, state.heatsource.as_ref(), &q.short_name).await?;
    Ok(Json(page.slice(s)))
}

pub async fn divisions(
    State(state): State<AppState>,
    page: Page,
    Path(id): Path<String>,
) -> Result<Json<Paged<shared::providers::heatsource::Division>>> {
    let d = domain::heatsource_divisions(&state.db, state.heatsource.as_ref(), &id).await?;
    Ok(Json(page.slice(d)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DivisionQuery {
    #[serde(default)]
    pub division_id: String,
}

/// The athletes of a series division, in ranking order.
pub async fn series_athletes(
    State(state): State<AppState>,
    page: Page,
    Path(id): Path<String>,
    Query(q): Query<DivisionQuery>,
) -> Result<Json<Paged<shared::providers::heatsource::Ranking>>> {
    let r = domain::heatsource_rankings(&state.db, state.heatsource.as_ref(), &id, &q.division_id)
        .await?;
    Ok(Json(page.slice(r)))
}

pub async fn event(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<Event>> {
    Ok(Json(
        domain::heatsource_event(&state.db, state.heatsource.as_ref(), &id).await?,
    ))
}

pub async fn athlete(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Athlete>> {
    Ok(Json(
        domain::heatsource_athlete(&state.db, state.heatsource.as_ref(), &id).await?,
    ))
}

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    pub q: String,
}

pub async fn search_athletes(
    State(state): State<AppState>,
    page: Page,
    Query(q): Query<SearchQuery>,
) -> Result<Json<Paged<Athlete>>> {
    let found = domain::heatsource_search(&state.db, state.heatsource.as_ref(), &q.q).await?;
    Ok(Json(page.slice(found)))
}
