//! SMS through Twilio: phone verification (`POST /api/notifications/sms/start`, `/verify`) and
//! the inbound SMS webhook (`POST /api/notifications/inbound`, `X-Twilio-Signature` over
//! `PUBLIC_BASE_URL` + path + query) that handles the opt-out keywords. The rules (limits,
//! Twilio's answers, STOP/START) are `shared::domain::notifications::sms`; the webhook answers
//! TwiML.

use crate::auth::Caller;
use crate::http::Result;
use crate::http::extract::Body;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::db::Ts;
use shared::domain::notifications::sms::{self as domain, Inbound};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartSms {
    /// E.164, e.g. +351912345678
    pub phone: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SmsStarted {
    pub phone: String,
    /// pending
    pub status: String,
    /// The code is valid until then.
    pub expires_at: Ts,
}

/// Sends a verification code by SMS.
pub async fn start(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<StartSms>,
) -> Result<(StatusCode, axum::Json<SmsStarted>)> {
    let s = domain::start(
        &caller.actor(),
        &state.db,
        state.twilio.as_ref(),
        &req.phone,
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(SmsStarted {
            phone: s.phone,
            status: s.status,
            expires_at: s.expires_at,
        }),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerifySms {
    pub phone: String,
    /// The code from the SMS (4 to 10 digits).
    #[schema(pattern = "^[0-9]{4,10}$", example = "123456")]
    pub code: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedPhone {
    pub phone: String,
    pub verified_at: Ts,
}

/// Checks the code; on success the phone becomes the user's verified phone.
pub async fn verify(
    State(state): State<AppState>,
    caller: Caller,
    Body(req): Body<VerifySms>,
) -> Result<axum::Json<VerifiedPhone>> {
    let v = domain::verify(
        &caller.actor(),
        &state.db,
        state.twilio.as_ref(),
        &req.phone,
        &req.code,
    )
    .await?;
    Ok(axum::Json(VerifiedPhone {
        phone: v.phone,
        verified_at: v.verified_at,
    }))
}

fn twiml(message: Option<&str>) -> Response {
    let body = match message {
        Some(m) => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Message>{}</Message></Response>",
            shared::html::escape(m)
        ),
        None => "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response/>".to_string(),
    };
    ([(header::CONTENT_TYPE, "text/xml; charset=utf-8")], body).into_response()
}

/// Twilio's inbound SMS webhook.
pub async fn inbound(
    State(state): State<AppState>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response> {
    let path_and_query = uri.path_and_query().map_or("/", |p| p.as_str());
    let url = state.cfg.public_url(path_and_query);
    let req = Inbound {
        signature: headers
            .get("x-twilio-signature")
            .and_then(|v| v.to_str().ok()),
        url: &url,
        body: &body,
    };
    let reply = domain::inbound(&state.db, state.twilio.as_ref(), req).await?;
    Ok(twiml(reply))
}
