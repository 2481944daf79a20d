//! CSV imports staged by the api (large files) and the provider re-import of an athlete.

use super::Ctx;
use jobs::JobError;
use jobs::kinds::{AthleteImport, AthleteResync, TrainingImport};
use serde_json::{Value, json};
use shared::import::{self, Report};
use shared::repo::{athletes, audit};

async fn staged(ctx: &Ctx, upload: shared::db::Id) -> Result<String, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    athletes::staged_upload(&mut c, upload)
        .await?
        .map(|(_, content)| content)
        .ok_or_else(|| JobError::Permanent("the staged file is gone (already imported?)".into()))
}

fn message(r: &Report) -> String {
    if r.error_count > 0 {
        format!("rejected: {} errors, nothing imported", r.error_count)
    } else if r.dry_run {
        format!("dry run: {} new, {} duplicates", r.created, r.duplicates)
    } else {
        format!(
            "imported {} new, {} duplicates skipped",
            r.created, r.duplicates
        )
    }
}

/// Parses, validates and imports a staged athlete CSV (all or nothing). The staged file is
/// deleted in the transaction that imports it. The result is the import report; a file with
/// errors succeeds as a job with `committed: false` and the per-row errors.
pub async fn athletes_import(ctx: &Ctx, job: AthleteImport) -> Result<Value, JobError> {
    let content = staged(ctx, job.upload_id).await?;
    ctx.progress(Some(5), Some("validating")).await?;
    let mut report = Report::new(job.dry_run, job.sha256.clone());
    let parsed = import::athletes::parse(content.as_bytes(), &mut report);
    drop(content);
    ctx.progress(Some(40), Some("checking duplicates and writing"))
        .await?;
    let mut tx = ctx.deps.db.begin().await?;
    import::athletes::commit(&mut tx, job.org_id, job.user_id, parsed, &mut report).await?;
    if report.committed {
        audit::record(
            &mut tx,
            audit::Entry {
                org_id: Some(job.org_id),
                actor: Some(job.user_id),
                impersonator: None,
                action: "athletes.imported",
                target_type: "org",
                target_id: Some(job.org_id.to_string()),
                data: json!({ "created": report.created, "duplicates": report.duplicates, "rows": report.rows, "sha256": report.sha256, "jobId": ctx.job_id }),
            },
        )
        .await?;
    }
    athletes::delete_upload(&mut tx, job.upload_id).await?;
    tx.commit().await?;
    ctx.progress(Some(100), Some(&message(&report))).await?;
    serde_json::to_value(&report).map_err(|e| JobError::Permanent(e.to_string()))
}

pub async fn training_import(ctx: &Ctx, job: TrainingImport) -> Result<Value, JobError> {
    let content = staged(ctx, job.upload_id).await?;
    ctx.progress(Some(5), Some("validating")).await?;
    let mut report = Report::new(job.dry_run, job.sha256.clone());
    let parsed = import::training::parse(content.as_bytes(), &mut report);
    drop(content);
    ctx.progress(Some(40), Some("matching athletes and writing"))
        .await?;
    let mut tx = ctx.deps.db.begin().await?;
    import::training::commit(&mut tx, job.org_id, job.user_id, parsed, &mut report).await?;
    if report.committed {
        audit::record(
            &mut tx,
            audit::Entry {
                org_id: Some(job.org_id),
                actor: Some(job.user_id),
                impersonator: None,
                action: "training.imported",
                target_type: "org",
                target_id: Some(job.org_id.to_string()),
                data: json!({ "rows": report.rows, "details": report.details, "sha256": report.sha256, "jobId": ctx.job_id }),
            },
        )
        .await?;
    }
    athletes::delete_upload(&mut tx, job.upload_id).await?;
    tx.commit().await?;
    ctx.progress(Some(100), Some(&message(&report))).await?;
    serde_json::to_value(&report).map_err(|e| JobError::Permanent(e.to_string()))
}

/// Provider adapters arrive with the competition area; until one is configured for the
/// athlete's links the job fails permanently and says so.
pub async fn athletes_resync(ctx: &Ctx, job: AthleteResync) -> Result<Value, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    let links = athletes::provider_links(&mut c, job.athlete_id).await?;
    let provider = links
        .first()
        .map(|l| l.provider.clone())
        .unwrap_or_else(|| "athlete".into());
    let name: &'static str = match provider.as_str() {
        "heatsource" => "heatsource",
        "tourindex" => "tourindex",
        _ => "athlete provider",
    };
    Err(shared::providers::ProviderError::NotConfigured(name).into())
}
