//! Web sign-in and sign-out (cookie sessions) and the current-user read. Sign-in failures are
//! rate-limited per email and per client address: 429 with Retry-After.

use super::{MembershipView, UserView};
use crate::auth::{Caller, Memberships, Via};
use crate::http::Result;
use crate::http::cookies;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::db::Executor;
use shared::domain::accounts::{self as domain, Client};
use shared::repo::auth_tokens::SESSION_TTL;
use shared::repo::users::User;
use utoipa::ToSchema;

/// Where the request comes from, for rate limits and the session list.
pub fn client(parts: &Parts) -> Client {
    Client {
        ip: crate::http::client_ip(parts),
        user_agent: parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(String::from),
    }
}

/// The Set-Cookie headers of a web session and its CSRF token.
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

/// Creates a web session for `user`; returns the Set-Cookie headers and the CSRF token.
pub async fn start_web_session(
    state: &AppState,
    x: &mut impl Executor,
    user: &User,
    parts: &Parts,
) -> Result<(HeaderMap, String)> {
    let token = domain::open_session(x, user.id, &client(parts)).await?;
    Ok(session_cookies(state, &token))
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
    Ok(
        domain::check_credentials(&state.db, &state.cfg, &client(parts), email, password_given)
            .await?,
    )
}

pub async fn signin(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<SigninRequest>,
) -> Result<Response> {
    let client = client(&parts);
    let (user, token) =
        domain::sign_in(&state.db, &state.cfg, &client, &req.email, &req.password).await?;
    let (headers, csrf) = session_cookies(&state, &token);
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
    match caller.via {
        Via::Session { session_id } => domain::end_session(&state.db, session_id).await?,
        Via::Bearer { family_id } => domain::end_token_family(&state.db, family_id).await?,
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

/// The memberships come with the sign-in (the guard's cache): no query of its own.
pub async fn me(caller: Caller, ms: Memberships) -> Result<axum::Json<MeResponse>> {
    let default = domain::default_workspace(&caller.user, &ms.0);
    let ms = ms.0;
    Ok(axum::Json(MeResponse {
        user: UserView::from(&*caller.user),
        workspaces: ms.iter().map(MembershipView::from).collect(),
        default_workspace_id: default,
    }))
}
