//! SMS through Twilio: phone verification (`POST /api/notifications/sms/start`, `/verify`,
//! Twilio Verify) and the inbound SMS webhook (`POST /api/notifications/inbound`) that handles
//! the opt-out keywords.
//!
//! - start: an E.164 number; refused when the number opted out (409 `sms_opted_out`, Twilio's
//!   21610); at most 5 starts per number and 5 per user in 10 minutes (429 with
//!   `Retry-After`; Twilio's own 60203 maps to the same).
//! - verify: a code for a number this user started within 10 minutes; `approved` stores the
//!   phone as the user's verified phone; a wrong code is 400 `sms_code_invalid`; an expired,
//!   cancelled or unknown verification 410 `sms_code_expired`; too many wrong codes 410
//!   `sms_max_attempts` (start again). At most 10 checks per user in 10 minutes.
//! - inbound: `X-Twilio-Signature` over `PUBLIC_BASE_URL` + path + query and the sorted form
//!   parameters (also with the default port written out), compared in constant time; 401
//!   without or with a wrong signature. A message that is exactly (trimmed, any case) STOP,
//!   STOPALL, UNSUBSCRIBE, CANCEL, END or QUIT opts the number out; START, YES or UNSTOP opts it
//!   back in; HELP or INFO answers a help text. Anything else is ignored. Answers TwiML.

use crate::auth::Caller;
use crate::http::extract::Body;
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use shared::db::Ts;
use shared::error::Validator;
use shared::providers::twilio::{self, Twilio, VerifyResult};
use shared::repo::{ratelimit, sms};

use utoipa::ToSchema;

pub const OPT_OUT: &[&str] = &["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"];
pub const OPT_IN: &[&str] = &["START", "YES", "UNSTOP"];
pub const HELP: &[&str] = &["HELP", "INFO"];
const HELP_TEXT: &str = "Surf Coach: sign-in codes and coaching notifications. Reply STOP to unsubscribe, START to subscribe again.";

/// A code lives 10 minutes at Twilio; sends and checks are counted over the same window.
const WINDOW_MINUTES: i64 = 10;
const STARTS_PER_NUMBER: u32 = 5;
const STARTS_PER_USER: u32 = 5;
const CHECKS_PER_USER: u32 = 10;

fn client(state: &AppState) -> Result<&Twilio> {
    Ok(state
        .twilio
        .as_ref()
        .ok_or_else(|| Error::provider_not_configured("sms"))?)
}

