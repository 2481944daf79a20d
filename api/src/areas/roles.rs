//! Roles (permission sets) and feature modules of a workspace. Built-in roles cannot be deleted
//! and the owner role cannot be edited; a role still held by a member or offered by a pending
//! invite cannot be deleted (rules in `shared::domain::roles`).

use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::domain::roles as domain;
use shared::repo::orgs::Role;
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

pub async fn list(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<axum::Json<Vec<RoleView>>> {
    let rows = domain::list(&state.db, &ws).await?;
    Ok(axum::Json(
        rows.into_iter().map(|(r, n)| view(r, n)).collect(),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRole {
    pub name: String,
    /// Defaults to a slug of the name.
    pub key: Option<String>,
    pub permissions: Vec<String>,
}

pub async fn create(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<CreateRole>,
) -> Result<(StatusCode, axum::Json<RoleView>)> {
    let new = domain::NewRole::parse(&req.name, req.key.as_deref(), &req.permissions)?;
    let r = domain::create(&state.db, &ws, new).await?;
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
    Acting(ws): Acting,
    Path(p): Path<RolePath>,
    Body(req): Body<UpdateRole>,
) -> Result<axum::Json<RoleView>> {
    let patch = domain::RolePatch::parse(req.name.as_deref(), req.permissions.as_deref())?;
    let (r, members) = domain::update(&state.db, &ws, p.role_id, patch).await?;
    Ok(axum::Json(view(r, members)))
}

pub async fn delete(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<RolePath>,
) -> Result<StatusCode> {
    domain::delete(&state.db, &ws, p.role_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModulesUpdate {
    /// Module key to on/off, e.g. {"tv": true, "billing": false}; at least one.
    #[schema(schema_with = module_switches)]
    pub modules: BTreeMap<String, bool>,
}

/// `modules`: an object whose keys are module names, each on or off.
fn module_switches() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::{
        ObjectBuilder,
        schema::{AdditionalProperties, Type},
    };
    let mut o = ObjectBuilder::new()
        .min_properties(Some(1))
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    for m in shared::authz::Module::ALL {
        o = o.property(m.key(), ObjectBuilder::new().schema_type(Type::Boolean));
    }
    o.into()
}

#[derive(Serialize, ToSchema)]
pub struct ModulesView {
    pub modules: BTreeMap<String, bool>,
}

pub async fn set_modules(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<ModulesUpdate>,
) -> Result<axum::Json<ModulesView>> {
    let switches = domain::ModuleSwitches::parse(&req.modules)?;
    let modules = domain::set_modules(&state.db, &ws, switches).await?;
    Ok(axum::Json(ModulesView { modules }))
}
