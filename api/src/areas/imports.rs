//! What every CSV import endpoint shares: the body (read as a stream with a cap), the choice
//! between importing in the request (small files) and a job (large ones, or
//! `?background=true`), and the answer. The import itself is `shared::import::run`, the same
//! pipeline the worker's job runs, so both give the same report.

use crate::areas::jobs::accepted;
use crate::auth::{Caller, Ws};
use crate::http::{ApiError, Error, Result};
use crate::state::AppState;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Deserialize;
use shared::import::{self, Background, Options, Report, Source};

/// Files up to this size are imported in the request; larger ones run as a job.
pub const SYNC_MAX_BYTES: usize = 256 * 1024;
/// The largest file accepted at all.
pub const IMPORT_MAX_BYTES: usize = 32 * 1024 * 1024;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportQuery {
    /// Validate and report without writing.
    #[serde(default)]
    pub dry_run: bool,
    /// Run as a job even when the file is small.
    #[serde(default)]
    pub background: bool,
}

/// A CSV request body, read as a stream: more than [`IMPORT_MAX_BYTES`] is 413, anything but
/// CSV or plain text 415, an empty file 400 `import_invalid`.
pub struct CsvFile(pub Vec<u8>);

impl<S: Send + Sync> FromRequest<S> for CsvFile {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self> {
        let ct = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_default();
        if !matches!(ct.as_str(), "text/csv" | "text/plain" | "application/csv") {
            return Err(Error::unsupported_media_type(
                "send the file as the body with Content-Type: text/csv",
            )
            .into());
        }
        let mut stream = req.into_body().into_data_stream();
        let mut data = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| Error::bad_request("invalid_body", e.to_string()))?;
            if data.len() + chunk.len() > IMPORT_MAX_BYTES {
                return Err(Error::payload_too_large(format!(
                    "import files are limited to {} MiB",
                    IMPORT_MAX_BYTES / 1024 / 1024
                ))
                .into());
            }
            data.extend_from_slice(&chunk);
        }
        if data.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(Error::bad_request("import_invalid", "the file is empty").into());
        }
        Ok(CsvFile(data))
    }
}

/// Imports `file` into the caller's workspace: in the request (200 with the report, or 400
/// `import_invalid` with the report in `details` when rows had errors), or for a large file
/// (or `?background=true`) staged and imported by a job (`import::start`: 202 with the job to
/// poll; the same file while its job is live is the same job).
pub async fn import<I: Background>(
    state: &AppState,
    caller: &Caller,
    ws: &Ws,
    importer: &I,
    q: ImportQuery,
    CsvFile(data): CsvFile,
) -> Result<Response> {
    if q.background || data.len() > SYNC_MAX_BYTES {
        let enq = import::start::<I>(&state.db, ws.org_id, caller.user.id, q.dry_run, data).await?;
        return Ok(accepted(enq).into_response());
    }
    let report = run_now(state, caller, ws, importer, q.dry_run, &data).await?;
    Ok(report_response(report))
}

/// Imports (or with `dry_run` only checks) `data` in the request, as the caller in `ws`: the
/// same pipeline as the job, the report whether or not rows had errors.
pub async fn run_now<I: Background>(
    state: &AppState,
    caller: &Caller,
    ws: &Ws,
    importer: &I,
    dry_run: bool,
    data: &[u8],
) -> shared::Result<Report> {
    let options = Options {
        dry_run,
        sha256: import::sha256_hex(data),
    };
    import::run(
        &state.db,
        importer,
        Source::Bytes(data),
        options,
        ws.org_id,
        caller.actor(),
        &(),
    )
    .await
    .map_err(Error::from)
}

/// A finished import's answer: 200 with the report, or 400 `import_invalid` with the report
/// in `details` when rows had errors (nothing was written).
fn report_response(report: Report) -> Response {
    if report.error_count > 0 {
        let n = report.error_count;
        let e = Error::bad_request(
            "import_invalid",
            format!("{n} errors in the file; nothing was imported (all or nothing)"),
        )
        .with_details(serde_json::to_value(&report).unwrap_or_default());
        return ApiError(e).into_response();
    }
    (StatusCode::OK, axum::Json(report)).into_response()
}
