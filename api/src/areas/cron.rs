//! `/api/cron/*`: each route enqueues its scheduled task's job (the same job the worker's
//! scheduler enqueues), for external cron callers and manual runs. Auth: `Bearer CRON_SECRET`.

use super::jobs::{JobAccepted, accepted};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::{MatchedPath, State};
use axum::http::StatusCode;
use shared::job::Owner;
use shared::job::scheduled::{self, CronTask};

pub async fn run(
    State(state): State<AppState>,
    path: MatchedPath,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let name = path.as_str().trim_start_matches("/api/cron/");
    let task = CronTask::parse(name).map_err(|_| Error::not_found("scheduled task"))?;
    let job = scheduled::trigger(&state.db, task, Owner::default()).await?;
    Ok(accepted(job))
}
