//! The tour index's reads (`/api/tourindex/*`): each handler extracts, calls one
//! `shared::domain::competition::tourindex` operation (cache, else the index) and maps the
//! answer. Provider down or a page it cannot read at all: 502 `provider_failed`; not
//! configured: 503 `provider_not_configured`.

use crate::http::Result;
use crate::http::extract::{Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use shared::domain::competition::tourindex as domain;
use shared::providers::tourindex_pages::{LiveHit, TourAthlete, TourProfile};

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    pub q: String,
}

/// Athletes whose name matches `q` (2-100 characters).
pub async fn search(
    State(state): State<AppState>,
    page: Page,
    Query(q): Query<SearchQuery>,
) -> Result<Json<Paged<TourAthlete>>> {
    let found = domain::search(&state.db, state.providers(), &q.q).await?;
    Ok(Json(page.slice(found.athletes)))
}

/// An athlete's profile with results, and what the page had that could not be read.
pub async fn athlete(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TourProfile>> {
    Ok(Json(
        domain::athlete(&state.db, state.providers(), &id).await?,
    ))
}

/// Typeahead suggestions (athletes and events) for `q`.
pub async fn live_search(
    State(state): State<AppState>,
    page: Page,
    Query(q): Query<SearchQuery>,
) -> Result<Json<Paged<LiveHit>>> {
    let hits = domain::live_search(&state.db, state.providers(), &q.q).await?;
    Ok(Json(page.slice(hits)))
}
