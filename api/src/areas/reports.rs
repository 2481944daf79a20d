//! Season reports (`/api/reports/season/{athleteId}`): the POST validates the period and the
//! athlete and enqueues the `reports.season` job (202, poll the job); the reads list the
//! athlete's reports and serve one's JSON and its printable HTML from object storage.
//! Building and storing is `shared::domain::season_report`.

use super::jobs::{JobAccepted, accepted};
use crate::auth::Acting;
use crate::http::extract::{Body, Path};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::Id;
use shared::domain::season_report::{self, Period};
use shared::repo::reports::ReportRow;
use shared::storage::Store;
use utoipa::ToSchema;

/// The period: a season (a calendar year), or `from` and `to`; this year when neither (`{}`).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenerateBody {
    /// A year, 2000-2100.
    #[serde(default)]
    pub season: Option<i64>,
    /// YYYY-MM-DD, with `to`; at most 400 days.
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
}

/// Enqueues the report (202 with the job to poll; the same period asked again while it is
/// being made answers that job).
pub async fn generate(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(athlete): Path<Id>,
    Body(b): Body<GenerateBody>,
) -> Result<(StatusCode, Json<JobAccepted>)> {
    let today = chrono::Utc::now().date_naive();
    let period = Period::new(b.season, b.from.as_deref(), b.to.as_deref(), today)?;
    let enqueued = season_report::request(&state.db, &ws, athlete, period).await?;
    Ok(accepted(enqueued))
}

/// A report as listed, with where to read it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = SeasonReportView)]
pub struct ReportView {
    #[serde(flatten)]
    pub report: ReportRow,
    pub url: String,
    pub html_url: String,
}

impl From<ReportRow> for ReportView {
    fn from(r: ReportRow) -> Self {
        let url = format!("/api/reports/season/{}/{}", r.athlete_id, r.id);
        ReportView {
            html_url: format!("{url}/html"),
            url,
            report: r,
        }
    }
}

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
    Path(athlete): Path<Id>,
) -> Result<Json<Paged<ReportView>>> {
    let rows = season_report::list(
        &state.db,
        ws.org_id,
        athlete,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(Json(page.wrap(rows.into_iter().map(Into::into).collect())))
}

fn storage_error(e: shared::storage::StorageError) -> Error {
    Error::internal(e)
}

/// One report: its row and its JSON document.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportDocument {
    #[serde(flatten)]
    pub view: ReportView,
    #[schema(value_type = Object)]
    pub document: Value,
}

pub async fn get(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((athlete, id)): Path<(Id, Id)>,
) -> Result<Json<ReportDocument>> {
    let row = season_report::get(&state.db, ws.org_id, athlete, id).await?;
    let document = document(&state, &row).await?;
    Ok(Json(ReportDocument {
        view: row.into(),
        document,
    }))
}

/// A report's stored JSON document (this route's and the desk's view).
pub async fn document<T: serde::de::DeserializeOwned>(
    state: &AppState,
    row: &ReportRow,
) -> Result<T> {
    let bytes = state
        .storage
        .get_bytes(Store::Sidecars, &row.json_key)
        .await
        .map_err(storage_error)?;
    Ok(serde_json::from_slice(&bytes).map_err(Error::internal)?)
}

/// The printable page, as a download.
pub async fn html(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path((athlete, id)): Path<(Id, Id)>,
) -> Result<Response> {
    download(&state, ws.org_id, athlete, id).await
}

/// A report's printable page as a download, for this route and the desk's. It is served from
/// our origin, so it is locked down: no script, nothing fetched, not sniffed as anything else.
pub async fn download(state: &AppState, org: Id, athlete: Id, id: Id) -> Result<Response> {
    let row = season_report::get(&state.db, org, athlete, id).await?;
    let page = state
        .storage
        .get(Store::Sidecars, &row.html_key, None)
        .await
        .map_err(storage_error)?;
    let mut h = HeaderMap::new();
    h.insert(header::CONTENT_LENGTH, page.content_length().into());
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let name = format!(
        "attachment; filename=\"season-report-{}.html\"",
        row.label
            .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "-")
    );
    h.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_str(&name).map_err(Error::internal)?,
    );
    Ok((StatusCode::OK, h, axum::body::Body::from_stream(page.body)).into_response())
}
