//! Workspaces and users in the console: lists with search and pages, a page for each, the
//! seat cap override, and impersonation started from a user's page. The same operations as
//! `GET /api/admin/orgs…`, `PATCH /api/admin/orgs/{id}`, `GET /api/admin/users…` and
//! `POST /api/admin/impersonate` (audited by the domain).

use super::{Console, PAGE_SIZE, list_href};
use crate::areas::desk::{Chrome, DeskForm, Pager, Seat, opt, status_of};
use crate::areas::pages::{Notice, page, see_other};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::admin;
use shared::error::Validator;

#[derive(Deserialize, Default)]
pub struct ListQuery {
    #[serde(default)]
    q: String,
    offset: Option<i64>,
}

/// The previous and next pages' links of a searched list.
fn pages(base: &str, q: &str, p: &Pager) -> (Option<String>, Option<String>) {
    (
        p.prev.map(|o| list_href(base, q, o)),
        p.next.map(|o| list_href(base, q, o)),
    )
}

// ---- workspaces ----

pub struct OrgRow {
    pub id: Id,
    pub name: String,
    pub kind: &'static str,
    pub plan: String,
    pub members: i64,
    pub created: String,
}

#[derive(Template)]
#[template(path = "desk/admin/orgs.html")]
pub struct OrgsPage {
    c: Chrome,
    q: String,
    rows: Vec<OrgRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
}

pub async fn orgs(
    State(state): State<AppState>,
    con: Console,
    Query(q): Query<ListQuery>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let search = q.q.trim();
    let mut rows = match admin::workspaces(&state.db, opt(search), PAGE_SIZE + 1, offset).await {
        Ok(r) => r,
        Err(e) => return con.error(&e),
    };
    let p = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let (prev_href, next_href) = pages("/admin/orgs", search, &p);
    let rows = rows
        .into_iter()
        .map(|o| OrgRow {
            id: o.id,
            name: o.name,
            kind: o.org_type.as_str(),
            plan: o.plan,
            members: o.members,
            created: con.time(o.created_at),
        })
        .collect();
    let c = con.chrome(con.cat.t("adm.orgs").to_string());
    page(
        StatusCode::OK,
        &OrgsPage {
            c,
            q: search.to_string(),
            rows,
            prev_href,
            next_href,
        },
    )
}

pub struct MemberRow {
    pub user_id: Id,
    pub name: String,
    pub email: String,
    pub role: String,
}

#[derive(Template)]
#[template(path = "desk/admin/org.html")]
pub struct OrgPage {
    c: Chrome,
    id: Id,
    kind: &'static str,
    plan: String,
    seat_cap: i64,
    seat_cap_override: String,
    created: String,
    disabled: String,
    members: Vec<MemberRow>,
    notice: Option<Notice>,
}

async fn org_page(
    state: &AppState,
    con: &Console,
    id: Id,
    notice: Option<Notice>,
    typed: Option<String>,
) -> shared::Result<OrgPage> {
    let w = admin::workspace(&state.db, id).await?;
    Ok(OrgPage {
        c: con.chrome(w.org.name.clone()),
        id,
        kind: w.org.org_type.as_str(),
        plan: w.org.plan,
        seat_cap: w.seat_cap,
        seat_cap_override: typed
            .unwrap_or_else(|| w.org.seat_cap.map(|n| n.to_string()).unwrap_or_default()),
        created: con.time(w.org.created_at),
        disabled: w.org.disabled_modules.0.join(", "),
        members: w
            .members
            .into_iter()
            .map(|m| MemberRow {
                user_id: m.user_id,
                name: m.name,
                email: m.email,
                role: m.role_name,
            })
            .collect(),
        notice,
    })
}

pub async fn org(State(state): State<AppState>, con: Console, Path(id): Path<Id>) -> Response {
    match org_page(&state, &con, id, None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => con.error(&e),
    }
}

#[derive(Deserialize)]
pub struct SeatsForm {
    #[serde(default)]
    seat_cap: String,
}

