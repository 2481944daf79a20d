//! Phone sign-in: email + password for an access token (1 h) and a refresh token (60 days).
//! Refresh tokens rotate; presenting a used one again revokes the whole sign-in (token theft
//! is the likely cause). Sign-out is `/api/mobile/auth/signout`, the twin of the web route.

use super::UserView;
use super::sessions::check_credentials;
use crate::http::extract::Body;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};
use shared::db::{Id, Ts};
use shared::repo::auth_tokens::{self, TokenPair};
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
    let client = req
        .client_name
        .as_deref()
        .map(|n| n.trim().chars().take(100).collect::<String>());
    let mut tx = state.db.begin().await?;
    let pair = auth_tokens::issue_pair(&mut tx, user.id, Id::new(), client.as_deref()).await?;
    tx.commit().await?;
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
    let invalid = || {
        Error::unauthorized(
            "invalid_token",
            "the refresh token is not valid or has expired",
        )
    };
    let mut tx = state.db.begin().await?;
    let t = auth_tokens::token_by_secret(&mut tx, &req.refresh_token)
        .await?
        .filter(|t| t.kind == "refresh" && t.revoked_at.is_none() && t.expires_at > Ts::now())
        .ok_or_else(invalid)?;
    if !auth_tokens::mark_used(&mut tx, t.id).await? {
        auth_tokens::revoke_family(&mut tx, t.family_id).await?;
        tx.commit().await?;
        return Err(Error::unauthorized(
            "token_reused",
            "this refresh token was already used; the sign-in is revoked, sign in again",
        )
        .into());
    }
    let user = users::by_id(&mut tx, t.user_id)
        .await?
        .ok_or_else(invalid)?;
    let pair = auth_tokens::issue_pair(&mut tx, user.id, t.family_id, None).await?;
    tx.commit().await?;
    Ok(axum::Json(response(pair, &user)))
}
