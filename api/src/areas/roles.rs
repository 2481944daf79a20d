//! Roles (permission sets) and feature modules of a workspace. Built-in roles cannot be deleted
//! and the owner role cannot be edited; a role still held by a member or offered by a pending
//! invite cannot be deleted.

use crate::auth::{Caller, Ws};
use crate::http::extract::{Body, Path};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::authz::{Module, PERMISSIONS, is_known_permission};
use shared::db::{Id, Ts, is_unique_violation};
use shared::error::Validator;
use shared::repo::orgs::Role;
use shared::repo::{audit, orgs, roles};

use std::collections::BTreeMap;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoleView {
    pub id: Id,
    pub key: String,
    pub name: String,
    pub permissions: Vec<String>,
    pub builtin: bool,
    pub members: i64,
    pub updated_at: Ts,
}

fn view(r: Role, members: i64) -> RoleView {
    RoleView {
        id: r.id,
        key: r.key,
        name: r.name,
        permissions: r.permissions.0,
        builtin: r.builtin,
        members,
        updated_at: r.updated_at,
    }
}

#[derive(Deserialize)]
pub struct RolePath {
    #[allow(dead_code)]
    id: Id,
    #[serde(rename = "roleId")]
    role_id: Id,
}

pub async fn list(State(state): State<AppState>, ws: Ws) -> Result<axum::Json<Vec<RoleView>>> {
    let mut c = state.db.acquire().await?;
    let mut out = vec![];
    for r in roles::list(&mut c, ws.org_id).await? {
        let (members, _) = roles::usage(&mut c, r.id).await?;
        out.push(view(r, members));
    }
    Ok(axum::Json(out))
}

fn check_permissions(v: &mut Validator, perms: &[String]) {
    let unknown: Vec<&str> = perms
        .iter()
        .map(String::as_str)
        .filter(|p| !is_known_permission(p))
        .collect();
    if !unknown.is_empty() {
        v.add(
            "permissions",
            "unknown_permission",
            format!(
                "unknown: {}; known: {}",
                unknown.join(", "),
                PERMISSIONS.join(", ")
            ),
        );
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRole {
    pub name: String,
    /// Defaults to a slug of the name.
    pub key: Option<String>,
    pub permissions: Vec<String>,
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for ch in s.trim().to_lowercase().chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<CreateRole>,
) -> Result<(StatusCode, axum::Json<RoleView>)> {
    let mut v = Validator::new();
    let name = v.text("name", &req.name, 60);
    let key = slug(req.key.as_deref().unwrap_or(&name));
    v.check(
        !key.is_empty() && key.len() <= 40,
        "key",
        "invalid",
        "must have letters or digits, at most 40",
    );
    check_permissions(&mut v, &req.permissions);
    v.finish()?;
    let mut perms = req.permissions.clone();
    perms.sort();
    perms.dedup();
    let mut tx = state.db.begin().await?;
    let r = match roles::insert(&mut tx, ws.org_id, &key, &name, &perms).await {
        Ok(r) => r,
        Err(e) if is_unique_violation(&e) => {
            return Err(
                Error::conflict("role_exists", format!("a role with key {key} exists")).into(),
            );
        }
        Err(e) => return Err(e.into()),
    };
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "role.created",
            "role",
            Some(r.id.to_string()),
            json!({ "key": key, "permissions": perms }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(view(r, 0))))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateRole {
    pub name: Option<String>,
    pub permissions: Option<Vec<String>>,
}

pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(p): Path<RolePath>,
    Body(req): Body<UpdateRole>,
) -> Result<axum::Json<RoleView>> {
    let mut v = Validator::new();
    let name = req.name.as_deref().map(|n| v.text("name", n, 60));
    if let Some(perms) = &req.permissions {
        check_permissions(&mut v, perms);
    }
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let mut r = roles::get(&mut tx, ws.org_id, p.role_id)
        .await?
        .ok_or_else(|| Error::not_found("role"))?;
    if r.key == "owner" {
        return Err(Error::conflict(
            "role_builtin",
            "the owner role always holds every permission",
        )
        .into());
    }
    let before = r.permissions.0.clone();
    if let Some(n) = name {
        r.name = n;
    }
    if let Some(mut perms) = req.permissions {
        perms.sort();
        perms.dedup();
        r.permissions.0 = perms;
    }
    roles::update(&mut tx, &r).await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "role.updated",
            "role",
            Some(r.id.to_string()),
            json!({ "key": r.key, "before": before, "after": r.permissions.0 }),
        ),
    )
    .await?;
    let (members, _) = roles::usage(&mut tx, r.id).await?;
    tx.commit().await?;
    Ok(axum::Json(view(r, members)))
}

pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(p): Path<RolePath>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    let r = roles::get(&mut tx, ws.org_id, p.role_id)
        .await?
        .ok_or_else(|| Error::not_found("role"))?;
    if r.builtin {
        return Err(Error::conflict("role_builtin", "built-in roles cannot be deleted").into());
    }
    let (members, invites) = roles::usage(&mut tx, r.id).await?;
    if members + invites > 0 {
        return Err(Error::conflict(
            "role_in_use",
            format!(
                "{members} member(s) and {invites} pending invite(s) use this role; move them first"
            ),
        )
        .with_details(json!({ "members": members, "invites": invites }))
        .into());
    }
    roles::delete(&mut tx, ws.org_id, r.id).await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "role.deleted",
            "role",
            Some(r.id.to_string()),
            json!({ "key": r.key }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModulesUpdate {
    /// Module key to on/off, e.g. {"tv": true, "billing": false}.
    pub modules: BTreeMap<String, bool>,
}

#[derive(Serialize, ToSchema)]
pub struct ModulesView {
    pub modules: BTreeMap<String, bool>,
}

pub async fn set_modules(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<ModulesUpdate>,
) -> Result<axum::Json<ModulesView>> {
    let mut v = Validator::new();
    for k in req.modules.keys() {
        v.check(
            Module::parse(k).is_some(),
            &format!("modules.{k}"),
            "unknown_module",
            "not a module",
        );
    }
    v.check(
        !req.modules.is_empty(),
        "modules",
        "required",
        "name at least one module",
    );
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let mut org = orgs::by_id(&mut tx, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let mut disabled: Vec<String> = org.disabled_modules.0.clone();
    for (k, on) in &req.modules {
        disabled.retain(|d| d != k);
        if !on {
            disabled.push(k.clone());
        }
    }
    disabled.sort();
    org.disabled_modules.0 = disabled.clone();
    orgs::update(&mut tx, &org).await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "org.modules_changed",
            "org",
            Some(ws.org_id.to_string()),
            json!({ "changes": req.modules }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(ModulesView {
        modules: Module::ALL
            .iter()
            .map(|m| (m.key().to_string(), !disabled.iter().any(|d| d == m.key())))
            .collect(),
    }))
}
