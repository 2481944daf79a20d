//! `POST, DELETE /api/push/register`: the phone app's push token. The rules (one device, one
//! account) are `shared::domain::notifications::push`.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::db::Ts;
use shared::domain::notifications::PushPlatform;
use shared::domain::notifications::push::{self as domain, NewPushToken, RawPush};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegisterPush {
    /// `ExponentPushToken[…]` (Expo) or an FCM registration token.
    #[schema(
        min_length = 1,
        max_length = 4096,
        example = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"
    )]
    pub token: String,
    /// Default: expo for an Expo token; required for any other token.
    #[schema(value_type = Option<PushPlatform>)]
    pub platform: Option<String>,
    #[schema(max_length = 100)]
    pub device_name: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PushRegistration {
    pub token: String,
    pub platform: PushPlatform,
    pub device_name: Option<String>,
    /// The token was registered to another account and now is not.
    pub moved_from_another_account: bool,
    pub updated_at: Ts,
}

pub async fn register(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<RegisterPush>,
) -> Result<(StatusCode, axum::Json<PushRegistration>)> {
    let t = NewPushToken::parse(&RawPush {
        token: &req.token,
        platform: req.platform.as_deref(),
        device_name: req.device_name.as_deref(),
    })?;
    let r = domain::register(&caller.actor(), &state.db, t).await?;
    let status = if r.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        axum::Json(PushRegistration {
            token: r.row.token,
            platform: r.row.platform,
            device_name: r.row.device_name,
            moved_from_another_account: r.moved_from.is_some(),
            updated_at: r.row.updated_at,
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
    domain::unregister(&caller.actor(), &state.db, &req.token).await?;
    Ok(StatusCode::NO_CONTENT)
}
