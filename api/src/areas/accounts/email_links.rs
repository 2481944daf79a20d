//! Emailed links: verification and password reset. Every link lands on `GET /auth/callback`,
//! which checks the token and sends the browser on to the web client:
//! - `type=verify_email`: marks the address verified, then 303 to `/auth/verified`;
//! - `type=reset_password`: checks the token without using it (mail scanners fetch links), then
//!   303 to `/auth/reset-password?token=…`, whose form posts to `POST /api/auth/password/reset`.
//!
//! A bad, used or expired token answers 401 with a code saying which.

use super::send_link;
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
use shared::crypto::password;
use shared::error::Validator;
use shared::repo::auth_tokens::{self, EmailPurpose, EmailTokenState};
use shared::repo::{audit, ratelimit, users};

use utoipa::ToSchema;

#[derive(Deserialize)]
pub struct CallbackQuery {
    #[serde(rename = "type")]
    kind: Option<String>,
    token: Option<String>,
}

fn token_error(state: EmailTokenState) -> Error {
    match state {
        EmailTokenState::Expired => {
            Error::unauthorized("token_expired", "this link has expired; ask for a new one")
        }
        EmailTokenState::Used => Error::unauthorized(
            "token_used",
            "this link was already used; ask for a new one",
        ),
        _ => Error::unauthorized("invalid_token", "this link is not valid"),
    }
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
    match q.kind.as_deref() {
        Some("verify_email") => {
            let mut tx = state.db.begin().await?;
            match auth_tokens::consume_email_token(&mut tx, &token, EmailPurpose::VerifyEmail)
                .await?
            {
                EmailTokenState::Valid(user) => {
                    users::mark_email_verified(&mut tx, user).await?;
                    tx.commit().await?;
                    Ok(see_other(state.cfg.public_url("/auth/verified")))
                }
                other => Err(token_error(other).into()),
            }
        }
        Some("reset_password") => {
            let mut c = state.db.acquire().await?;
            match auth_tokens::check_email_token(&mut c, &token, EmailPurpose::ResetPassword)
                .await?
            {
                EmailTokenState::Valid(_) => {
                    Ok(see_other(state.cfg.public_url(&format!(
                        "/auth/reset-password?token={token}"
                    ))))
                }
                other => Err(token_error(other).into()),
            }
        }
        _ => Err(Error::unauthorized("invalid_token", "the link's type is not known").into()),
    }
}

/// Sends a fresh verification link to the signed-in user (at most 5 an hour).
pub async fn resend_verification(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<(StatusCode, axum::Json<Accepted>)> {
    if caller.user.email_verified_at.is_some() {
        return Err(
            Error::conflict("already_verified", "this email address is already verified").into(),
        );
    }
    {
        let mut c = state.db.acquire().await?;
        ratelimit::hit(
            &mut c,
            &format!("verify-mail:{}", caller.user.id),
            5,
            chrono::Duration::hours(1),
        )
        .await?
        .map_err(Error::too_many_requests)?;
    }
    send_link(&state, &caller.user, EmailPurpose::VerifyEmail).await;
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
    let mut v = Validator::new();
    let email = v.email("email", &req.email);
    v.finish()?;
    let user = {
        let mut c = state.db.acquire().await?;
        for (key, max) in [
            (format!("reset:email:{email}"), 5),
            (format!("reset:ip:{}", crate::http::client_ip(&parts)), 30),
        ] {
            ratelimit::hit(&mut c, &key, max, chrono::Duration::hours(1))
                .await?
                .map_err(Error::too_many_requests)?;
        }
        users::by_email(&mut c, &email).await?
    };
    if let Some(user) = user {
        send_link(&state, &user, EmailPurpose::ResetPassword).await;
    }
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
    if req.token.is_empty() {
        return Err(Error::unauthorized("invalid_token", "the token is missing").into());
    }
    let mut v = Validator::new();
    v.password("password", &req.password);
    v.finish()?;
    let hash = password::hash_async(req.password).await;
    let mut tx = state.db.begin().await?;
    let user =
        match auth_tokens::consume_email_token(&mut tx, &req.token, EmailPurpose::ResetPassword)
            .await?
        {
            EmailTokenState::Valid(u) => u,
            other => return Err(token_error(other).into()),
        };
    users::set_password(&mut tx, user, &hash).await?;
    users::mark_email_verified(&mut tx, user).await?;
    auth_tokens::revoke_all_for_user(&mut tx, user).await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: None,
            actor: Some(user),
            impersonator: None,
            action: "account.password_reset",
            target_type: "user",
            target_id: Some(user.to_string()),
            data: serde_json::json!({}),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
