//! Reported messages in the console: the moderation queue with a status filter (`GET
//! /api/admin/message-reports`), and each open report resolved (optionally removing the
//! message) or dismissed with a note (`PATCH /api/admin/message-reports/{id}`, audited by the
//! domain). Admins see the reported text even after removal: that is what they judge.

use super::{Console, PAGE_SIZE};
use crate::areas::desk::{Chrome, DeskForm, Pager, Seat, opt, rename_field, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::db::{Id, TextEnum};
use shared::domain::messaging::ReportStatus;
use shared::domain::messaging::moderation::{self as domain, Decision, ReportFilter};

#[derive(Deserialize, Default, Clone)]
pub struct ReportsQuery {
    #[serde(default)]
    status: String,
    offset: Option<i64>,
}

impl ReportsQuery {
    fn href(&self, offset: i64) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        if !self.status.is_empty() {
            s.append_pair("status", &self.status);
        }
        if offset > 0 {
            s.append_pair("offset", &offset.to_string());
        }
        let qs = s.finish();
        if qs.is_empty() {
            "/admin/reports".into()
        } else {
            format!("/admin/reports?{qs}")
        }
    }
}

pub struct ReportCard {
    pub id: Id,
    pub status: &'static str,
    pub open: bool,
    pub reason: &'static str,
    pub details: String,
    pub reporter: String,
    pub body: String,
    pub sender: String,
    pub sent: String,
    pub removed: bool,
    pub org_id: Id,
    pub org_name: String,
    pub coach: String,
    pub athlete: String,
    pub created: String,
    pub resolution_note: String,
}

#[derive(Template)]
#[template(path = "desk/admin/reports.html")]
pub struct ReportsPage {
    c: Chrome,
    statuses: &'static [&'static str],
    status: String,
    rows: Vec<ReportCard>,
    back: String,
    prev_href: Option<String>,
    next_href: Option<String>,
    /// The report whose decision was refused, its typed note, and why.
    failed: Option<Id>,
    note: String,
    notice: Option<Notice>,
}

async fn reports_page(
    state: &AppState,
    con: &Console,
    q: &ReportsQuery,
    failed: Option<(Id, String)>,
    notice: Option<Notice>,
) -> shared::Result<ReportsPage> {
    let offset = q.offset.unwrap_or(0).max(0);
    // A bad filter shows every report with the filter's error (as the API's 400 says).
    let (filter, notice) = match ReportFilter::parse(opt(&q.status), None) {
        Ok(f) => (f, notice),
        Err(e) => (ReportFilter::default(), Some(Notice::of(&e))),
    };
    let mut rows = domain::list(&state.db, filter, PAGE_SIZE + 1, offset).await?;
    let p = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let rows = rows
        .into_iter()
        .map(|r| ReportCard {
            id: r.report.id,
            status: r.report.status.as_str(),
            open: r.report.status == ReportStatus::Open,
            reason: r.report.reason.as_str(),
            details: r.report.details.unwrap_or_default(),
            reporter: r.reporter_name.unwrap_or_default(),
            body: r.message_body,
            sender: r.message_sender_name.unwrap_or_default(),
            sent: con.time(r.message_created_at),
            removed: r.message_removed_at.is_some(),
            org_id: r.report.org_id,
            org_name: r.org_name,
            coach: r.coach_name,
            athlete: format!("{} {}", r.athlete_first_name, r.athlete_last_name),
            created: con.time(r.report.created_at),
            resolution_note: r.report.resolution_note.unwrap_or_default(),
        })
        .collect();
    let (failed, note) = failed.map_or((None, String::new()), |(id, n)| (Some(id), n));
    Ok(ReportsPage {
        c: con.chrome(con.cat.t("adm.reports").to_string()),
        statuses: <ReportStatus as TextEnum>::NAMES,
        status: q.status.clone(),
        rows,
        back: q.href(offset),
        prev_href: p.prev.map(|o| q.href(o)),
        next_href: p.next.map(|o| q.href(o)),
        failed,
        note,
        notice,
    })
}

pub async fn list(
    State(state): State<AppState>,
    con: Console,
    Query(q): Query<ReportsQuery>,
) -> Response {
    match reports_page(&state, &con, &q, None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => con.error(&e),
    }
}

#[derive(Deserialize)]
pub struct DecisionForm {
    #[serde(default)]
    status: String,
    #[serde(default)]
    note: String,
    /// A checkbox: present when ticked.
    remove_message: Option<String>,
    back: Option<String>,
}

/// `POST /admin/reports/{id}`: as `PATCH /api/admin/message-reports/{id}` (resolve, optionally
/// removing the message, or dismiss; audited). Back to the list with its note, else the list
/// with the refusal beside the report's fields (a closed report: 409).
pub async fn decide(
    State(state): State<AppState>,
    con: Console,
    Path(id): Path<Id>,
    DeskForm(f): DeskForm<DecisionForm>,
) -> Response {
    let back = f
        .back
        .filter(|b| b.starts_with("/admin/reports"))
        .unwrap_or_else(|| "/admin/reports".into());
    let rest = back.trim_start_matches("/admin").to_string();
    let r = async {
        let d = Decision::parse(&f.status, Some(&f.note), f.remove_message.is_some())?;
        domain::decide(&con.actor(), &state.db, id, d).await
    }
    .await;
    match r {
        Ok(row) => con.done(&rest, &format!("adm.report_{}", row.report.status.as_str())),
        Err(e) if e.kind == shared::ErrorKind::NotFound => con.error(&e),
        Err(mut e) => {
            rename_field(&mut e, "removeMessage", "remove_message");
            let q = back
                .split_once('?')
                .and_then(|(_, qs)| serde_urlencoded::from_str::<ReportsQuery>(qs).ok())
                .unwrap_or_default();
            let code = status_of(&e);
            match reports_page(&state, &con, &q, Some((id, f.note)), Some(Notice::of(&e))).await {
                Ok(p) => con.page_at(code, &p, &rest),
                Err(e) => con.error(&e),
            }
        }
    }
}

impl ReportsPage {
    /// The refusal's message for `field` of report `id`, when that report's post was refused.
    fn err(&self, id: &Id, field: &str) -> Option<String> {
        if self.failed.as_ref() != Some(id) {
            return None;
        }
        self.notice
            .as_ref()
            .and_then(|n| n.field(field))
            .map(str::to_string)
    }
}
