//! Platform administration: metrics, activity and audit search, workspaces and users,
//! impersonation, signup invites and the waitlist, the signup mode and subscription grants.
//! The api allows only platform admins here; every change is audited.

use super::Actor;
use crate::config::{Config, SignupMode};
use crate::db::{Db, Executor, Id, Ts};
use crate::error::Validator;
use crate::mail::{Email, Mailer};
use crate::repo::subscriptions::{Subscription, SubscriptionStatus};
use crate::repo::{
    activity, audit, impersonation, orgs, platform, settings, signup_invites, subscriptions, users,
    waitlist,
};
use crate::times::{self, TimeKind};
use crate::{Error, Result};
use serde_json::json;

/// The settings key of the signup mode an admin chose.
const SIGNUP_MODE_KEY: &str = "signup_mode";

// ---- metrics, activity, audit ----

/// The dashboard's counts now (sign-ups over the last 7 days).
pub async fn metrics(db: &Db) -> Result<platform::Counts> {
    let mut c = db.acquire().await?;
    let now = Ts::now();
    Ok(platform::counts(&mut c, now, now.minus(chrono::Duration::days(7))).await?)
}

/// The Live page: who is active now and the latest events.
#[derive(Debug, Clone)]
pub struct Live {
    pub events_last_5_minutes: i64,
    pub active_users_last_5_minutes: i64,
    pub active_users_last_hour: i64,
    /// The latest 50 events.
    pub recent: Vec<activity::Event>,
}

pub async fn live(db: &Db) -> Result<Live> {
    let mut c = db.acquire().await?;
    let now = Ts::now();
    let (events5, users5) =
        activity::counts_since(&mut c, now.minus(chrono::Duration::minutes(5))).await?;
    let (_, users60) =
        activity::counts_since(&mut c, now.minus(chrono::Duration::hours(1))).await?;
    let recent = activity::list(&mut c, None, None, None, None, 50, 0).await?;
    Ok(Live {
        events_last_5_minutes: events5,
        active_users_last_5_minutes: users5,
        active_users_last_hour: users60,
        recent,
    })
}

/// Which activity events to list; `None` fields do not filter.
#[derive(Debug, Clone, Default)]
pub struct ActivityFilter {
    pub user_id: Option<Id>,
    pub org_id: Option<Id>,
    pub kind: Option<String>,
    pub since: Option<Ts>,
}

pub async fn activity(
    db: &Db,
    f: &ActivityFilter,
    limit: i64,
    offset: i64,
) -> Result<Vec<activity::Event>> {
    times::check_filters(&[("since", f.since)], TimeKind::Calendar)?;
    let mut c = db.acquire().await?;
    Ok(activity::list(
        &mut c,
        f.user_id,
        f.org_id,
        f.kind.as_deref(),
        f.since,
        limit,
        offset,
    )
    .await?)
}

/// The whole platform's audit log (workspace and platform entries).
pub async fn audit_log(
    db: &Db,
    f: audit::Filter<'_>,
    limit: i64,
    offset: i64,
) -> Result<Vec<audit::Row>> {
    times::check_filters(&[("from", f.from), ("to", f.to)], TimeKind::Calendar)?;
    let mut c = db.acquire().await?;
    Ok(audit::search(&mut c, f, limit, offset).await?)
}

// ---- workspaces and users ----

/// Workspaces whose name contains `q` (all when empty), newest first.
pub async fn workspaces(
    db: &Db,
    q: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<orgs::OrgSummary>> {
    let mut c = db.acquire().await?;
    Ok(orgs::search(&mut c, q.filter(|s| !s.is_empty()), limit, offset).await?)
}

/// A workspace as the admin sees it: the row, its effective seat cap and its members.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub org: orgs::Org,
    pub seat_cap: i64,
    pub members: Vec<orgs::MemberRow>,
}

