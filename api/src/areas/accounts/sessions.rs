//! Web sign-in and sign-out (cookie sessions) and the current-user read. Sign-in failures are
//! rate-limited per email and per client address: 429 with Retry-After.

use super::{MembershipView, UserView};
use crate::auth::{Caller, Via};
use crate::http::cookies;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::crypto::password;
use shared::db::Executor;
use shared::error::Validator;
use shared::repo::auth_tokens::{self, SESSION_TTL};
use shared::repo::users::User;
use shared::repo::{orgs, ratelimit, users};
use shared::{Error, Result};
use utoipa::ToSchema;

/// Creates a web session for `user`; returns the Set-Cookie headers and the CSRF token.
pub async fn start_web_session(
    state: &AppState,
    x: &mut impl Executor,
    user: &User,
    parts: &Parts,
) -> Result<(HeaderMap, String)> {
    let ua = parts
        .headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok());
    let ip = crate::http::client_ip(parts);
    let (_, token) = auth_tokens::create_session(x, user.id, ua, Some(&ip)).await?;
    Ok(session_cookies(state, &token))
}

/// The Set-Cookie headers and the CSRF token of a web session whose secret is `token` (for
/// operations that create the session in their own transaction).
pub fn session_cookies(state: &AppState, token: &str) -> (HeaderMap, String) {
    let csrf = state.keys.sign("csrf", token.as_bytes());
    let secure = state.cfg.cookies_secure();
    let max_age = SESSION_TTL.num_seconds();
    let mut h = HeaderMap::new();
    h.append(
        header::SET_COOKIE,
        cookies::set(cookies::SESSION_COOKIE, token, max_age, true, secure),
    );
    h.append(
        header::SET_COOKIE,
        cookies::set(cookies::CSRF_COOKIE, &csrf, max_age, false, secure),
    );
    (h, csrf)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SigninRequest {
    pub email: String,
    pub password: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SigninResponse {
    pub user: UserView,
    pub csrf_token: String,
}

/// Checks email and password under the sign-in rate limits; the user on success.
pub async fn check_credentials(
    state: &AppState,
    parts: &Parts,
    email: &str,
    password_given: &str,
) -> Result<User> {
    let mut v = Validator::new();
    let email = v.email("email", email);
    v.check(
        !password_given.is_empty(),
        "password",
        "required",
        "must not be empty",
    );
    v.finish()?;
    let max = state.cfg.login_max_failures;
    let window =
        chrono::Duration::from_std(state.cfg.login_window).unwrap_or(chrono::Duration::minutes(15));
    let keys = [
        format!("login:email:{email}"),
        format!("login:ip:{}", crate::http::client_ip(parts)),
    ];
    let mut c = state.db.acquire().await?;
    for k in &keys {
        ratelimit::peek(&mut c, k, max, window)
            .await?
            .map_err(Error::too_many_requests)?;
    }
    let user = users::by_email(&mut c, &email).await?;
    let hash = user.as_ref().and_then(|u| u.password_hash.clone());
    if password::verify_async(password_given.to_string(), hash).await
        && let Some(user) = user
    {
        ratelimit::clear(&mut c, &keys[0]).await?;
        return Ok(user);
    }
    for k in &keys {
        ratelimit::hit(&mut c, k, u32::MAX, window).await?.ok();
    }
    Err(Error::unauthorized(
        "invalid_credentials",
        "the email or password is wrong",
    ))
}

pub async fn signin(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<SigninRequest>,
) -> Result<Response> {
    let user = check_credentials(&state, &parts, &req.email, &req.password).await?;
    let mut c = state.db.acquire().await?;
    let (headers, csrf) = start_web_session(&state, &mut c, &user, &parts).await?;
    Ok((
        headers,
        axum::Json(SigninResponse {
            user: UserView::from(&user),
            csrf_token: csrf,
        }),
    )
        .into_response())
}

/// Ends this web session (or, with a bearer token, revokes that sign-in's tokens).
pub async fn signout(State(state): State<AppState>, caller: Caller) -> Result<Response> {
    let mut c = state.db.acquire().await?;
    match caller.via {
        Via::Session { session_id } => auth_tokens::delete_session(&mut c, session_id).await?,
        Via::Bearer { family_id } => auth_tokens::revoke_family(&mut c, family_id).await?,
    }
    let h = cookies::cleared_session(state.cfg.cookies_secure());
    Ok((StatusCode::NO_CONTENT, h).into_response())
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeResponse {
    pub user: UserView,
    pub workspaces: Vec<MembershipView>,
    /// The workspace used when a request names none (`X-Workspace-Id`).
    pub default_workspace_id: Option<shared::db::Id>,
}

pub async fn me(State(state): State<AppState>, caller: Caller) -> Result<axum::Json<MeResponse>> {
    let mut c = state.db.acquire().await?;
    let ms = orgs::memberships_of(&mut c, caller.user.id).await?;
    let default = caller
        .user
        .default_org_id
        .filter(|d| ms.iter().any(|m| m.org_id == *d))
        .or_else(|| ms.first().map(|m| m.org_id));
    Ok(axum::Json(MeResponse {
        user: UserView::from(&caller.user),
        workspaces: ms.iter().map(MembershipView::from).collect(),
        default_workspace_id: default,
    }))
}
