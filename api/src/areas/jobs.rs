//! Job status: long-running routes answer 202 with a job id and a URL to poll; the progress
//! row is the one source of truth for status, percent, message, result and error. Callers see
//! the jobs of their workspaces and their own; platform jobs (scheduled tasks) are for admins.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::{Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use jobs::monitor::{self, JobFilter, RawJobFilter};
use jobs::progress::{JobStatus, Progress};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use shared::db::{Id, Ts};
use worker::handlers::registry;
use worker::manage;

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
pub fn accepted(job: shared::job::Enqueued) -> (StatusCode, axum::Json<JobAccepted>) {
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
            cancellable: registry().is_cancellable(&p.kind),
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

/// The caller as the job operations see them.
fn viewer(caller: &Caller) -> manage::Viewer {
    manage::Viewer {
        actor: caller.actor(),
        platform_admin: caller.user.is_platform_admin,
    }
}

pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<axum::Json<JobView>> {
    let job = manage::get(&state.db, &viewer(&caller), id).await?;
    Ok(axum::Json(job.into()))
}

/// Cancels a queued job at once; a running one is asked to stop and does at its next check.
pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<axum::Json<JobView>> {
    let job = manage::cancel(&state.db, &viewer(&caller), id).await?;
    Ok(axum::Json(job.into()))
}

/// An admin re-queues a failed or cancelled job with fresh attempts.
pub async fn retry(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    Ok(accepted(
        manage::retry(&state.db, &caller.actor(), id).await?,
    ))
}

// ---- platform admin: the jobs list and the queues (reads through `jobs::monitor`) ----

/// A job as a platform admin sees it in the list: where it runs and whose it is, without its
/// payload or result (read those with `GET /api/jobs/{id}`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminJobView {
    pub id: Id,
    pub kind: String,
    pub queue: shared::job::Queue,
    pub status: JobStatus,
    /// The owning workspace, if any (scheduled tasks have none).
    pub org_id: Option<Id>,
    /// The user whose action enqueued it, if any.
    pub created_by: Option<Id>,
    pub attempts: i64,
    pub max_attempts: i64,
    pub percent: Option<i64>,
    pub message: Option<String>,
    pub last_error: Option<String>,
    pub cancel_requested: bool,
    pub run_after: Ts,
    pub created_at: Ts,
    pub started_at: Option<Ts>,
    pub finished_at: Option<Ts>,
}

impl From<Progress> for AdminJobView {
    fn from(p: Progress) -> Self {
        AdminJobView {
            id: p.id,
            kind: p.kind,
            queue: p.queue,
            status: p.status,
            org_id: p.org_id,
            created_by: p.created_by,
            attempts: p.attempts,
            max_attempts: p.max_attempts,
            percent: p.percent,
            message: p.message,
            last_error: p.last_error,
            cancel_requested: p.cancel_requested,
            run_after: p.run_after,
            created_at: p.created_at,
            started_at: p.started_at,
            finished_at: p.finished_at,
        }
    }
}

/// A page of jobs (the pagination helper's shape, named for the document).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminJobPage {
    pub items: Vec<AdminJobView>,
    pub limit: i64,
    pub offset: i64,
    /// The offset of the next page, or null on the last page.
    pub next_offset: Option<i64>,
}

impl From<Paged<AdminJobView>> for AdminJobPage {
    fn from(p: Paged<AdminJobView>) -> Self {
        AdminJobPage {
            items: p.items,
            limit: p.limit,
            offset: p.offset,
            next_offset: p.next_offset,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdminJobsQuery {
    status: Option<String>,
    kind: Option<String>,
    queue: Option<String>,
    org_id: Option<Id>,
    user_id: Option<Id>,
    from: Option<Ts>,
    to: Option<Ts>,
}

/// Every job of the platform, newest first, filtered by status, kind, queue, owner (workspace
/// and/or user) and creation time.
pub async fn admin_list(
    State(state): State<AppState>,
    Query(q): Query<AdminJobsQuery>,
    page: Page,
) -> Result<axum::Json<AdminJobPage>> {
    let filter = JobFilter::parse(
        &RawJobFilter {
            status: q.status.as_deref(),
            kind: q.kind.as_deref(),
            queue: q.queue.as_deref(),
            org_id: q.org_id,
            user_id: q.user_id,
            from: q.from,
            to: q.to,
        },
        |k| registry().is_known_kind(k),
    )?;
    let mut c = state.db.acquire().await?;
    let rows = monitor::list(&mut c, &filter, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(AdminJobView::from).collect())
            .into(),
    ))
}

/// One queue now.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueView {
    pub queue: shared::job::Queue,
    /// Queued and due: waiting for a worker (the queue's depth).
    pub waiting: i64,
    /// Queued for later: a retry's backoff or a delayed job.
    pub delayed: i64,
    pub running: i64,
    /// Failed for good within the last hour.
    pub failed_last_hour: i64,
    /// When the longest-waiting due job became due; null when none waits.
    pub oldest_waiting_since: Option<Ts>,
    /// How long it has waited, in seconds (0 when none waits).
    pub oldest_waiting_secs: f64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuesView {
    /// Every queue, in a fixed order, including idle ones.
    pub queues: Vec<QueueView>,
    /// When the counts were taken.
    pub at: Ts,
}

/// Per queue: depth, delayed, running, failed in the last hour and the oldest waiting job.
pub async fn admin_queues(State(state): State<AppState>) -> Result<axum::Json<QueuesView>> {
    let now = Ts::now();
    let mut c = state.db.acquire().await?;
    let stats = monitor::queue_stats(&mut c, now).await?;
    Ok(axum::Json(QueuesView {
        queues: stats
            .into_iter()
            .map(|s| QueueView {
                oldest_waiting_secs: s.oldest_waiting_secs(now),
                queue: s.queue,
                waiting: s.waiting,
                delayed: s.delayed,
                running: s.running,
                failed_last_hour: s.failed_last_hour,
                oldest_waiting_since: s.oldest_waiting_since,
            })
            .collect(),
        at: now,
    }))
}
