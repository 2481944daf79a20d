//! Job handlers, by kind. A handler gets a [`Ctx`] and its payload, and returns a JSON result
//! or a [`JobError`] (permanent: not retried; transient: retried with backoff).

mod imports;
mod mail;
mod maintenance;
mod notify;

use crate::Deps;
use jobs::kinds::{
    Announcement, AthleteImport, AthleteResync, NotificationDrain, NotificationFanout, Probe,
    TrainingImport,
};
use jobs::{Job, JobError, progress};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use shared::db::Id;
use std::sync::Arc;
use std::time::Duration;

/// What a running job can reach.
pub struct Ctx {
    pub deps: Arc<Deps>,
    pub job_id: Id,
    pub org_id: Option<Id>,
    pub attempt: u32,
}

impl Ctx {
    /// Records progress the api reads back (percent 0–100 and/or a message).
    pub async fn progress(
        &self,
        percent: Option<i64>,
        message: Option<&str>,
    ) -> Result<(), JobError> {
        let mut c = self.deps.db.acquire().await?;
        progress::report(&mut c, self.job_id, percent, message).await?;
        Ok(())
    }

    /// Whether someone asked this job to stop; long handlers check it between steps.
    pub async fn cancelled(&self) -> Result<bool, JobError> {
        let mut c = self.deps.db.acquire().await?;
        Ok(progress::is_cancel_requested(&mut c, self.job_id).await?)
    }
}

fn parse<T: DeserializeOwned>(payload: Value) -> Result<T, JobError> {
    serde_json::from_value(payload).map_err(|e| JobError::Permanent(format!("bad payload: {e}")))
}

pub async fn dispatch(ctx: &Ctx, kind: &str, payload: Value) -> Result<Value, JobError> {
    if let Some(name) = kind.strip_prefix("cron.") {
        return scheduled(ctx, name).await;
    }
    match kind {
        Probe::KIND => probe(ctx, parse(payload)?).await,
        AthleteImport::KIND => imports::athletes_import(ctx, parse(payload)?).await,
        TrainingImport::KIND => imports::training_import(ctx, parse(payload)?).await,
        AthleteResync::KIND => imports::athletes_resync(ctx, parse(payload)?).await,
        NotificationFanout::KIND => notify::fanout(ctx, parse(payload)?).await,
        NotificationDrain::KIND => notify::drain(ctx).await,
        Announcement::KIND => notify::announce(ctx, parse(payload)?).await,
        other => Err(JobError::Permanent(format!(
            "no handler for job kind {other}"
        ))),
    }
}

async fn scheduled(ctx: &Ctx, name: &str) -> Result<Value, JobError> {
    match name {
        "tokens-cleanup" => maintenance::tokens_cleanup(ctx).await,
        "jobs-prune" => maintenance::jobs_prune(ctx).await,
        "audit-retention" => maintenance::audit_retention(ctx).await,
        "db-maintenance" => maintenance::db_maintenance(ctx).await,
        "waitlist-digest" => mail::waitlist_digest(ctx).await,
        "verification-reminders" => mail::verification_reminders(ctx).await,
        // Provider syncs: their adapters arrive with the competition, footage and forecast
        // areas. Until a provider is configured the job fails permanently and says so.
        "tourindex-sync" | "tourindex-athletes-sync" | "tourindex-avatars" => {
            Err(shared::providers::ProviderError::NotConfigured("tourindex").into())
        }
        "heatsource-sync" | "heatsource-orgs-sync" => {
            Err(shared::providers::ProviderError::NotConfigured("heatsource").into())
        }
        "backfill-spots" => {
            Err(shared::providers::ProviderError::NotConfigured("spotsource").into())
        }
        "forecasts-refresh" => {
            Err(shared::providers::ProviderError::NotConfigured("forecast").into())
        }
        "clips-poll" => {
            Err(shared::providers::ProviderError::NotConfigured("analysis backend").into())
        }
        other => Err(JobError::Permanent(format!(
            "no scheduled task named {other}"
        ))),
    }
}

/// The diagnostics probe: sleeps in steps (reporting progress, honouring cancellation), fails
/// as asked, and echoes its marker and attempt.
async fn probe(ctx: &Ctx, p: Probe) -> Result<Value, JobError> {
    if p.fail_permanently {
        return Err(JobError::Permanent(
            "probe asked to fail permanently".into(),
        ));
    }
    if ctx.attempt <= p.fail_attempts {
        return Err(JobError::Transient(format!(
            "probe asked to fail attempt {}",
            ctx.attempt
        )));
    }
    if p.sleep_ms > 0 {
        let steps = 10;
        for i in 1..=steps {
            tokio::time::sleep(Duration::from_millis(p.sleep_ms / steps)).await;
            if ctx.cancelled().await? {
                return Err(JobError::Cancelled);
            }
            ctx.progress(Some((i * 100 / steps) as i64), Some("sleeping"))
                .await?;
        }
    }
    Ok(json!({ "marker": p.marker, "attempt": ctx.attempt }))
}
