//! CSV imports staged by the api (large files) and the provider re-import of an athlete.

use super::Ctx;
use jobs::JobError;
use serde_json::Value;
use shared::db::Id;
use shared::db::Tx;
use shared::domain::Actor;
use shared::import::{
    self, Background, ImportError, ImportFile, Importer, Options, Progress, Report, Source,
};

/// The job's progress row, as the import pipeline reports into it.
struct JobProgress<'a>(&'a Ctx);

impl Progress for JobProgress<'_> {
    async fn step(&self, percent: i64, message: &str) -> Result<(), sqlx::Error> {
        let mut c = self.0.deps.db.acquire().await?;
        jobs::progress::report(&mut c, self.0.job_id, Some(percent), Some(message)).await
    }

    async fn finished(
        &self,
        tx: &mut Tx,
        report: &Report,
        message: &str,
    ) -> Result<(), sqlx::Error> {
        let result = serde_json::to_value(report).map_err(|e| sqlx::Error::Encode(e.into()))?;
        jobs::progress::succeed(tx, self.0.job_id, &result, message).await
    }
}

/// A second run of an import that committed (its worker was cut off before the ack): the
/// outcome recorded with the commit, if there is one.
async fn committed_outcome(ctx: &Ctx) -> Result<Option<Value>, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    let p = jobs::progress::get(&mut c, ctx.job_id).await?;
    Ok(
        p.filter(|p| p.status == jobs::progress::JobStatus::Succeeded)
            .and_then(|p| p.result.map(|r| r.0)),
    )
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
    let run = import::run(
        &ctx.deps.db,
        importer,
        source,
        options,
        org,
        actor,
        &JobProgress(ctx),
    )
    .await;
    let report = match run {
        Ok(report) => report,
        Err(ImportError::StagedGone) => {
            return committed_outcome(ctx)
                .await?
                .ok_or_else(|| JobError::Permanent(ImportError::StagedGone.to_string()));
        }
        Err(ImportError::Db(e)) => return Err(e.into()),
    };
    serde_json::to_value(&report).map_err(|e| JobError::Permanent(e.to_string()))
}

/// A staged file's import (whichever import `I` is).
pub async fn import_file<I: Background>(ctx: &Ctx, job: ImportFile<I>) -> Result<Value, JobError> {
    let options = Options {
        dry_run: job.dry_run,
        sha256: job.sha256,
    };
    staged(
        ctx,
        &I::default(),
        job.upload_id,
        job.org_id,
        job.user_id,
        options,
    )
    .await
}
