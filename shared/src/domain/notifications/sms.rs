//! SMS through Twilio: phone verification (Twilio Verify) and the inbound SMS webhook that
//! handles the opt-out keywords.
//!
//! - start: an E.164 number; refused when the number opted out (409 `sms_opted_out`, Twilio's
//!   21610); at most 5 starts per number and 5 per user in 10 minutes (429 with a retry time;
//!   Twilio's own 60203 maps to the same).
//! - verify: a code for a number this user started within 10 minutes; `approved` stores the
//!   phone as the user's verified phone; a wrong code is 400 `sms_code_invalid`; an expired,
//!   cancelled or unknown verification 410 `sms_code_expired`; too many wrong codes 410
//!   `sms_max_attempts` (start again). At most 10 checks per user in 10 minutes.
//! - inbound: Twilio's signature over the public URL and the sorted form parameters, compared
//!   in constant time; 401 without or with a wrong signature. A message that is exactly
//!   (trimmed, any case) STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE or OPTOUT (Twilio's
//!   default opt-out keywords) opts the number out;
//!   START, YES or UNSTOP opts it back in; HELP or INFO answers a help text. Anything else is
//!   ignored.

use crate::db::{Db, Ts};
use crate::domain::Actor;
use crate::error::{Error, Result, Validator};
use crate::providers::twilio::{self, Twilio, VerifyResult};
use crate::repo::{ratelimit, sms};

pub const OPT_OUT: &[&str] = &[
    "STOP",
    "STOPALL",
    "UNSUBSCRIBE",
    "CANCEL",
    "END",
    "QUIT",
    "REVOKE",
    "OPTOUT",
];
pub const OPT_IN: &[&str] = &["START", "YES", "UNSTOP"];
pub const HELP: &[&str] = &["HELP", "INFO"];
const HELP_TEXT: &str = "Surf Coach: sign-in codes and coaching notifications. Reply STOP to unsubscribe, START to subscribe again.";

/// A code lives 10 minutes at Twilio; sends and checks are counted over the same window.
const WINDOW_MINUTES: i64 = 10;
const STARTS_PER_NUMBER: u32 = 5;
const STARTS_PER_USER: u32 = 5;
const CHECKS_PER_USER: u32 = 10;

/// The Twilio client, or 503 when SMS is not configured.
fn client(twilio: Option<&Twilio>) -> Result<&Twilio> {
    twilio.ok_or_else(|| Error::provider_not_configured("sms"))
}

