//! The competition provider jobs: the scheduled syncs, the member-asked imports
//! (`competition.import`) and the athlete resync. Each runs one `shared::domain::competition`
//! operation and returns its per-item report as the job's result. An unconfigured provider
//! fails permanently; a provider that failed for every item (and could recover) fails
//! transiently, so the job is retried with backoff; otherwise the job succeeds and lists the
//! items it could not bring in.

use super::Ctx;
use jobs::JobError;
use serde::Serialize;
use serde_json::Value;
use shared::domain::athletes::jobs::AthleteResync;
use shared::domain::competition::jobs::{AchievementsCheck, CompetitionImport, ImportOp};
use shared::domain::competition::{self as domain, SyncReport, circuits, roster, tourindex};

/// The job's outcome for a report: when items were tried and every one failed, the job
/// fails (retried when a retry may cure every failure); otherwise it succeeds with the report.
fn finish(report: &SyncReport, result: impl Serialize) -> Result<Value, JobError> {
    if report.all_failed() {
        let first = &report.failed[0];
        let message = format!("every item failed; first: {}: {}", first.item, first.error);
        return Err(if report.all_failed_transiently() {
            JobError::Transient(message)
        } else {
            JobError::Permanent(message)
        });
    }
    serde_json::to_value(result).map_err(|e| JobError::Permanent(e.to_string()))
}

fn report(r: SyncReport) -> Result<Value, JobError> {
    finish(&r, &r)
}

pub async fn heatsource_orgs_sync(ctx: &Ctx) -> Result<Value, JobError> {
    report(
        domain::heatsource_orgs_sync(&ctx.deps.db, Some(ctx.deps.providers().heatsource()?))
            .await?,
    )
}

pub async fn heatsource_sync(ctx: &Ctx) -> Result<Value, JobError> {
    report(
        domain::heatsource_events_sync(&ctx.deps.db, Some(ctx.deps.providers().heatsource()?))
            .await?,
    )
}

pub async fn tourindex_sync(ctx: &Ctx) -> Result<Value, JobError> {
    report(tourindex::sync_tours(&ctx.deps.db, ctx.deps.providers()).await?)
}

pub async fn tourindex_athletes_sync(ctx: &Ctx) -> Result<Value, JobError> {
    report(roster::tourindex_athletes_sync(&ctx.deps.db, ctx.deps.providers(), None).await?)
}

pub async fn tourindex_avatars(ctx: &Ctx) -> Result<Value, JobError> {
    report(tourindex::copy_avatars(&ctx.deps.db, ctx.deps.providers(), &ctx.deps.storage).await?)
}

/// `backfill-spots`: the training sessions' spot names resolved at the spot provider.
pub async fn backfill_spots(ctx: &Ctx) -> Result<Value, JobError> {
    report(shared::domain::spots::backfill(&ctx.deps.db, ctx.deps.spotsource.as_ref()).await?)
}

/// `forecasts-refresh`: the forecasts of the cells in use fetched for the current window
/// (`docs/forecasts.md`); neither forecast provider configured fails permanently.
pub async fn forecasts_refresh(ctx: &Ctx) -> Result<Value, JobError> {
    report(
        shared::domain::forecasts::refresh(
            &ctx.deps.db,
            ctx.deps.forecasters(),
            shared::db::Ts::now(),
        )
        .await?,
    )
}

/// `POST /api/athletes/{id}/resync` and `POST /api/tourindex/import-results`.
pub async fn athletes_resync(ctx: &Ctx, job: AthleteResync) -> Result<Value, JobError> {
    report(roster::resync(&ctx.deps.db, ctx.deps.providers(), job.athlete_id, job.only).await?)
}

pub async fn import(ctx: &Ctx, job: CompetitionImport) -> Result<Value, JobError> {
    let db = &ctx.deps.db;
    let p = ctx.deps.providers();
    let by = roster::Importer {
        org_id: job.org_id,
        user_id: job.user_id,
        impersonator: None,
    };
    match job.op {
        ImportOp::Rankings {
            series_id,
            division_id,
        } => {
            let r =
                circuits::import_rankings(db, p, &by, &series_id, division_id.as_deref()).await?;
            finish(&r.report, &r)
        }
        ImportOp::Standings { circuit_id } => {
            let r = circuits::import_standings(db, p, &by, circuit_id).await?;
            finish(&r.report, &r)
        }
        ImportOp::BulkAdd {
            source,
            event_id,
            division_id,
            circuit_id,
        } => report(
            circuits::bulk_add(
                db,
                p,
                &by,
                source,
                &event_id,
                division_id.as_deref(),
                circuit_id,
            )
            .await?,
        ),
        ImportOp::Scrape { tour } => report(tourindex::scrape_tour(db, p, &tour).await?),
        ImportOp::TourAthletes => {
            report(roster::tourindex_athletes_sync(db, p, Some(job.org_id)).await?)
        }
    }
}

/// The workspace-wide achievements check: every athlete evaluated, progress per athlete.
pub async fn achievements_check(ctx: &Ctx, job: AchievementsCheck) -> Result<Value, JobError> {
    use shared::domain::competition::achievements::{self, Checker};
    let by = Checker {
        org_id: job.org_id,
        user_id: job.user_id,
        impersonator: None,
    };
    let report = achievements::check_workspace(&ctx.deps.db, &by, |done, total| async move {
        let percent = (done * 100 / total.max(1)) as i64;
        let mut c = ctx.deps.db.acquire().await?;
        jobs::progress::report(&mut c, ctx.job_id, Some(percent), None).await?;
        Ok(())
    })
    .await?;
    serde_json::to_value(report).map_err(|e| JobError::Permanent(e.to_string()))
}
