//! Platform administration (platform admins only; mirrored under `/api/mobile/admin/*` for the
//! phone): metrics, activity, audit, workspaces, users, impersonation, signup invites, the
//! waitlist, settings and subscription grants. Every change is audited.

use super::orgs::{AuditView, audit_view};
use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::{Body, Path, Query};
use crate::http::pagination::{Page, Paged};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use shared::config::SignupMode;
use shared::db::{Id, Ts};
use shared::domain::admin::{self as domain, SignupInviteStatus};
use shared::error::Validator;
use shared::repo::orgs::OrgType;
use shared::repo::subscriptions::{SubscriptionKind, SubscriptionStatus};
use shared::repo::{activity, audit, signup_invites, subscriptions};
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
    let m = domain::metrics(&state.db).await?;
    Ok(axum::Json(Metrics {
        users: m.users,
        users_verified: m.users_verified,
        signups_last_7_days: m.users_since,
        workspaces: m.workspaces,
        members: m.members,
        waitlist_pending: m.waitlist_pending,
        active_sessions: m.active_sessions,
        jobs_by_status: Value::Object(
            m.jobs_by_status
                .into_iter()
                .map(|(k, n)| (k, json!(n)))
                .collect(),
        ),
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ActivityEventView)]
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
    let l = domain::live(&state.db).await?;
    Ok(axum::Json(LiveMetrics {
        events_last_5_minutes: l.events_last_5_minutes,
        active_users_last_5_minutes: l.active_users_last_5_minutes,
        active_users_last_hour: l.active_users_last_hour,
        recent: l.recent.into_iter().map(event_view).collect(),
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

impl From<ActivityQuery> for domain::ActivityFilter {
    fn from(q: ActivityQuery) -> Self {
        domain::ActivityFilter {
            user_id: q.user_id,
            org_id: q.org_id,
            kind: q.kind,
            since: q.since,
        }
    }
}

pub async fn activity(
    State(state): State<AppState>,
    Query(q): Query<ActivityQuery>,
    page: Page,
) -> Result<axum::Json<Paged<EventView>>> {
    let rows = domain::activity(&state.db, &q.into(), page.fetch_limit(), page.offset).await?;
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
    let rows = domain::audit_log(
        &state.db,
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
    pub org_type: OrgType,
    pub plan: String,
    pub members: i64,
    pub created_at: Ts,
}

pub async fn orgs(
    State(state): State<AppState>,
    Query(q): Query<SearchQuery>,
    page: Page,
) -> Result<axum::Json<Paged<OrgSummaryView>>> {
    let rows =
        domain::workspaces(&state.db, q.q.as_deref(), page.fetch_limit(), page.offset).await?;
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
    pub org_type: OrgType,
    pub plan: String,
    pub seat_cap: i64,
    pub seat_cap_override: Option<i64>,
    pub members: Vec<super::orgs::MemberView>,
    pub disabled_modules: Vec<String>,
    pub created_at: Ts,
}

fn org_detail(w: domain::Workspace) -> OrgDetail {
    OrgDetail {
        id: w.org.id,
        name: w.org.name,
        org_type: w.org.org_type,
        plan: w.org.plan,
        seat_cap: w.seat_cap,
        seat_cap_override: w.org.seat_cap,
        members: w.members.into_iter().map(Into::into).collect(),
        disabled_modules: w.org.disabled_modules.0,
        created_at: w.org.created_at,
    }
}

pub async fn org(
    State(state): State<AppState>,
    Path(id): Path<Id>,
) -> Result<axum::Json<OrgDetail>> {
    Ok(axum::Json(org_detail(
        domain::workspace(&state.db, id).await?,
    )))
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
    let patch = domain::WorkspacePatch::parse(req.seat_cap)?;
    let w = domain::update_workspace(&state.db, caller.actor(), id, patch).await?;
    Ok(axum::Json(org_detail(w)))
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
    let rows = domain::users(&state.db, q.q.as_deref(), page.fetch_limit(), page.offset).await?;
    Ok(axum::Json(page.wrap(
        rows.iter().map(super::accounts::UserView::from).collect(),
    )))
}

pub async fn user(
    State(state): State<AppState>,
    Path(id): Path<Id>,
) -> Result<axum::Json<UserDetail>> {
    let (u, ms) = domain::user(&state.db, id).await?;
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
    let i = domain::impersonate(
        &state.db,
        caller.actor(),
        &caller.sign_in_ref(),
        req.user_id,
        &req.reason,
    )
    .await?;
    Ok(axum::Json(ImpersonationView {
        user_id: i.target_user_id,
        expires_at: i.expires_at,
    }))
}

pub async fn stop_impersonating(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<StatusCode> {
    domain::stop_impersonating(&state.db, caller.actor(), &caller.sign_in_ref()).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- signup invites and the waitlist ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupInviteView {
    pub id: Id,
    pub email: Option<String>,
    pub status: SignupInviteStatus,
    pub created_at: Ts,
    pub expires_at: Option<Ts>,
    pub used_by: Option<Id>,
}

fn invite_view(i: signup_invites::SignupInvite) -> SignupInviteView {
    SignupInviteView {
        status: domain::signup_invite_status(&i, Ts::now()),
        id: i.id,
        email: i.email,
        created_at: i.created_at,
        expires_at: i.expires_at,
        used_by: i.used_by,
    }
}

pub async fn invites(
    State(state): State<AppState>,
    page: Page,
) -> Result<axum::Json<Paged<SignupInviteView>>> {
    let rows = domain::signup_invites(&state.db, page.fetch_limit(), page.offset).await?;
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

impl From<domain::CreatedSignupInvite> for CreatedSignupInvite {
    fn from(c: domain::CreatedSignupInvite) -> Self {
        CreatedSignupInvite {
            id: c.id,
            code: c.code,
            signup_url: c.signup_url,
        }
    }
}

pub async fn create_invite(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<CreateSignupInvite>,
) -> Result<(StatusCode, axum::Json<CreatedSignupInvite>)> {
    let new = domain::NewSignupInvite::parse(req.email.as_deref(), req.expires_in_days)?;
    let created =
        domain::create_signup_invite(&state.db, &state.cfg, &state.mailer, caller.actor(), new)
            .await?;
    Ok((StatusCode::CREATED, axum::Json(created.into())))
}

pub async fn revoke_invite(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Id>,
) -> Result<StatusCode> {
    domain::revoke_signup_invite(&state.db, caller.actor(), id).await?;
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
    let rows = domain::waitlist(&state.db, page.fetch_limit(), page.offset).await?;
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
    let created =
        domain::invite_from_waitlist(&state.db, &state.cfg, &state.mailer, caller.actor(), id)
            .await?;
    Ok((StatusCode::CREATED, axum::Json(created.into())))
}

// ---- settings and subscriptions ----

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub signup_mode: SignupMode,
    /// The configured default the setting overrides (SIGNUP_MODE).
    pub signup_mode_default: SignupMode,
    /// The scheduled tasks and their effective schedules as this process sees them.
    #[schema(value_type = Object)]
    pub schedules: Value,
}

async fn settings_view(state: &AppState) -> Result<SettingsView> {
    let mut c = state.db.acquire().await?;
    let mode = domain::signup_mode(&mut c, state.cfg.signup_mode_default).await?;
    Ok(SettingsView {
        signup_mode: mode,
        signup_mode_default: state.cfg.signup_mode_default,
        schedules: state.schedules.clone(),
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
    let mut v = Validator::new();
    let mode = req
        .signup_mode
        .as_deref()
        .and_then(|m| v.choice_of::<SignupMode>("signupMode", m));
    v.finish()?;
    if let Some(m) = mode {
        domain::set_signup_mode(&state.db, caller.actor(), m).await?;
    }
    Ok(axum::Json(settings_view(&state).await?))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionView {
    pub id: Id,
    pub org_id: Id,
    pub kind: SubscriptionKind,
    pub status: SubscriptionStatus,
    pub plan: String,
    pub seats: i64,
    pub current_period_end: Option<Ts>,
    pub granted_by: Option<Id>,
    pub grant_reason: Option<String>,
    /// `provider` (paid through the payment provider) or `grant` (an admin's).
    pub source: &'static str,
    pub provider_subscription_id: Option<String>,
    pub provider_customer_id: Option<String>,
    pub price_id: Option<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
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
        source: if s.provider_subscription_id.is_some() {
            "provider"
        } else {
            "grant"
        },
        provider_subscription_id: s.provider_subscription_id,
        provider_customer_id: s.provider_customer_id,
        price_id: s.price_id,
        created_at: s.created_at,
        updated_at: s.updated_at,
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
    let rows = domain::subscriptions(
        &state.db,
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
    let g = domain::Grant::parse(req.org_id, &req.plan, req.seats, req.until, &req.reason)?;
    let s = domain::grant(&state.db, caller.actor(), g).await?;
    Ok((StatusCode::CREATED, axum::Json(sub_view(s))))
}
