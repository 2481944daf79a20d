//! Inbound webhooks signed per the Standard Webhooks specification (symmetric scheme, as Svix and
//! the analysis backend send them): headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
//! `webhook-signature` (space-separated `v1,<base64 HMAC-SHA256>` entries over
//! `"{id}.{timestamp}.{body}"`), the secret shown as `whsec_<base64 key>`.
//!
//! Generic: any provider that signs this way can use [`verify_webhook`]. Verification runs over
//! the raw body bytes before any JSON parsing, because re-serialized JSON need not match the
//! signed bytes. Deduplicating on [`WebhookEvent::id`] is the caller's job (it needs storage).

use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// How far `webhook-timestamp` may be from our clock, either way (the specification's
/// customary 5 minutes): older deliveries could be replays.
pub const TOLERANCE_SECS: i64 = 5 * 60;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The three signature headers, as received (absent: `None`).
#[derive(Clone, Copy, Debug, Default)]
pub struct WebhookHeaders<'a> {
    pub id: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub signature: Option<&'a str>,
}

impl<'a> WebhookHeaders<'a> {
    /// Reads the headers from a request's header map (header names are case-insensitive; a
    /// value that is not visible ASCII counts as absent).
    pub fn from_map(headers: &'a http::HeaderMap) -> Self {
        let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        WebhookHeaders {
            id: get("webhook-id"),
            timestamp: get("webhook-timestamp"),
            signature: get("webhook-signature"),
        }
    }
}

/// A verified delivery: the body is authentic and fresh.
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookEvent {
    /// `webhook-id`: the same on every retry of one event; dedupe on it.
    pub id: String,
    /// `webhook-timestamp` of this attempt (Unix seconds).
    pub timestamp: i64,
    /// The body's `type` (e.g. `analysis.completed`).
    pub event_type: String,
    /// The body's `data` (`null` when the body has none).
    pub data: serde_json::Value,
}

/// Which check a delivery failed. Each maps to a stable code for logs and error bodies.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    #[error("no webhook secret is configured")]
    NotConfigured,
    #[error("the webhook secret is not `whsec_` followed by base64")]
    BadSecret,
    #[error("the {0} header is missing")]
    MissingHeader(&'static str),
    #[error("the webhook-timestamp header is not an integer of Unix seconds")]
    MalformedTimestamp,
    #[error("the webhook timestamp is {0} s old (more than 5 minutes)")]
    TimestampTooOld(i64),
    #[error("the webhook timestamp is {0} s in the future (more than 5 minutes)")]
    TimestampInFuture(i64),
    #[error("the webhook-signature header holds no v1 signature")]
    NoV1Signature,
    #[error("no webhook signature matches")]
    SignatureMismatch,
    #[error("the webhook body is not a JSON event with a type: {0}")]
    MalformedBody(String),
}

impl WebhookError {
    /// A stable snake_case code for this failure.
    pub fn code(&self) -> &'static str {
        match self {
            WebhookError::NotConfigured => "webhook_not_configured",
            WebhookError::BadSecret => "webhook_secret_invalid",
            WebhookError::MissingHeader(_) => "webhook_header_missing",
            WebhookError::MalformedTimestamp => "webhook_timestamp_malformed",
            WebhookError::TimestampTooOld(_) => "webhook_timestamp_too_old",
            WebhookError::TimestampInFuture(_) => "webhook_timestamp_in_future",
            WebhookError::NoV1Signature => "webhook_signature_malformed",
            WebhookError::SignatureMismatch => "webhook_signature_mismatch",
            WebhookError::MalformedBody(_) => "webhook_body_malformed",
        }
    }

    /// Whether our own configuration is at fault (the sender cannot fix it by retrying).
    pub fn is_configuration(&self) -> bool {
        matches!(self, WebhookError::NotConfigured | WebhookError::BadSecret)
    }
}

/// The HMAC key of a `whsec_<base64>` secret. A secret pasted without its prefix is accepted too
/// (several providers show it that way).
pub fn decode_secret(secret: &str) -> Result<Vec<u8>, WebhookError> {
    let b64 = secret
        .trim()
        .strip_prefix("whsec_")
        .unwrap_or(secret.trim());
    match B64.decode(b64) {
        Ok(key) if !key.is_empty() => Ok(key),
        _ => Err(WebhookError::BadSecret),
    }
}

