//! The members tab: the workspace's members with their roles, 25 a page; change a member's role
//! (as `PATCH /api/orgs/{id}/members/{memberId}`) and remove a member behind a confirmation
//! page (as `DELETE …`), with the rules of `shared::domain::members` (the last owner stays,
//! only an owner makes or unmakes owners) shown on the page.

use super::{TabLink, missing, tabs};
use crate::areas::desk::{Chrome, Desk, DeskForm, Empty, Offset, Pager, page_at, status_of};
use crate::areas::pages::{Notice, page, see_other};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::{members, orgs, roles};

/// Members per page.
pub const PAGE_SIZE: i64 = 25;
const TAB: &str = "/settings/members";

pub struct Row {
    pub id: Id,
    pub name: String,
    pub email: String,
    pub role_key: String,
    pub role_name: String,
    pub joined: String,
    pub me: bool,
    pub remove_href: String,
    /// The message of this row's role field when its change failed.
    pub error: Option<String>,
}

#[derive(Template)]
#[template(path = "desk/settings/members.html")]
pub struct ListPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    base: String,
    offset: i64,
    rows: Vec<Row>,
    /// (key, name) of every role, for the role pickers.
    roles: Vec<(String, String)>,
    can_manage: bool,
    prev_href: Option<String>,
    next_href: Option<String>,
    notice: Option<Notice>,
}

/// The page at `offset`; `failed` names the member whose change failed, with its error.
async fn list_page(
    state: &AppState,
    desk: &Desk,
    offset: i64,
    failed: Option<(Id, Notice)>,
) -> Result<ListPage, Error> {
    let acting = desk.acting();
    let mut rows = orgs::members(&state.db, &acting, PAGE_SIZE + 1, offset).await?;
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let roles = roles::list(&state.db, &acting)
        .await?
        .into_iter()
        .map(|(r, _)| (r.key, r.name))
        .collect();
    let (failed_id, notice) = match failed {
        Some((id, n)) => (Some(id), Some(n)),
        None => (None, None),
    };
    let rows = rows
        .into_iter()
        .map(|m| Row {
            remove_href: desk.path(&format!("{TAB}/{}/remove", m.member_id)),
            me: m.user_id == desk.who.caller.user.id,
            error: (failed_id == Some(m.member_id))
                .then(|| {
                    notice
                        .as_ref()
                        .map(|n| n.field("role").unwrap_or(&n.message).to_string())
                })
                .flatten(),
            id: m.member_id,
            name: m.name,
            email: m.email,
            role_key: m.role_key,
            role_name: m.role_name,
            joined: desk.time(m.joined_at),
        })
        .collect();
    let link = |o: i64| desk.path(&format!("{TAB}?offset={o}"));
    Ok(ListPage {
        c: Chrome::new(desk, desk.cat.t("set.members.title")),
        tabs: tabs(desk, TAB),
        base: desk.path(TAB),
        offset,
        rows,
        roles,
        can_manage: desk.ws.can(Perm::MembersManage),
        prev_href: pager.prev.map(link),
        next_href: pager.next.map(link),
        notice,
    })
}

pub async fn list(State(state): State<AppState>, desk: Desk, Query(q): Query<Offset>) -> Response {
    match list_page(&state, &desk, q.offset.unwrap_or(0).max(0), None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

#[derive(Deserialize)]
pub struct RoleForm {
    #[serde(default)]
    role: String,
    /// The page of the list the form was on (shown again when the change fails).
    #[serde(default)]
    offset: Option<i64>,
}

/// `POST …/settings/members/{member}/role`: as `PATCH /api/orgs/{id}/members/{memberId}`.
pub async fn set_role(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, member)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<RoleForm>,
) -> Response {
    match members::set_role(&state.db, &desk.acting(), member, &f.role).await {
        Ok(_) => desk.done(TAB, "set.members.role_changed"),
        Err(e) if missing(&e) => desk.error(&e),
        Err(e) => {
            let offset = f.offset.unwrap_or(0).max(0);
            let code = status_of(&e);
            match list_page(&state, &desk, offset, Some((member, Notice::of(&e)))).await {
                Ok(p) => page_at(&desk, code, &p, TAB),
                Err(e) => desk.error(&e),
            }
        }
    }
}

// ---- remove (behind its confirmation page) ----

#[derive(Template)]
#[template(path = "desk/settings/member_remove.html")]
pub struct RemovePage {
    c: Chrome,
    tabs: Vec<TabLink>,
    name: String,
    email: String,
    action: String,
    cancel: String,
    notice: Option<Notice>,
}

async fn remove_page(
    state: &AppState,
    desk: &Desk,
    member: Id,
    notice: Option<Notice>,
) -> Result<RemovePage, Error> {
    let m = members::get(&state.db, &desk.acting(), member).await?;
    Ok(RemovePage {
        c: Chrome::new(
            desk,
            desk.cat
                .fill("set.members.remove_title", &[("name", &m.name)]),
        ),
        tabs: tabs(desk, TAB),
        name: m.name,
        email: m.email,
        action: desk.path(&format!("{TAB}/{member}/remove")),
        cancel: desk.path(TAB),
        notice,
    })
}

/// `GET …/settings/members/{member}/remove`: the confirmation page.
pub async fn remove_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, member)): Path<(Id, Id)>,
) -> Response {
    match remove_page(&state, &desk, member, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// `POST …/settings/members/{member}/remove`: as `DELETE /api/orgs/{id}/members/{memberId}`.
/// Removing yourself is leaving: the browser goes home, as this desk is no longer yours.
pub async fn remove(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, member)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    let acting = desk.acting();
    let leaving = acting.member_id == member;
    match members::remove(&state.db, &acting, member).await {
        Ok(()) if leaving => see_other("/", HeaderMap::new()),
        Ok(()) => desk.done(TAB, "set.members.removed"),
        Err(e) if missing(&e) => desk.error(&e),
        Err(e) => {
            let code = status_of(&e);
            let rest = format!("{TAB}/{member}/remove");
            match remove_page(&state, &desk, member, Some(Notice::of(&e))).await {
                Ok(p) => page_at(&desk, code, &p, &rest),
                Err(e) => desk.error(&e),
            }
        }
    }
}