async fn load_workspace(x: &mut impl Executor, id: Id) -> Result<Workspace> {
    let org = orgs::by_id(x, id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let seat_cap = orgs::seat_cap(x, &org).await?;
    let members = orgs::list_members(x, id, 500, 0).await?;
    Ok(Workspace {
        org,
        seat_cap,
        members,
    })
}

pub async fn workspace(db: &Db, id: Id) -> Result<Workspace> {
    load_workspace(&mut db.acquire().await?, id).await
}

/// An admin's change to a workspace, parsed.
#[derive(Debug, Clone, Copy)]
pub struct WorkspacePatch {
    /// `Some(None)` returns to the plan's cap.
    pub seat_cap: Option<Option<i64>>,
}

impl WorkspacePatch {
    pub fn parse(seat_cap: Option<Option<i64>>) -> Result<Self> {
        let mut v = Validator::new();
        if let Some(Some(cap)) = seat_cap {
            v.check(
                (1..=100_000).contains(&cap),
                "seatCap",
                "out_of_range",
                "between 1 and 100000",
            );
        }
        v.finish()?;
        Ok(WorkspacePatch { seat_cap })
    }
}

pub async fn update_workspace(
    db: &Db,
    actor: Actor,
    id: Id,
    patch: WorkspacePatch,
) -> Result<Workspace> {
    let mut tx = db.begin().await?;
    orgs::by_id(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    if let Some(cap) = patch.seat_cap {
        orgs::set_seat_cap(&mut tx, id, cap).await?;
    }
    audit::record(
        &mut tx,
        actor.audit(
            Some(id),
            "admin.org_updated",
            "org",
            Some(id.to_string()),
            json!({ "seatCap": patch.seat_cap }),
        ),
    )
    .await?;
    tx.commit().await?;
    workspace(db, id).await
}

/// Users whose name or email contains `q` (all when empty).
pub async fn users(db: &Db, q: Option<&str>, limit: i64, offset: i64) -> Result<Vec<users::User>> {
    let mut c = db.acquire().await?;
    Ok(users::search(&mut c, q.filter(|s| !s.is_empty()), limit, offset).await?)
}

/// A user and their workspaces.
pub async fn user(db: &Db, id: Id) -> Result<(users::User, Vec<orgs::Membership>)> {
    let mut c = db.acquire().await?;
    let u = users::by_id(&mut c, id)
        .await?
        .ok_or_else(|| Error::not_found("user"))?;
    let ms = orgs::memberships_of(&mut c, id).await?;
    Ok((u, ms))
}

// ---- impersonation ----

/// Acts as `target` from the admin's sign-in `sign_in_ref` for 30 minutes; `reason` (raw) is
/// kept in the audit log. Platform admins cannot be impersonated.
pub async fn impersonate(
    db: &Db,
    admin: Actor,
    sign_in_ref: &str,
    target: Id,
    reason: &str,
) -> Result<impersonation::Impersonation> {
    let mut v = Validator::new();
    let reason = v.text("reason", reason, 500);
    v.finish()?;
    let mut tx = db.begin().await?;
    let target = users::by_id(&mut tx, target)
        .await?
        .ok_or_else(|| Error::not_found("user"))?;
    if target.is_platform_admin {
        return Err(Error::forbidden(
            "cannot_impersonate_admin",
            "platform admins cannot be impersonated",
        ));
    }
    let i = impersonation::start(&mut tx, admin.user_id, target.id, sign_in_ref, &reason).await?;
    // The admin acts as themself here, never through another impersonation.
    let me = Actor {
        user_id: admin.user_id,
        impersonator: None,
    };
    audit::record(
        &mut tx,
        me.audit(
            None,
            "admin.impersonation_started",
            "user",
            Some(target.id.to_string()),
            json!({ "reason": reason, "expiresAt": i.expires_at }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(i)
}

/// Ends the sign-in's impersonation (409 `not_impersonating` when none is active).
pub async fn stop_impersonating(db: &Db, actor: Actor, sign_in_ref: &str) -> Result<()> {
    let mut tx = db.begin().await?;
    if impersonation::end(&mut tx, sign_in_ref).await? == 0 {
        return Err(Error::conflict(
            "not_impersonating",
            "no impersonation is active",
        ));
    }
    audit::record(
        &mut tx,
        actor.audit(None, "admin.impersonation_stopped", "user", None, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

// ---- signup invites and the waitlist ----

crate::text_enum! {
    /// Where a signup invite stands.
    pub enum SignupInviteStatus {
        Pending = "pending",
        Used = "used",
        Expired = "expired",
    }
}

/// The invite's status at `now`.
pub fn signup_invite_status(i: &signup_invites::SignupInvite, now: Ts) -> SignupInviteStatus {
    if i.used_at.is_some() {
        SignupInviteStatus::Used
    } else if i.expires_at.is_some_and(|e| e <= now) {
        SignupInviteStatus::Expired
    } else {
        SignupInviteStatus::Pending
    }
}

pub async fn signup_invites(
    db: &Db,
    limit: i64,
    offset: i64,
) -> Result<Vec<signup_invites::SignupInvite>> {
    let mut c = db.acquire().await?;
    Ok(signup_invites::list(&mut c, limit, offset).await?)
}

/// A signup invite to create, parsed.
#[derive(Debug, Clone)]
pub struct NewSignupInvite {
    /// Binds the code to this address and mails it there.
    pub email: Option<String>,
    pub expires_in_days: i64,
}

impl NewSignupInvite {
    /// `expires_in_days` defaults to 14 and may be at most 90.
    pub fn parse(email: Option<&str>, expires_in_days: Option<i64>) -> Result<Self> {
        let mut v = Validator::new();
        let email = email.map(|e| v.email("email", e));
        let days = expires_in_days.unwrap_or(14);
        v.check(
            (1..=90).contains(&days),
            "expiresInDays",
            "out_of_range",
            "between 1 and 90",
        );
        v.finish()?;
        Ok(NewSignupInvite {
            email,
            expires_in_days: days,
        })
    }
}

/// A created signup invite; the code is shown once.
#[derive(Debug, Clone)]
pub struct CreatedSignupInvite {
    pub id: Id,
    pub code: String,
    pub signup_url: String,
}

/// Creates a signup invite and, when it names an address, mails it there (a mail failure is
/// logged: the invite exists and its link is in the answer).
pub async fn create_signup_invite(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    actor: Actor,
    new: NewSignupInvite,
) -> Result<CreatedSignupInvite> {
    let mut tx = db.begin().await?;
    let created = insert_signup_invite(&mut tx, cfg, actor, &new).await?;
    tx.commit().await?;
    mail_signup_invite(mailer, &new, &created.signup_url).await;
    Ok(created)
}

async fn insert_signup_invite(
    x: &mut impl Executor,
    cfg: &Config,
    actor: Actor,
    new: &NewSignupInvite,
) -> Result<CreatedSignupInvite> {
    let (id, code) = signup_invites::create_returning_id(
        x,
        new.email.as_deref(),
        Some(actor.user_id),
        Some(chrono::Duration::days(new.expires_in_days)),
    )
    .await?;
    audit::record(
        x,
        actor.audit(
            None,
            "admin.signup_invite_created",
            "signup_invite",
            Some(id.to_string()),
            json!({ "email": new.email }),
        ),
    )
    .await?;
    let signup_url = cfg.public_url(&format!("/signup?invite={code}"));
    Ok(CreatedSignupInvite {
        id,
        code,
        signup_url,
    })
}

async fn mail_signup_invite(mailer: &Mailer, new: &NewSignupInvite, url: &str) {
    let Some(to) = new.email.clone() else {
        return;
    };
    let days = new.expires_in_days;
    let sent = mailer
        .send(Email {
            to,
            subject: "Your invitation to Surf Coach".into(),
            text: format!(
                "Hello,\n\nyou are invited to create an account:\n\n{url}\n\nThe invitation expires in {days} days.\n"
            ),
        })
        .await;
    if let Err(e) = sent {
        tracing::error!(error = %e, "signup invite mail failed");
    }
}

/// Withdraws an unused invite (404 when used, expired or unknown).
pub async fn revoke_signup_invite(db: &Db, actor: Actor, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    if !signup_invites::revoke(&mut tx, id).await? {
        return Err(Error::not_found("pending signup invite"));
    }
    audit::record(
        &mut tx,
        actor.audit(
            None,
            "admin.signup_invite_revoked",
            "signup_invite",
            Some(id.to_string()),
            json!({}),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

pub async fn waitlist(db: &Db, limit: i64, offset: i64) -> Result<Vec<waitlist::Entry>> {
    let mut c = db.acquire().await?;
    Ok(waitlist::list(&mut c, limit, offset).await?)
}

/// Invites a waitlisted person: a 14-day signup invite bound to their address, mailed to them,
/// and the entry marked invited, in one transaction.
pub async fn invite_from_waitlist(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    actor: Actor,
    entry: Id,
) -> Result<CreatedSignupInvite> {
    let mut tx = db.begin().await?;
    let e = waitlist::get(&mut tx, entry)
        .await?
        .ok_or_else(|| Error::not_found("waitlist entry"))?;
    let new = NewSignupInvite {
        email: Some(e.email),
        expires_in_days: 14,
    };
    let created = insert_signup_invite(&mut tx, cfg, actor, &new).await?;
    waitlist::mark_invited(&mut tx, entry).await?;
    tx.commit().await?;
    mail_signup_invite(mailer, &new, &created.signup_url).await;
    Ok(created)
}

// ---- settings and subscriptions ----

/// The signup mode in force: the admin's setting, else the configured default.
pub async fn signup_mode(x: &mut impl Executor, default: SignupMode) -> Result<SignupMode> {
    Ok(settings::get(x, SIGNUP_MODE_KEY)
        .await?
        .and_then(|v| v.as_str().and_then(|s| SignupMode::parse(s).ok()))
        .unwrap_or(default))
}

/// Sets the signup mode (audited).
pub async fn set_signup_mode(db: &Db, actor: Actor, mode: SignupMode) -> Result<()> {
    let mut tx = db.begin().await?;
    settings::set(&mut tx, SIGNUP_MODE_KEY, &json!(mode)).await?;
    audit::record(
        &mut tx,
        actor.audit(
            None,
            "admin.settings_changed",
            "settings",
            Some(SIGNUP_MODE_KEY.into()),
            json!({ "signupMode": mode }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Subscriptions, newest first; `status` given as text (an unknown one matches nothing).
pub async fn subscriptions(
    db: &Db,
    org: Option<Id>,
    status: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Subscription>> {
    let Some(status) = status_filter(status) else {
        return Ok(vec![]);
    };
    let mut c = db.acquire().await?;
    Ok(subscriptions::list(&mut c, org, status, limit, offset).await?)
}

/// [`subscriptions`] with the workspace's name and the granting admin's (the console's list).
pub async fn subscription_rows(
    db: &Db,
    org: Option<Id>,
    status: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<subscriptions::SubscriptionRow>> {
    let Some(status) = status_filter(status) else {
        return Ok(vec![]);
    };
    let mut c = db.acquire().await?;
    Ok(subscriptions::list_rows(&mut c, org, status, limit, offset).await?)
}

/// A status filter given as text: `None` when it names no status (it matches nothing).
fn status_filter(status: Option<&str>) -> Option<Option<SubscriptionStatus>> {
    match status.map(SubscriptionStatus::parse) {
        Some(Err(_)) => None,
        Some(Ok(s)) => Some(Some(s)),
        None => Some(None),
    }
}

/// A grant of a plan and seats without payment, parsed.
#[derive(Debug, Clone)]
pub struct Grant {
    pub org_id: Id,
    pub plan: String,
    pub seats: i64,
    pub until: Option<Ts>,
    pub reason: String,
}

impl Grant {
    pub fn parse(
        org_id: Id,
        plan: &str,
        seats: i64,
        until: Option<Ts>,
        reason: &str,
    ) -> Result<Self> {
        let mut v = Validator::new();
        let plan = v.text("plan", plan, 40);
        let reason = v.text("reason", reason, 500);
        v.check(
            (1..=100_000).contains(&seats),
            "seats",
            "out_of_range",
            "between 1 and 100000",
        );
        v.opt_time("until", until, TimeKind::Future);
        v.finish()?;
        Ok(Grant {
            org_id,
            plan,
            seats,
            until,
            reason,
        })
    }
}

/// Grants a workspace a plan and seats (a partner club, a pilot); returns the subscription.
pub async fn grant(db: &Db, actor: Actor, g: Grant) -> Result<Subscription> {
    let mut tx = db.begin().await?;
    orgs::by_id(&mut tx, g.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let id = subscriptions::grant(
        &mut tx,
        g.org_id,
        &g.plan,
        g.seats,
        g.until,
        actor.user_id,
        &g.reason,
    )
    .await?;
    audit::record(
        &mut tx,
        actor.audit(
            Some(g.org_id),
            "admin.subscription_granted",
            "subscription",
            Some(id.to_string()),
            json!({ "plan": g.plan, "seats": g.seats, "until": g.until, "reason": g.reason }),
        ),
    )
    .await?;
    let s = subscriptions::list(&mut tx, Some(g.org_id), None, 1, 0)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| Error::internal(anyhow::anyhow!("grant vanished")))?;
    tx.commit().await?;
    Ok(s)
}
