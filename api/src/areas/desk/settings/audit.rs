//! The audit log page: the workspace's audit entries, newest first, filtered as
//! `GET /api/orgs/{id}/audit` filters them (action, exact or a prefix ending in `.`; a date
//! range, typed as days in the viewer's time zone), 50 a page. Calls `orgs::audit_log`, as the
//! JSON handler does; actors are named from the members list when the member may read it.

use super::super::{Chrome, Desk, Pager, opt, status_of};
use super::{TabLink, tabs};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::NaiveDate;
use serde::Deserialize;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::orgs;
use shared::error::Validator;
use std::collections::HashMap;

/// This page's tab (`super::TABS`).
pub const TAB: &str = "/settings/audit";

/// Entries per page.
pub const PAGE_SIZE: i64 = 50;

#[derive(Deserialize, Default)]
pub struct AuditQuery {
    #[serde(default)]
    action: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    offset: Option<i64>,
}

pub struct Entry {
    pub time: String,
    pub iso: String,
    pub actor: String,
    pub impersonated: bool,
    pub action: String,
    pub target: String,
    pub data: String,
}

#[derive(Template)]
#[template(path = "desk/settings/audit.html")]
pub struct AuditPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    action: String,
    from: String,
    to: String,
    rows: Vec<Entry>,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
}

/// A `YYYY-MM-DD` field of the filter, as a day (`None` when blank; a field error when not a date).
fn day(v: &mut Validator, field: &str, value: &str) -> Option<NaiveDate> {
    let value = opt(value)?;
    let d = NaiveDate::parse_from_str(value, "%Y-%m-%d").ok();
    if d.is_none() {
        v.add(field, "invalid", "a date as YYYY-MM-DD");
    }
    d
}

/// The names of the workspace's members by user id (empty without `members.read`: the page
/// then shows no names, as the JSON entry carries ids only).
async fn names(state: &AppState, desk: &Desk) -> HashMap<Id, String> {
    if !desk.ws.can(Perm::MembersRead) {
        return HashMap::new();
    }
    orgs::members(&state.db, &desk.acting(), 1000, 0)
        .await
        .map(|ms| ms.into_iter().map(|m| (m.user_id, m.name)).collect())
        .unwrap_or_default()
}

/// The entries' rows as the page shows them.
pub fn entries(
    desk: &Desk,
    names: &HashMap<Id, String>,
    rows: Vec<shared::repo::audit::Row>,
) -> Vec<Entry> {
    rows.into_iter()
        .map(|r| Entry {
            time: desk.time(r.created_at),
            iso: r.created_at.0.to_rfc3339(),
            actor: match r.actor_user_id {
                Some(u) => names.get(&u).cloned().unwrap_or_else(|| u.to_string()),
                None => desk.cat.t("set.audit.system").to_string(),
            },
            impersonated: r.impersonator_user_id.is_some(),
            action: r.action,
            target: match r.target_id {
                Some(id) => format!("{} {id}", r.target_type),
                None => r.target_type,
            },
            data: match &r.data.0 {
                serde_json::Value::Object(m) if m.is_empty() => String::new(),
                serde_json::Value::Null => String::new(),
                v => v.to_string(),
            },
        })
        .collect()
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<AuditQuery>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let mut v = Validator::new();
    let from = day(&mut v, "from", &q.from).map(|d| desk.midnight(d));
    // The last day shown is whole: up to the next local midnight.
    let to = day(&mut v, "to", &q.to)
        .and_then(|d| d.succ_opt())
        .map(|d| desk.midnight(d));
    let found = match v.finish() {
        Ok(()) => {
            orgs::audit_log(
                &state.db,
                &desk.acting(),
                opt(&q.action),
                from,
                to,
                PAGE_SIZE + 1,
                offset,
            )
            .await
        }
        Err(e) => Err(e),
    };
    let (mut rows, notice, code) = match found {
        Ok(r) => (r, None, StatusCode::OK),
        Err(e) if e.code == "validation_failed" => (vec![], Some(Notice::of(&e)), status_of(&e)),
        Err(e) => return desk.error(&e),
    };
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let link = |o: i64| {
        let qs = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("action", &q.action)
            .append_pair("from", &q.from)
            .append_pair("to", &q.to)
            .append_pair("offset", &o.to_string())
            .finish();
        desk.path(&format!("/settings/audit?{qs}"))
    };
    let names = names(&state, &desk).await;
    page(
        code,
        &AuditPage {
            c: Chrome::new(&desk, desk.cat.t("set.audit.title")),
            tabs: tabs(&desk, TAB),
            rows: entries(&desk, &names, rows),
            prev_href: pager.prev.map(link),
            next_href: pager.next.map(link),
            action: q.action.clone(),
            from: q.from.clone(),
            to: q.to.clone(),
            notice,
        },
    )
}
