//! Workspaces: list, create, read, update (including a change of type), members list.
//! Types: coach, club, school, federation. The type picks defaults at creation (which modules
//! start switched on); changing it later relabels the workspace and touches nothing else.

use super::accounts::MembershipView;
use crate::auth::{Caller, Ws};
use crate::http::extract::Body;
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::authz::{Module, ORG_TYPES};
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::repo::{audit, orgs};

use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgView {
    pub id: Id,
    pub name: String,
    #[serde(rename = "type")]
    pub org_type: String,
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
        org_type: o.org_type.clone(),
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
    let mut c = state.db.acquire().await?;
    let ms = orgs::memberships_of(&mut c, caller.user.id).await?;
    Ok(axum::Json(ms.iter().map(MembershipView::from).collect()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateOrg {
    pub name: String,
    #[serde(rename = "type")]
    pub org_type: Option<String>,
}

const MAX_OWNED_WORKSPACES: i64 = 20;

/// Creates another workspace with the caller as owner.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<CreateOrg>,
) -> Result<(StatusCode, axum::Json<OrgView>)> {
    let mut v = Validator::new();
    let name = v.text("name", &req.name, 100);
    let org_type = req.org_type.as_deref().unwrap_or("coach");
    v.choice("type", org_type, ORG_TYPES);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let owned = orgs::memberships_of(&mut tx, caller.user.id)
        .await?
        .iter()
        .filter(|m| m.role_key == "owner")
        .count() as i64;
    if owned >= MAX_OWNED_WORKSPACES {
        return Err(Error::conflict(
            "workspace_limit",
            format!("one account can own at most {MAX_OWNED_WORKSPACES} workspaces"),
        )
        .into());
    }
    let org = orgs::create_with_owner(&mut tx, &name, org_type, caller.user.id).await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(org.id),
            "org.created",
            "org",
            Some(org.id.to_string()),
            json!({ "type": org_type }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(view(&org, "owner"))))
}

pub async fn get(State(state): State<AppState>, ws: Ws) -> Result<axum::Json<OrgView>> {
    let mut c = state.db.acquire().await?;
    let org = orgs::by_id(&mut c, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
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
    caller: Caller,
    ws: Ws,
    Body(req): Body<UpdateOrg>,
) -> Result<axum::Json<OrgView>> {
    let mut v = Validator::new();
    let name = req.name.as_deref().map(|n| v.text("name", n, 100));
    if let Some(t) = &req.org_type {
        v.choice("type", t, ORG_TYPES);
    }
    let country = req
        .country
        .as_deref()
        .map(|c| c.trim().to_ascii_uppercase());
    if let Some(c) = &country {
        v.check(
            c.len() == 2 && c.chars().all(|ch| ch.is_ascii_alphabetic()),
            "country",
            "invalid_country",
            "must be a two-letter ISO 3166-1 code",
        );
    }
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let mut org = orgs::by_id(&mut tx, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let before = json!({ "name": org.name, "type": org.org_type, "country": org.country });
    if let Some(n) = name {
        org.name = n;
    }
    if let Some(t) = req.org_type {
        org.org_type = t;
    }
    if country.is_some() {
        org.country = country;
    }
    orgs::update(&mut tx, &org).await?;
    audit::record(
        &mut tx,
        caller.audit(Some(org.id), "org.updated", "org", Some(org.id.to_string()), json!({ "before": before, "after": { "name": org.name, "type": org.org_type, "country": org.country } })),
    )
    .await?;
    tx.commit().await?;
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
    ws: Ws,
    page: Page,
) -> Result<axum::Json<Paged<MemberView>>> {
    let mut c = state.db.acquire().await?;
    let rows = orgs::list_members(&mut c, ws.org_id, page.fetch_limit(), page.offset).await?;
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
    ws: Ws,
    crate::http::extract::Query(q): crate::http::extract::Query<AuditQuery>,
    page: Page,
) -> Result<axum::Json<Paged<AuditView>>> {
    let mut c = state.db.acquire().await?;
    let rows = audit::search(
        &mut c,
        audit::Filter {
            org_id: Some(ws.org_id),
            action: q.action.as_deref(),
            from: q.from,
            to: q.to,
            actor: None,
        },
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

/// The longest range one request may ask for.
pub const CALENDAR_MAX_DAYS: i64 = 92;

/// The team calendar for `[from, to)`; defaults to the next 4 weeks, at most 92 days.
pub async fn calendar(
    State(state): State<AppState>,
    ws: Ws,
    crate::http::extract::Query(q): crate::http::extract::Query<CalendarQuery>,
) -> Result<axum::Json<Calendar>> {
    let from = q.from.unwrap_or_else(Ts::now);
    let to =
        q.to.unwrap_or_else(|| from.plus(chrono::Duration::days(28)));
    let mut v = Validator::new();
    v.check(to > from, "to", "out_of_range", "must be after from");
    v.check(
        (to.0 - from.0).num_days() <= CALENDAR_MAX_DAYS,
        "to",
        "out_of_range",
        "the range may span at most 92 days",
    );
    v.finish()?;
    let mut c = state.db.acquire().await?;
    let entries = shared::repo::training::calendar_entries(&mut c, ws.org_id, from, to).await?;
    Ok(axum::Json(Calendar {
        from,
        to,
        training_sessions: entries,
    }))
}
