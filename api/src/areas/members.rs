//! Members of a workspace: role changes, removal, ownership transfer, password-reset mail and
//! the name-only coach directory. A workspace always keeps at least one owner, and only an
//! owner can make or unmake owners.

use super::orgs::MemberView;
use crate::auth::{Caller, Ws};
use crate::http::extract::{Body, Path};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::authz::effective_permissions;
use shared::db::{Executor, Id};
use shared::repo::auth_tokens::EmailPurpose;
use shared::repo::{audit, orgs, ratelimit, roles, users};

use utoipa::ToSchema;

#[derive(Deserialize)]
pub struct MemberPath {
    #[allow(dead_code)]
    id: Id,
    #[serde(rename = "memberId")]
    member_id: Id,
}

fn view(m: orgs::MemberRow) -> MemberView {
    m.into()
}

async fn find(x: &mut impl Executor, ws: &Ws, member: Id) -> Result<orgs::MemberRow> {
    Ok(orgs::member(x, ws.org_id, member)
        .await?
        .ok_or_else(|| Error::not_found("member"))?)
}

fn last_owner() -> Error {
    Error::conflict(
        "last_owner",
        "a workspace needs an owner: make someone else owner first",
    )
}

fn owner_required() -> Error {
    Error::forbidden(
        "owner_required",
        "only an owner can change an owner's role or make an owner",
    )
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMember {
    /// The role's key (owner, admin, coach, viewer or a custom role's key).
    pub role: String,
}

pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(p): Path<MemberPath>,
    Body(req): Body<UpdateMember>,
) -> Result<axum::Json<MemberView>> {
    let mut tx = state.db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let m = find(&mut tx, &ws, p.member_id).await?;
    let role = roles::by_key(&mut tx, ws.org_id, req.role.trim())
        .await?
        .ok_or_else(|| {
            Error::field(
                "role",
                "unknown_role",
                "no role with this key in the workspace",
            )
        })?;
    if (m.role_key == "owner" || role.key == "owner") && !ws.is_owner() {
        return Err(owner_required().into());
    }
    if m.role_key == "owner"
        && role.key != "owner"
        && orgs::count_owners(&mut tx, ws.org_id).await? <= 1
    {
        return Err(last_owner().into());
    }
    orgs::set_member_role(&mut tx, ws.org_id, m.member_id, role.id).await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "member.role_changed",
            "member",
            Some(m.member_id.to_string()),
            json!({ "userId": m.user_id, "from": m.role_key, "to": role.key }),
        ),
    )
    .await?;
    let m = find(&mut tx, &ws, p.member_id).await?;
    tx.commit().await?;
    Ok(axum::Json(view(m)))
}

/// Removes a member. Needs `members.manage`, except to remove yourself (leave).
pub async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Path(p): Path<MemberPath>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let m = find(&mut tx, &ws, p.member_id).await?;
    let leaving = m.user_id == caller.user.id;
    if !leaving {
        ws.require(shared::authz::Perm::MembersManage)?;
        if m.role_key == "owner" && !ws.is_owner() {
            return Err(owner_required().into());
        }
    }
    if m.role_key == "owner" && orgs::count_owners(&mut tx, ws.org_id).await? <= 1 {
        return Err(last_owner().into());
    }
    orgs::remove_member(&mut tx, ws.org_id, m.user_id).await?;
    let action = if leaving {
        "member.left"
    } else {
        "member.removed"
    };
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            action,
            "member",
            Some(m.member_id.to_string()),
            json!({ "userId": m.user_id, "role": m.role_key }),
        ),
    )
    .await?;
    tx.commit().await?;
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
    caller: Caller,
    ws: Ws,
    Body(req): Body<TransferOwnership>,
) -> Result<axum::Json<Vec<MemberView>>> {
    if !ws.is_owner() {
        return Err(
            Error::forbidden("owner_required", "only an owner can transfer ownership").into(),
        );
    }
    let mut tx = state.db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let target = find(&mut tx, &ws, req.member_id).await?;
    if target.user_id == caller.user.id {
        return Err(Error::field("memberId", "invalid", "you already own this workspace").into());
    }
    let owner = roles::by_key(&mut tx, ws.org_id, "owner")
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("owner role missing")))?;
    let admin = roles::by_key(&mut tx, ws.org_id, "admin")
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("admin role missing")))?;
    orgs::set_member_role(&mut tx, ws.org_id, target.member_id, owner.id).await?;
    orgs::set_member_role(&mut tx, ws.org_id, ws.member_id, admin.id).await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(ws.org_id),
            "org.ownership_transferred",
            "member",
            Some(target.member_id.to_string()),
            json!({ "from": caller.user.id, "to": target.user_id }),
        ),
    )
    .await?;
    let a = find(&mut tx, &ws, ws.member_id).await?;
    let b = find(&mut tx, &ws, target.member_id).await?;
    tx.commit().await?;
    Ok(axum::Json(vec![view(a), view(b)]))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResetPassword {
    pub member_id: Id,
}

/// Mails a member a password-reset link (e.g. a coach who cannot sign in asks the club admin).
pub async fn reset_password(
    State(state): State<AppState>,
    caller: Caller,
    ws: Ws,
    Body(req): Body<ResetPassword>,
) -> Result<(StatusCode, axum::Json<super::accounts::signup::Accepted>)> {
    let user = {
        let mut tx = state.db.begin().await?;
        let m = find(&mut tx, &ws, req.member_id).await?;
        ratelimit::hit(
            &mut tx,
            &format!("reset:email:{}", m.email),
            5,
            chrono::Duration::hours(1),
        )
        .await?
        .map_err(Error::too_many_requests)?;
        audit::record(
            &mut tx,
            caller.audit(
                Some(ws.org_id),
                "member.password_reset_sent",
                "member",
                Some(m.member_id.to_string()),
                json!({ "userId": m.user_id }),
            ),
        )
        .await?;
        let u = users::by_id(&mut tx, m.user_id)
            .await?
            .ok_or_else(|| Error::not_found("member"))?;
        tx.commit().await?;
        u
    };
    super::accounts::send_link(&state, &user, EmailPurpose::ResetPassword).await;
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
    ws: Ws,
) -> Result<axum::Json<Vec<DirectoryEntry>>> {
    let mut c = state.db.acquire().await?;
    let rows: Vec<(Id, String, String, sqlx::types::Json<Vec<String>>)> = shared::sql!(&mut c, c => sqlx::query_as(
        "SELECT u.id, u.name, r.key, r.permissions FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
         WHERE m.org_id = $1 ORDER BY u.name, u.id")
        .bind(ws.org_id).fetch_all(&mut *c).await)?;
    Ok(axum::Json(
        rows.into_iter()
            .filter(|(_, _, key, perms)| {
                effective_permissions(key, &perms.0).contains(&shared::authz::Perm::AthletesUpdate)
            })
            .map(|(user_id, name, _, _)| DirectoryEntry { user_id, name })
            .collect(),
    ))
}
