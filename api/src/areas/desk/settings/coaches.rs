//! The coaches pages: the workspace's coaches with their athlete counts (`members::
//! coach_directory` and `coaches::get`, as `GET /api/orgs/{id}/coach-directory` and
//! `GET /api/coaches/{id}`), a coach's page (`coaches::get`, `stats`, `athletes`, `activity`,
//! each part only with the JSON route's permission), and moving all of a coach's athletes to
//! another coach behind a confirmation page (`coaches::reassign`, as
//! `POST /api/coaches/{id}/athletes/reassign`).

use super::super::{Chrome, Desk, DeskForm, Offset, Pager, page_at, status_of};
use super::audit::{Entry, entries};
use super::{TabLink, tabs};
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::{coaches as domain, members};
use shared::error::Validator;
use std::collections::HashMap;

/// This page's tab (`super::TABS`).
pub const TAB: &str = "/settings/coaches";

/// Athletes per page of a coach's page.
pub const ATHLETES_SIZE: i64 = 25;
/// Audit entries shown as a coach's recent activity.
pub const ACTIVITY_SIZE: i64 = 20;

pub struct CoachRow {
    pub href: String,
    pub name: String,
    pub email: String,
    pub role: String,
    pub athletes: i64,
}

#[derive(Template)]
#[template(path = "desk/settings/coaches.html")]
pub struct ListPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    rows: Vec<CoachRow>,
}

pub async fn list(State(state): State<AppState>, desk: Desk) -> Response {
    let acting = desk.acting();
    let found = async {
        let mut rows = vec![];
        for (id, _) in members::coach_directory(&state.db, &acting).await? {
            let k = domain::get(&state.db, &acting, id).await?;
            rows.push(CoachRow {
                href: desk.path(&format!("/settings/coaches/{id}")),
                name: k.user.name,
                email: k.user.email,
                role: k.role_key,
                athletes: k.athletes,
            });
        }
        Ok::<_, Error>(rows)
    };
    match found.await {
        Ok(rows) => page(
            StatusCode::OK,
            &ListPage {
                c: Chrome::new(&desk, desk.cat.t("set.coaches.title")),
                tabs: tabs(&desk, TAB),
                rows,
            },
        ),
        Err(e) => desk.error(&e),
    }
}

// ---- one coach ----

pub struct AthleteRow {
    pub href: String,
    pub name: String,
    pub status: String,
    pub role: String,
    pub assigned: String,
}

/// The form that leads to the reassignment's confirmation.
pub struct Reassigning {
    pub action: String,
    /// The other coaches: (user id, name, selected).
    pub choices: Vec<(String, String, bool)>,
}

#[derive(Template)]
#[template(path = "desk/settings/coach.html")]
pub struct CoachPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    name: String,
    email: String,
    role: String,
    joined: String,
    stats: shared::repo::coaches::Stats,
    /// The athletes, when the member may read athletes.
    athletes: Option<Vec<AthleteRow>>,
    prev_href: Option<String>,
    next_href: Option<String>,
    /// The recent activity, when the member may read the audit log.
    activity: Option<Vec<Entry>>,
    /// The reassignment form, when the member may reassign and the coach has athletes.
    reassign: Option<Reassigning>,
    notice: Option<Notice>,
}

