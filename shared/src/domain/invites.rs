//! Member invites: seat-capped (members plus pending invites may not exceed the workspace's
//! cap), emailed, single use, expiring after 7 days, revocable. The invitee previews and
//! accepts while signed in with the invited email address.

use super::{Actor, InWorkspace, OWNER_ROLE};
use crate::config::Config;
use crate::db::{Db, Id};
use crate::error::Validator;
use crate::mail::{Email, Mailer};
use crate::repo::invites::{self, Invite, InviteStatus};
use crate::repo::orgs::Membership;
use crate::repo::users::User;
use crate::repo::{audit, orgs, roles, users};
use crate::{Error, Result};
use serde_json::json;

/// The invite exists but can no longer be used.
fn gone(code: &'static str, message: &str) -> Error {
    Error::gone(code, message)
}

fn used() -> Error {
    gone("invite_used", "this invite was already accepted")
}

/// An invite to create, parsed.
#[derive(Debug, Clone)]
pub struct NewInvite {
    pub email: String,
    /// A role key other than owner (ownership is transferred, not invited).
    pub role: String,
}

impl NewInvite {
    pub fn parse(email: &str, role: &str) -> Result<Self> {
        let mut v = Validator::new();
        let email = v.email("email", email);
        v.finish()?;
        Ok(NewInvite {
            email,
            role: role.trim().to_string(),
        })
    }
}

/// A created invite with the link mailed to the invitee.
#[derive(Debug, Clone)]
pub struct CreatedInvite {
    pub invite: Invite,
    pub invite_url: String,
    pub email_sent: bool,
}

/// Invites someone (a re-invite replaces the pending one); 409 `already_member`,
/// `seat_cap_exceeded`. The mail goes out after the commit; a failure is reported, not raised.
pub async fn create(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    ws: &InWorkspace,
    inviter: &User,
    new: NewInvite,
) -> Result<CreatedInvite> {
    let mut tx = db.begin().await?;
    orgs::lock(&mut tx, ws.org_id).await?;
    let org = orgs::by_id(&mut tx, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let role = roles::by_key(&mut tx, ws.org_id, &new.role)
        .await?
        .filter(|r| r.key != OWNER_ROLE)
        .ok_or_else(|| {
            Error::field(
                "role",
                "unknown_role",
                "no such role here (owner cannot be invited)",
            )
        })?;
    if let Some(u) = users::by_email(&mut tx, &new.email).await?
        && orgs::membership(&mut tx, u.id, ws.org_id).await?.is_some()
    {
        return Err(Error::conflict(
            "already_member",
            "this person is already a member",
        ));
    }
    // A re-invite replaces the pending one (and so takes no extra seat).
    invites::revoke_pending_to(&mut tx, ws.org_id, &new.email).await?;
    let used = orgs::count_members(&mut tx, ws.org_id).await?
        + invites::count_pending(&mut tx, ws.org_id).await?;
    let cap = orgs::seat_cap(&mut tx, &org).await?;
    if used >= cap {
        return Err(Error::conflict(
            "seat_cap_exceeded",
            format!("all {cap} seats are taken (members and pending invites)"),
        )
        .with_details(json!({ "seats": cap, "used": used, "plan": org.plan })));
    }
    let (id, token) =
        invites::create(&mut tx, ws.org_id, &new.email, role.id, ws.actor.user_id).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "invite.created",
            "invite",
            id,
            json!({ "email": new.email, "role": role.key }),
        ),
    )
    .await?;
    let invite = invites::get(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("invite vanished")))?;
    tx.commit().await?;
    let url = cfg.public_url(&format!("/join/{token}"));
    let mail = Email {
        to: new.email.clone(),
        subject: format!("{} invited you to {}", inviter.name, org.name),
        text: format!(
            "Hello,\n\n{} invited you to join {} as {}. Open this link to accept (it expires in 7 days):\n\n{url}\n",
            inviter.name, org.name, role.name
        ),
    };
    let email_sent = mailer
        .send(mail)
        .await
        .inspect_err(|e| tracing::error!(error = %e, "invite mail failed"))
        .is_ok();
    Ok(CreatedInvite {
        invite,
        invite_url: url,
        email_sent,
    })
}

pub async fn list(db: &Db, ws: &InWorkspace, limit: i64, offset: i64) -> Result<Vec<Invite>> {
    let mut c = db.acquire().await?;
    Ok(invites::list(&mut c, ws.org_id, limit, offset).await?)
}

pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<Invite> {
    let mut c = db.acquire().await?;
    invites::get(&mut c, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("invite"))
}

/// Withdraws a pending invite (409 `invite_not_pending` otherwise).
pub async fn revoke(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let i = invites::get(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    if !invites::revoke(&mut tx, ws.org_id, i.id).await? {
        return Err(Error::conflict(
            "invite_not_pending",
            format!("the invite is {}", i.status()),
        ));
    }
    audit::record(
        &mut tx,
        ws.audit(
            "invite.revoked",
            "invite",
            i.id,
            json!({ "email": i.email }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// What the invitee sees before accepting.
#[derive(Debug, Clone)]
pub struct Preview {
    pub invite: Invite,
    pub workspace_name: String,
    pub invited_by: Option<String>,
}

pub async fn preview(db: &Db, token: &str) -> Result<Preview> {
    let mut c = db.acquire().await?;
    let i = invites::by_token(&mut c, token)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    let org = orgs::by_id(&mut c, i.org_id)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    let invited_by = match i.invited_by {
        Some(u) => users::by_id(&mut c, u).await?.map(|u| u.name),
        None => None,
    };
    Ok(Preview {
        invite: i,
        workspace_name: org.name,
        invited_by,
    })
}

/// 410 for an invite that can no longer be used.
fn state_error(i: &Invite) -> Option<Error> {
    match i.status() {
        InviteStatus::Pending => None,
        InviteStatus::Expired => Some(gone(
            "invite_expired",
            "this invite has expired; ask for a new one",
        )),
        InviteStatus::Revoked => Some(gone("invite_revoked", "this invite was withdrawn")),
        InviteStatus::Accepted => Some(used()),
    }
}

/// Accepts an invite as `user` (who must hold the invited address): adds the membership,
/// and makes the workspace their default if they had none.
pub async fn accept(db: &Db, actor: Actor, user: &User, token: &str) -> Result<Membership> {
    let mut tx = db.begin().await?;
    let i = invites::by_token(&mut tx, token)
        .await?
        .ok_or_else(|| Error::not_found("invite"))?;
    if let Some(e) = state_error(&i) {
        return Err(e);
    }
    if !i.email.eq_ignore_ascii_case(&user.email) {
        return Err(Error::forbidden(
            "invite_email_mismatch",
            "this invite is for another email address; sign in with that one",
        ));
    }
    if orgs::membership(&mut tx, user.id, i.org_id)
        .await?
        .is_some()
    {
        return Err(Error::conflict(
            "already_member",
            "you are already a member of this workspace",
        ));
    }
    if !invites::accept(&mut tx, i.id, user.id).await? {
        return Err(used());
    }
    orgs::add_member(&mut tx, i.org_id, user.id, i.role_id).await?;
    if user.default_org_id.is_none() {
        users::set_default_org(&mut tx, user.id, Some(i.org_id)).await?;
    }
    audit::record(
        &mut tx,
        actor.audit(
            Some(i.org_id),
            "invite.accepted",
            "invite",
            Some(i.id.to_string()),
            json!({ "role": i.role_key }),
        ),
    )
    .await?;
    let m = orgs::membership(&mut tx, user.id, i.org_id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("membership missing")))?;
    tx.commit().await?;
    Ok(m)
}