/// `+` and 8 to 15 digits, not starting with 0 (E.164).
pub fn is_e164(phone: &str) -> bool {
    let digits = phone.strip_prefix('+').unwrap_or("");
    (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0')
}

/// The trimmed phone number, checked into `v`.
fn check_phone(v: &mut Validator, phone: &str) -> String {
    let phone = phone.trim();
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
    phone.to_string()
}

fn opted_out() -> Error {
    Error::conflict(
        "sms_opted_out",
        "this number replied STOP; it receives no SMS until it texts START",
    )
}

fn expired() -> Error {
    Error::gone(
        "sms_code_expired",
        "the code expired or was never sent to this number; start again",
    )
}

fn max_attempts() -> Error {
    Error::gone("sms_max_attempts", "too many wrong codes; start again")
}

fn refused(status: u16, code: i64, message: &str) -> Error {
    Error::provider_failed(twilio::PROVIDER, format!("{status} {code}: {message}"))
}

/// 429 once `key` was hit `max` times in the window.
async fn limit(db: &Db, key: &str, max: u32) -> Result<()> {
    let mut c = db.acquire().await?;
    ratelimit::hit(&mut c, key, max, chrono::Duration::minutes(WINDOW_MINUTES))
        .await?
        .map_err(Error::too_many_requests)
}

/// A verification code sent.
pub struct Started {
    pub phone: String,
    /// Twilio's status: pending.
    pub status: String,
    /// The code is valid until then.
    pub expires_at: Ts,
}

/// Sends a verification code by SMS to `phone`.
pub async fn start(
    actor: &Actor,
    db: &Db,
    twilio: Option<&Twilio>,
    phone: &str,
) -> Result<Started> {
    let twilio = client(twilio)?;
    let mut v = Validator::new();
    let phone = check_phone(&mut v, phone);
    v.finish()?;
    {
        let mut c = db.acquire().await?;
        if sms::is_opted_out(&mut c, &phone).await? {
            return Err(opted_out());
        }
    }
    let user = actor.user_id;
    limit(db, &format!("sms-start:user:{user}"), STARTS_PER_USER).await?;
    limit(db, &format!("sms-start:phone:{phone}"), STARTS_PER_NUMBER).await?;
    let verification = match twilio.start(&phone).await? {
        VerifyResult::Ok(v) => v,
        VerifyResult::Refused { code: 60203, .. } | VerifyResult::Refused { status: 429, .. } => {
            return Err(Error::too_many_requests(60 * WINDOW_MINUTES as u64));
        }
        VerifyResult::Refused { code: 21610, .. } => return Err(opted_out()),
        VerifyResult::Refused { code: 60200, .. } | VerifyResult::Refused { code: 21211, .. } => {
            return Err(Error::field(
                "phone",
                "invalid_phone",
                "the SMS provider does not accept this number",
            ));
        }
        VerifyResult::Refused {
            status,
            code,
            message,
        } => return Err(refused(status, code, &message)),
    };
    let now = Ts::now();
    let mut c = db.acquire().await?;
    sms::start(&mut c, user, &phone, now).await?;
    Ok(Started {
        phone,
        status: verification.status,
        expires_at: now.plus(chrono::Duration::minutes(WINDOW_MINUTES)),
    })
}

/// A phone verified.
pub struct Verified {
    pub phone: String,
    pub verified_at: Ts,
}

/// Checks `code` (4 to 10 digits) for `phone`; on success the phone becomes the caller's
/// verified phone.
pub async fn verify(
    actor: &Actor,
    db: &Db,
    twilio: Option<&Twilio>,
    phone: &str,
    code: &str,
) -> Result<Verified> {
    let twilio = client(twilio)?;
    let code = code.trim();
    let mut v = Validator::new();
    let phone = check_phone(&mut v, phone);
    v.check(
        (4..=10).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_digit()),
        "code",
        "invalid",
        "the 4 to 10 digit code from the SMS",
    );
    v.finish()?;
    let user = actor.user_id;
    {
        let mut c = db.acquire().await?;
        let started = sms::started_at(&mut c, user, &phone).await?;
        let window = chrono::Duration::minutes(WINDOW_MINUTES);
        if started.is_none_or(|t| t.plus(window) < Ts::now()) {
            return Err(expired());
        }
    }
    limit(db, &format!("sms-check:user:{user}"), CHECKS_PER_USER).await?;
    let result = match twilio.check(&phone, code).await? {
        VerifyResult::Ok(v) => v,
        VerifyResult::Refused { code: 20404, .. } | VerifyResult::Refused { status: 404, .. } => {
            return Err(expired());
        }
        VerifyResult::Refused { code: 60202, .. } | VerifyResult::Refused { status: 429, .. } => {
            return Err(max_attempts());
        }
        VerifyResult::Refused {
            status,
            code,
            message,
        } => return Err(refused(status, code, &message)),
    };
    match result.status.as_str() {
        "approved" => {
            let now = Ts::now();
            let mut tx = db.begin().await?;
            sms::set_verified(&mut tx, user, &phone, now).await?;
            tx.commit().await?;
            Ok(Verified {
                phone,
                verified_at: now,
            })
        }
        "pending" => Err(Error::bad_request(
            "sms_code_invalid",
            "the code does not match",
        )),
        "max_attempts_reached" => Err(max_attempts()),
        "expired" | "canceled" | "failed" => Err(expired()),
        other => Err(Error::provider_failed(
            twilio::PROVIDER,
            format!("unexpected verification status {other:?}"),
        )),
    }
}

/// An inbound SMS webhook call: its signature header, the public URL it was sent to, and the
/// form-encoded body.
pub struct Inbound<'a> {
    pub signature: Option<&'a str>,
    /// `PUBLIC_BASE_URL` with the request's path and query.
    pub url: &'a str,
    pub body: &'a [u8],
}

/// Handles Twilio's inbound SMS webhook; returns the text to answer with, if any.
pub async fn inbound(
    db: &Db,
    twilio: Option<&Twilio>,
    req: Inbound<'_>,
) -> Result<Option<&'static str>> {
    let Some(given) = req.signature else {
        return Err(Error::unauthorized(
            "unauthenticated",
            "the X-Twilio-Signature header is missing",
        ));
    };
    let twilio = client(twilio)?;
    let url = url::Url::parse(req.url)
        .map_err(|_| Error::unauthorized("invalid_signature", "the request URL is not valid"))?;
    let params: Vec<(String, String)> = url::form_urlencoded::parse(req.body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if !twilio::verify_signature(twilio.auth_token(), &url, &params, given) {
        return Err(Error::unauthorized(
            "invalid_signature",
            "the X-Twilio-Signature does not match",
        ));
    }
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let (Some(from), Some(text)) = (get("From"), get("Body")) else {
        return Ok(None);
    };
    let keyword = text.trim().to_ascii_uppercase();
    let mut c = db.acquire().await?;
    if OPT_OUT.contains(&keyword.as_str()) {
        sms::opt_out(&mut c, from, &keyword, Ts::now()).await?;
        tracing::info!(keyword, "sms opt-out");
        // Twilio confirms STOP itself; a reply now would be refused (21610).
        Ok(None)
    } else if OPT_IN.contains(&keyword.as_str()) {
        sms::opt_in(&mut c, from).await?;
        tracing::info!(keyword, "sms opt-in");
        Ok(None)
    } else if HELP.contains(&keyword.as_str()) {
        Ok(Some(HELP_TEXT))
    } else {
        Ok(None)
    }
}
