//! Who may send a wearer's data. The watch is worn by an athlete, who is usually not a member
//! of the workspace (athletes are users linked to an athlete row), so the routes that take data
//! from a wearer accept either:
//!
//! - the athlete's own login (the athlete row's `user_id`), or
//! - a member of the athlete's workspace holding `wearable.manage` (a coach sending for them).
//!
//! The workspace is the athlete's. Its wearable module switched off answers 403
//! `module_disabled`; anyone else, or an athlete of another workspace, 404.

use crate::authz::{Module, Perm, effective_permissions};
use crate::db::{Executor, Id};
use crate::domain::Actor;
use crate::repo::{athletes, orgs, wearable};
use crate::{Error, Result};

/// The wearer a request acts for, and in which capacity the caller sends.
#[derive(Clone, Debug)]
pub struct Wearer {
    pub actor: Actor,
    pub org_id: Id,
    pub athlete_id: Id,
    /// True when the caller is the athlete themself.
    pub is_self: bool,
    /// The session's coach: the member sending, else the athlete's first assigned coach.
    pub coach_user_id: Option<Id>,
}

fn module_off() -> Error {
    Error::forbidden(
        "module_disabled",
        "the wearable module is switched off in this workspace",
    )
}

/// Resolves the wearer for `athlete` (or, without one, the caller's own athlete row when they
/// have exactly one).
pub async fn wearer(x: &mut impl Executor, actor: Actor, athlete: Option<Id>) -> Result<Wearer> {
    let athlete = match athlete {
        Some(id) => athletes::by_id_any_org(x, id)
            .await?
            .ok_or_else(|| Error::not_found("athlete"))?,
        None => {
            let own = wearable::own_athletes(x, actor.user_id).await?;
            match own.as_slice() {
                [one] => athletes::by_id_any_org(x, one.id)
                    .await?
                    .ok_or_else(|| Error::not_found("athlete"))?,
                [] => {
                    return Err(Error::field(
                        "athleteId",
                        "required",
                        "name the athlete wearing the watch",
                    ));
                }
                _ => {
                    return Err(Error::field(
                        "athleteId",
                        "required",
                        "you are an athlete in several workspaces: name the athlete row",
                    ));
                }
            }
        }
    };
    let org = orgs::by_id(x, athlete.org_id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    let disabled = org
        .disabled_modules
        .0
        .iter()
        .any(|m| m == Module::Wearable.key());
    if athlete.user_id == Some(actor.user_id) {
        if disabled {
            return Err(module_off());
        }
        let coach = athletes::assignments(x, athlete.org_id, athlete.id)
            .await?
            .first()
            .map(|a| a.user_id);
        return Ok(Wearer {
            actor,
            org_id: athlete.org_id,
            athlete_id: athlete.id,
            is_self: true,
            coach_user_id: coach,
        });
    }
    let m = orgs::membership(x, actor.user_id, athlete.org_id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    if disabled {
        return Err(module_off());
    }
    let perms = effective_permissions(&m.role_key, &m.permissions.0);
    if !perms.contains(&Perm::WearableManage) {
        return Err(Error::forbidden(
            "permission_denied",
            "this needs the wearable.manage permission in this workspace",
        ));
    }
    Ok(Wearer {
        actor,
        org_id: athlete.org_id,
        athlete_id: athlete.id,
        is_self: false,
        coach_user_id: Some(actor.user_id),
    })
}
