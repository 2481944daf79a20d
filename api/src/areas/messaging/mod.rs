//! Messaging: coach–athlete conversations, messages with private photo attachments, and
//! message reports. Admin moderation of reports is in `moderation`.
//!
//! Athletes are not workspace members (their login is linked to the athlete row), so these
//! routes are `Auth::User` and the access rules live here, checked on every conversation:
//! - the coach side is a member of the conversation's workspace holding `messaging.use`;
//! - the athlete side is the login of the conversation's athlete (not archived);
//! - a guardian of the athlete (`athlete_guardians`, athlete not archived) may list and read the
//!   conversation (safeguarding), but not post, upload or delete in it (403
//!   `guardian_read_only`); their reading does not mark it read;
//! - the workspace has the messaging module switched on (else 403 `module_disabled`).
//!
//! Anyone else, including members of other workspaces, gets 404.

pub mod conversations;
pub mod messages;
pub mod moderation;

use crate::auth::Caller;
use crate::http::{Error, Result};
use shared::authz::{Module, Perm, effective_permissions};
use shared::db::{Executor, Id};
use shared::repo::athletes::{self, Athlete};
use shared::repo::messaging::{self, Conversation};
use shared::repo::orgs::{self, Membership};

pub const PERMISSION: Perm = Perm::MessagingUse;

pub use shared::domain::messaging::Side;

fn module_on(disabled: &[String]) -> Result<()> {
    if disabled.iter().any(|d| d == Module::Messaging.key()) {
        return Err(Error::forbidden(
            "module_disabled",
            "the messaging module is switched off in this workspace",
        )
        .into());
    }
    Ok(())
}

/// A member may act as a coach in messaging: module on and `messaging.use`.
pub fn check_coach(m: &Membership) -> Result<()> {
    module_on(&m.disabled_modules.0)?;
    if !effective_permissions(&m.role_key, &m.permissions.0).contains(&PERMISSION) {
        return Err(Error::forbidden(
            "permission_denied",
            format!("this needs the {PERMISSION} permission in this workspace"),
        )
        .into());
    }
    Ok(())
}

/// The workspaces where the caller may use messaging, per side.
pub struct Scope {
    pub coach_orgs: Vec<Id>,
    pub athlete_orgs: Vec<Id>,
    /// Where the caller is a guardian of an athlete (reading only).
    pub guardian_orgs: Vec<Id>,
}

impl Scope {
    pub async fn of(x: &mut impl Executor, caller: &Caller) -> Result<Scope> {
        let coach_orgs = orgs::memberships_of(x, caller.user.id)
            .await?
            .iter()
            .filter(|m| check_coach(m).is_ok())
            .map(|m| m.org_id)
            .collect();
        let mut athlete_orgs: Vec<Id> = messaging::athlete_logins(x, caller.user.id)
            .await?
            .into_iter()
            .filter(|(_, _, disabled)| module_on(&disabled.0).is_ok())
            .map(|(_, org, _)| org)
            .collect();
        athlete_orgs.sort();
        athlete_orgs.dedup();
        let mut guardian_orgs: Vec<Id> = messaging::guardian_links(x, caller.user.id)
            .await?
            .into_iter()
            .filter(|(_, _, disabled)| module_on(&disabled.0).is_ok())
            .map(|(_, org, _)| org)
            .collect();
        guardian_orgs.sort();
        guardian_orgs.dedup();
        Ok(Scope {
            coach_orgs,
            athlete_orgs,
            guardian_orgs,
        })
    }

    /// Narrows the scope to one workspace; 404 when the caller has no messaging there.
    pub fn only(mut self, org: Option<Id>) -> Result<Scope> {
        if let Some(org) = org {
            self.coach_orgs.retain(|o| *o == org);
            self.athlete_orgs.retain(|o| *o == org);
            self.guardian_orgs.retain(|o| *o == org);
            if self.coach_orgs.is_empty()
                && self.athlete_orgs.is_empty()
                && self.guardian_orgs.is_empty()
            {
                return Err(Error::not_found("workspace").into());
            }
        }
        Ok(self)
    }
}

/// A conversation the caller takes part in, with their side and the athlete.
pub struct Access {
    pub conv: Conversation,
    pub side: Side,
    pub athlete: Athlete,
}

impl Access {
    /// The other participant's user (the athlete may have no login yet).
    pub fn other_user(&self) -> Option<Id> {
        match self.side {
            Side::Coach => self.athlete.user_id,
            Side::Athlete => Some(self.conv.coach_user_id),
            Side::Guardian => None,
        }
    }

    /// 403 `guardian_read_only` for a guardian: they read, they do not write.
    pub fn writable(&self) -> Result<()> {
        if self.side == Side::Guardian {
            return Err(Error::forbidden(
                "guardian_read_only",
                "guardians can read this conversation but not write in it",
            )
            .into());
        }
        Ok(())
    }
}

/// Opens conversation `id` for the caller: 404 unless they take part in it (or are a
/// guardian of its athlete); 403 when they
/// do but messaging is switched off or (coach) their role lost `messaging.use`.
pub async fn open(x: &mut impl Executor, caller: &Caller, id: Id) -> Result<Access> {
    let me = caller.user.id;
    let not_found = || Error::not_found("conversation");
    let conv = messaging::get(x, id).await?.ok_or_else(not_found)?;
    let athlete = athletes::get(x, conv.org_id, conv.athlete_id)
        .await?
        .ok_or_else(not_found)?;
    let side = if conv.coach_user_id == me {
        let m = orgs::membership(x, me, conv.org_id)
            .await?
            .ok_or_else(not_found)?;
        check_coach(&m)?;
        Side::Coach
    } else if athlete.user_id == Some(me)
        && athlete.status != shared::domain::athletes::AthleteStatus::Archived
    {
        let org = orgs::by_id(x, conv.org_id).await?.ok_or_else(not_found)?;
        module_on(&org.disabled_modules.0)?;
        Side::Athlete
    } else if athlete.status != shared::domain::athletes::AthleteStatus::Archived
        && messaging::is_guardian(x, me, athlete.id).await?
    {
        let org = orgs::by_id(x, conv.org_id).await?.ok_or_else(not_found)?;
        module_on(&org.disabled_modules.0)?;
        Side::Guardian
    } else {
        return Err(not_found().into());
    };
    Ok(Access {
        conv,
        side,
        athlete,
    })
}

/// 400 for anything but a coach–athlete conversation (the spec's rule).
pub fn unsupported_kind(message: &str) -> Error {
    Error::bad_request("conversation_kind_unsupported", message)
}

/// The conversation's module check for a workspace by id (the athlete side of a create).
pub async fn module_enabled(x: &mut impl Executor, org: Id) -> Result<()> {
    let o = orgs::by_id(x, org)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    module_on(&o.disabled_modules.0)
}
