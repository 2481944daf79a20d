//! Workspace provisioning and account deletion; the rules (who may delete, what happens to
//! each workspace) are in `shared::domain::accounts`.

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
use shared::crypto::password;
use shared::db::Id;
use shared::domain::accounts::{self as domain, EnsureOrg};
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
    let req = EnsureOrg::parse(&caller.user, req.name.as_deref(), req.org_type.as_deref())?;
    let (created, m) = domain::ensure_org(&state.db, caller.actor(), req).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let workspace = MembershipView::from(&m);
    Ok((status, axum::Json(EnsureOrgResponse { created, workspace })).into_response())
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
    let done = domain::delete_account(&state.db, caller.actor()).await?;
    let h = cookies::cleared_session(state.cfg.cookies_secure());
    Ok((
        h,
        axum::Json(DeleteAccountResponse {
            deleted_workspaces: done.deleted_workspaces,
            left_workspaces: done.left_workspaces,
        }),
    )
        .into_response())
}
