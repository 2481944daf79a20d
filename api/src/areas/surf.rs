//! Surf spots and forecasts (`/api/spotsource/spots/search`, `/api/surf/*`; issue 16,
//! `docs/forecasts.md`): each handler extracts, calls one `shared::domain::forecasts`
//! operation with the clock and maps the answer. Both forecast providers down with nothing
//! cached: 502 `forecast_unavailable`; neither configured: 503 `provider_not_configured`.

use crate::http::Result;
use crate::http::extract::{Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use shared::db::Ts;
use shared::domain::forecasts::{self as domain, Forecast, ForecastQuery, SpotView};
use shared::providers::spotsource::Spot;

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    pub q: String,
}

/// Spots whose name matches `q` (2-100 characters), from the spot provider (cached).
pub async fn search(
    State(state): State<AppState>,
    page: Page,
    Query(q): Query<SearchQuery>,
) -> Result<Json<Paged<Spot>>> {
    let spots = domain::search_spots(&state.db, state.forecasters(), &q.q).await?;
    Ok(Json(page.slice(spots)))
}

/// A spot with its forecast summary.
pub async fn spot(
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<SpotView>> {
    Ok(Json(
        domain::spot(&state.db, state.forecasters(), &slug, Ts::now()).await?,
    ))
}

#[derive(Deserialize)]
pub struct ForecastParams {
    /// A spot's slug; or `lat` and `lon`.
    pub spot: Option<String>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    /// Hours from the current one, 1-168 (default 72).
    pub hours: Option<i64>,
}

/// The hourly forecast at a spot or point.
pub async fn forecast(
    State(state): State<AppState>,
    Query(p): Query<ForecastParams>,
) -> Result<Json<Forecast>> {
    let q = ForecastQuery::parse(p.spot.as_deref(), p.lat, p.lon, p.hours)?;
    Ok(Json(
        domain::forecast(&state.db, state.forecasters(), &q, Ts::now()).await?,
    ))
}
