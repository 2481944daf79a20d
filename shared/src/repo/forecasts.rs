//! The forecast cells members asked about (`forecast_cells`), which `forecasts-refresh` keeps
//! warm. The forecasts themselves are rows of `provider_cache` (`repo::provider_cache`).

use crate::db::{Executor, Ts};
use crate::{execute, sql};

/// A cell and the point its last request asked for.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct CellRow {
    pub cell: String,
    pub latitude: f64,
    pub longitude: f64,
    pub spot_slug: Option<String>,
    pub requested_at: Ts,
}

/// When `cell` was last recorded as asked for.
pub async fn requested_at(x: &mut impl Executor, cell: &str) -> Result<Option<Ts>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT requested_at FROM forecast_cells WHERE cell = $1")
        .bind(cell).fetch_optional(&mut *c).await)
}

/// Records that `cell` was asked for at `now`, at this point; a cell recorded after `since`
/// is left alone (one write an hour per cell at most, not one per read: callers read
/// [`requested_at`] first, so a read does not take SQLite's write lock).
pub async fn note_requested(
    x: &mut impl Executor,
    cell: &str,
    (latitude, longitude): (f64, f64),
    spot_slug: Option<&str>,
    now: Ts,
    since: Ts,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO forecast_cells (cell, latitude, longitude, spot_slug, requested_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (cell) DO UPDATE SET latitude = excluded.latitude,
                longitude = excluded.longitude, spot_slug = excluded.spot_slug,
                requested_at = excluded.requested_at
             WHERE forecast_cells.requested_at < $6"
        )
        .bind(cell)
        .bind(latitude)
        .bind(longitude)
        .bind(spot_slug)
        .bind(now)
        .bind(since)
    )?;
    Ok(())
}

/// The cells asked for after `since`, most recent first, at most `limit`.
pub async fn requested_since(
    x: &mut impl Executor,
    since: Ts,
    limit: i64,
) -> Result<Vec<CellRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, CellRow>(
        "SELECT cell, latitude, longitude, spot_slug, requested_at FROM forecast_cells
         WHERE requested_at > $1 ORDER BY requested_at DESC, cell LIMIT $2")
        .bind(since).bind(limit).fetch_all(&mut *c).await)
}

/// Deletes cells nobody asked for since `before`; returns how many.
pub async fn delete_unrequested(x: &mut impl Executor, before: Ts) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM forecast_cells WHERE requested_at < $1").bind(before)
    )
}
