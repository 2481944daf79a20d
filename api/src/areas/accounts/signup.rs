//! Sign-up, governed by the signup mode: `open` (anyone), `invite-locked` (a platform invite code
//! is required) or `waitlist` (new people join the waitlist; an invite code still lets its
//! holder in). The mode comes from the `signup_mode` setting an admin can change, else from
//! `SIGNUP_MODE`.

use super::{MembershipView, UserView, send_link, sessions};
use crate::http::extract::{Body, Query};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::authz::ORG_TYPES;
use shared::config::SignupMode;
use shared::crypto::password;
use shared::db::{Executor, is_unique_violation};
use shared::error::Validator;
use shared::repo::auth_tokens::EmailPurpose;
use shared::repo::{audit, orgs, ratelimit, settings, signup_invites, users, waitlist};

use utoipa::ToSchema;

pub async fn current_mode(state: &AppState, x: &mut impl Executor) -> Result<SignupMode> {
    Ok(settings::get(x, "signup_mode")
        .await?
        .and_then(|v| v.as_str().and_then(SignupMode::parse))
        .unwrap_or(state.cfg.signup_mode_default))
}

#[derive(Deserialize)]
pub struct ModeQuery {
    invite: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupModeResponse {
    /// open, invite-locked or waitlist
    pub mode: String,
    /// Whether the `invite` code given is usable; null when none was given.
    pub invite_valid: Option<bool>,
    /// Whether a sign-up with what was given would be accepted.
    pub signup_allowed: bool,
}

pub async fn signup_mode(
    State(state): State<AppState>,
    Query(q): Query<ModeQuery>,
) -> Result<axum::Json<SignupModeResponse>> {
    let mut c = state.db.acquire().await?;
    let mode = current_mode(&state, &mut c).await?;
    let invite_valid = match q.invite.as_deref().filter(|s| !s.is_empty()) {
        Some(code) => Some(signup_invites::is_valid(&mut c, code, None).await?),
        None => None,
    };
    Ok(axum::Json(SignupModeResponse {
        mode: mode.as_str().into(),
        invite_valid,
        signup_allowed: mode == SignupMode::Open || invite_valid == Some(true),
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignupRequest {
    pub email: String,
    pub password: String,
    pub name: String,
    /// Defaults to "<name>'s workspace".
    pub workspace_name: Option<String>,
    /// coach (default), club, school or federation.
    pub workspace_type: Option<String>,
    /// A platform invite code; required in invite-locked mode.
    pub invite: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupResponse {
    pub user: UserView,
    pub workspace: MembershipView,
    pub verification_email_sent: bool,
    /// Echo this in `X-CSRF-Token` on cookie-authenticated writes.
    pub csrf_token: String,
}

const SIGNUPS_PER_HOUR_PER_ADDRESS: u32 = 20;

/// Creates the account, its workspace and the owner membership in one transaction, signs the
/// new user in (web cookie) and mails an email-verification link.
pub async fn signup(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<SignupRequest>,
) -> Result<Response> {
    let mut v = Validator::new();
    let email = v.email("email", &req.email);
    v.password("password", &req.password);
    let name = v.text("name", &req.name, 100);
    let ws_name = match &req.workspace_name {
        Some(n) => v.text("workspaceName", n, 100),
        None => format!("{name}'s workspace"),
    };
    let ws_type = req.workspace_type.as_deref().unwrap_or("coach");
    v.choice("workspaceType", ws_type, ORG_TYPES);
    v.finish()?;

    let ip = crate::http::client_ip(&parts);
    {
        let mut c = state.db.acquire().await?;
        ratelimit::hit(
            &mut c,
            &format!("signup:ip:{ip}"),
            SIGNUPS_PER_HOUR_PER_ADDRESS,
            chrono::Duration::hours(1),
        )
        .await?
        .map_err(Error::too_many_requests)?;
    }
    let hash = password::hash_async(req.password.clone()).await;

    let mut tx = state.db.begin().await?;
    let mode = current_mode(&state, &mut tx).await?;
    let invite = req.invite.as_deref().filter(|s| !s.is_empty());
    let invite_ok = match invite {
        Some(code) => signup_invites::is_valid(&mut tx, code, Some(&email)).await?,
        None => false,
    };
    match mode {
        SignupMode::Open => {}
        SignupMode::InviteLocked if !invite_ok => {
            return Err(Error::forbidden(
                if invite.is_some() {
                    "invite_invalid"
                } else {
                    "invite_required"
                },
                "sign-up needs a valid invite code right now",
            )
            .into());
        }
        SignupMode::Waitlist if !invite_ok => {
            return Err(Error::forbidden(
                "signup_waitlist_only",
                "sign-up is by invitation: join the waitlist with POST /api/waitlist",
            )
            .into());
        }
        _ => {}
    }
    let user = match users::insert(&mut tx, &email, &name, &hash).await {
        Ok(u) => u,
        Err(e) if is_unique_violation(&e) => {
            return Err(Error::conflict(
                "email_taken",
                "an account with this email exists; sign in or reset the password",
            )
            .into());
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(code) = invite
        && invite_ok
        && !signup_invites::consume(&mut tx, code, user.id).await?
    {
        return Err(Error::conflict(
            "invite_invalid",
            "the invite code was used by another sign-up",
        )
        .into());
    }
    let org = orgs::create_with_owner(&mut tx, &ws_name, ws_type, user.id).await?;
    users::set_default_org(&mut tx, user.id, Some(org.id)).await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: Some(org.id),
            actor: Some(user.id),
            impersonator: None,
            action: "account.signup",
            target_type: "user",
            target_id: Some(user.id.to_string()),
            data: serde_json::json!({ "workspaceId": org.id, "mode": mode.as_str(), "invited": invite_ok }),
        },
    )
    .await?;
    let membership = orgs::membership(&mut tx, user.id, org.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("owner membership missing after insert")))?;
    let (session_headers, csrf) =
        sessions::start_web_session(&state, &mut tx, &user, &parts).await?;
    tx.commit().await?;

    let sent = send_link(&state, &user, EmailPurpose::VerifyEmail).await;
    let body = SignupResponse {
        user: UserView::from(&user),
        workspace: MembershipView::from(&membership),
        verification_email_sent: sent,
        csrf_token: csrf,
    };
    Ok((StatusCode::CREATED, session_headers, axum::Json(body)).into_response())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitlistRequest {
    pub email: String,
    pub name: Option<String>,
    /// What the person coaches, club size, anything they want to tell us.
    pub note: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Accepted {
    pub status: &'static str,
}

const WAITLIST_PER_HOUR_PER_ADDRESS: u32 = 30;

/// Records a request for access. The answer is the same whether or not the email was already
/// on the list, so the list cannot be probed.
pub async fn join_waitlist(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<WaitlistRequest>,
) -> Result<(StatusCode, axum::Json<Accepted>)> {
    let mut v = Validator::new();
    let email = v.email("email", &req.email);
    let name = req.name.as_deref().map(|n| v.text("name", n, 100));
    let note = req.note.as_deref().map(|n| v.text("note", n, 2000));
    v.finish()?;
    let mut c = state.db.acquire().await?;
    ratelimit::hit(
        &mut c,
        &format!("waitlist:ip:{}", crate::http::client_ip(&parts)),
        WAITLIST_PER_HOUR_PER_ADDRESS,
        chrono::Duration::hours(1),
    )
    .await?
    .map_err(Error::too_many_requests)?;
    waitlist::add(&mut c, &email, name.as_deref(), note.as_deref()).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Accepted { status: "received" }),
    ))
}
