//! CSV roster import and export. The import runs `shared::import`'s pipeline with the
//! [`AthleteImporter`] (in the request, or as an `athletes.import` job for a large file: see
//! `areas::imports`).

use crate::areas::imports::{self, CsvFile, ImportQuery};
use crate::auth::{Acting, Caller, Ws};
use crate::http::Result;
use crate::http::extract::Query;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use shared::domain::athletes;
use shared::import::athletes::AthleteImporter;

pub use crate::areas::imports::SYNC_MAX_BYTES;

pub async fn import(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Query(q): Query<ImportQuery>,
    file: CsvFile,
) -> Result<Response> {
    imports::import(&state, &caller, &ws, &AthleteImporter, q, file).await
}

/// The roster as CSV, every cell neutralised against formula injection.
pub async fn export(State(state): State<AppState>, Acting(ws): Acting) -> Result<Response> {
    let body = athletes::export_csv(&ws, &state.db).await?;
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"athletes.csv\"",
            ),
        ],
        body,
    )
        .into_response())
}
