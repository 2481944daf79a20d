//! `POST, DELETE /api/push/register`: the phone app's push token. A token identifies a device
//! install, so registering it from one account takes it from any other account (the previous
//! user signed out on that phone must not get this user's notifications).

use crate::auth::Caller;
use crate::http::extract::Body;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::Ts;
use shared::error::Validator;
use shared::repo::notifications::{self, PUSH_PLATFORMS};

use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegisterPush {
    /// `ExponentPushToken[…]` (Expo) or an FCM registration token.
    pub token: String,
    /// expo or fcm (default: expo for an Expo token).
    pub platform: Option<String>,
    pub device_name: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PushRegistration {
    pub token: String,
    pub platform: String,
    pub device_name: Option<String>,
    /// The token was registered to another account and now is not.
    pub moved_from_another_account: bool,
    pub updated_at: Ts,
}

fn looks_expo(t: &str) -> bool {
    t.starts_with("ExponentPushToken") || t.starts_with("ExpoPushToken")
}

fn is_expo_token(t: &str) -> bool {
    (t.starts_with("ExponentPushToken[") || t.starts_with("ExpoPushToken["))
        && t.ends_with(']')
        && t.len() > "ExpoPushToken[]".len()
}

pub async fn register(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<RegisterPush>,
) -> Result<(StatusCode, axum::Json<PushRegistration>)> {
    let mut v = Validator::new();
    let token = v.text("token", &req.token, 4096);
    let platform = req
        .platform
        .clone()
        .unwrap_or_else(|| if looks_expo(&token) { "expo" } else { "" }.into());
    if platform.is_empty() {
        v.add("platform", "required", "expo or fcm");
    } else {
        v.choice("platform", &platform, PUSH_PLATFORMS);
    }
    if platform == "expo" && !token.is_empty() {
        v.check(
            is_expo_token(&token),
            "token",
            "invalid",
            "an Expo push token looks like ExponentPushToken[…]",
        );
    }
    let device = req
        .device_name
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    v.check(
        device.is_none_or(|d| d.chars().count() <= 100),
        "deviceName",
        "too_long",
        "must be at most 100 characters",
    );
    v.finish()?;
    let mut tx = state.db.begin().await?;
    let before = notifications::push_tokens_of(&mut tx, caller.user.id)
        .await?
        .into_iter()
        .any(|t| t.token == token);
    let (row, previous) =
        notifications::register_push_token(&mut tx, caller.user.id, &token, &platform, device)
            .await?;
    tx.commit().await?;
    let status = if before {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok((
        status,
        axum::Json(PushRegistration {
            token: row.token,
            platform: row.platform,
            device_name: row.device_name,
            moved_from_another_account: previous.is_some(),
            updated_at: row.updated_at,
        }),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UnregisterPush {
    pub token: String,
}

/// Removes the caller's registration of a token (on sign-out); another account's is not found.
pub async fn unregister(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<UnregisterPush>,
) -> Result<StatusCode> {
    let mut c = state.db.acquire().await?;
    if !notifications::remove_push_token(&mut c, caller.user.id, req.token.trim()).await? {
        return Err(Error::not_found("push registration").into());
    }
    Ok(StatusCode::NO_CONTENT)
}
