//! The jobs and queues in the console: each queue's depth, delayed, running and recent
//! failures (`GET /api/admin/queues`), every job newest first with filters (`GET
//! /api/admin/jobs`), retry of a failed or cancelled job (`POST /api/admin/jobs/{id}/retry`)
//! and cancel of a queued or running one (`POST /api/jobs/{id}/cancel`, as an admin sees every
//! job). The queue counts are polled every 5 s by htmx.

use super::{Console, PAGE_SIZE};
use crate::areas::desk::{Chrome, DeskForm, Pager, Seat, opt, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use jobs::monitor::{self, JobFilter, RawJobFilter};
use jobs::progress::JobStatus;
use serde::Deserialize;
use shared::Error;
use shared::db::{Id, TextEnum, Ts};
use shared::job::Queue;
use worker::handlers::registry;
use worker::manage;

#[derive(Deserialize, Default, Clone)]
pub struct JobsQuery {
    #[serde(default)]
    status: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    queue: String,
    offset: Option<i64>,
}

impl JobsQuery {
    /// This list's address at `offset`, keeping the filters.
    fn href(&self, offset: i64) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in [
            ("status", &self.status),
            ("kind", &self.kind),
            ("queue", &self.queue),
        ] {
            if !v.is_empty() {
                s.append_pair(k, v);
            }
        }
        if offset > 0 {
            s.append_pair("offset", &offset.to_string());
        }
        let qs = s.finish();
        if qs.is_empty() {
            "/admin/jobs".into()
        } else {
            format!("/admin/jobs?{qs}")
        }
    }
}

pub struct QueueRow {
    pub name: &'static str,
    pub waiting: i64,
    pub delayed: i64,
    pub running: i64,
    pub failed_last_hour: i64,
    pub oldest_secs: i64,
}

pub struct JobRow {
    pub id: Id,
    pub kind: String,
    pub queue: &'static str,
    pub status: &'static str,
    pub attempts: String,
    pub created: String,
    pub error: String,
    pub org: Option<Id>,
    pub retry: bool,
    pub cancel: bool,
}

#[derive(Template)]
#[template(path = "desk/admin/jobs.html")]
pub struct JobsPage {
    c: Chrome,
    queues: Vec<QueueRow>,
    rows: Vec<JobRow>,
    statuses: &'static [&'static str],
    queue_names: &'static [&'static str],
    status: String,
    kind: String,
    queue: String,
    /// This list's address with its filters (where a button's post comes back to).
    back: String,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
}

async fn jobs_page(
    state: &AppState,
    con: &Console,
    q: &JobsQuery,
    notice: Option<Notice>,
) -> Result<JobsPage, Error> {
    let offset = q.offset.unwrap_or(0).max(0);
    let now = Ts::now();
    let mut c = state.db.acquire().await?;
    let stats = monitor::queue_stats(&mut c, now).await?;
    // A bad filter shows the list unfiltered with the field's error (as the API's 400 says).
    let raw = RawJobFilter {
        status: opt(&q.status),
        kind: opt(&q.kind),
        queue: opt(&q.queue),
        ..Default::default()
    };
    let (filter, notice) = match JobFilter::parse(&raw, |k| registry().is_known_kind(k)) {
        Ok(f) => (f, notice),
        Err(e) => (
            JobFilter::parse(&RawJobFilter::default(), |_| true)?,
            Some(Notice::of(&e)),
        ),
    };
    let mut rows = monitor::list(&mut c, &filter, PAGE_SIZE + 1, offset).await?;
    drop(c);
    let p = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let queues = stats
        .into_iter()
        .map(|s| QueueRow {
            oldest_secs: s.oldest_waiting_secs(now).round() as i64,
            name: s.queue.as_str(),
            waiting: s.waiting,
            delayed: s.delayed,
            running: s.running,
            failed_last_hour: s.failed_last_hour,
        })
        .collect();
    let rows = rows
        .into_iter()
        .map(|j| JobRow {
            retry: matches!(j.status, JobStatus::Failed | JobStatus::Cancelled),
            cancel: matches!(j.status, JobStatus::Queued | JobStatus::Running)
                && !j.cancel_requested
                && registry().is_cancellable(&j.kind),
            id: j.id,
            queue: j.queue.as_str(),
            status: j.status.as_str(),
            attempts: format!("{}/{}", j.attempts, j.max_attempts),
            created: con.time(j.created_at),
            error: j.last_error.unwrap_or_default(),
            org: j.org_id,
            kind: j.kind,
        })
        .collect();
    Ok(JobsPage {
        c: con.chrome(con.cat.t("adm.jobs").to_string()),
        queues,
        rows,
        statuses: <JobStatus as TextEnum>::NAMES,
        queue_names: <Queue as TextEnum>::NAMES,
        status: q.status.clone(),
        kind: q.kind.clone(),
        queue: q.queue.clone(),
        back: q.href(offset),
        prev_href: p.prev.map(|o| q.href(o)),
        next_href: p.next.map(|o| q.href(o)),
        notice,
    })
}

pub async fn list(
    State(state): State<AppState>,
    con: Console,
    Query(q): Query<JobsQuery>,
) -> Response {
    match jobs_page(&state, &con, &q, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => con.error(&e),
    }
}

/// The list again after a retry or cancel: its note on success, else the refusal above it at
/// the API's status (a job that has moved on: 409).
async fn after(
    state: &AppState,
    con: Console,
    r: Result<(), Error>,
    note: &str,
    back: Option<String>,
) -> Response {
    let back = back
        .filter(|b| b.starts_with("/admin/jobs"))
        .unwrap_or_else(|| "/admin/jobs".into());
    let rest = back.trim_start_matches("/admin").to_string();
    match r {
        Ok(()) => con.done(&rest, note),
        Err(e) if e.kind == shared::ErrorKind::NotFound => con.error(&e),
        Err(e) => {
            let q = back
                .split_once('?')
                .and_then(|(_, qs)| serde_urlencoded::from_str::<JobsQuery>(qs).ok())
                .unwrap_or_default();
            match jobs_page(state, &con, &q, Some(Notice::of(&e))).await {
                Ok(p) => con.page_at(status_of(&e), &p, &rest),
                Err(e) => con.error(&e),
            }
        }
    }
}

#[derive(Deserialize)]
pub struct BackForm {
    back: Option<String>,
}

/// `POST /admin/jobs/{id}/retry`: as `POST /api/admin/jobs/{id}/retry` (audited).
pub async fn retry(
    State(state): State<AppState>,
    con: Console,
    Path(id): Path<Id>,
    DeskForm(f): DeskForm<BackForm>,
) -> Response {
    let r = manage::retry(&state.db, &con.actor(), id).await.map(|_| ());
    after(&state, con, r, "adm.retried", f.back).await
}

/// `POST /admin/jobs/{id}/cancel`: as `POST /api/jobs/{id}/cancel` by a platform admin.
pub async fn cancel(
    State(state): State<AppState>,
    con: Console,
    Path(id): Path<Id>,
    DeskForm(f): DeskForm<BackForm>,
) -> Response {
    let v = manage::Viewer {
        actor: con.actor(),
        platform_admin: true,
    };
    let r = manage::cancel(&state.db, &v, id).await.map(|_| ());
    after(&state, con, r, "adm.cancelled", f.back).await
}
