//! Phone sign-in: email + password for an access token (1 h) and a refresh token (60 days).
//! Refresh tokens rotate; presenting a used one again revokes the whole sign-in (token theft
//! is the likely cause). Sign-out is `/api/mobile/auth/signout`, the twin of the web route.

use super::UserView;
use super::sessions::check_credentials;
use crate::http::Result;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use shared::db::Ts;
use shared::domain::accounts as domain;
use shared::repo::auth_tokens::TokenPair;
use shared::repo::users;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenRequest {
    pub email: String,
    pub password: String,
    /// The device's name, shown in a future "signed-in devices" list.
    pub client_name: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenResponse {
    pub access_token: String,
    pub refresh_token: String,
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    pub refresh_expires_at: Ts,
    pub user: UserView,
}

fn response(pair: TokenPair, user: &users::User) -> TokenResponse {
    TokenResponse {
        expires_in: (pair.access_expires_at.0 - Ts::now().0).num_seconds(),
        access_token: pair.access_token,
        refresh_token: pair.refresh_token,
        token_type: "Bearer",
        refresh_expires_at: pair.refresh_expires_at,
        user: UserView::from(user),
    }
}

pub async fn token(
    State(state): State<AppState>,
    parts: Parts,
    Body(req): Body<TokenRequest>,
) -> Result<axum::Json<TokenResponse>> {
    let user = check_credentials(&state, &parts, &req.email, &req.password).await?;
    let pair = domain::issue_tokens(&state.db, user.id, req.client_name.as_deref()).await?;
    Ok(axum::Json(response(pair, &user)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefreshRequest {
    /// Missing and empty are treated alike: 401, the credential is checked first.
    #[serde(default)]
    pub refresh_token: String,
}

pub async fn refresh(
    State(state): State<AppState>,
    Body(req): Body<RefreshRequest>,
) -> Result<axum::Json<TokenResponse>> {
    let (pair, user) = domain::refresh_tokens(&state.db, &req.refresh_token).await?;
    Ok(axum::Json(response(pair, &user)))
}
