//! CSV roster import and export. The import runs `shared::import`'s pipeline with the
//! [`AthleteImporter`] (in the request, or as an `athletes.import` job for a large file: see
//! `areas::imports`).

use crate::areas::imports::{self, CsvFile, ImportQuery};
use crate::auth::{Caller, Ws};
use crate::http::Result;
use crate::http::extract::Query;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use shared::import::{self as csv_import, athletes::AthleteImporter};
use shared::repo::athletes;

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
pub async fn export(State(state): State<AppState>, ws: Ws) -> Result<Response> {
    let mut c = state.db.acquire().await?;
    let rows = athletes::all_of_org(&mut c, ws.org_id).await?;
    let body = csv_import::export_csv(
        &[
            "id",
            "first_name",
            "last_name",
            "email",
            "birth_date",
            "stance",
            "level",
            "status",
            "notes",
        ],
        rows.into_iter().map(|a| {
            vec![
                a.id.to_string(),
                a.first_name,
                a.last_name,
                a.email.unwrap_or_default(),
                a.birth_date.map(|d| d.to_string()).unwrap_or_default(),
                a.stance.map(|s| s.to_string()).unwrap_or_default(),
                a.level.map(|l| l.to_string()).unwrap_or_default(),
                a.status.to_string(),
                a.notes.unwrap_or_default(),
            ]
        }),
    );
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
