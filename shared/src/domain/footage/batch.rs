//! Batch uploads from a spreadsheet manifest (`import::footage`): prepare the training
//! sessions, footage sessions and clips a manifest names, through the one import pipeline (all
//! or nothing, every row checked, the same rows again create nothing), then read the batch back
//! with its clips' live statuses. The files arrive afterwards as resumable uploads naming each
//! clip (`uploads`, metadata `clipId`).

use crate::db::{Db, Id};
use crate::domain::InWorkspace;
use crate::import::footage::{ManifestImporter, ManifestRow, manifest_rows};
use crate::import::{self, Options, Report, Source, xlsx};
use crate::repo::batches::{self, Batch};
use crate::repo::footage::{self, Clip};
use crate::{Error, Result};
use std::collections::HashMap;

/// What preparing a manifest did.
#[derive(Debug)]
pub struct Prepared {
    /// The batch the rows are (a new one, or the one the same rows made before); none for a
    /// dry run of new rows.
    pub batch: Option<Batch>,
    /// The same rows had made this batch before: nothing was created.
    pub existing: bool,
    pub report: Report,
}

/// Prepares a manifest (CSV or .xlsx, told apart by content). 400 `import_invalid` with the
/// report in `details` when any row is wrong: nothing is written.
pub async fn prepare(
    db: &Db,
    ws: &InWorkspace,
    data: &[u8],
    file_name: &str,
    dry_run: bool,
) -> Result<Prepared> {
    let importer = ManifestImporter {
        batch_id: Id::new(),
        file_name: file_name.to_string(),
        format: if xlsx::is_xlsx(data) { "xlsx" } else { "csv" },
    };
    let options = Options {
        dry_run,
        sha256: import::sha256_hex(data),
    };
    let report = import::run(
        db,
        &importer,
        Source::Bytes(data),
        options,
        ws.org_id,
        ws.actor,
        &(),
    )
    .await?;
    if report.error_count > 0 {
        let n = report.error_count;
        return Err(Error::bad_request(
            "import_invalid",
            format!("{n} errors in the manifest; nothing was prepared (all or nothing)"),
        )
        .with_details(serde_json::to_value(&report).unwrap_or_default()));
    }
    let details = report.details.clone().unwrap_or_default();
    let existing = details["existing"].as_bool().unwrap_or(false);
    let batch_id: Option<Id> = details["batchId"].as_str().and_then(|s| s.parse().ok());
    let batch = match batch_id {
        Some(id) if existing || report.committed => {
            let mut c = db.acquire().await?;
            batches::get(&mut c, ws.org_id, id).await?
        }
        _ => None,
    };
    Ok(Prepared {
        batch,
        existing,
        report,
    })
}

/// A batch with each row and its clip as it stands now (`None`: the clip was deleted).
pub async fn status(
    db: &Db,
    ws: &InWorkspace,
    id: Id,
) -> Result<(Batch, Vec<(ManifestRow, Option<Clip>)>)> {
    let mut c = db.acquire().await?;
    let b = batches::get(&mut c, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("batch"))?;
    let mut clips: HashMap<Id, Clip> = footage::batch_clips(&mut c, ws.org_id, id)
        .await?
        .into_iter()
        .map(|k| (k.id, k))
        .collect();
    let rows = manifest_rows(&b.manifest.0)
        .into_iter()
        .map(|r| {
            let k = clips.remove(&r.clip_id);
            (r, k)
        })
        .collect();
    Ok((b, rows))
}
