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

/// A browser's `PushSubscription.toJSON()`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebSubscriptionRequest {
    /// The push service's URL for this browser (must be a known push service).
    #[schema(
        max_length = 2048,
        example = "https://fcm.googleapis.com/fcm/send/abc…"
    )]
    pub endpoint: String,
    pub keys: WebSubscriptionKeys,
    /// Browsers also send `expirationTime`; it is not used.
    #[serde(default)]
    #[schema(value_type = Option<i64>)]
    pub expiration_time: Option<serde_json::Value>,
    #[schema(max_length = 100)]
    pub device_name: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSubscriptionKeys {
    /// The browser's P-256 public key, base64url (65 bytes uncompressed).
    #[schema(
        example = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    )]
    pub p256dh: String,
    /// The 16-byte authentication secret, base64url.
    #[schema(example = "BTBZMqHH6r4Tts7J_aSIgg")]
    pub auth: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebSubscriptionView {
    pub endpoint: String,
    pub device_name: Option<String>,
    /// The endpoint was subscribed by another account and now is not.
    pub moved_from_another_account: bool,
    pub updated_at: Ts,
}

/// Saves this browser's Web Push subscription for the caller.
pub async fn subscribe_web(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<WebSubscriptionRequest>,
) -> Result<(StatusCode, axum::Json<WebSubscriptionView>)> {
    let s = domain::NewWebSubscription::parse(
        &domain::RawWebSubscription {
            endpoint: &req.endpoint,
            p256dh: &req.keys.p256dh,
            auth: &req.keys.auth,
            device_name: req.device_name.as_deref(),
        },
        &state.cfg.web_push,
    )?;
    let r = domain::subscribe_web(&caller.actor(), &state.db, s).await?;
    let status = if r.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        axum::Json(WebSubscriptionView {
            endpoint: r.row.endpoint,
            device_name: r.row.device_name,
            moved_from_another_account: r.moved_from.is_some(),
            updated_at: r.row.updated_at,
        }),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WebUnsubscribeRequest {
    pub endpoint: String,
}

/// Removes the caller's subscription of this browser (notifications turned off on the page).
pub async fn unsubscribe_web(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<WebUnsubscribeRequest>,
) -> Result<StatusCode> {
    domain::unsubscribe_web(&caller.actor(), &state.db, &req.endpoint).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VapidKey {
    /// The application server key (uncompressed P-256, base64url) for
    /// `pushManager.subscribe({applicationServerKey})`.
    pub public_key: String,
}

/// The VAPID public key the page subscribes with.
pub async fn vapid_key(State(state): State<AppState>) -> Result<axum::Json<VapidKey>> {
    Ok(axum::Json(VapidKey {
        public_key: domain::vapid_public_key(&state.cfg.web_push)?,
    }))
}
