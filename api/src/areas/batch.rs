//! Batch uploads from a spreadsheet manifest (`/api/training-sessions/batch-upload`): prepare
//! the sessions and clips a manifest names (`shared::domain::footage::batch`, on the one import
//! pipeline), and read a batch back with its clips' live statuses, for a tab reopened later.

use super::footage::ClipView;
use crate::auth::Acting;
use crate::http::extract::Query;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::footage::batch;
use shared::import::Report;
use shared::import::footage::ManifestRow;
use shared::repo::batches::Batch;
use utoipa::ToSchema;

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrepareQuery {
    /// The manifest's file name, kept with the batch (default `manifest.csv` / `.xlsx`).
    pub file_name: Option<String>,
    /// Check every row and report, creating nothing.
    #[serde(default)]
    pub dry_run: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchView {
    pub id: Id,
    pub file_name: String,
    /// `csv` or `xlsx`.
    pub format: String,
    pub row_count: i64,
    pub created_by: Option<Id>,
    pub created_at: Ts,
}

impl From<&Batch> for BatchView {
    fn from(b: &Batch) -> Self {
        BatchView {
            id: b.id,
            file_name: b.file_name.clone(),
            format: b.format.clone(),
            row_count: b.row_count,
            created_by: b.created_by,
            created_at: b.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreparedBatch {
    /// Absent for a dry run of new rows.
    pub batch: Option<BatchView>,
    /// The same rows made this batch before: nothing new was created.
    pub existing: bool,
    pub report: Report,
    /// Each row and what it made; upload each file with a resumable upload naming `clipId`.
    pub rows: Vec<ManifestRow>,
}

fn is_manifest_type(headers: &HeaderMap) -> bool {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    matches!(
        ct.as_str(),
        "text/csv" | "text/plain" | "application/csv" | XLSX
    )
}

/// `POST /api/training-sessions/batch-upload`: the manifest as the body (CSV or .xlsx).
/// 201 with the new batch, 200 when the same rows made a batch before (nothing created),
/// 400 `import_invalid` with every row's errors (nothing created).
pub async fn prepare(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<PrepareQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, axum::Json<PreparedBatch>)> {
    if !is_manifest_type(&headers) {
        return Err(Error::unsupported_media_type(format!(
            "send the manifest as the body with Content-Type: text/csv or {XLSX}"
        ))
        .into());
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::bad_request("import_invalid", "the manifest is empty").into());
    }
    let is_xlsx = shared::import::xlsx::is_xlsx(&body);
    let file_name = q
        .file_name
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty() && f.chars().count() <= 255)
        .unwrap_or_else(|| {
            if is_xlsx {
                "manifest.xlsx".into()
            } else {
                "manifest.csv".into()
            }
        });
    let p = batch::prepare(&state.db, &ws, &body, &file_name, q.dry_run).await?;
    let rows = p
        .batch
        .as_ref()
        .map(|b| shared::import::footage::manifest_rows(&b.manifest.0))
        .unwrap_or_default();
    let status = if p.report.committed && !p.existing {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        axum::Json(PreparedBatch {
            batch: p.batch.as_ref().map(BatchView::from),
            existing: p.existing,
            report: p.report,
            rows,
        }),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchQuery {
    pub batch_id: Id,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchRowStatus {
    #[serde(flatten)]
    pub row: ManifestRow,
    /// The clip as it stands now; null when it was deleted.
    pub clip: Option<ClipView>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchStatus {
    pub batch: BatchView,
    pub rows: Vec<BatchRowStatus>,
}

/// `GET /api/training-sessions/batch-upload?batchId=`: the manifest and each clip's live status.
pub async fn status(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Query(q): Query<BatchQuery>,
) -> Result<axum::Json<BatchStatus>> {
    let (b, rows) = batch::status(&state.db, &ws, q.batch_id).await?;
    Ok(axum::Json(BatchStatus {
        batch: BatchView::from(&b),
        rows: rows
            .into_iter()
            .map(|(row, clip)| BatchRowStatus {
                row,
                clip: clip.map(ClipView::from),
            })
            .collect(),
    }))
}
