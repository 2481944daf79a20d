//! Workspaces: create, read, update (including a change of type), members, audit log and the
//! team calendar. The type picks defaults at creation (which modules start switched on);
//! changing it later relabels the workspace and touches nothing else.

use super::{Actor, InWorkspace};
use crate::db::{Db, Ts};
use crate::error::Validator;
use crate::repo::orgs::{MemberRow, Membership, Org, OrgType};
use crate::repo::{audit, orgs, training};
use crate::times::{self, TimeKind};
use crate::{Error, Result};
use serde_json::json;

/// How many workspaces one account may own.
pub const MAX_OWNED_WORKSPACES: i64 = 20;

/// The longest calendar range one request may ask for.
pub const CALENDAR_MAX_DAYS: i64 = 92;

/// The workspaces the actor belongs to.
pub async fn memberships(db: &Db, actor: Actor) -> Result<Vec<Membership>> {
    let mut c = db.acquire().await?;
    Ok(orgs::memberships_of(&mut c, actor.user_id).await?)
}

/// A workspace to create, parsed.
#[derive(Debug, Clone)]
pub struct NewOrg {
    pub name: String,
    pub org_type: OrgType,
}

impl NewOrg {
    /// `org_type` defaults to coach.
    pub fn parse(name: &str, org_type: Option<&str>) -> Result<Self> {
        let mut v = Validator::new();
        let name = v.text("name", name, 100);
        let org_type = v.choice_of::<OrgType>("type", org_type.unwrap_or("coach"));
        v.finish()?;
        Ok(NewOrg {
            name,
            org_type: org_type.unwrap_or(OrgType::Coach),
        })
    }
}

/// Creates another workspace with the actor as owner (409 `workspace_limit` past
/// [`MAX_OWNED_WORKSPACES`]).
pub async fn create(db: &Db, actor: Actor, new: NewOrg) -> Result<Org> {
    let mut tx = db.begin().await?;
    let owned = orgs::memberships_of(&mut tx, actor.user_id)
        .await?
        .iter()
        .filter(|m| m.role_key == "owner")
        .count() as i64;
    if owned >= MAX_OWNED_WORKSPACES {
        return Err(Error::conflict(
            "workspace_limit",
            format!("one account can own at most {MAX_OWNED_WORKSPACES} workspaces"),
        ));
    }
    let org = orgs::create_with_owner(&mut tx, &new.name, new.org_type, actor.user_id).await?;
    audit::record(
        &mut tx,
        actor.audit(
            Some(org.id),
            "org.created",
            "org",
            Some(org.id.to_string()),
            json!({ "type": new.org_type }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(org)
}

pub async fn get(db: &Db, ws: &InWorkspace) -> Result<Org> {
    let mut c = db.acquire().await?;
    orgs::by_id(&mut c, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))
}

/// A change to a workspace, parsed; `None` fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct OrgPatch {
    pub name: Option<String>,
    pub org_type: Option<OrgType>,
    /// Upper-case ISO 3166-1 alpha-2.
    pub country: Option<String>,
}

impl OrgPatch {
    pub fn parse(
        name: Option<&str>,
        org_type: Option<&str>,
        country: Option<&str>,
    ) -> Result<Self> {
        let mut v = Validator::new();
        let name = name.map(|n| v.text("name", n, 100));
        let org_type = org_type.and_then(|t| v.choice_of::<OrgType>("type", t));
        let country = country.map(|c| c.trim().to_ascii_uppercase());
        if let Some(c) = &country {
            v.check(
                c.len() == 2 && c.chars().all(|ch| ch.is_ascii_alphabetic()),
                "country",
                "invalid_country",
                "must be a two-letter ISO 3166-1 code",
            );
        }
        v.finish()?;
        Ok(OrgPatch {
            name,
            org_type,
            country,
        })
    }
}

pub async fn update(db: &Db, ws: &InWorkspace, patch: OrgPatch) -> Result<Org> {
    let mut tx = db.begin().await?;
    let mut org = orgs::by_id(&mut tx, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let before = json!({ "name": org.name, "type": org.org_type, "country": org.country });
    if let Some(n) = patch.name {
        org.name = n;
    }
    if let Some(t) = patch.org_type {
        org.org_type = t;
    }
    if patch.country.is_some() {
        org.country = patch.country;
    }
    orgs::update(&mut tx, &org).await?;
    let after = json!({ "name": org.name, "type": org.org_type, "country": org.country });
    audit::record(
        &mut tx,
        ws.audit(
            "org.updated",
            "org",
            org.id,
            json!({ "before": before, "after": after }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(org)
}

pub async fn members(db: &Db, ws: &InWorkspace, limit: i64, offset: i64) -> Result<Vec<MemberRow>> {
    let mut c = db.acquire().await?;
    Ok(orgs::list_members(&mut c, ws.org_id, limit, offset).await?)
}

/// The workspace's audit log, newest first; `action` is exact, or a prefix ending in `.`.
pub async fn audit_log(
    db: &Db,
    ws: &InWorkspace,
    action: Option<&str>,
    from: Option<Ts>,
    to: Option<Ts>,
    limit: i64,
    offset: i64,
) -> Result<Vec<audit::Row>> {
    times::check_filters(&[("from", from), ("to", to)], TimeKind::Calendar)?;
    let mut c = db.acquire().await?;
    Ok(audit::search(
        &mut c,
        audit::Filter {
            org_id: Some(ws.org_id),
            action,
            from,
            to,
            actor: None,
        },
        limit,
        offset,
    )
    .await?)
}

/// A calendar range `[from, to)`, parsed: defaults to the next 4 weeks, at most 92 days.
#[derive(Debug, Clone, Copy)]
pub struct CalendarRange {
    pub from: Ts,
    pub to: Ts,
}

impl CalendarRange {
    pub fn parse(from: Option<Ts>, to: Option<Ts>) -> Result<Self> {
        let mut v = Validator::new();
        v.opt_time("from", from, TimeKind::Calendar);
        v.opt_time("to", to, TimeKind::Calendar);
        v.finish()?;
        let from = from.unwrap_or_else(Ts::now);
        let to = to.unwrap_or_else(|| from.plus(chrono::Duration::days(28)).min(times::latest()));
        let mut v = Validator::new();
        v.check(to > from, "to", "out_of_range", "must be after from");
        v.check(
            (to.0 - from.0).num_days() <= CALENDAR_MAX_DAYS,
            "to",
            "out_of_range",
            "the range may span at most 92 days",
        );
        v.finish()?;
        Ok(CalendarRange { from, to })
    }
}

/// Training sessions overlapping the range, by start time.
pub async fn calendar(
    db: &Db,
    ws: &InWorkspace,
    range: CalendarRange,
) -> Result<Vec<training::CalendarEntry>> {
    let mut c = db.acquire().await?;
    Ok(training::calendar_entries(&mut c, ws.org_id, range.from, range.to).await?)
}
