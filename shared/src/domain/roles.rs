//! Roles (permission sets) and feature modules of a workspace. Built-in roles cannot be deleted
//! and the owner role cannot be edited; a role still held by a member or offered by a pending
//! invite cannot be deleted. Role keys are open (workspaces add their own roles).

use super::{InWorkspace, OWNER_ROLE};
use crate::authz::{Module, PERMISSIONS, Perm};
use crate::db::{Db, is_unique_violation};
use crate::error::Validator;
use crate::repo::orgs::Role;
use crate::repo::{audit, orgs, roles};
use crate::{Error, Result};
use serde_json::json;
use std::collections::BTreeMap;

/// Every role of the workspace with how many members hold it.
pub async fn list(db: &Db, ws: &InWorkspace) -> Result<Vec<(Role, i64)>> {
    let mut c = db.acquire().await?;
    let mut out = vec![];
    for r in roles::list(&mut c, ws.org_id).await? {
        let (members, _) = roles::usage(&mut c, r.id).await?;
        out.push((r, members));
    }
    Ok(out)
}

/// Parses permission spellings: `unknown_permission` lists the unknown ones. The result is
/// sorted by spelling and without duplicates, as roles store them.
fn permissions(v: &mut Validator, perms: &[String]) -> Vec<Perm> {
    let mut known = vec![];
    let mut unknown = vec![];
    for p in perms {
        match Perm::parse(p) {
            Ok(p) => known.push(p),
            Err(_) => unknown.push(p.as_str()),
        }
    }
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
    known.sort_by_key(|p| p.as_str());
    known.dedup();
    known
}

fn spellings(perms: &[Perm]) -> Vec<String> {
    perms.iter().map(|p| p.as_str().to_string()).collect()
}

/// A lower-case key of letters, digits and single dashes.
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

/// A custom role to create, parsed.
#[derive(Debug, Clone)]
pub struct NewRole {
    pub name: String,
    pub key: String,
    pub permissions: Vec<Perm>,
}

impl NewRole {
    /// The key defaults to a slug of the name.
    pub fn parse(name: &str, key: Option<&str>, perms: &[String]) -> Result<Self> {
        let mut v = Validator::new();
        let name = v.text("name", name, 60);
        let key = slug(key.unwrap_or(&name));
        v.check(
            !key.is_empty() && key.len() <= 40,
            "key",
            "invalid",
            "must have letters or digits, at most 40",
        );
        let permissions = permissions(&mut v, perms);
        v.finish()?;
        Ok(NewRole {
            name,
            key,
            permissions,
        })
    }
}

/// Creates a custom role (409 `role_exists` when the key is taken).
pub async fn create(db: &Db, ws: &InWorkspace, new: NewRole) -> Result<Role> {
    let perms = spellings(&new.permissions);
    let mut tx = db.begin().await?;
    let r = match roles::insert(&mut tx, ws.org_id, &new.key, &new.name, &perms).await {
        Ok(r) => r,
        Err(e) if is_unique_violation(&e) => {
            return Err(Error::conflict(
                "role_exists",
                format!("a role with key {} exists", new.key),
            ));
        }
        Err(e) => return Err(e.into()),
    };
    audit::record(
        &mut tx,
        ws.audit(
            "role.created",
            "role",
            r.id,
            json!({ "key": new.key, "permissions": perms }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(r)
}

/// A change to a role, parsed; `None` fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct RolePatch {
    pub name: Option<String>,
    pub permissions: Option<Vec<Perm>>,
}

impl RolePatch {
    pub fn parse(name: Option<&str>, perms: Option<&[String]>) -> Result<Self> {
        let mut v = Validator::new();
        let name = name.map(|n| v.text("name", n, 60));
        let permissions = perms.map(|p| permissions(&mut v, p));
        v.finish()?;
        Ok(RolePatch { name, permissions })
    }
}

/// Renames a role or changes its permissions (409 `role_builtin` for the owner role); returns
/// the role and how many members hold it.
pub async fn update(
    db: &Db,
    ws: &InWorkspace,
    role: crate::db::Id,
    patch: RolePatch,
) -> Result<(Role, i64)> {
    let mut tx = db.begin().await?;
    let mut r = roles::get(&mut tx, ws.org_id, role)
        .await?
        .ok_or_else(|| Error::not_found("role"))?;
    if r.key == OWNER_ROLE {
        return Err(Error::conflict(
            "role_builtin",
            "the owner role always holds every permission",
        ));
    }
    let before = r.permissions.0.clone();
    if let Some(n) = patch.name {
        r.name = n;
    }
    if let Some(perms) = patch.permissions {
        r.permissions.0 = spellings(&perms);
    }
    roles::update(&mut tx, &r).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "role.updated",
            "role",
            r.id,
            json!({ "key": r.key, "before": before, "after": r.permissions.0 }),
        ),
    )
    .await?;
    let (members, _) = roles::usage(&mut tx, r.id).await?;
    tx.commit().await?;
    Ok((r, members))
}

