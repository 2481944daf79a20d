//! The roles tab: every role of the workspace in a permission matrix (a row per permission, a
//! column per role), saved at once (each changed role as `PATCH /api/orgs/{id}/roles/{roleId}`:
//! its name and permissions), a new role (as `POST …/roles`), and deleting a custom role behind
//! a confirmation page (as `DELETE …`). The rules are `shared::domain::roles`': the owner
//! role holds every permission and is shown read-only; built-in roles cannot be deleted, nor a
//! role still held or offered by a pending invite.

use super::{TabLink, missing, tabs};
use crate::areas::desk::{Chrome, Desk, DeskForm, Empty, page_at, status_of};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::Error;
use shared::authz::{PERMISSIONS, Perm};
use shared::db::Id;
use shared::domain::{OWNER_ROLE, roles};
use std::collections::HashMap;

const TAB: &str = "/settings/roles";

/// One column of the matrix.
pub struct RoleCol {
    pub id: Id,
    pub key: String,
    pub name: String,
    /// Whether this member may change it (`roles.manage`, and not the owner role).
    pub editable: bool,
    pub builtin: bool,
    pub members: i64,
    pub perms: Vec<String>,
    pub delete_href: Option<String>,
    pub name_error: Option<String>,
}

impl RoleCol {
    pub fn has(&self, perm: &str) -> bool {
        self.key == OWNER_ROLE || self.perms.iter().any(|p| p == perm)
    }
}

#[derive(Template)]
#[template(path = "desk/settings/roles.html")]
pub struct RolesPage {
    c: Chrome,
    tabs: Vec<TabLink>,
    base: String,
    roles: Vec<RoleCol>,
    perms: &'static [&'static str],
    can_manage: bool,
    new_name: String,
    new_error: Option<String>,
    notice: Option<Notice>,
}

/// What the matrix form sent: per role shown editable, its name and ticked permissions.
#[derive(Default)]
struct Draft {
    roles: Vec<(Id, String, Vec<String>)>,
}

impl Draft {
    /// `role` = id for each editable column, `name.{id}`, and `perm.{id}` once per ticked box.
    fn of(pairs: &[(String, String)]) -> Result<Draft, Error> {
        let mut names: HashMap<&str, &str> = HashMap::new();
        let mut perms: HashMap<&str, Vec<String>> = HashMap::new();
        for (k, v) in pairs {
            if let Some(id) = k.strip_prefix("name.") {
                names.insert(id, v);
            } else if let Some(id) = k.strip_prefix("perm.") {
                perms.entry(id).or_default().push(v.clone());
            }
        }
        let mut roles = vec![];
        for (_, id) in pairs.iter().filter(|(k, _)| k == "role") {
            let rid: Id = id
                .parse()
                .map_err(|_| Error::bad_request("invalid_body", "the form is incomplete"))?;
            let name = names.get(id.as_str()).copied().unwrap_or("").to_string();
            roles.push((rid, name, perms.remove(id.as_str()).unwrap_or_default()));
        }
        Ok(Draft { roles })
    }
}

/// The page; `draft` keeps what the matrix form sent (when it is shown again), `failed` the
/// role whose name was refused with its message.
async fn roles_page(
    state: &AppState,
    desk: &Desk,
    draft: Option<&Draft>,
    failed: Option<(Id, String)>,
    new_name: String,
    new_error: Option<String>,
    notice: Option<Notice>,
) -> Result<RolesPage, Error> {
    let can_manage = desk.ws.can(Perm::RolesManage);
    let rows = roles::list(&state.db, &desk.acting()).await?;
    let roles = rows
        .into_iter()
        .map(|(r, members)| {
            let sent = draft.and_then(|d| d.roles.iter().find(|(id, _, _)| *id == r.id));
            RoleCol {
                editable: can_manage && r.key != OWNER_ROLE,
                delete_href: (can_manage && !r.builtin)
                    .then(|| desk.path(&format!("{TAB}/{}/delete", r.id))),
                name_error: failed
                    .as_ref()
                    .filter(|(id, _)| *id == r.id)
                    .map(|(_, m)| m.clone()),
                name: sent.map_or(r.name, |(_, n, _)| n.clone()),
                perms: sent.map_or(r.permissions.0, |(_, _, p)| p.clone()),
                id: r.id,
                key: r.key,
                builtin: r.builtin,
                members,
            }
        })
        .collect();
    Ok(RolesPage {
        c: Chrome::new(desk, desk.cat.t("set.roles.title")),
        tabs: tabs(desk, TAB),
        base: desk.path(TAB),
        roles,
        perms: PERMISSIONS,
        can_manage,
        new_name,
        new_error,
        notice,
    })
}

