//! Members of a workspace: role changes, removal, ownership transfer, password-reset mail and
//! the name-only coach directory (rules in `shared::domain::members`).

use super::orgs::MemberView;
use crate::auth::Acting;
use crate::http::Result;
use crate::http::extract::{Body, Path};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::Id;
use shared::domain::members as domain;
use utoipa::ToSchema;

#[derive(Deserialize)]
pub struct MemberPath {
    #[allow(dead_code)]
    id: Id,
    #[serde(rename = "memberId")]
    member_id: Id,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMember {
    /// The role's key (owner, admin, coach, viewer or a custom role's key).
    pub role: String,
}

pub async fn update(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<MemberPath>,
    Body(req): Body<UpdateMember>,
) -> Result<axum::Json<MemberView>> {
    let m = domain::set_role(&state.db, &ws, p.member_id, &req.role).await?;
    Ok(axum::Json(m.into()))
}

/// Removes a member. Needs `members.manage`, except to remove yourself (leave).
pub async fn remove(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(p): Path<MemberPath>,
) -> Result<StatusCode> {
    domain::remove(&state.db, &ws, p.member_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TransferOwnership {
    /// The member who becomes owner. The caller (an owner) becomes admin.
    pub member_id: Id,
}

pub async fn transfer_ownership(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<TransferOwnership>,
) -> Result<axum::Json<Vec<MemberView>>> {
    let (a, b) = domain::transfer_ownership(&state.db, &ws, req.member_id).await?;
    Ok(axum::Json(vec![a.into(), b.into()]))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResetPassword {
    pub member_id: Id,
}

/// Mails a member a password-reset link (e.g. a coach who cannot sign in asks the club admin).
pub async fn reset_password(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(req): Body<ResetPassword>,
) -> Result<(StatusCode, axum::Json<super::accounts::signup::Accepted>)> {
    domain::send_password_reset(&state.db, &state.cfg, &state.mailer, &ws, req.member_id).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(super::accounts::signup::Accepted { status: "sent" }),
    ))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirectoryEntry {
    pub user_id: Id,
    pub name: String,
}

/// The coaches of the workspace (members who may work with athletes), names only: for pickers
/// shown to every member.
pub async fn coach_directory(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<axum::Json<Vec<DirectoryEntry>>> {
    let rows = domain::coach_directory(&state.db, &ws).await?;
    Ok(axum::Json(
        rows.into_iter()
            .map(|(user_id, name)| DirectoryEntry { user_id, name })
            .collect(),
    ))
}
