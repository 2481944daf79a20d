//! The Coaches view: a workspace's coaches (members who work with athletes), their athletes,
//! reassignment of athletes between coaches, stats and recent activity. A coach is named by
//! their user id; a user who is not a member of the workspace is not found.

use super::InWorkspace;
use crate::authz::Perm;
use crate::db::{Db, Executor, Id, Ts};
use crate::error::Validator;
use crate::repo::orgs::Membership;
use crate::repo::users::User;
use crate::repo::{audit, coaches, orgs, users};
use crate::{Error, Result};
use serde_json::json;

/// A coach as the Coaches view shows them.
#[derive(Debug, Clone)]
pub struct Coach {
    pub user: User,
    pub role_key: String,
    pub joined_at: Ts,
    pub athletes: i64,
}

async fn membership(
    x: &mut impl Executor,
    ws: &InWorkspace,
    user: Id,
) -> Result<(Membership, User)> {
    let m = orgs::membership(x, user, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("coach"))?;
    let u = users::by_id(x, user)
        .await?
        .ok_or_else(|| Error::not_found("coach"))?;
    Ok((m, u))
}

async fn load(x: &mut impl Executor, ws: &InWorkspace, user: Id) -> Result<Coach> {
    let (m, u) = membership(x, ws, user).await?;
    let stats = coaches::stats(x, ws.org_id, user).await?;
    let joined_at = orgs::member_joined_at(x, m.member_id).await?;
    Ok(Coach {
        user: u,
        role_key: m.role_key,
        joined_at,
        athletes: stats.athletes,
    })
}

pub async fn get(db: &Db, ws: &InWorkspace, coach: Id) -> Result<Coach> {
    load(&mut db.acquire().await?, ws, coach).await
}

/// Renames a coach: yourself, or anyone with `members.manage`; `name` is raw input.
pub async fn rename(db: &Db, ws: &InWorkspace, coach: Id, name: &str) -> Result<Coach> {
    if coach != ws.actor.user_id {
        ws.require(Perm::MembersManage)?;
    }
    let mut v = Validator::new();
    let name = v.text("name", name, 100);
    v.finish()?;
    let mut tx = db.begin().await?;
    let (_, u) = membership(&mut tx, ws, coach).await?;
    users::set_name(&mut tx, coach, &name).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "coach.updated",
            "user",
            coach,
            json!({ "before": u.name, "after": name }),
        ),
    )
    .await?;
    let out = load(&mut tx, ws, coach).await?;
    tx.commit().await?;
    Ok(out)
}

/// The coach's athletes with their assignments, by name.
pub async fn athletes(
    db: &Db,
    ws: &InWorkspace,
    coach: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<coaches::CoachAthlete>> {
    let mut c = db.acquire().await?;
    membership(&mut c, ws, coach).await?;
    Ok(coaches::athletes(&mut c, ws.org_id, coach, limit, offset).await?)
}

/// A reassignment of athletes between coaches, parsed.
#[derive(Debug, Clone)]
pub struct Reassign {
    pub from: Id,
    pub to: Id,
    /// Only these athletes (1 to 1000); all of the coach's when `None`.
    pub athletes: Option<Vec<Id>>,
}

impl Reassign {
    pub fn parse(from: Id, to: Id, athletes: Option<Vec<Id>>) -> Result<Self> {
        let mut v = Validator::new();
        v.check(to != from, "toCoachId", "invalid", "must be another coach");
        v.check(
            athletes
                .as_ref()
                .is_none_or(|a| !a.is_empty() && a.len() <= 1000),
            "athleteIds",
            "out_of_range",
            "1 to 1000 ids, or leave it out for all",
        );
        v.finish()?;
        Ok(Reassign { from, to, athletes })
    }
}

/// Moves athletes from one coach to another in one transaction (e.g. a coach leaves the
/// club); returns how many moved.
pub async fn reassign(db: &Db, ws: &InWorkspace, r: Reassign) -> Result<u64> {
    let mut tx = db.begin().await?;
    membership(&mut tx, ws, r.from).await?;
    membership(&mut tx, ws, r.to)
        .await
        .map_err(|_| Error::field("toCoachId", "invalid", "not a member of this workspace"))?;
    let moved = coaches::reassign(
        &mut tx,
        ws.org_id,
        r.from,
        r.to,
        r.athletes.as_deref(),
        ws.actor.user_id,
    )
    .await?;
    audit::record(
        &mut tx,
        ws.audit(
            "coach.athletes_reassigned",
            "user",
            r.from,
            json!({ "to": r.to, "moved": moved, "athleteIds": r.athletes }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(moved)
}

pub async fn stats(db: &Db, ws: &InWorkspace, coach: Id) -> Result<coaches::Stats> {
    let mut c = db.acquire().await?;
    membership(&mut c, ws, coach).await?;
    Ok(coaches::stats(&mut c, ws.org_id, coach).await?)
}

/// What the coach did in this workspace (its audit entries), newest first.
pub async fn activity(
    db: &Db,
    ws: &InWorkspace,
    coach: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<audit::Row>> {
    let mut c = db.acquire().await?;
    membership(&mut c, ws, coach).await?;
    let f = audit::Filter {
        org_id: Some(ws.org_id),
        actor: Some(coach),
        ..Default::default()
    };
    Ok(audit::search(&mut c, f, limit, offset).await?)
}
