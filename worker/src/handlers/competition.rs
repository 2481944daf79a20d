//! The competition provider syncs (scheduled): each runs one `shared::domain::competition`
//! operation and returns its per-item report as the job's result. An unconfigured provider
//! fails permanently; a provider that failed for every item (and could recover) fails
//! transiently, so the job is retried with backoff; otherwise the job succeeds and lists the
//! items it could not bring in.

use super::Ctx;
use jobs::JobError;
use serde_json::Value;
use shared::domain::competition::{self as domain, SyncReport};
use shared::providers::ProviderError;
use shared::providers::heatsource::{Heatsource, PROVIDER};

fn heatsource(ctx: &Ctx) -> Result<&Heatsource, JobError> {
    Ok(ctx
        .deps
        .heatsource
        .as_ref()
        .ok_or(ProviderError::NotConfigured(PROVIDER))?)
}

fn finish(report: SyncReport) -> Result<Value, JobError> {
    if report.all_failed_transiently() {
        let first = &report.failed[0];
        return Err(JobError::Transient(format!(
            "every item failed; first: {}: {}",
            first.item, first.error
        )));
    }
    serde_json::to_value(report).map_err(|e| JobError::Permanent(e.to_string()))
}

pub async fn heatsource_orgs_sync(ctx: &Ctx) -> Result<Value, JobError> {
    let report = domain::heatsource_orgs_sync(&ctx.deps.db, Some(heatsource(ctx)?)).await?;
    finish(report)
}

pub async fn heatsource_sync(ctx: &Ctx) -> Result<Value, JobError> {
    let report = domain::heatsource_events_sync(&ctx.deps.db, Some(heatsource(ctx)?)).await?;
    finish(report)
}