/// Deletes a custom role nobody holds or is invited to (409 `role_builtin`, `role_in_use`).
pub async fn delete(db: &Db, ws: &InWorkspace, role: crate::db::Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let r = roles::get(&mut tx, ws.org_id, role)
        .await?
        .ok_or_else(|| Error::not_found("role"))?;
    if r.builtin {
        return Err(Error::conflict(
            "role_builtin",
            "built-in roles cannot be deleted",
        ));
    }
    let (members, invites) = roles::usage(&mut tx, r.id).await?;
    if members + invites > 0 {
        return Err(Error::conflict(
            "role_in_use",
            format!(
                "{members} member(s) and {invites} pending invite(s) use this role; move them first"
            ),
        )
        .with_details(json!({ "members": members, "invites": invites })));
    }
    roles::delete(&mut tx, ws.org_id, r.id).await?;
    audit::record(
        &mut tx,
        ws.audit("role.deleted", "role", r.id, json!({ "key": r.key })),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Module switches, parsed: at least one, every key a module.
#[derive(Debug, Clone)]
pub struct ModuleSwitches(pub BTreeMap<Module, bool>);

impl ModuleSwitches {
    pub fn parse(modules: &BTreeMap<String, bool>) -> Result<Self> {
        let mut v = Validator::new();
        let mut out = BTreeMap::new();
        for (k, on) in modules {
            match Module::parse(k) {
                Some(m) => {
                    out.insert(m, *on);
                }
                None => v.add(&format!("modules.{k}"), "unknown_module", "not a module"),
            }
        }
        v.check(
            !modules.is_empty(),
            "modules",
            "required",
            "name at least one module",
        );
        v.finish()?;
        Ok(ModuleSwitches(out))
    }
}

/// Switches modules on or off; returns every module with whether it is on.
pub async fn set_modules(
    db: &Db,
    ws: &InWorkspace,
    switches: ModuleSwitches,
) -> Result<BTreeMap<String, bool>> {
    let mut tx = db.begin().await?;
    let mut org = orgs::by_id(&mut tx, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let mut disabled: Vec<String> = org.disabled_modules.0.clone();
    for (m, on) in &switches.0 {
        disabled.retain(|d| d != m.key());
        if !on {
            disabled.push(m.key().to_string());
        }
    }
    disabled.sort();
    org.disabled_modules.0 = disabled.clone();
    orgs::update(&mut tx, &org).await?;
    let changes: BTreeMap<&str, bool> = switches.0.iter().map(|(m, on)| (m.key(), *on)).collect();
    audit::record(
        &mut tx,
        ws.audit(
            "org.modules_changed",
            "org",
            ws.org_id,
            json!({ "changes": changes }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(Module::ALL
        .iter()
        .map(|m| (m.key().to_string(), !disabled.iter().any(|d| d == m.key())))
        .collect())
}
