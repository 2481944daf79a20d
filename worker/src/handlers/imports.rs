//! CSV imports staged by the api (large files) and the provider re-import of an athlete.

use super::Ctx;
use jobs::JobError;
use jobs::kinds::{AthleteImport, TrainingImport};
use serde_json::Value;
use shared::db::Id;
use shared::domain::Actor;
use shared::import::athletes::AthleteImporter;
use shared::import::training::TrainingImporter;
use shared::import::{self, ImportError, Importer, Options, Progress, Source};

/// The job's progress row, as the import pipeline reports into it.
struct JobProgress<'a>(&'a Ctx);

impl Progress for JobProgress<'_> {
    async fn step(&self, percent: i64, message: &str) -> Result<(), sqlx::Error> {
        let mut c = self.0.deps.db.acquire().await?;
        jobs::progress::report(&mut c, self.0.job_id, Some(percent), Some(message)).await
    }
}

/// Runs a staged import through the pipeline (all or nothing). The staged file is deleted in
/// the transaction that imports it. The result is the import report; a file with errors
/// succeeds as a job with `committed: false` and the per-row errors.
async fn staged<I: Importer>(
    ctx: &Ctx,
    importer: &I,
    upload: Id,
    org: Id,
    user: Id,
    options: Options,
) -> Result<Value, JobError> {
    let source = Source::Staged {
        upload,
        job: ctx.job_id,
    };
    let actor = Actor {
        user_id: user,
        impersonator: None,
    };
    let report = import::run(
        &ctx.deps.db,
        importer,
        source,
        options,
        org,
        actor,
        &JobProgress(ctx),
    )
    .await
    .map_err(|e| match e {
        ImportError::StagedGone => JobError::Permanent(e.to_string()),
        ImportError::Db(e) => e.into(),
    })?;
    serde_json::to_value(&report).map_err(|e| JobError::Permanent(e.to_string()))
}

pub async fn athletes_import(ctx: &Ctx, job: AthleteImport) -> Result<Value, JobError> {
    let options = Options {
        dry_run: job.dry_run,
        sha256: job.sha256,
    };
    staged(
        ctx,
        &AthleteImporter,
        job.upload_id,
        job.org_id,
        job.user_id,
        options,
    )
    .await
}

pub async fn training_import(ctx: &Ctx, job: TrainingImport) -> Result<Value, JobError> {
    let options = Options {
        dry_run: job.dry_run,
        sha256: job.sha256,
    };
    staged(
        ctx,
        &TrainingImporter,
        job.upload_id,
        job.org_id,
        job.user_id,
        options,
    )
    .await
}
