//! Messaging: coach–athlete conversations ([`conversations`]), messages with private photo
//! attachments and reports ([`messages`]), and the platform's moderation of reports
//! ([`moderation`]). The value sets and the access rules live here.
//!
//! Athletes are not workspace members (their login is linked to the athlete row), so the
//! routes are `Auth::User` and these rules are checked on every conversation:
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

use super::athletes::AthleteStatus;
use crate::authz::{Module, Perm, effective_permissions};
use crate::db::{Executor, Id};
use crate::error::{Error, Result};
use crate::repo::athletes::{self, Athlete};
use crate::repo::messaging::{self, Conversation};
use crate::repo::orgs::{self, Membership};

pub use crate::repo::messaging::{
    ConversationKind, RecipientKind, RemovedReason, ReportOutcome, ReportReason, ReportStatus,
};

crate::text_enum! {
    /// Which side of a conversation the caller is on (the API's `myRole`). A guardian of the
    /// athlete reads only.
    pub enum Side { Coach = "coach", Athlete = "athlete", Guardian = "guardian" }
}

/// The permission a member needs to message as a coach.
pub const PERMISSION: Perm = Perm::MessagingUse;

/// 403 `module_disabled` when the workspace (its disabled modules given) has messaging off.
fn module_on(disabled: &[String]) -> Result<()> {
    if disabled.iter().any(|d| d == Module::Messaging.key()) {
        return Err(Error::forbidden(
            "module_disabled",
            "the messaging module is switched off in this workspace",
        ));
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
        ));
    }
    Ok(())
}

/// The workspaces where a user may use messaging, per side.
pub struct Scope {
    pub coach_orgs: Vec<Id>,
    pub athlete_orgs: Vec<Id>,
    /// Where the user is a guardian of an athlete (reading only).
    pub guardian_orgs: Vec<Id>,
}

impl Scope {
    /// The scope of user `me`.
    pub async fn of(x: &mut impl Executor, me: Id) -> Result<Scope> {
        let coach_orgs = orgs::memberships_of(x, me)
            .await?
            .iter()
            .filter(|m| check_coach(m).is_ok())
            .map(|m| m.org_id)
            .collect();
        let athlete_orgs = open_orgs(messaging::athlete_logins(x, me).await?);
        let guardian_orgs = open_orgs(messaging::guardian_links(x, me).await?);
        Ok(Scope {
            coach_orgs,
            athlete_orgs,
            guardian_orgs,
        })
    }

    /// Narrows the scope to one workspace; 404 when the user has no messaging there.
    pub fn only(mut self, org: Option<Id>) -> Result<Scope> {
        if let Some(org) = org {
            self.coach_orgs.retain(|o| *o == org);
            self.athlete_orgs.retain(|o| *o == org);
            self.guardian_orgs.retain(|o| *o == org);
            if self.coach_orgs.is_empty()
                && self.athlete_orgs.is_empty()
                && self.guardian_orgs.is_empty()
            {
                return Err(Error::not_found("workspace"));
            }
        }
        Ok(self)
    }
}

/// The distinct workspaces of (athlete, workspace, disabled modules) links whose messaging is on.
fn open_orgs(links: Vec<(Id, Id, sqlx::types::Json<Vec<String>>)>) -> Vec<Id> {
    let mut orgs: Vec<Id> = links
        .into_iter()
        .filter(|(_, _, disabled)| module_on(&disabled.0).is_ok())
        .map(|(_, org, _)| org)
        .collect();
    orgs.sort();
    orgs.dedup();
    orgs
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
            ));
        }
        Ok(())
    }
}

/// Opens conversation `id` for user `me`: 404 unless they take part in it (or are a guardian
/// of its athlete); 403 when they do but messaging is switched off or (coach) their role lost
/// `messaging.use`.
pub async fn open(x: &mut impl Executor, me: Id, id: Id) -> Result<Access> {
    let not_found = || Error::not_found("conversation");
    let conv = messaging::get(x, id).await?.ok_or_else(not_found)?;
    let athlete = athletes::get(x, conv.org_id, conv.athlete_id)
        .await?
        .ok_or_else(not_found)?;
    let active = athlete.status != AthleteStatus::Archived;
    let side = if conv.coach_user_id == me {
        let m = orgs::membership(x, me, conv.org_id)
            .await?
            .ok_or_else(not_found)?;
        check_coach(&m)?;
        Side::Coach
    } else if athlete.user_id == Some(me) && active {
        module_enabled(x, conv.org_id, "conversation").await?;
        Side::Athlete
    } else if active && messaging::is_guardian(x, me, athlete.id).await? {
        module_enabled(x, conv.org_id, "conversation").await?;
        Side::Guardian
    } else {
        return Err(not_found());
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

/// 403 `module_disabled` unless workspace `org` has messaging on; 404 (`what`) when it is gone.
async fn module_enabled(x: &mut impl Executor, org: Id, what: &str) -> Result<()> {
    let o = orgs::by_id(x, org)
        .await?
        .ok_or_else(|| Error::not_found(what))?;
    module_on(&o.disabled_modules.0)
}
