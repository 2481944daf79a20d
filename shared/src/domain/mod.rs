//! The domain layer: what the service does, one typed operation per use case.
//!
//! An area's operations live in `domain/<area>.rs` (or `domain/<area>/` when it grows). Each
//! operation:
//! - takes typed input that was parsed once (`NewAthlete::parse(req)?`, text enums instead of
//!   strings: "parse, don't validate"), the acting [`Actor`] or [`InWorkspace`], and the `Db`;
//! - runs its queries through `crate::repo` in one transaction when it writes more than one
//!   row, and records the audit entry in that same transaction;
//! - returns a typed result or a [`crate::Error`] with a stable code; it never knows about HTTP.
//!
//! Handlers in `api/src/areas` only extract, call one operation and map the result to a
//! response; the worker calls the same operations (imports, syncs), so each rule exists once.

pub mod accounts;
pub mod activity;
pub mod admin;
pub mod athletes;
pub mod billing;
pub mod coaches;
pub mod competition;
pub mod footage;
pub mod forecasts;
pub mod invites;
pub mod members;
pub mod messaging;
pub mod notifications;
pub mod orgs;
pub mod reviews;
pub mod reviewvideo;
pub mod roles;
pub mod season_report;
pub mod spots;
pub mod training;
pub mod tv;
pub mod wearable;

use crate::authz::{Perm, PermSet};
use crate::db::Id;
use crate::repo::audit::Entry;

/// The built-in owner role's key (role keys are open: workspaces add their own roles).
pub const OWNER_ROLE: &str = "owner";
/// The built-in admin role's key; an owner who hands ownership over becomes admin.
pub const ADMIN_ROLE: &str = "admin";

/// Who performs an operation: the signed-in user and, during an impersonation, the platform
/// admin behind them (audit entries record both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Actor {
    pub user_id: Id,
    pub impersonator: Option<Id>,
}

impl Actor {
    /// An audit entry by this actor.
    pub fn audit<'a>(
        &self,
        org_id: Option<Id>,
        action: &'a str,
        target_type: &'a str,
        target_id: Option<String>,
        data: serde_json::Value,
    ) -> Entry<'a> {
        Entry {
            org_id,
            actor: Some(self.user_id),
            impersonator: self.impersonator,
            action,
            target_type,
            target_id,
            data,
        }
    }
}

/// A member acting in one workspace, with their effective permissions there (for rules finer
/// than the route's policy, which the api already checked).
#[derive(Clone, Debug)]
pub struct InWorkspace {
    pub actor: Actor,
    pub org_id: Id,
    pub member_id: Id,
    pub role_key: String,
    pub permissions: PermSet,
}

impl InWorkspace {
    /// Whether the member holds `perm` here.
    pub fn can(&self, perm: Perm) -> bool {
        self.permissions.contains(&perm)
    }

    /// 403 `permission_denied` unless the member holds `perm` (for rules finer than the
    /// route's policy).
    pub fn require(&self, perm: Perm) -> crate::Result<()> {
        if self.can(perm) {
            Ok(())
        } else {
            Err(crate::Error::forbidden(
                "permission_denied",
                format!("this needs the {perm} permission in this workspace"),
            ))
        }
    }

    /// Whether the member holds the built-in owner role.
    pub fn is_owner(&self) -> bool {
        self.role_key == OWNER_ROLE
    }

    /// An audit entry in this workspace by this member.
    pub fn audit<'a>(
        &self,
        action: &'a str,
        target_type: &'a str,
        target_id: impl ToString,
        data: serde_json::Value,
    ) -> Entry<'a> {
        self.actor.audit(
            Some(self.org_id),
            action,
            target_type,
            Some(target_id.to_string()),
            data,
        )
    }
}
