//! Emailed links: verification and password reset. Every link lands on `GET /auth/callback`,
//! which checks the token and sends the browser on to the web client:
//! - `type=verify_email`: marks the address verified, then 303 to `/auth/verified`;
//! - `type=reset_password`: checks the token without using it (mail scanners fetch links), then
//!   303 to `/auth/reset-password?token=…`, whose form posts to `POST /api/auth/password/reset`.
//!
//! A bad, used or expired token answers 401 with a code saying which.

use super::sessions::client;
use super::signup::Accepted;
use crate::auth::Caller;
use crate::http::extract::{Body, Query};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use shared::domain::accounts as domain;
use shared::repo::auth_tokens::EmailPurpose;
use utoipa::ToSchema;

#[derive(Deserialize)]
pub struct CallbackQuery {
    #[serde(rename = "type")]
    kind: Option<String>,
    token: Option<String>,
}

fn see_other(location: String) -> Response {
    (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
}

pub async fn callback(
    State(state): State<AppState>,
    Query(q): Query<CallbackQuery>,
) -> Result<Response> {
    let token = q
        .token
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Error::unauthorized("invalid_token", "the link has no token"))?;
    match q.kind.as_deref().and_then(|k| EmailPurpose::parse(k).ok()) {
        Some(EmailPurpose::VerifyEmail) => {
            domain::verify_email(&state.db, &token).await?;
            Ok(see_other(state.cfg.public_url("/auth/verified")))
        }
        Some(EmailPurpose::ResetPassword) => {
            domain::check_reset_token(&state.db, &token).await?;
            let landing = format!("/auth/reset-password?token={token}");
            Ok(see_other(state.cfg.public_url(&landing)))
        }
        None => Err(Error::unauthorized("invalid_token", "the link's type is not known").into()),
    }
}

/// Sends a fresh verification link to the signed-in user (at most 5 an hour).
pub async fn resend_verification(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<(StatusCode, axum::Json<Accepted>)> {
    domain::resend_verification(&state.db, &state.cfg, &state.mailer, &caller.user).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Accepted { status: "sent" }),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgotRequest {
    pub email: String,
}

/// Mails a reset link if the account exists. The answer never says whether it does.
pub async fn forgot_password(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<ForgotRequest>,
) -> Result<(StatusCode, axum::Json<Accepted>)> {
    let (db, cfg, mailer) = (&state.db, &state.cfg, &state.mailer);
    domain::forgot_password(db, cfg, mailer, &client(&parts), &req.email).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Accepted { status: "received" }),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    /// The token from the emailed link. Missing and empty are treated alike: 401, the
    /// credential is checked before the new password.
    #[serde(default)]
    pub token: String,
    #[serde(default)]
    pub password: String,
}

/// Sets a new password with an emailed token, signs the account out everywhere, and marks the
/// email verified (the link proved the mailbox).
pub async fn reset_password(
    State(state): State<AppState>,
    Body(req): Body<ResetRequest>,
) -> Result<StatusCode> {
    domain::reset_password(&state.db, &req.token, &req.password).await?;
    Ok(StatusCode::NO_CONTENT)
}
