//! Platform administration (platform admins only; mirrored under `/api/mobile/admin/*` for the
//! phone): metrics, activity, audit, workspaces, users, impersonation, signup invites, the
//! waitlist, settings and subscription grants. Every change is audited.

use super::orgs::{AuditView, audit_view};
use crate::auth::Caller;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use shared::config::SignupMode;
use shared::db::{Id, Ts};
use shared::error::Validator;
use shared::mail::Email;
use shared::repo::{
    activity, audit, impersonation, orgs, settings, signup_invites, subscriptions, users, waitlist,
};
use shared::sql;
use utoipa::ToSchema;

// ---- metrics and activity ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    pub users: i64,
    pub users_verified: i64,
    pub signups_last_7_days: i64,
    pub workspaces: i64,
    pub members: i64,
    pub waitlist_pending: i64,
    pub active_sessions: i64,
    #[schema(value_type = Object)]
    pub jobs_by_status: Value,
}

pub async fn metrics(State(state): State<AppState>) -> Result<axum::Json<Metrics>> {
    let mut c = state.db.acquire().await?;
    let now = Ts::now();
    let users: i64 = sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM users").fetch_one(&mut *c).await)?;
    let verified: i64 = sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE email_verified_at IS NOT NULL").fetch_one(&mut *c).await)?;
    let recent: i64 = sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE created_at >= $1").bind(now.minus(chrono::Duration::days(7))).fetch_one(&mut *c).await)?;
    let workspaces: i64 = sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM orgs").fetch_one(&mut *c).await)?;
    let members: i64 = sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM members").fetch_one(&mut *c).await)?;
    let waiting: i64 = sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM waitlist WHERE invited_at IS NULL").fetch_one(&mut *c).await)?;
    let sessions: i64 = sql!(&mut c, c => sqlx::query_scalar("SELECT COUNT(*) FROM web_sessions WHERE expires_at > $1").bind(now).fetch_one(&mut *c).await)?;
    let jobs: Vec<(String, i64)> = sql!(&mut c, c => sqlx::query_as("SELECT status, COUNT(*) FROM job_progress GROUP BY status ORDER BY status").fetch_all(&mut *c).await)?;
    Ok(axum::Json(Metrics {
        users,
        users_verified: verified,
        signups_last_7_days: recent,
        workspaces,
        members,
        waitlist_pending: waiting,
        active_sessions: sessions,
        jobs_by_status: Value::Object(jobs.into_iter().map(|(k, n)| (k, json!(n))).collect()),
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventView {
    pub id: Id,
    pub user_id: Option<Id>,
    pub org_id: Option<Id>,
    pub kind: String,
    pub path: Option<String>,
    #[schema(value_type = Object)]
    pub data: Value,
    pub created_at: Ts,
}

fn event_view(e: activity::Event) -> EventView {
    EventView {
        id: e.id,
        user_id: e.user_id,
        org_id: e.org_id,
        kind: e.kind,
        path: e.path,
        data: e.data.0,
        created_at: e.created_at,
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveMetrics {
    pub events_last_5_minutes: i64,
    pub active_users_last_5_minutes: i64,
    pub active_users_last_hour: i64,
    pub recent: Vec<EventView>,
}

/// The Live page: who is active now and the latest events.
pub async fn live_metrics(State(state): State<AppState>) -> Result<axum::Json<LiveMetrics>> {
    let mut c = state.db.acquire().await?;
    let now = Ts::now();
    let (events5, users5) =
        activity::counts_since(&mut c, now.minus(chrono::Duration::minutes(5))).await?;
    let (_, users60) =
        activity::counts_since(&mut c, now.minus(chrono::Duration::hours(1))).await?;
    let recent = activity::list(&mut c, None, None, None, None, 50, 0).await?;
    Ok(axum::Json(LiveMetrics {
        events_last_5_minutes: events5,
        active_users_last_5_minutes: users5,
        active_users_last_hour: users60,
        recent: recent.into_iter().map(event_view).collect(),
    }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityQuery {
    user_id: Option<Id>,
    org_id: Option<Id>,
    kind: Option<String>,
    since: Option<Ts>,
}

pub async fn activity(
    State(state): State<AppState>,
    Query(q): Query<ActivityQuery>,
    page: Page,
) -> Result<axum::Json<Paged<EventView>>> {
    let mut c = state.db.acquire().await?;
    let rows = activity::list(
        &mut c,
        q.user_id,
        q.org_id,
        q.kind.as_deref(),
        q.since,
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(event_view).collect()),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditQuery {
    org_id: Option<Id>,
    actor_id: Option<Id>,
    action: Option<String>,
    from: Option<Ts>,
    to: Option<Ts>,
}

/// The whole platform's audit log (workspace and platform entries).
pub async fn audit_log(
    State(state): State<AppState>,
    Query(q): Query<AuditQuery>,
    page: Page,
) -> Result<axum::Json<Paged<AuditView>>> {
    let mut c = state.db.acquire().await?;
    let rows = audit::search(
        &mut c,
        audit::Filter {
            org_id: q.org_id,
            actor: q.actor_id,
            action: q.action.as_deref(),
            from: q.from,
            to: q.to,
        },
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(audit_view).collect()),
    ))
}

// ---- workspaces and users ----

#[derive(Deserialize)]
pub struct SearchQuery {
    q: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgSummaryView {
    pub id: Id,
    pub name: String,
    #[serde(rename = "type")]
    pub org_type: String,
    pub plan: String,
    pub members: i64,
    pub created_at: Ts,
}

pub async fn orgs(
    State(state): State<AppState>,
    Query(q): Query<SearchQuery>,
    page: Page,
) -> Result<axum::Json<Paged<OrgSummaryView>>> {
    let mut c = state.db.acquire().await?;
    let rows = orgs::search(
        &mut c,
        q.q.as_deref().filter(|s| !s.is_empty()),
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(
        page.wrap(
            rows.into_iter()
                .map(|o| OrgSummaryView {
                    id: o.id,
                    name: o.name,
                    org_type: o.org_type,
                    plan: o.plan,
                    members: o.members,
                    created_at: o.created_at,
                })
                .collect(),
        ),
    ))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgDetail {
    pub id: Id,
    pub name: String,
    #[serde(rename = "type")]
    pub org_type: String,
    pub plan: String,
    pub seat_cap: i64,
    pub seat_cap_override: Option<i64>,
    pub members: Vec<super::orgs::MemberView>,
    pub disabled_modules: Vec<String>,
    pub created_at: Ts,
}

async fn org_detail(c: &mut shared::db::Conn, id: Id) -> Result<OrgDetail> {
    let org = orgs::by_id(c, id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let cap = orgs::seat_cap(c, &org).await?;
    let members = orgs::list_members(c, id, 500, 0).await?;
    Ok(OrgDetail {
        id: org.id,
        name: org.name.clone(),
        org_type: org.org_type.clone(),
        plan: org.plan.clone(),
        seat_cap: cap,
        seat_cap_override: org.seat_cap,
        members: members.into_iter().map(Into::into).collect(),
        disabled_modules: org.disabled_modules.0,
        created_at: org.created_at,
    })
}

pub async fn org(
    State(state): State<AppState>,
    Path(id): Path<Id>,
) -> Result<axum::Json<OrgDetail>> {
    let mut c = state.db.acquire().await?;
    Ok(axum::Json(org_detail(&mut c, id).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrgAdminUpdate {
    /// An explicit seat cap (null returns to the plan's).
    pub seat_cap: Option<Option<i64>>,
}

pub async fn update_org(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
    Body(req): Body<OrgAdminUpdate>,
) -> Result<axum::Json<OrgDetail>> {
    let mut v = Validator::new();
    if let Some(Some(cap)) = req.seat_cap {
        v.check(
            (1..=100_000).contains(&cap),
            "seatCap",
            "out_of_range",
            "between 1 and 100000",
        );
    }
    v.finish()?;
    let mut tx = state.db.begin().await?;
    orgs::by_id(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    if let Some(cap) = req.seat_cap {
        orgs::set_seat_cap(&mut tx, id, cap).await?;
    }
    audit::record(
        &mut tx,
        caller.audit(
            Some(id),
            "admin.org_updated",
            "org",
            Some(id.to_string()),
            json!({ "seatCap": req.seat_cap }),
        ),
    )
    .await?;
    tx.commit().await?;
    let mut c = state.db.acquire().await?;
    Ok(axum::Json(org_detail(&mut c, id).await?))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserDetail {
    pub user: super::accounts::UserView,
    pub workspaces: Vec<super::accounts::MembershipView>,
}

pub async fn users_list(
    State(state): State<AppState>,
    Query(q): Query<SearchQuery>,
    page: Page,
) -> Result<axum::Json<Paged<super::accounts::UserView>>> {
    let mut c = state.db.acquire().await?;
    let rows = users::search(
        &mut c,
        q.q.as_deref().filter(|s| !s.is_empty()),
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(page.wrap(
        rows.iter().map(super::accounts::UserView::from).collect(),
    )))
}

pub async fn user(
    State(state): State<AppState>,
    Path(id): Path<Id>,
) -> Result<axum::Json<UserDetail>> {
    let mut c = state.db.acquire().await?;
    let u = users::by_id(&mut c, id)
        .await?
        .ok_or_else(|| Error::not_found("user"))?;
    let ms = orgs::memberships_of(&mut c, id).await?;
    Ok(axum::Json(UserDetail {
        user: (&u).into(),
        workspaces: ms.iter().map(Into::into).collect(),
    }))
}

// ---- impersonation ----

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImpersonateRequest {
    pub user_id: Id,
    /// Why (kept in the audit log), e.g. a support ticket.
    pub reason: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImpersonationView {
    pub user_id: Id,
    pub expires_at: Ts,
}

/// Acts as a user from this sign-in for 30 minutes: every request then runs as that user,
/// every response carries `X-Impersonated-By`, and every audit entry names the admin.
pub async fn impersonate(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<ImpersonateRequest>,
) -> Result<axum::Json<ImpersonationView>> {
    let mut v = Validator::new();
    let reason = v.text("reason", &req.reason, 500);
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let target = users::by_id(&mut tx, req.user_id)
        .await?
        .ok_or_else(|| Error::not_found("user"))?;
    if target.is_platform_admin {
        return Err(Error::forbidden(
            "cannot_impersonate_admin",
            "platform admins cannot be impersonated",
        )
        .into());
    }
    let i = impersonation::start(
        &mut tx,
        caller.user.id,
        target.id,
        &caller.sign_in_ref(),
        &reason,
    )
    .await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: None,
            actor: Some(caller.user.id),
            impersonator: None,
            action: "admin.impersonation_started",
            target_type: "user",
            target_id: Some(target.id.to_string()),
            data: json!({ "reason": reason, "expiresAt": i.expires_at }),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(ImpersonationView {
        user_id: target.id,
        expires_at: i.expires_at,
    }))
}

pub async fn stop_impersonating(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    let n = impersonation::end(&mut tx, &caller.sign_in_ref()).await?;
    if n == 0 {
        return Err(Error::conflict("not_impersonating", "no impersonation is active").into());
    }
    audit::record(
        &mut tx,
        caller.audit(None, "admin.impersonation_stopped", "user", None, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- signup invites and the waitlist ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupInviteView {
    pub id: Id,
    pub email: Option<String>,
    /// pending, used or expired
    pub status: String,
    pub created_at: Ts,
    pub expires_at: Option<Ts>,
    pub used_by: Option<Id>,
}

fn invite_view(i: signup_invites::SignupInvite) -> SignupInviteView {
    let status = if i.used_at.is_some() {
        "used"
    } else if i.expires_at.is_some_and(|e| e <= Ts::now()) {
        "expired"
    } else {
        "pending"
    };
    SignupInviteView {
        id: i.id,
        email: i.email,
        status: status.into(),
        created_at: i.created_at,
        expires_at: i.expires_at,
        used_by: i.used_by,
    }
}

pub async fn invites(
    State(state): State<AppState>,
    page: Page,
) -> Result<axum::Json<Paged<SignupInviteView>>> {
    let mut c = state.db.acquire().await?;
    let rows = signup_invites::list(&mut c, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(invite_view).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSignupInvite {
    /// Bind the code to one address (optional) and mail it there.
    pub email: Option<String>,
    /// Days until it expires (default 14, at most 90).
    pub expires_in_days: Option<i64>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedSignupInvite {
    pub id: Id,
    /// Shown once.
    pub code: String,
    pub signup_url: String,
}

async fn issue_signup_invite(
    state: &AppState,
    caller: &Caller,
    email: Option<String>,
    days: i64,
) -> Result<CreatedSignupInvite> {
    let mut tx = state.db.begin().await?;
    let (id, code) = signup_invites::create_returning_id(
        &mut tx,
        email.as_deref(),
        Some(caller.user.id),
        Some(chrono::Duration::days(days)),
    )
    .await?;
    audit::record(
        &mut tx,
        caller.audit(
            None,
            "admin.signup_invite_created",
            "signup_invite",
            Some(id.to_string()),
            json!({ "email": email }),
        ),
    )
    .await?;
    tx.commit().await?;
    let url = state.cfg.public_url(&format!("/signup?invite={code}"));
    if let Some(to) = email {
        let sent = state.mailer.send(Email { to, subject: "Your invitation to Surf Coach".into(), text: format!("Hello,\n\nyou are invited to create an account:\n\n{url}\n\nThe invitation expires in {days} days.\n") }).await;
        if let Err(e) = sent {
            tracing::error!(error = %e, "signup invite mail failed");
        }
    }
    Ok(CreatedSignupInvite {
        id,
        code,
        signup_url: url,
    })
}

pub async fn create_invite(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<CreateSignupInvite>,
) -> Result<(StatusCode, axum::Json<CreatedSignupInvite>)> {
    let mut v = Validator::new();
    let email = req.email.as_deref().map(|e| v.email("email", e));
    let days = req.expires_in_days.unwrap_or(14);
    v.check(
        (1..=90).contains(&days),
        "expiresInDays",
        "out_of_range",
        "between 1 and 90",
    );
    v.finish()?;
    Ok((
        StatusCode::CREATED,
        axum::Json(issue_signup_invite(&state, &caller, email, days).await?),
    ))
}

pub async fn revoke_invite(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    if !signup_invites::revoke(&mut tx, id).await? {
        return Err(Error::not_found("pending signup invite").into());
    }
    audit::record(
        &mut tx,
        caller.audit(
            None,
            "admin.signup_invite_revoked",
            "signup_invite",
            Some(id.to_string()),
            json!({}),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitlistView {
    pub id: Id,
    pub email: String,
    pub name: Option<String>,
    pub note: Option<String>,
    pub created_at: Ts,
    pub invited_at: Option<Ts>,
}

pub async fn waitlist(
    State(state): State<AppState>,
    page: Page,
) -> Result<axum::Json<Paged<WaitlistView>>> {
    let mut c = state.db.acquire().await?;
    let rows = waitlist::list(&mut c, page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(
        page.wrap(
            rows.into_iter()
                .map(|e| WaitlistView {
                    id: e.id,
                    email: e.email,
                    name: e.name,
                    note: e.note,
                    created_at: e.created_at,
                    invited_at: e.invited_at,
                })
                .collect(),
        ),
    ))
}

/// Invites a waitlisted person: a signup invite bound to their address, mailed to them.
pub async fn invite_from_waitlist(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<(StatusCode, axum::Json<CreatedSignupInvite>)> {
    let entry = {
        let mut c = state.db.acquire().await?;
        waitlist::get(&mut c, id)
            .await?
            .ok_or_else(|| Error::not_found("waitlist entry"))?
    };
    let created = issue_signup_invite(&state, &caller, Some(entry.email.clone()), 14).await?;
    let mut c = state.db.acquire().await?;
    waitlist::mark_invited(&mut c, id).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

// ---- settings and subscriptions ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub signup_mode: String,
    /// The configured default the setting overrides (SIGNUP_MODE).
    pub signup_mode_default: String,
    /// The scheduled tasks and their effective schedules as this process sees them.
    #[schema(value_type = Object)]
    pub schedules: Value,
}

async fn settings_view(state: &AppState) -> Result<SettingsView> {
    let mut c = state.db.acquire().await?;
    let mode = super::accounts::signup::current_mode(state, &mut c).await?;
    let wcfg =
        worker::config::WorkerConfig::from_env(state.db.dialect() == shared::db::Dialect::Sqlite)
            .ok();
    let schedules = match wcfg {
        Some(w) => Value::Object(
            worker::scheduler::effective(&w)
                .into_iter()
                .map(|(t, e)| (t.name.to_string(), json!(e)))
                .collect(),
        ),
        None => Value::Null,
    };
    Ok(SettingsView {
        signup_mode: mode.as_str().into(),
        signup_mode_default: state.cfg.signup_mode_default.as_str().into(),
        schedules,
    })
}

pub async fn get_settings(State(state): State<AppState>) -> Result<axum::Json<SettingsView>> {
    Ok(axum::Json(settings_view(&state).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsUpdate {
    /// open, invite-locked or waitlist
    pub signup_mode: Option<String>,
}

pub async fn update_settings(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<SettingsUpdate>,
) -> Result<axum::Json<SettingsView>> {
    let mode = match req.signup_mode.as_deref() {
        Some(m) => Some(SignupMode::parse(m).ok_or_else(|| {
            Error::field(
                "signupMode",
                "invalid_choice",
                "open, invite-locked or waitlist",
            )
        })?),
        None => None,
    };
    let mut tx = state.db.begin().await?;
    if let Some(m) = mode {
        settings::set(&mut tx, "signup_mode", &json!(m.as_str())).await?;
        audit::record(
            &mut tx,
            caller.audit(
                None,
                "admin.settings_changed",
                "settings",
                Some("signup_mode".into()),
                json!({ "signupMode": m.as_str() }),
            ),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(axum::Json(settings_view(&state).await?))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionView {
    pub id: Id,
    pub org_id: Id,
    pub kind: String,
    pub status: String,
    pub plan: String,
    pub seats: i64,
    pub current_period_end: Option<Ts>,
    pub granted_by: Option<Id>,
    pub grant_reason: Option<String>,
    pub created_at: Ts,
}

fn sub_view(s: subscriptions::Subscription) -> SubscriptionView {
    SubscriptionView {
        id: s.id,
        org_id: s.org_id,
        kind: s.kind,
        status: s.status,
        plan: s.plan,
        seats: s.seats,
        current_period_end: s.current_period_end,
        granted_by: s.granted_by,
        grant_reason: s.grant_reason,
        created_at: s.created_at,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionQuery {
    org_id: Option<Id>,
    status: Option<String>,
}

pub async fn subscriptions(
    State(state): State<AppState>,
    Query(q): Query<SubscriptionQuery>,
    page: Page,
) -> Result<axum::Json<Paged<SubscriptionView>>> {
    let mut c = state.db.acquire().await?;
    let rows = subscriptions::list(
        &mut c,
        q.org_id,
        q.status.as_deref(),
        page.fetch_limit(),
        page.offset,
    )
    .await?;
    Ok(axum::Json(
        page.wrap(rows.into_iter().map(sub_view).collect()),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GrantRequest {
    pub org_id: Id,
    /// e.g. "club"
    pub plan: String,
    pub seats: i64,
    /// Until when; open-ended if absent.
    pub until: Option<Ts>,
    pub reason: String,
}

/// Grants a workspace a plan and seats without payment (a partner club, a pilot).
pub async fn grant(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<GrantRequest>,
) -> Result<(StatusCode, axum::Json<SubscriptionView>)> {
    let mut v = Validator::new();
    let plan = v.text("plan", &req.plan, 40);
    let reason = v.text("reason", &req.reason, 500);
    v.check(
        (1..=100_000).contains(&req.seats),
        "seats",
        "out_of_range",
        "between 1 and 100000",
    );
    v.check(
        req.until.is_none_or(|u| u > Ts::now()),
        "until",
        "out_of_range",
        "must be in the future",
    );
    v.finish()?;
    let mut tx = state.db.begin().await?;
    orgs::by_id(&mut tx, req.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let id = subscriptions::grant(
        &mut tx,
        req.org_id,
        &plan,
        req.seats,
        req.until,
        caller.user.id,
        &reason,
    )
    .await?;
    audit::record(
        &mut tx,
        caller.audit(
            Some(req.org_id),
            "admin.subscription_granted",
            "subscription",
            Some(id.to_string()),
            json!({ "plan": plan, "seats": req.seats, "until": req.until, "reason": reason }),
        ),
    )
    .await?;
    let s = subscriptions::list(&mut tx, Some(req.org_id), None, 1, 0)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| Error::internal(anyhow::anyhow!("grant vanished")))?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(sub_view(s))))
}
