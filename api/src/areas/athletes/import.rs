//! CSV roster import and export. The request body (`text/csv`) is read as a stream with a cap;
//! a small file is imported in the request, a large one (or `?background=true`) is staged and
//! imported by an `athletes.import` job (202 with the job to poll; its result is the same report).
//! Rules (all or nothing, dry run, duplicates, line numbers): `shared::import`.

use crate::areas::jobs::accepted;
use crate::auth::{Caller, Ws};
use crate::http::extract::Query;
use crate::http::{ApiError, Error, Result};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::json;
use shared::import::{self, Report};
use shared::repo::{athletes, audit};

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

/// Reads a CSV request body as a stream, refusing more than [`IMPORT_MAX_BYTES`] (413) and
/// anything but CSV or plain text (415).
pub async fn read_csv_body(req: Request) -> Result<Vec<u8>> {
    let ct = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if !matches!(ct.as_str(), "text/csv" | "text/plain" | "application/csv") {
        return Err(Error::new(
            shared::ErrorKind::UnsupportedMediaType,
            "unsupported_media_type",
            "send the file as the body with Content-Type: text/csv",
        )
        .into());
    }
    let mut stream = req.into_body().into_data_stream();
    let mut data = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| Error::bad_request("invalid_body", e.to_string()))?;
        if data.len() + chunk.len() > IMPORT_MAX_BYTES {
            return Err(Error::new(
                shared::ErrorKind::PayloadTooLarge,
                "payload_too_large",
                format!(
                    "import files are limited to {} MiB",
                    IMPORT_MAX_BYTES / 1024 / 1024
                ),
            )
            .into());
        }
        data.extend_from_slice(&chunk);
    }
    if data.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(Error::bad_request("import_invalid", "the file is empty").into());
    }
    Ok(data)
}

pub fn sha256_hex(data: &[u8]) -> String {
    shared::crypto::hash_token(&String::from_utf8_lossy(data))
}

/// The answer for a finished (in-request) import: 200 with the report, or 400 `import_invalid`
/// with the report in `details` when rows had errors (nothing was written).
pub fn report_response(report: Report) -> Response {
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

/// Stages a large (or `?background=true`) import and enqueues its job: 202 with the job. The
/// same file while its job is still live is the same job (the new copy is dropped).
pub async fn run_as_job(
    state: &AppState,
    caller: &Caller,
    ws: &Ws,
    kind: &str,
    data: Vec<u8>,
    sha: String,
    job: impl FnOnce(shared::db::Id, String) -> jobs::JobSpec,
) -> Result<Response> {
    let content = String::from_utf8(data)
        .map_err(|_| Error::bad_request("import_invalid", "the file is not UTF-8 text"))?;
    let mut tx = state.db.begin().await?;
    let upload =
        athletes::stage_upload(&mut tx, ws.org_id, kind, &sha, &content, caller.user.id).await?;
    let owner = jobs::Owner {
        org_id: Some(ws.org_id),
        user_id: Some(caller.user.id),
    };
    let enq = jobs::enqueue(&mut tx, &job(upload, sha), owner).await?;
    if enq.existing {
        athletes::delete_upload(&mut tx, upload).await?;
    }
    tx.commit().await?;
    Ok(accepted(enq).into_response())
}

pub async fn import(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Query(q): Query<ImportQuery>,
    req: Request,
) -> Result<Response> {
    let data = read_csv_body(req).await?;
    let sha = sha256_hex(&data);
    if q.background || data.len() > SYNC_MAX_BYTES {
        return run_as_job(
            &state,
            &caller,
            &ws,
            "athletes",
            data,
            sha,
            |upload_id, sha256| {
                jobs::Job::spec(&jobs::kinds::AthleteImport {
                    upload_id,
                    org_id: ws.org_id,
                    user_id: caller.user.id,
                    dry_run: q.dry_run,
                    sha256,
                })
            },
        )
        .await;
    }
    let mut report = Report::new(q.dry_run, sha);
    let parsed = import::athletes::parse(&data, &mut report);
    let mut tx = state.db.begin().await?;
    import::athletes::commit(&mut tx, ws.org_id, caller.user.id, parsed, &mut report).await?;
    if report.committed {
        audit::record(
            &mut tx,
            audit::Entry {
                org_id: Some(ws.org_id),
                actor: Some(caller.user.id),
                impersonator: caller.impersonator,
                action: "athletes.imported",
                target_type: "org",
                target_id: Some(ws.org_id.to_string()),
                data: json!({ "created": report.created, "duplicates": report.duplicates, "rows": report.rows, "sha256": report.sha256 }),
            },
        )
        .await?;
        tx.commit().await?;
    }
    Ok(report_response(report))
}

/// The roster as CSV, every cell neutralised against formula injection.
pub async fn export(State(state): State<AppState>, ws: Ws) -> Result<Response> {
    let mut c = state.db.acquire().await?;
    let rows = athletes::all_of_org(&mut c, ws.org_id).await?;
    let body = import::export_csv(
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
