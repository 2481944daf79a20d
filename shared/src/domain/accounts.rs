//! Accounts: workspace provisioning, account deletion and the emailed single-use links.
//!
//! Deleting an account (password re-entered) removes the user, their sessions, tokens, provider
//! connections and memberships. Workspaces where they are the only member are deleted with all
//! their data. A workspace where they are the only owner but others are members blocks the
//! deletion (409 `ownership_transfer_required`, listing those workspaces): its members would be
//! left without an owner, so ownership must be transferred first. Workspaces with another owner
//! are simply left. Audit entries are kept (they name ids, not personal data).

use super::{Actor, OWNER_ROLE};
use crate::config::Config;
use crate::db::{Db, Id};
use crate::error::Validator;
use crate::mail::{Email, Mailer};
use crate::repo::auth_tokens::{self, EmailPurpose};
use crate::repo::orgs::{Membership, OrgType};
use crate::repo::users::User;
use crate::repo::{audit, orgs, users};
use crate::{Error, Result};
use serde_json::json;

/// A workspace to provision for a user who has none, parsed.
#[derive(Debug, Clone)]
pub struct EnsureOrg {
    pub name: String,
    pub org_type: OrgType,
}

impl EnsureOrg {
    /// The name defaults to "<user's name>'s workspace", the type to coach.
    pub fn parse(user: &User, name: Option<&str>, org_type: Option<&str>) -> Result<Self> {
        let mut v = Validator::new();
        let name = match name {
            Some(n) => v.text("name", n, 100),
            None => format!("{}'s workspace", user.name),
        };
        let org_type = v.choice_of::<OrgType>("type", org_type.unwrap_or("coach"));
        v.finish()?;
        Ok(EnsureOrg {
            name,
            org_type: org_type.unwrap_or(OrgType::Coach),
        })
    }
}

/// Gives a user with no workspace one, as its owner. Idempotent: a user who already belongs
/// to a workspace gets their first one back (`created` false) and nothing is created.
pub async fn ensure_org(db: &Db, actor: Actor, req: EnsureOrg) -> Result<(bool, Membership)> {
    let user = actor.user_id;
    let mut tx = db.begin().await?;
    // Lock the user row first: two concurrent calls for the same user queue here instead of
    // both creating a workspace.
    users::lock(&mut tx, user).await?;
    if let Some(m) = orgs::memberships_of(&mut tx, user)
        .await?
        .into_iter()
        .next()
    {
        return Ok((false, m));
    }
    let org = orgs::create_with_owner(&mut tx, &req.name, req.org_type, user).await?;
    users::set_default_org(&mut tx, user, Some(org.id)).await?;
    audit::record(
        &mut tx,
        actor.audit(
            Some(org.id),
            "org.created",
            "org",
            Some(org.id.to_string()),
            json!({ "via": "ensure-org", "type": req.org_type }),
        ),
    )
    .await?;
    let m = orgs::membership(&mut tx, user, org.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("membership missing after insert")))?;
    tx.commit().await?;
    Ok((true, m))
}

/// What deleting an account did to its workspaces.
#[derive(Debug, Clone, Default)]
pub struct DeletedAccount {
    pub deleted_workspaces: Vec<Id>,
    pub left_workspaces: Vec<Id>,
}

/// Deletes the actor's account; the password was checked by the caller. See the module
/// documentation for what happens to the workspaces.
pub async fn delete_account(db: &Db, actor: Actor) -> Result<DeletedAccount> {
    let user = actor.user_id;
    let mut tx = db.begin().await?;
    let mut out = DeletedAccount::default();
    let mut blocked = vec![];
    for m in orgs::memberships_of(&mut tx, user).await? {
        let members = orgs::count_members(&mut tx, m.org_id).await?;
        let owners = orgs::count_owners(&mut tx, m.org_id).await?;
        if members == 1 {
            out.deleted_workspaces.push(m.org_id);
        } else if m.role_key == OWNER_ROLE && owners == 1 {
            blocked.push(json!({ "id": m.org_id, "name": m.org_name }));
        } else {
            out.left_workspaces.push(m.org_id);
        }
    }
    if !blocked.is_empty() {
        return Err(Error::conflict(
            "ownership_transfer_required",
            "you are the only owner of workspaces with other members; transfer ownership first",
        )
        .with_details(json!({ "workspaces": blocked })));
    }
    for org in &out.deleted_workspaces {
        orgs::delete(&mut tx, *org).await?;
    }
    for org in &out.left_workspaces {
        audit::record(
            &mut tx,
            actor.audit(
                Some(*org),
                "member.left",
                "user",
                Some(user.to_string()),
                json!({ "reason": "account_deleted" }),
            ),
        )
        .await?;
    }
    audit::record(
        &mut tx,
        actor.audit(
            None,
            "account.deleted",
            "user",
            Some(user.to_string()),
            json!({ "deletedWorkspaces": out.deleted_workspaces, "leftWorkspaces": out.left_workspaces }),
        ),
    )
    .await?;
    users::delete(&mut tx, user).await?;
    tx.commit().await?;
    Ok(out)
}

/// Emails a single-use link for `purpose`; true if the mail went out. Failures are logged, not
/// raised: the user's action (sign-up, a reset request) has succeeded and they can ask for
/// another link.
pub async fn send_link(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    user: &User,
    purpose: EmailPurpose,
) -> bool {
    let token = async {
        let mut c = db.acquire().await?;
        auth_tokens::create_email_token(&mut c, user.id, purpose).await
    };
    let token = match token.await {
        Ok(t) => t,
        Err(e) => {
            tracing::error!(error = %e, "could not create an email token");
            return false;
        }
    };
    let link = cfg.public_url(&format!(
        "/auth/callback?type={}&token={token}",
        purpose.as_str()
    ));
    let (subject, text) = match purpose {
        EmailPurpose::VerifyEmail => (
            "Confirm your email address",
            format!(
                "Hello {},\n\nconfirm your email address by opening this link:\n\n{link}\n\nThe link works once and expires in 3 days.\n",
                user.name
            ),
        ),
        EmailPurpose::ResetPassword => (
            "Reset your password",
            format!(
                "Hello {},\n\nsomeone asked to reset the password of this account. If it was you, open:\n\n{link}\n\nThe link works once and expires in 1 hour. If it was not you, ignore this mail.\n",
                user.name
            ),
        ),
    };
    let mail = Email {
        to: user.email.clone(),
        subject: subject.into(),
        text,
    };
    match mailer.send(mail).await {
        Ok(()) => true,
        Err(e) => {
            tracing::error!(error = %e, purpose = purpose.as_str(), "sending mail failed");
            false
        }
    }
}
