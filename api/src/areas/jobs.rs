//! Job status: long-running routes answer 202 with a job id and a URL to poll; the progress
//! row is the one source of truth for status, percent, message, result and error. Callers see
//! the jobs of their workspaces and their own; platform jobs (scheduled tasks) are for admins.

use crate::auth::Caller;
use crate::http::extract::Path;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use jobs::progress::{self, JobStatus, Progress};
use serde::Serialize;
use serde_json::Value;
use shared::db::{Executor, Id, Ts};
use shared::repo::{audit, orgs};

use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobAccepted {
    pub job_id: Id,
    pub status: JobStatus,
    /// GET this for progress.
    pub poll_url: String,
    /// True when an identical job was already queued or running and is returned instead.
    pub existing: bool,
}

/// The 202 answer of a route that enqueued `job`.
pub fn accepted(job: jobs::Enqueued) -> (StatusCode, axum::Json<JobAccepted>) {
    (
        StatusCode::ACCEPTED,
        axum::Json(JobAccepted {
            job_id: job.id,
            status: JobStatus::Queued,
            poll_url: format!("/api/jobs/{}", job.id),
            existing: job.existing,
        }),
    )
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    pub id: Id,
    pub kind: String,
    pub status: JobStatus,
    pub attempts: i64,
    pub max_attempts: i64,
    pub percent: Option<i64>,
    pub message: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
    pub last_error: Option<String>,
    pub cancel_requested: bool,
    pub cancellable: bool,
    pub run_after: Ts,
    pub created_at: Ts,
    pub started_at: Option<Ts>,
    pub finished_at: Option<Ts>,
}

impl From<Progress> for JobView {
    fn from(p: Progress) -> Self {
        JobView {
            cancellable: jobs::kinds::is_cancellable(&p.kind),
            id: p.id,
            kind: p.kind,
            status: p.status,
            attempts: p.attempts,
            max_attempts: p.max_attempts,
            percent: p.percent,
            message: p.message,
            result: p.result.map(|j| j.0),
            last_error: p.last_error,
            cancel_requested: p.cancel_requested,
            run_after: p.run_after,
            created_at: p.created_at,
            started_at: p.started_at,
            finished_at: p.finished_at,
        }
    }
}

/// The job if the caller may see it; 404 otherwise (absent and not-yours look the same).
async fn visible(x: &mut impl Executor, caller: &Caller, id: Id) -> Result<Progress> {
    let job = progress::get(x, id)
        .await?
        .ok_or_else(|| Error::not_found("job"))?;
    let allowed = caller.user.is_platform_admin
        || job.created_by == Some(caller.user.id)
        || match job.org_id {
            Some(org) => orgs::membership(x, caller.user.id, org).await?.is_some(),
            None => false,
        };
    if allowed {
        Ok(job)
    } else {
        Err(Error::not_found("job").into())
    }
}

pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<axum::Json<JobView>> {
    let mut c = state.db.acquire().await?;
    Ok(axum::Json(visible(&mut c, &caller, id).await?.into()))
}

/// Cancels a queued job at once; a running one is asked to stop and does at its next check.
pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<axum::Json<JobView>> {
    let mut tx = state.db.begin().await?;
    let job = visible(&mut tx, &caller, id).await?;
    if !jobs::kinds::is_cancellable(&job.kind) {
        return Err(
            Error::conflict("not_cancellable", "jobs of this kind cannot be cancelled").into(),
        );
    }
    if progress::request_cancel(&mut tx, id).await?.is_none() {
        return Err(Error::conflict(
            "job_finished",
            format!("the job has already {}", job.status),
        )
        .into());
    }
    audit::record(
        &mut tx,
        caller.audit(
            job.org_id,
            "job.cancel_requested",
            "job",
            Some(id.to_string()),
            serde_json::json!({ "kind": job.kind }),
        ),
    )
    .await?;
    let job = progress::get(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("job"))?;
    tx.commit().await?;
    Ok(axum::Json(job.into()))
}

/// An admin re-queues a failed or cancelled job with fresh attempts.
pub async fn retry(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let mut tx = state.db.begin().await?;
    let job = progress::get(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("job"))?;
    if !progress::requeue(&mut tx, id).await? {
        return Err(Error::conflict(
            "job_not_failed",
            format!(
                "only failed or cancelled jobs can be retried; this one is {}",
                job.status
            ),
        )
        .into());
    }
    jobs::queue::push(&mut tx, job.queue, id, Ts::now()).await?;
    audit::record(
        &mut tx,
        caller.audit(
            job.org_id,
            "job.retried",
            "job",
            Some(id.to_string()),
            serde_json::json!({ "kind": job.kind, "previousStatus": job.status }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(accepted(jobs::Enqueued {
        id,
        existing: false,
    }))
}