/// `+` and 8 to 15 digits, not starting with 0 (E.164).
pub fn is_e164(phone: &str) -> bool {
    let digits = phone.strip_prefix('+').unwrap_or("");
    (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0')
}

fn check_phone(v: &mut Validator, phone: &str) {
    if phone.is_empty() {
        v.add(
            "phone",
            "required",
            "an E.164 phone number, e.g. +351912345678",
        );
    } else {
        v.check(
            is_e164(phone),
            "phone",
            "invalid_phone",
            "must be an E.164 number: + and 8 to 15 digits, e.g. +351912345678",
        );
    }
}

fn opted_out() -> Error {
    Error::conflict(
        "sms_opted_out",
        "this number replied STOP; it receives no SMS until it texts START",
    )
}

fn expired() -> Error {
    Error::new(
        shared::ErrorKind::Gone,
        "sms_code_expired",
        "the code expired or was never sent to this number; start again",
    )
}

fn max_attempts() -> Error {
    Error::new(
        shared::ErrorKind::Gone,
        "sms_max_attempts",
        "too many wrong codes; start again",
    )
}

async fn limit(state: &AppState, key: &str, max: u32) -> Result<()> {
    let mut c = state.db.acquire().await?;
    Ok(
        ratelimit::hit(&mut c, key, max, chrono::Duration::minutes(WINDOW_MINUTES))
            .await?
            .map_err(Error::too_many_requests)?,
    )
}

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
    let twilio = client(&state)?;
    let phone = req.phone.trim().to_string();
    let mut v = Validator::new();
    check_phone(&mut v, &phone);
    v.finish()?;
    {
        let mut c = state.db.acquire().await?;
        if sms::is_opted_out(&mut c, &phone).await? {
            return Err(opted_out().into());
        }
    }
    limit(
        &state,
        &format!("sms-start:user:{}", caller.user.id),
        STARTS_PER_USER,
    )
    .await?;
    limit(
        &state,
        &format!("sms-start:phone:{phone}"),
        STARTS_PER_NUMBER,
    )
    .await?;
    let verification = match twilio.start(&phone).await? {
        VerifyResult::Ok(v) => v,
        VerifyResult::Refused { code: 60203, .. } | VerifyResult::Refused { status: 429, .. } => {
            return Err(Error::too_many_requests(60 * WINDOW_MINUTES as u64).into());
        }
        VerifyResult::Refused { code: 21610, .. } => return Err(opted_out().into()),
        VerifyResult::Refused { code: 60200, .. } | VerifyResult::Refused { code: 21211, .. } => {
            return Err(Error::field(
                "phone",
                "invalid_phone",
                "the SMS provider does not accept this number",
            )
            .into());
        }
        VerifyResult::Refused {
            status,
            code,
            message,
        } => {
            return Err(Error::provider_failed(
                twilio::PROVIDER,
                format!("{status} {code}: {message}"),
            )
            .into());
        }
    };
    let now = Ts::now();
    let mut c = state.db.acquire().await?;
    sms::start(&mut c, caller.user.id, &phone, now).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(SmsStarted {
            phone,
            status: verification.status,
            expires_at: now.plus(chrono::Duration::minutes(WINDOW_MINUTES)),
        }),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerifySms {
    pub phone: String,
    /// The code from the SMS (4 to 10 digits).
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
    let twilio = client(&state)?;
    let phone = req.phone.trim().to_string();
    let code = req.code.trim().to_string();
    let mut v = Validator::new();
    check_phone(&mut v, &phone);
    v.check(
        (4..=10).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_digit()),
        "code",
        "invalid",
        "the 4 to 10 digit code from the SMS",
    );
    v.finish()?;
    {
        let mut c = state.db.acquire().await?;
        let started = sms::started_at(&mut c, caller.user.id, &phone).await?;
        let window = chrono::Duration::minutes(WINDOW_MINUTES);
        if started.is_none_or(|t| t.plus(window) < Ts::now()) {
            return Err(expired().into());
        }
    }
    limit(
        &state,
        &format!("sms-check:user:{}", caller.user.id),
        CHECKS_PER_USER,
    )
    .await?;
    let result = match twilio.check(&phone, &code).await? {
        VerifyResult::Ok(v) => v,
        VerifyResult::Refused { code: 20404, .. } | VerifyResult::Refused { status: 404, .. } => {
            return Err(expired().into());
        }
        VerifyResult::Refused { code: 60202, .. } | VerifyResult::Refused { status: 429, .. } => {
            return Err(max_attempts().into());
        }
        VerifyResult::Refused {
            status,
            code,
            message,
        } => {
            return Err(Error::provider_failed(
                twilio::PROVIDER,
                format!("{status} {code}: {message}"),
            )
            .into());
        }
    };
    match result.status.as_str() {
        "approved" => {
            let now = Ts::now();
            let mut tx = state.db.begin().await?;
            sms::set_verified(&mut tx, caller.user.id, &phone, now).await?;
            tx.commit().await?;
            Ok(axum::Json(VerifiedPhone {
                phone,
                verified_at: now,
            }))
        }
        "pending" => Err(Error::bad_request("sms_code_invalid", "the code does not match").into()),
        "max_attempts_reached" => Err(max_attempts().into()),
        "expired" | "canceled" | "failed" => Err(expired().into()),
        other => Err(Error::provider_failed(
            twilio::PROVIDER,
            format!("unexpected verification status {other:?}"),
        )
        .into()),
    }
}

fn twiml(message: Option<&str>) -> Response {
    let body = match message {
        Some(m) => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Message>{}</Message></Response>",
            m.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
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
    let Some(given) = headers
        .get("x-twilio-signature")
        .and_then(|v| v.to_str().ok())
    else {
        return Err(Error::unauthorized(
            "unauthenticated",
            "the X-Twilio-Signature header is missing",
        )
        .into());
    };
    let twilio = client(&state)?;
    let path_and_query = uri.path_and_query().map_or("/", |p| p.as_str());
    let url = url::Url::parse(&state.cfg.public_url(path_and_query))
        .map_err(|_| Error::unauthorized("invalid_signature", "the request URL is not valid"))?;
    let params: Vec<(String, String)> = url::form_urlencoded::parse(&body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if !twilio::verify_signature(twilio.auth_token(), &url, &params, given) {
        return Err(Error::unauthorized(
            "invalid_signature",
            "the X-Twilio-Signature does not match",
        )
        .into());
    }
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let (Some(from), Some(text)) = (get("From"), get("Body")) else {
        return Ok(twiml(None));
    };
    let keyword = text.trim().to_ascii_uppercase();
    let mut c = state.db.acquire().await?;
    if OPT_OUT.contains(&keyword.as_str()) {
        sms::opt_out(&mut c, from, &keyword, Ts::now()).await?;
        tracing::info!(keyword, "sms opt-out");
        // Twilio confirms STOP itself; a reply now would be refused (21610).
        Ok(twiml(None))
    } else if OPT_IN.contains(&keyword.as_str()) {
        sms::opt_in(&mut c, from).await?;
        tracing::info!(keyword, "sms opt-in");
        Ok(twiml(None))
    } else if HELP.contains(&keyword.as_str()) {
        Ok(twiml(Some(HELP_TEXT)))
    } else {
        Ok(twiml(None))
    }
}