/// `POST /admin/orgs/{id}/seats`: as `PATCH /api/admin/orgs/{id}` with `seatCap` (blank: the
/// plan's cap again).
pub async fn set_seats(
    State(state): State<AppState>,
    con: Console,
    Path(id): Path<Id>,
    DeskForm(f): DeskForm<SeatsForm>,
) -> Response {
    let rest = format!("/orgs/{id}");
    let result = async {
        let mut v = Validator::new();
        let cap = match opt(&f.seat_cap) {
            None => Some(None),
            Some(s) => match s.parse::<i64>() {
                Ok(n) => Some(Some(n)),
                Err(_) => {
                    v.add("seat_cap", "invalid", "a whole number of seats, or blank");
                    None
                }
            },
        };
        v.finish()?;
        let patch = admin::WorkspacePatch::parse(cap)?;
        admin::update_workspace(&state.db, con.actor(), id, patch).await
    }
    .await;
    match result {
        Ok(_) => con.done(&rest, "saved"),
        Err(mut e) if e.kind != shared::ErrorKind::NotFound => {
            crate::areas::desk::rename_field(&mut e, "seatCap", "seat_cap");
            let code = status_of(&e);
            match org_page(&state, &con, id, Some(Notice::of(&e)), Some(f.seat_cap)).await {
                Ok(p) => con.page_at(code, &p, &rest),
                Err(e) => con.error(&e),
            }
        }
        Err(e) => con.error(&e),
    }
}

// ---- users ----

pub struct UserRow {
    pub id: Id,
    pub name: String,
    pub email: String,
    pub verified: bool,
    pub admin: bool,
    pub created: String,
}

#[derive(Template)]
#[template(path = "desk/admin/users.html")]
pub struct UsersPage {
    c: Chrome,
    q: String,
    rows: Vec<UserRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
}

fn user_row(con: &Console, u: shared::repo::users::User) -> UserRow {
    UserRow {
        id: u.id,
        name: u.name,
        email: u.email,
        verified: u.email_verified_at.is_some(),
        admin: u.is_platform_admin,
        created: con.time(u.created_at),
    }
}

pub async fn users(
    State(state): State<AppState>,
    con: Console,
    Query(q): Query<ListQuery>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let search = q.q.trim();
    let mut rows = match admin::users(&state.db, opt(search), PAGE_SIZE + 1, offset).await {
        Ok(r) => r,
        Err(e) => return con.error(&e),
    };
    let p = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let (prev_href, next_href) = pages("/admin/users", search, &p);
    let rows = rows.into_iter().map(|u| user_row(&con, u)).collect();
    let c = con.chrome(con.cat.t("adm.users").to_string());
    page(
        StatusCode::OK,
        &UsersPage {
            c,
            q: search.to_string(),
            rows,
            prev_href,
            next_href,
        },
    )
}

pub struct WsRow {
    pub id: Id,
    pub name: String,
    pub role: String,
}

#[derive(Template)]
#[template(path = "desk/admin/user.html")]
pub struct UserPage {
    c: Chrome,
    u: UserRow,
    workspaces: Vec<WsRow>,
    reason: String,
    notice: Option<Notice>,
}

async fn user_page(
    state: &AppState,
    con: &Console,
    id: Id,
    notice: Option<Notice>,
    reason: String,
) -> shared::Result<UserPage> {
    let (u, ms) = admin::user(&state.db, id).await?;
    Ok(UserPage {
        c: con.chrome(u.name.clone()),
        u: user_row(con, u),
        workspaces: ms
            .into_iter()
            .map(|m| WsRow {
                id: m.org_id,
                name: m.org_name,
                role: m.role_name,
            })
            .collect(),
        reason,
        notice,
    })
}

pub async fn user(State(state): State<AppState>, con: Console, Path(id): Path<Id>) -> Response {
    match user_page(&state, &con, id, None, String::new()).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => con.error(&e),
    }
}

#[derive(Deserialize)]
pub struct ImpersonateForm {
    #[serde(default)]
    reason: String,
}

/// `POST /admin/users/{id}/impersonate`: as `POST /api/admin/impersonate` from this web
/// session's sign-in, so every page this browser opens then acts as the user (with the
/// banner); home sends the browser on to the user's desk or own pages.
pub async fn impersonate(
    State(state): State<AppState>,
    con: Console,
    Path(id): Path<Id>,
    DeskForm(f): DeskForm<ImpersonateForm>,
) -> Response {
    let caller = &con.who.caller;
    let r = admin::impersonate(
        &state.db,
        caller.actor(),
        &caller.sign_in_ref(),
        id,
        &f.reason,
    )
    .await;
    match r {
        Ok(_) => see_other("/", HeaderMap::new()),
        Err(e) if e.kind == shared::ErrorKind::NotFound => con.error(&e),
        Err(e) => {
            let code = status_of(&e);
            let rest = format!("/users/{id}");
            match user_page(&state, &con, id, Some(Notice::of(&e)), f.reason).await {
                Ok(p) => con.page_at(code, &p, &rest),
                Err(e) => con.error(&e),
            }
        }
    }
}
