//! A long action's page (`GET /w/{ws}/jobs/{id}`): the job's progress, live, then its result,
//! from the same job row `GET /api/jobs/{id}` reads (`worker::manage::get`, with its
//! visibility rule). While the job runs the page refreshes itself: htmx polls the `#job` part
//! every second, and without script a `<meta http-equiv="refresh">` reloads the page.

use super::{Chrome, Desk};
use crate::areas::pages::page;
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use jobs::progress::JobStatus;
use serde::Deserialize;
use shared::Error;
use shared::db::Id;
use worker::manage::{self, Viewer};

#[derive(Template)]
#[template(path = "desk/job.html")]
pub struct JobPage {
    c: Chrome,
    id: Id,
    kind: String,
    running: bool,
    status: &'static str,
    tone: &'static str,
    percent: Option<i64>,
    message: Option<String>,
    error: Option<String>,
    result: Vec<(String, String)>,
    back: Option<String>,
    self_href: String,
}

#[derive(Deserialize)]
pub struct JobQuery {
    /// Where "Continue" leads once the job is done: a path of this workspace's desk.
    back: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    Query(q): Query<JobQuery>,
) -> Response {
    let viewer = Viewer {
        actor: desk.who.caller.actor(),
        platform_admin: desk.who.caller.user.is_platform_admin,
    };
    let job = match manage::get(&state.db, &viewer, id).await {
        // A job of another workspace is not shown here, as another workspace's row is not.
        Ok(j) if j.org_id == Some(desk.org()) => j,
        Ok(_) => return desk.error(&Error::not_found("job")),
        Err(e) => return desk.error(&e),
    };
    let back = q
        .back
        .filter(|b| b.starts_with(&desk.path("/")) && !b.contains("//") && !b.contains('\\'));
    let (status, tone) = match job.status {
        JobStatus::Queued => ("job.queued", ""),
        JobStatus::Running => ("job.running", ""),
        JobStatus::Succeeded => ("job.succeeded", "ok"),
        JobStatus::Failed => ("job.failed", "bad"),
        JobStatus::Cancelled => ("job.cancelled", "warn"),
    };
    let result = job
        .result
        .as_ref()
        .and_then(|r| r.0.as_object().cloned())
        .map(|o| {
            o.into_iter()
                .filter(|(_, v)| v.is_number() || v.is_string() || v.is_boolean())
                .map(|(k, v)| (k, v.to_string().trim_matches('"').to_string()))
                .collect()
        })
        .unwrap_or_default();
    let self_href = match &back {
        Some(b) => format!(
            "{}?back={}",
            desk.path(&format!("/jobs/{id}")),
            crate::areas::pages::encode(b)
        ),
        None => desk.path(&format!("/jobs/{id}")),
    };
    page(
        StatusCode::OK,
        &JobPage {
            c: Chrome::new(&desk, desk.cat.t("job.title")),
            id,
            kind: job.kind,
            running: matches!(job.status, JobStatus::Queued | JobStatus::Running),
            status: desk.cat.t(status),
            tone,
            percent: job.percent,
            message: job.message,
            error: job.last_error.filter(|_| job.status == JobStatus::Failed),
            result,
            back,
            self_href,
        },
    )
}