async fn coach_page(
    state: &AppState,
    desk: &Desk,
    id: Id,
    offset: i64,
    to: Option<Id>,
    notice: Option<Notice>,
) -> Result<CoachPage, Error> {
    let acting = desk.acting();
    let k = domain::get(&state.db, &acting, id).await?;
    let stats = domain::stats(&state.db, &acting, id).await?;
    let base = desk.path(&format!("/settings/coaches/{id}"));
    let (athletes, pager) = if desk.may(Module::Athletes, Perm::AthletesRead) {
        let mut rows = domain::athletes(&state.db, &acting, id, ATHLETES_SIZE + 1, offset).await?;
        let pager = Pager::cut(&mut rows, offset, ATHLETES_SIZE);
        let rows = rows
            .into_iter()
            .map(|a| AthleteRow {
                href: desk.path(&format!("/athletes/{}", a.athlete_id)),
                name: format!("{} {}", a.first_name, a.last_name),
                status: a.status.as_str().to_string(),
                role: a.assignment_role.as_str().to_string(),
                assigned: desk.time(a.assigned_at),
            })
            .collect();
        (Some(rows), Some(pager))
    } else {
        (None, None)
    };
    let activity = if desk.ws.can(Perm::AuditRead) {
        let rows = domain::activity(&state.db, &acting, id, ACTIVITY_SIZE, 0).await?;
        let names = HashMap::from([(id, k.user.name.clone())]);
        Some(entries(desk, &names, rows))
    } else {
        None
    };
    let reassign = if desk.may(Module::Athletes, Perm::AthletesUpdate) && stats.athletes > 0 {
        let others: Vec<_> = members::coach_directory(&state.db, &acting)
            .await?
            .into_iter()
            .filter(|(u, _)| *u != id)
            .map(|(u, n)| (u.to_string(), n, Some(u) == to))
            .collect();
        (!others.is_empty()).then(|| Reassigning {
            action: format!("{base}/reassign"),
            choices: others,
        })
    } else {
        None
    };
    let link = |o: i64| format!("{base}?offset={o}");
    Ok(CoachPage {
        c: Chrome::new(desk, k.user.name.clone()),
        tabs: tabs(desk, TAB),
        name: k.user.name,
        email: k.user.email,
        role: k.role_key,
        joined: desk.time(k.joined_at),
        stats,
        athletes,
        prev_href: pager.as_ref().and_then(|p| p.prev).map(link),
        next_href: pager.as_ref().and_then(|p| p.next).map(link),
        activity,
        reassign,
        notice,
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    Query(q): Query<Offset>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    match coach_page(&state, &desk, id, offset, None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

// ---- reassign ----

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ReassignForm {
    #[serde(default)]
    to_coach_id: String,
}

#[derive(Template)]
#[template(path = "desk/settings/reassign.html")]
pub struct ReassignPage {
    c: Chrome,
    sentence: String,
    to_id: Id,
    action: String,
    cancel: String,
}

/// The coach's page again, answering a reassignment that failed: the error beside the field.
async fn failed(state: &AppState, desk: &Desk, id: Id, e: &Error) -> Response {
    match coach_page(state, desk, id, 0, None, Some(Notice::of(e))).await {
        Ok(p) => page_at(desk, status_of(e), &p, &format!("/settings/coaches/{id}")),
        Err(e2) => desk.error(&e2),
    }
}

/// The chosen coach's id, parsed as `Reassign::parse` checks the rest.
fn target(f: &ReassignForm, from: Id) -> Result<domain::Reassign, Error> {
    let mut v = Validator::new();
    let to = v.id("toCoachId", &f.to_coach_id);
    v.finish()?;
    match to {
        Some(to) => domain::Reassign::parse(from, to, None),
        None => Err(Error::field("toCoachId", "invalid_id", "must be an id")),
    }
}

/// The confirmation page: moving all of the coach's athletes to the chosen coach.
pub async fn reassign_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    Query(f): Query<ReassignForm>,
) -> Response {
    let acting = desk.acting();
    let from = match domain::get(&state.db, &acting, id).await {
        Ok(k) => k,
        Err(e) => return desk.error(&e),
    };
    let r = match target(&f, id) {
        Ok(r) => r,
        Err(e) => return failed(&state, &desk, id, &e).await,
    };
    let to = match domain::get(&state.db, &acting, r.to).await {
        Ok(k) => k,
        Err(_) => {
            let e = Error::field("toCoachId", "invalid", "not a member of this workspace");
            return failed(&state, &desk, id, &e).await;
        }
    };
    page(
        StatusCode::OK,
        &ReassignPage {
            c: Chrome::new(&desk, desk.cat.t("set.coaches.reassign_title")),
            sentence: desk.cat.fill(
                "set.coaches.reassign_confirm",
                &[
                    ("count", &from.athletes.to_string()),
                    ("from", &from.user.name),
                    ("to", &to.user.name),
                ],
            ),
            to_id: r.to,
            action: desk.path(&format!("/settings/coaches/{id}/reassign")),
            cancel: desk.path(&format!("/settings/coaches/{id}")),
        },
    )
}

pub async fn reassign(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<ReassignForm>,
) -> Response {
    let acting = desk.acting();
    // Another workspace's coach is a 404 page, as for any other workspace's row.
    if let Err(e) = domain::get(&state.db, &acting, id).await {
        return desk.error(&e);
    }
    let moved = match target(&f, id) {
        Ok(r) => domain::reassign(&state.db, &acting, r).await,
        Err(e) => Err(e),
    };
    match moved {
        Ok(_) => desk.done(&format!("/settings/coaches/{id}"), "set.coaches.reassigned"),
        Err(e) if e.kind == shared::ErrorKind::BadRequest => failed(&state, &desk, id, &e).await,
        Err(e) => desk.error(&e),
    }
}