pub async fn list(State(state): State<AppState>, desk: Desk) -> Response {
    match roles_page(&state, &desk, None, None, String::new(), None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// `POST …/settings/roles`: the matrix. Every column is checked first (nothing is written when
/// one is refused); then each role whose name or permissions changed is saved as `PATCH
/// /api/orgs/{id}/roles/{roleId}` saves it (one audit entry each).
pub async fn save(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(pairs): DeskForm<Vec<(String, String)>>,
) -> Response {
    let draft = match Draft::of(&pairs) {
        Ok(d) => d,
        Err(e) => return desk.error(&e),
    };
    let mut patches = vec![];
    for (id, name, perms) in &draft.roles {
        match roles::RolePatch::parse(Some(name), Some(perms)) {
            Ok(p) => patches.push((*id, p)),
            Err(e) => {
                let n = Notice::of(&e);
                let msg = n
                    .field("name")
                    .or(n.field("permissions"))
                    .unwrap_or(&n.message)
                    .to_string();
                return reshow(&state, &desk, &draft, Some((*id, msg)), e).await;
            }
        }
    }
    let acting = desk.acting();
    let current = match roles::list(&state.db, &acting).await {
        Ok(r) => r,
        Err(e) => return desk.error(&e),
    };
    for (id, patch) in patches {
        let Some((r, _)) = current.iter().find(|(r, _)| r.id == id) else {
            return desk.error(&Error::not_found("role"));
        };
        let perms: Vec<String> = patch
            .permissions
            .iter()
            .flatten()
            .map(|p| p.as_str().to_string())
            .collect();
        // Stored lists keep their order (built-in roles: declaration order); the patch's is
        // sorted by spelling.
        let mut stored = r.permissions.0.clone();
        stored.sort();
        stored.dedup();
        if patch.name.as_deref() == Some(r.name.as_str()) && perms == stored {
            continue;
        }
        if let Err(e) = roles::update(&state.db, &acting, id, patch).await {
            if missing(&e) {
                return desk.error(&e);
            }
            return reshow(&state, &desk, &draft, None, e).await;
        }
    }
    desk.done(TAB, "set.roles.saved")
}

async fn reshow(
    state: &AppState,
    desk: &Desk,
    draft: &Draft,
    failed: Option<(Id, String)>,
    e: Error,
) -> Response {
    let code = status_of(&e);
    match roles_page(
        state,
        desk,
        Some(draft),
        failed,
        String::new(),
        None,
        Some(Notice::of(&e)),
    )
    .await
    {
        Ok(p) => page_at(desk, code, &p, TAB),
        Err(e) => desk.error(&e),
    }
}

#[derive(Deserialize)]
pub struct NewRoleForm {
    #[serde(default)]
    name: String,
}

/// `POST …/settings/roles/new`: as `POST /api/orgs/{id}/roles` (no permissions yet: tick them
/// in the matrix).
pub async fn create(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<NewRoleForm>,
) -> Response {
    let made = match roles::NewRole::parse(&f.name, None, &[]) {
        Ok(new) => roles::create(&state.db, &desk.acting(), new).await,
        Err(e) => Err(e),
    };
    match made {
        Ok(_) => desk.done(TAB, "set.roles.created"),
        Err(e) => {
            let code = status_of(&e);
            let n = Notice::of(&e);
            let beside = n
                .field("name")
                .or(n.field("key"))
                .map(str::to_string)
                .or_else(|| (e.code == "role_exists").then(|| n.message.clone()));
            match roles_page(&state, &desk, None, None, f.name, beside, Some(n)).await {
                Ok(p) => page_at(&desk, code, &p, TAB),
                Err(e) => desk.error(&e),
            }
        }
    }
}

// ---- delete (behind its confirmation page) ----

#[derive(Template)]
#[template(path = "desk/settings/role_delete.html")]
pub struct DeletePage {
    c: Chrome,
    tabs: Vec<TabLink>,
    name: String,
    members: String,
    action: String,
    cancel: String,
    notice: Option<Notice>,
}

async fn delete_page(
    state: &AppState,
    desk: &Desk,
    role: Id,
    notice: Option<Notice>,
) -> Result<DeletePage, Error> {
    let (r, members) = roles::list(&state.db, &desk.acting())
        .await?
        .into_iter()
        .find(|(r, _)| r.id == role)
        .ok_or_else(|| Error::not_found("role"))?;
    Ok(DeletePage {
        c: Chrome::new(
            desk,
            desk.cat
                .fill("set.roles.delete_title", &[("name", &r.name)]),
        ),
        tabs: tabs(desk, TAB),
        name: r.name,
        members: members.to_string(),
        action: desk.path(&format!("{TAB}/{role}/delete")),
        cancel: desk.path(TAB),
        notice,
    })
}

/// `GET …/settings/roles/{role}/delete`: the confirmation page.
pub async fn delete_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, role)): Path<(Id, Id)>,
) -> Response {
    match delete_page(&state, &desk, role, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

/// `POST …/settings/roles/{role}/delete`: as `DELETE /api/orgs/{id}/roles/{roleId}`.
pub async fn delete(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, role)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match roles::delete(&state.db, &desk.acting(), role).await {
        Ok(()) => desk.done(TAB, "set.roles.deleted"),
        Err(e) if missing(&e) => desk.error(&e),
        Err(e) => {
            let code = status_of(&e);
            let rest = format!("{TAB}/{role}/delete");
            match delete_page(&state, &desk, role, Some(Notice::of(&e))).await {
                Ok(p) => page_at(&desk, code, &p, &rest),
                Err(e) => desk.error(&e),
            }
        }
    }
}
