//! Members of a workspace: role changes, removal, ownership transfer, password-reset mail and
//! the name-only coach directory. A workspace always keeps at least one owner, and only an
//! owner can make or unmake owners. Every change locks the workspace row first, so owner
//! counts cannot change underneath a check.

use super::{ADMIN_ROLE, InWorkspace, OWNER_ROLE};
use crate::authz::{Perm, effective_permissions};
use crate::config::Config;
use crate::db::{Db, Executor, Id};
use crate::mail::Mailer;
use crate::repo::auth_tokens::EmailPurpose;
use crate::repo::orgs::MemberRow;
use crate::repo::{audit, orgs, ratelimit, roles, users};
use crate::{Error, Result};
use serde_json::json;

/// Password-reset mails per address and hour (shared with the self-service reset).
const RESETS_PER_HOUR: u32 = 5;

async fn find(x: &mut impl Executor, ws: &InWorkspace, member: Id) -> Result<MemberRow> {
    orgs::member(x, ws.org_id, member)
        .await?
        .ok_or_else(|| Error::not_found("member"))
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

/// Gives a member the role with key `role` (400 `unknown_role` when the workspace has none).
pub async fn set_role(db: &Db, ws: &InWorkspace, member: Id, role: &str) -> Result<MemberRow> {
    let mut tx = db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let m = find(&mut tx, ws, member).await?;
    let role = roles::by_key(&mut tx, ws.org_id, role.trim())
        .await?
        .ok_or_else(|| {
            Error::field(
                "role",
                "unknown_role",
                "no role with this key in the workspace",
            )
        })?;
    if (m.role_key == OWNER_ROLE || role.key == OWNER_ROLE) && !ws.is_owner() {
        return Err(owner_required());
    }
    if m.role_key == OWNER_ROLE
        && role.key != OWNER_ROLE
        && orgs::count_owners(&mut tx, ws.org_id).await? <= 1
    {
        return Err(last_owner());
    }
    orgs::set_member_role(&mut tx, ws.org_id, m.member_id, role.id).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "member.role_changed",
            "member",
            m.member_id,
            json!({ "userId": m.user_id, "from": m.role_key, "to": role.key }),
        ),
    )
    .await?;
    let m = find(&mut tx, ws, member).await?;
    tx.commit().await?;
    Ok(m)
}

/// Removes a member. Needs `members.manage`, except to remove yourself (leave).
pub async fn remove(db: &Db, ws: &InWorkspace, member: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let m = find(&mut tx, ws, member).await?;
    let leaving = m.user_id == ws.actor.user_id;
    if !leaving {
        ws.require(Perm::MembersManage)?;
        if m.role_key == OWNER_ROLE && !ws.is_owner() {
            return Err(owner_required());
        }
    }
    if m.role_key == OWNER_ROLE && orgs::count_owners(&mut tx, ws.org_id).await? <= 1 {
        return Err(last_owner());
    }
    orgs::remove_member(&mut tx, ws.org_id, m.user_id).await?;
    let action = if leaving {
        "member.left"
    } else {
        "member.removed"
    };
    audit::record(
        &mut tx,
        ws.audit(
            action,
            "member",
            m.member_id,
            json!({ "userId": m.user_id, "role": m.role_key }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Makes `member` owner and the acting owner admin; returns (the actor, the new owner).
pub async fn transfer_ownership(
    db: &Db,
    ws: &InWorkspace,
    member: Id,
) -> Result<(MemberRow, MemberRow)> {
    if !ws.is_owner() {
        return Err(Error::forbidden(
            "owner_required",
            "only an owner can transfer ownership",
        ));
    }
    let mut tx = db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let target = find(&mut tx, ws, member).await?;
    if target.user_id == ws.actor.user_id {
        return Err(Error::field(
            "memberId",
            "invalid",
            "you already own this workspace",
        ));
    }
    let owner = roles::by_key(&mut tx, ws.org_id, OWNER_ROLE)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("owner role missing")))?;
    let admin = roles::by_key(&mut tx, ws.org_id, ADMIN_ROLE)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("admin role missing")))?;
    orgs::set_member_role(&mut tx, ws.org_id, target.member_id, owner.id).await?;
    orgs::set_member_role(&mut tx, ws.org_id, ws.member_id, admin.id).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "org.ownership_transferred",
            "member",
            target.member_id,
            json!({ "from": ws.actor.user_id, "to": target.user_id }),
        ),
    )
    .await?;
    let a = find(&mut tx, ws, ws.member_id).await?;
    let b = find(&mut tx, ws, target.member_id).await?;
    tx.commit().await?;
    Ok((a, b))
}

/// Mails a member a password-reset link (e.g. a coach who cannot sign in asks the club
/// admin); rate-limited per address.
pub async fn send_password_reset(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    ws: &InWorkspace,
    member: Id,
) -> Result<()> {
    let mut tx = db.begin().await?;
    let m = find(&mut tx, ws, member).await?;
    ratelimit::hit(
        &mut tx,
        &format!("reset:email:{}", m.email),
        RESETS_PER_HOUR,
        chrono::Duration::hours(1),
    )
    .await?
    .map_err(Error::too_many_requests)?;
    audit::record(
        &mut tx,
        ws.audit(
            "member.password_reset_sent",
            "member",
            m.member_id,
            json!({ "userId": m.user_id }),
        ),
    )
    .await?;
    let user = users::by_id(&mut tx, m.user_id)
        .await?
        .ok_or_else(|| Error::not_found("member"))?;
    tx.commit().await?;
    super::accounts::send_link(db, cfg, mailer, &user, EmailPurpose::ResetPassword).await;
    Ok(())
}

/// The workspace's coaches (members whose role lets them work with athletes), as (user id,
/// name), by name.
pub async fn coach_directory(db: &Db, ws: &InWorkspace) -> Result<Vec<(Id, String)>> {
    let mut c = db.acquire().await?;
    let rows = orgs::member_roles(&mut c, ws.org_id).await?;
    Ok(rows
        .into_iter()
        .filter(|r| {
            effective_permissions(&r.role_key, &r.permissions.0).contains(&Perm::AthletesUpdate)
        })
        .map(|r| (r.user_id, r.name))
        .collect())
}

/// One member of the workspace (404 `not_found` for another workspace's member).
pub async fn get(db: &Db, ws: &InWorkspace, member: Id) -> Result<MemberRow> {
    let mut c = db.acquire().await?;
    find(&mut c, ws, member).await
}
