//! `/api/cron/*`: each route enqueues its scheduled task's job (the same job the worker's
//! scheduler enqueues), for external cron callers and manual runs. Auth: `Bearer CRON_SECRET`.

use super::jobs::{JobAccepted, accepted};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::{MatchedPath, State};
use axum::http::StatusCode;

pub async fn run(
    State(state): State<AppState>,
    path: MatchedPath,
) -> Result<(StatusCode, axum::Json<JobAccepted>)> {
    let name = path.as_str().trim_start_matches("/api/cron/");
    let task = jobs::cron::task(name).ok_or_else(|| Error::not_found("scheduled task"))?;
    let mut tx = state.db.begin().await?;
    let job = jobs::enqueue(&mut tx, &task.spec(), jobs::Owner::default()).await?;
    tx.commit().await?;
    Ok(accepted(job))
}