/// The MAC over `"{id}.{timestamp}.{body}"`; `timestamp` is the header text exactly as sent.
fn mac(key: &[u8], id: &str, timestamp: &str, body: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// The `webhook-signature` value (`v1,<base64>`) for one delivery.
///
/// # Panics
/// If `secret` is not a valid `whsec_` secret (senders configure it; a bad one is a bug).
pub fn sign_webhook(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> String {
    let key = decode_secret(secret).expect("sign_webhook: secret must be whsec_<base64>");
    format!(
        "v1,{}",
        B64.encode(mac(&key, id, &timestamp.to_string(), body))
    )
}

/// Verifies one delivery: secret, headers present, timestamp within [`TOLERANCE_SECS`] of
/// `now_unix` (either way), and at least one `v1` signature matching (compared in constant
/// time), then parses the body as `{"type": …, "data": …}`.
pub fn verify_webhook(
    secret: &str,
    headers: WebhookHeaders<'_>,
    body: &[u8],
    now_unix: i64,
) -> Result<WebhookEvent, WebhookError> {
    let key = decode_secret(secret)?;
    let id = headers
        .id
        .filter(|s| !s.is_empty())
        .ok_or(WebhookError::MissingHeader("webhook-id"))?;
    let ts_text = headers
        .timestamp
        .ok_or(WebhookError::MissingHeader("webhook-timestamp"))?;
    let signatures = headers
        .signature
        .ok_or(WebhookError::MissingHeader("webhook-signature"))?;
    // Digits only: `i64::from_str` would also take a sign, which the sender never writes.
    if ts_text.is_empty() || ts_text.len() > 12 || !ts_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(WebhookError::MalformedTimestamp);
    }
    let timestamp: i64 = ts_text
        .parse()
        .map_err(|_| WebhookError::MalformedTimestamp)?;
    let skew = now_unix - timestamp;
    if skew > TOLERANCE_SECS {
        return Err(WebhookError::TimestampTooOld(skew));
    }
    if -skew > TOLERANCE_SECS {
        return Err(WebhookError::TimestampInFuture(-skew));
    }

    let expected = mac(&key, id, ts_text, body);
    let mut any_v1 = false;
    let mut matched = false;
    for entry in signatures.split(' ').filter(|s| !s.is_empty()) {
        let Some(sig) = entry.strip_prefix("v1,") else {
            continue; // another scheme (`v1a,` asymmetric): not ours to check
        };
        any_v1 = true;
        if let Ok(bytes) = B64.decode(sig) {
            // `ct_eq` on slices of unequal length is false without comparing contents.
            matched |= bool::from(bytes.as_slice().ct_eq(&expected));
        }
    }
    if !any_v1 {
        return Err(WebhookError::NoV1Signature);
    }
    if !matched {
        return Err(WebhookError::SignatureMismatch);
    }

    #[derive(serde::Deserialize)]
    struct Envelope {
        #[serde(rename = "type")]
        event_type: String,
        #[serde(default)]
        data: serde_json::Value,
    }
    let env: Envelope =
        serde_json::from_slice(body).map_err(|e| WebhookError::MalformedBody(e.to_string()))?;
    Ok(WebhookEvent {
        id: id.to_string(),
        timestamp,
        event_type: env.event_type,
        data: env.data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const OTHER: &str = "whsec_b3RoZXItc2VjcmV0LW9mLWF0LWxlYXN0LTI0LWJ5dGVz";
    const NOW: i64 = 1_700_000_000;
    const BODY: &[u8] = br#"{"type":"analysis.completed","data":{"id":"an_1"}}"#;

    fn headers<'a>(id: &'a str, ts: &'a str, sig: &'a str) -> WebhookHeaders<'a> {
        WebhookHeaders {
            id: Some(id),
            timestamp: Some(ts),
            signature: Some(sig),
        }
    }

    fn verify(secret: &str, sig: &str, ts: i64, body: &[u8]) -> Result<WebhookEvent, WebhookError> {
        let ts = ts.to_string();
        verify_webhook(secret, headers("msg_1", &ts, sig), body, NOW)
    }

    #[test]
    fn signature_matches_the_standard_webhooks_test_vector() {
        let body = br#"{"test": 2432232314}"#;
        let sig = sign_webhook(SECRET, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, body);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        // The vector's body has no `type`: the signature passes, the envelope check does not.
        let e = verify_webhook(
            SECRET,
            headers("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", &sig),
            body,
            1_614_265_330,
        )
        .unwrap_err();
        assert!(matches!(e, WebhookError::MalformedBody(_)), "{e}");
    }

    #[test]
    fn a_good_delivery_is_accepted_with_its_event() {
        let sig = sign_webhook(SECRET, "msg_1", NOW - 10, BODY);
        let ev = verify(SECRET, &sig, NOW - 10, BODY).unwrap();
        assert_eq!(ev.id, "msg_1");
        assert_eq!(ev.timestamp, NOW - 10);
        assert_eq!(ev.event_type, "analysis.completed");
        assert_eq!(ev.data["id"], "an_1");
        // The secret without its prefix is the same key.
        let bare = SECRET.strip_prefix("whsec_").unwrap();
        assert!(verify(bare, &sig, NOW - 10, BODY).is_ok());
    }

    #[test]
    fn a_tampered_body_or_id_is_refused() {
        let sig = sign_webhook(SECRET, "msg_1", NOW, BODY);
        let tampered = br#"{"type":"analysis.completed","data":{"id":"an_2"}}"#;
        assert_eq!(
            verify(SECRET, &sig, NOW, tampered),
            Err(WebhookError::SignatureMismatch)
        );
        let ts = NOW.to_string();
        assert_eq!(
            verify_webhook(SECRET, headers("msg_2", &ts, &sig), BODY, NOW),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn a_signature_with_another_secret_is_refused() {
        let sig = sign_webhook(OTHER, "msg_1", NOW, BODY);
        let e = verify(SECRET, &sig, NOW, BODY).unwrap_err();
        assert_eq!(e, WebhookError::SignatureMismatch);
        assert_eq!(e.code(), "webhook_signature_mismatch");
    }

    #[test]
    fn a_replayed_timestamp_is_refused_even_when_signed() {
        // Signed over its own (old) timestamp: only the tolerance check can stop it.
        let old = NOW - TOLERANCE_SECS - 1;
        let sig = sign_webhook(SECRET, "msg_1", old, BODY);
        let e = verify(SECRET, &sig, old, BODY).unwrap_err();
        assert_eq!(e, WebhookError::TimestampTooOld(TOLERANCE_SECS + 1));
        assert!(e.to_string().contains("old"), "{e}");
        // Exactly at the edge still passes.
        let edge = NOW - TOLERANCE_SECS;
        let sig = sign_webhook(SECRET, "msg_1", edge, BODY);
        assert!(verify(SECRET, &sig, edge, BODY).is_ok());
    }

    #[test]
    fn a_future_timestamp_is_refused() {
        let future = NOW + TOLERANCE_SECS + 60;
        let sig = sign_webhook(SECRET, "msg_1", future, BODY);
        let e = verify(SECRET, &sig, future, BODY).unwrap_err();
        assert_eq!(e, WebhookError::TimestampInFuture(TOLERANCE_SECS + 60));
        assert_eq!(e.code(), "webhook_timestamp_in_future");
    }

    #[test]
    fn any_of_several_signatures_may_match() {
        let good = sign_webhook(SECRET, "msg_1", NOW, BODY);
        let old = sign_webhook(OTHER, "msg_1", NOW, BODY);
        // Rotation: the old secret's signature first, an asymmetric one we skip, then ours.
        let list = format!("{old} v1a,bm90LWNoZWNrZWQ= {good}");
        assert!(verify(SECRET, &list, NOW, BODY).is_ok());
        // Extra spaces are tolerated.
        assert!(verify(SECRET, &format!("  {good}  "), NOW, BODY).is_ok());
        // Garbage entries next to a good one do not spoil it.
        assert!(verify(SECRET, &format!("v1,!!notbase64 v1, {good}"), NOW, BODY).is_ok());
        assert_eq!(
            verify(SECRET, &old, NOW, BODY),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn malformed_headers_say_which_check_failed() {
        let ts = NOW.to_string();
        let sig = sign_webhook(SECRET, "msg_1", NOW, BODY);
        let missing = |h: WebhookHeaders<'_>| verify_webhook(SECRET, h, BODY, NOW).unwrap_err();
        assert_eq!(
            missing(WebhookHeaders {
                id: None,
                ..headers("msg_1", &ts, &sig)
            }),
            WebhookError::MissingHeader("webhook-id")
        );
        assert_eq!(
            missing(WebhookHeaders {
                timestamp: None,
                ..headers("msg_1", &ts, &sig)
            }),
            WebhookError::MissingHeader("webhook-timestamp")
        );
        let e = missing(WebhookHeaders {
            signature: None,
            ..headers("msg_1", &ts, &sig)
        });
        assert_eq!(e, WebhookError::MissingHeader("webhook-signature"));
        assert!(e.to_string().contains("webhook-signature"));
        assert_eq!(
            missing(headers("", &ts, &sig)),
            WebhookError::MissingHeader("webhook-id")
        );
        for bad_ts in [
            "",
            "abc",
            "-5",
            "+1700000000",
            "1.5",
            "1700000000000000000000",
        ] {
            assert_eq!(
                missing(headers("msg_1", bad_ts, &sig)),
                WebhookError::MalformedTimestamp,
                "{bad_ts:?}"
            );
        }
        let bare = sig.strip_prefix("v1,").unwrap();
        for bad_sig in ["", bare, "v2,abc", "v1a,abc"] {
            assert_eq!(
                missing(headers("msg_1", &ts, bad_sig)),
                WebhookError::NoV1Signature,
                "{bad_sig:?}"
            );
        }
        assert_eq!(
            verify_webhook("whsec_***", headers("msg_1", &ts, &sig), BODY, NOW),
            Err(WebhookError::BadSecret)
        );
        assert_eq!(
            verify_webhook("whsec_", headers("msg_1", &ts, &sig), BODY, NOW),
            Err(WebhookError::BadSecret)
        );
    }

    #[test]
    fn headers_are_read_from_a_header_map() {
        let mut map = http::HeaderMap::new();
        map.insert("Webhook-Id", "msg_1".parse().unwrap());
        map.insert("webhook-timestamp", NOW.to_string().parse().unwrap());
        map.insert(
            "webhook-signature",
            sign_webhook(SECRET, "msg_1", NOW, BODY).parse().unwrap(),
        );
        let ev = verify_webhook(SECRET, WebhookHeaders::from_map(&map), BODY, NOW).unwrap();
        assert_eq!(ev.id, "msg_1");
    }
}
