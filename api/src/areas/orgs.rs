//! Workspaces: list, create, read, update (including a change of type), members list.
//! Types: coach, club, school, federation. The type picks defaults at creation (which modules
//! start switched on); changing it later relabels the workspace and touches nothing else.

use super::accounts::MembershipView;
use crate::auth::{Acting, Caller};
use crate::http::Result;
use crate::http::extract::Body;
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::authz::Module;
use shared::db::{Id, Ts};
use shared::domain::orgs as domain;
use shared::repo::orgs::OrgType;
use shared::repo::{audit, orgs};
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgView {
    pub id: Id,
    pub name: String,
    #[serde(rename = "type")]
    pub org_type: OrgType,
    pub plan: String,
    pub country: Option<String>,
    /// Every module with whether it is switched on.
    pub modules: std::collections::BTreeMap<String, bool>,
    /// The caller's role here.
    pub role: String,
    pub created_at: Ts,
}

fn view(o: &orgs::Org, role: &str) -> OrgView {
    OrgView {
        id: o.id,
        name: o.name.clone(),
        org_type: o.org_type,
        plan: o.plan.clone(),
        country: o.country.clone(),
        modules: Module::ALL
            .iter()
            .map(|m| {
                (
                    m.key().to_string(),
                    !o.disabled_modules.0.iter().any(|d| d == m.key()),
                )
            })
            .collect(),
        role: role.to_string(),
        created_at: o.created_at,
    }
}

/// The caller's workspaces.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<MembershipView>>> {
    let ms = domain::memberships(&state.db, caller.actor()).await?;
    Ok(axum::Json(ms.iter().map(MembershipView::from).collect()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateOrg {
    pub name: String,
    #[serde(rename = "type")]
    pub org_type: Option<String>,
}

/// Creates another workspace with the caller as owner.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<CreateOrg>,
) -> Result<(StatusCode, axum::Json<OrgView>)> {
    let new = domain::NewOrg::parse(&req.name, req.org_type.as_deref())?;
    let org = domain::create(&state.db, caller.actor(), new).await?;
    Ok((StatusCode::CREATED, axum::Json(view(&org, "owner"))))
}

pub async fn get(State(state): State<AppState>, Acting(ws): Acting) -> Result<axum::Json<OrgView>> {
    let org = domain::get(&state.db, &ws).await?;
    Ok(axum::Json(view(&org, &ws.role_key)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateOrg {
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub org_type: Option<String>,
    /// ISO 3166-1 alpha-2 country code, e.g. "PT"; decides the age-gate threshold for minors.
    pub country: Option<String>,
}

pub async fn update(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<UpdateOrg>,
) -> Result<axum::Json<OrgView>> {
    let patch = domain::OrgPatch::parse(
        req.name.as_deref(),
        req.org_type.as_deref(),
        req.country.as_deref(),
    )?;
    let org = domain::update(&state.db, &ws, patch).await?;
    Ok(axum::Json(view(&org, &ws.role_key)))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberView {
    pub member_id: Id,
    pub user_id: Id,
    pub email: String,
    pub name: String,
    pub role: String,
    pub joined_at: Ts,
}

impl From<orgs::MemberRow> for MemberView {
    fn from(r: orgs::MemberRow) -> Self {
        MemberView {
            member_id: r.member_id,
            user_id: r.user_id,
            email: r.email,
            name: r.name,
            role: r.role_key,
            joined_at: r.joined_at,
        }
    }
}

pub async fn members(
    State(state): State<AppState>,
    Acting(ws): Acting,
    page: Page,
) -> Result<axum::Json<Paged<MemberView>>> {
    let rows = domain::members(&state.db, &ws, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(MemberView::from).collect()),
    ))
}

#[derive(Deserialize)]
pub struct AuditQuery {
    action: Option<String>,
    from: Option<Ts>,
    to: Option<Ts>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditView {
    pub id: Id,
    pub action: String,
    pub actor_user_id: Option<Id>,
    /// The platform admin who acted through an impersonation, if any.
    pub impersonator_user_id: Option<Id>,
    pub target_type: String,
    pub target_id: Option<String>,
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    pub created_at: Ts,
}

/// The workspace's audit log, newest first; filter by action (exact, or a prefix ending in
/// `.`, e.g. `member.`) and by time.
pub async fn audit_log(
    State(state): State<AppState>,
    Acting(ws): Acting,
    crate::http::extract::Query(q): crate::http::extract::Query<AuditQuery>,
    page: Page,
) -> Result<axum::Json<Paged<AuditView>>> {
    let rows = domain::audit_log(
        &state.db,
        &ws,
        q.action.as_deref(),
        q.from,
        q.to,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(audit_view).collect()),
    ))
}

pub fn audit_view(r: audit::Row) -> AuditView {
    AuditView {
        id: r.id,
        action: r.action,
        actor_user_id: r.actor_user_id,
        impersonator_user_id: r.impersonator_user_id,
        target_type: r.target_type,
        target_id: r.target_id,
        data: r.data.0,
        created_at: r.created_at,
    }
}

#[derive(Deserialize)]
pub struct CalendarQuery {
    from: Option<Ts>,
    to: Option<Ts>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Calendar {
    pub from: Ts,
    pub to: Ts,
    /// Training sessions overlapping the range, by start time.
    #[schema(value_type = Vec<Object>)]
    pub training_sessions: Vec<shared::repo::training::CalendarEntry>,
}

/// The team calendar for `[from, to)`; defaults to the next 4 weeks, at most 92 days.
pub async fn calendar(
    State(state): State<AppState>,
    Acting(ws): Acting,
    crate::http::extract::Query(q): crate::http::extract::Query<CalendarQuery>,
) -> Result<axum::Json<Calendar>> {
    let range = domain::CalendarRange::parse(q.from, q.to)?;
    let entries = domain::calendar(&state.db, &ws, range).await?;
    Ok(axum::Json(Calendar {
        from: range.from,
        to: range.to,
        training_sessions: entries,
    }))
}
