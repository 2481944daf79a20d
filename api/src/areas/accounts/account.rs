//! Workspace provisioning and account deletion.
//!
//! Deleting an account (password re-entered) removes the user, their sessions, tokens, provider
//! connections and memberships. Workspaces where they are the only member are deleted with all
//! their data. A workspace where they are the only owner but others are members blocks the
//! deletion (409 `ownership_transfer_required`, listing those workspaces): its members would be
//! left without an owner, so ownership must be transferred first. Workspaces with another owner
//! are simply left. Audit entries are kept (they name ids, not personal data).

use super::MembershipView;
use crate::auth::Caller;
use crate::http::cookies;
use crate::http::extract::Body;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::authz::ORG_TYPES;
use shared::crypto::password;
use shared::db::Id;
use shared::error::Validator;
use shared::execute;
use shared::repo::{audit, orgs, users};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnsureOrgRequest {
    pub name: Option<String>,
    /// coach (default), club, school or federation.
    #[serde(rename = "type")]
    pub org_type: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnsureOrgResponse {
    pub created: bool,
    pub workspace: MembershipView,
}

/// Gives a signed-in user with no workspace one, as its owner. Idempotent: a user who already
/// belongs to a workspace gets it back (200) and nothing is created.
pub async fn ensure_org(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<EnsureOrgRequest>,
) -> Result<Response> {
    let mut v = Validator::new();
    let name = match &req.name {
        Some(n) => v.text("name", n, 100),
        None => format!("{}'s workspace", caller.user.name),
    };
    let org_type = req.org_type.as_deref().unwrap_or("coach");
    v.choice("type", org_type, ORG_TYPES);
    v.finish()?;
    let user = caller.user.id;
    let mut tx = state.db.begin().await?;
    // Touch the user row first: on PostgreSQL this locks it, so two concurrent calls for the
    // same user queue here instead of both creating a workspace (SQLite's write lock does the same).
    execute!(
        &mut tx,
        sqlx::query("UPDATE users SET updated_at = updated_at WHERE id = $1").bind(user)
    )?;
    if let Some(m) = orgs::memberships_of(&mut tx, user).await?.first() {
        return Ok((
            StatusCode::OK,
            axum::Json(EnsureOrgResponse {
                created: false,
                workspace: MembershipView::from(m),
            }),
        )
            .into_response());
    }
    let org = orgs::create_with_owner(&mut tx, &name, org_type, user).await?;
    users::set_default_org(&mut tx, user, Some(org.id)).await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(org.id),
            actor: Some(user),
            impersonator: caller.impersonator,
            action: "org.created",
            target_type: "org",
            target_id: Some(org.id.to_string()),
            data: json!({ "via": "ensure-org", "type": org_type }),
        },
    )
    .await?;
    let m = orgs::membership(&mut tx, user, org.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("membership missing after insert")))?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(EnsureOrgResponse {
            created: true,
            workspace: MembershipView::from(&m),
        }),
    )
        .into_response())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteAccountRequest {
    /// The current password, re-entered.
    pub password: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeleteAccountResponse {
    pub deleted_workspaces: Vec<Id>,
    pub left_workspaces: Vec<Id>,
}

pub async fn delete_account(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<DeleteAccountRequest>,
) -> Result<Response> {
    let ok = password::verify_async(req.password, caller.user.password_hash.clone()).await;
    if !ok {
        return Err(Error::forbidden(
            "password_mismatch",
            "re-enter your current password to delete the account",
        )
        .into());
    }
    let user = caller.user.id;
    let mut tx = state.db.begin().await?;
    let mut deleted = vec![];
    let mut left = vec![];
    let mut blocked = vec![];
    for m in orgs::memberships_of(&mut tx, user).await? {
        let members = orgs::count_members(&mut tx, m.org_id).await?;
        let owners = orgs::count_owners(&mut tx, m.org_id).await?;
        if members == 1 {
            deleted.push(m.org_id);
        } else if m.role_key == "owner" && owners == 1 {
            blocked.push(json!({ "id": m.org_id, "name": m.org_name }));
        } else {
            left.push(m.org_id);
        }
    }
    if !blocked.is_empty() {
        return Err(Error::conflict(
            "ownership_transfer_required",
            "you are the only owner of workspaces with other members; transfer ownership first",
        )
        .with_details(json!({ "workspaces": blocked }))
        .into());
    }
    for org in &deleted {
        orgs::delete(&mut tx, *org).await?;
    }
    for org in &left {
        audit::record(
            &mut tx,
            audit::Entry {
                org_id: Some(*org),
                actor: Some(user),
                impersonator: caller.impersonator,
                action: "member.left",
                target_type: "user",
                target_id: Some(user.to_string()),
                data: json!({ "reason": "account_deleted" }),
            },
        )
        .await?;
    }
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: None,
            actor: Some(user),
            impersonator: caller.impersonator,
            action: "account.deleted",
            target_type: "user",
            target_id: Some(user.to_string()),
            data: json!({ "deletedWorkspaces": deleted, "leftWorkspaces": left }),
        },
    )
    .await?;
    users::delete(&mut tx, user).await?;
    tx.commit().await?;
    let h = cookies::cleared_session(state.cfg.cookies_secure());
    Ok((
        h,
        axum::Json(DeleteAccountResponse {
            deleted_workspaces: deleted,
            left_workspaces: left,
        }),
    )
        .into_response())
}
