//! Sign-up, governed by the signup mode: `open` (anyone), `invite-locked` (a platform invite code
//! is required) or `waitlist` (new people join the waitlist; an invite code still lets its
//! holder in). The mode comes from the `signup_mode` setting an admin can change, else from
//! `SIGNUP_MODE`.

use super::{MembershipView, UserView, sessions};
use crate::http::Result;
use crate::http::extract::{Body, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::config::SignupMode;
use shared::domain::accounts::{self as domain, NewSignup};
use utoipa::ToSchema;

#[derive(Deserialize)]
pub struct ModeQuery {
    invite: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupModeResponse {
    pub mode: SignupMode,
    /// Whether the `invite` code given is usable; null when none was given.
    pub invite_valid: Option<bool>,
    /// Whether a sign-up with what was given would be accepted.
    pub signup_allowed: bool,
}

pub async fn signup_mode(
    State(state): State<AppState>,
    Query(q): Query<ModeQuery>,
) -> Result<axum::Json<SignupModeResponse>> {
    let (mode, invite_valid) =
        domain::signup_mode(&state.db, &state.cfg, q.invite.as_deref()).await?;
    Ok(axum::Json(SignupModeResponse {
        mode,
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

/// Creates the account, its workspace and the owner membership in one transaction, signs the
/// new user in (web cookie) and mails an email-verification link.
pub async fn signup(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<SignupRequest>,
) -> Result<Response> {
    let new = NewSignup::parse(
        &req.email,
        &req.password,
        &req.name,
        req.workspace_name.as_deref(),
        req.workspace_type.as_deref(),
        req.invite.as_deref(),
    )?;
    let client = sessions::client(&parts);
    let done = domain::signup(&state.db, &state.cfg, &state.mailer, &client, new).await?;
    let (session_headers, csrf) = sessions::session_cookies(&state, &done.session_token);
    let body = SignupResponse {
        user: UserView::from(&done.user),
        workspace: MembershipView::from(&done.membership),
        verification_email_sent: done.verification_email_sent,
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

/// Records a request for access. The answer is the same whether or not the email was already
/// on the list, so the list cannot be probed.
pub async fn join_waitlist(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<WaitlistRequest>,
) -> Result<(StatusCode, axum::Json<Accepted>)> {
    let w = domain::WaitlistRequest::parse(&req.email, req.name.as_deref(), req.note.as_deref())?;
    domain::join_waitlist(&state.db, &sessions::client(&parts), w).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Accepted { status: "received" }),
    ))
}
