//! The payment processor, spoken to in the Stripe protocol (`docs/billing.md`,
//! `../shared/PROVIDERS.md`): customers, Checkout Sessions (platform subscriptions and
//! marketplace destination charges), customer portal sessions, Connect accounts and their
//! onboarding links, reads of prices, subscriptions, checkout sessions and accounts, and the
//! signature of its webhooks (`Stripe-Signature`).
//!
//! Every POST carries an `Idempotency-Key` chosen by the caller, so it is sent with
//! `Retry::Idempotent`: a retry after a lost answer replays the first result instead of creating
//! a second session. Reads answer `None` for an object the provider no longer has (404).

use super::http::{ProviderError, Retry, json_or_error, send};
use super::webhooks::WebhookError;
use crate::config::PaymentsConfig;
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use sha2::Sha256;
use std::collections::BTreeMap;
use subtle::ConstantTimeEq;

pub const PROVIDER: &str = "payments";

/// How far a `Stripe-Signature` timestamp may be from our clock, either way (Stripe's
/// libraries use 300 s for old ones; a timestamp that far in the future is refused too).
pub const TOLERANCE_SECS: i64 = 300;

/// A form body with bracketed keys (`line_items[0][price]`), in order.
pub type Form = Vec<(String, String)>;

#[derive(Clone, Debug)]
pub struct Payments {
    cfg: PaymentsConfig,
    http: reqwest::Client,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Recurring {
    pub interval: String,
    #[serde(default = "one")]
    pub interval_count: i64,
}

fn one() -> i64 {
    1
}

#[derive(Clone, Debug, Deserialize)]
pub struct Price {
    pub id: String,
    #[serde(default)]
    pub active: bool,
    pub recurring: Option<Recurring>,
    pub lookup_key: Option<String>,
    pub nickname: Option<String>,
}

impl Price {
    /// A price billed every month (not yearly, weekly, every three months or once).
    pub fn is_monthly(&self) -> bool {
        self.recurring
            .as_ref()
            .is_some_and(|r| r.interval == "month" && r.interval_count == 1)
    }

    /// The plan name a workspace shows: the price's lookup key, else its nickname, else its id.
    pub fn plan_name(&self) -> String {
        self.lookup_key
            .clone()
            .or_else(|| self.nickname.clone())
            .unwrap_or_else(|| self.id.clone())
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct Customer {
    pub id: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct CheckoutSession {
    pub id: String,
    pub url: Option<String>,
    pub mode: String,
    pub status: Option<String>,
    pub payment_status: Option<String>,
    pub customer: Option<String>,
    pub subscription: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct SubscriptionItem {
    pub id: String,
    pub price: Price,
    pub quantity: Option<i64>,
    pub current_period_end: Option<i64>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ItemList {
    pub data: Vec<SubscriptionItem>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Subscription {
    pub id: String,
    pub status: String,
    pub customer: String,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    pub items: ItemList,
    /// Top-level in older API versions, on the items in newer ones.
    pub current_period_end: Option<i64>,
}

impl Subscription {
    pub fn item(&self) -> Option<&SubscriptionItem> {
        self.items.data.first()
    }

    pub fn period_end(&self) -> Option<i64> {
        self.current_period_end
            .or_else(|| self.item().and_then(|i| i.current_period_end))
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct PortalSession {
    pub id: String,
    pub url: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Account {
    pub id: String,
    #[serde(default)]
    pub charges_enabled: bool,
    #[serde(default)]
    pub payouts_enabled: bool,
    #[serde(default)]
    pub details_submitted: bool,
}

#[derive(Clone, Debug, Deserialize)]
pub struct AccountLink {
    pub url: String,
}

impl Payments {
    /// The adapter, or `NotConfigured` when `PAYMENTS_BASE_URL` is unset.
    pub fn from_config(
        cfg: Option<&PaymentsConfig>,
        http: reqwest::Client,
    ) -> Result<Payments, ProviderError> {
        let cfg = cfg.ok_or(ProviderError::NotConfigured(PROVIDER))?;
        Ok(Payments {
            cfg: cfg.clone(),
            http,
        })
    }

    pub fn config(&self) -> &PaymentsConfig {
        &self.cfg
    }

    fn url(&self, path: &str) -> url::Url {
        self.cfg
            .base_url
            .join(path)
            .expect("base URL joins a relative path")
    }

    async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        form: &Form,
        idempotency_key: &str,
    ) -> Result<T, ProviderError> {
        let url = self.url(path);
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http
                .post(url.clone())
                .bearer_auth(self.cfg.secret_key.expose())
                .header("Idempotency-Key", idempotency_key)
                .form(form)
        })
        .await?;
        json_or_error(PROVIDER, resp).await
    }

    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<Option<T>, ProviderError> {
        let url = self.url(path);
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http
                .get(url.clone())
                .bearer_auth(self.cfg.secret_key.expose())
        })
        .await?;
        if resp.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        json_or_error(PROVIDER, resp).await.map(Some)
    }

    pub async fn create_customer(&self, form: &Form, key: &str) -> Result<Customer, ProviderError> {
        self.post("v1/customers", form, key).await
    }

    pub async fn create_checkout_session(
        &self,
        form: &Form,
        key: &str,
    ) -> Result<CheckoutSession, ProviderError> {
        self.post("v1/checkout/sessions", form, key).await
    }

    /// The returned URL is short-lived and acts as a login: never log it.
    pub async fn create_portal_session(
        &self,
        customer: &str,
        return_url: &str,
        key: &str,
    ) -> Result<PortalSession, ProviderError> {
        let form = vec![
            ("customer".to_string(), customer.to_string()),
            ("return_url".to_string(), return_url.to_string()),
        ];
        self.post("v1/billing_portal/sessions", &form, key).await
    }

    pub async fn create_account(&self, form: &Form, key: &str) -> Result<Account, ProviderError> {
        self.post("v1/accounts", form, key).await
    }

    pub async fn create_account_link(
        &self,
        account: &str,
        refresh_url: &str,
        return_url: &str,
        key: &str,
    ) -> Result<AccountLink, ProviderError> {
        let form = vec![
            ("account".to_string(), account.to_string()),
            ("refresh_url".to_string(), refresh_url.to_string()),
            ("return_url".to_string(), return_url.to_string()),
            ("type".to_string(), "account_onboarding".to_string()),
        ];
        self.post("v1/account_links", &form, key).await
    }

    /// Changes a subscription (plan or seats) in place.
    pub async fn update_subscription(
        &self,
        id: &str,
        form: &Form,
        key: &str,
    ) -> Result<Subscription, ProviderError> {
        self.post(&format!("v1/subscriptions/{}", enc(id)), form, key)
            .await
    }

    pub async fn price(&self, id: &str) -> Result<Option<Price>, ProviderError> {
        self.get(&format!("v1/prices/{}", enc(id))).await
    }

    pub async fn subscription(&self, id: &str) -> Result<Option<Subscription>, ProviderError> {
        self.get(&format!("v1/subscriptions/{}", enc(id))).await
    }

    pub async fn checkout_session(
        &self,
        id: &str,
    ) -> Result<Option<CheckoutSession>, ProviderError> {
        self.get(&format!("v1/checkout/sessions/{}", enc(id))).await
    }

    pub async fn account(&self, id: &str) -> Result<Option<Account>, ProviderError> {
        self.get(&format!("v1/accounts/{}", enc(id))).await
    }
}

/// A provider id as one path segment (ids are `[A-Za-z0-9_]`; anything else is escaped).
fn enc(id: &str) -> String {
    url::form_urlencoded::byte_serialize(id.as_bytes()).collect()
}

// ---- webhooks ----

fn mac(secret: &str, t: &str, body: &[u8]) -> [u8; 32] {
    // Stripe keys the HMAC with the secret as shown, `whsec_` prefix included.
    let mut m = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    m.update(t.as_bytes());
    m.update(b".");
    m.update(body);
    m.finalize().into_bytes().into()
}

/// The `Stripe-Signature` header for `body` signed with `secret` at `t` (Unix seconds).
pub fn sign(secret: &str, t: i64, body: &[u8]) -> String {
    format!(
        "t={t},v1={}",
        hex::encode(mac(secret, &t.to_string(), body))
    )
}

/// Verifies a `Stripe-Signature` header (`t=<unix>,v1=<hex>[,v1=<hex>…]`, other schemes
/// ignored) over the raw body: the timestamp within [`TOLERANCE_SECS`] of `now_unix` either way,
/// and any `v1` matching HMAC-SHA256(secret, `"{t}.{body}"`) under any of `secrets` (several
/// during a rotation), compared in constant time. Returns the signed timestamp.
pub fn verify_signature(
    secrets: &[String],
    header: Option<&str>,
    body: &[u8],
    now_unix: i64,
) -> Result<i64, WebhookError> {
    let header = header.ok_or(WebhookError::MissingHeader("Stripe-Signature"))?;
    if secrets.is_empty() {
        return Err(WebhookError::NotConfigured);
    }
    let mut t_text = None;
    let mut v1 = Vec::new();
    for part in header.split(',') {
        let Some((k, v)) = part.trim().split_once('=') else {
            continue;
        };
        match k {
            "t" => t_text = Some(v),
            "v1" => v1.push(v),
            _ => {} // v0 and future schemes are not ours to check
        }
    }
    let t_text = t_text.ok_or(WebhookError::MalformedTimestamp)?;
    if t_text.is_empty() || t_text.len() > 12 || !t_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(WebhookError::MalformedTimestamp);
    }
    let t: i64 = t_text
        .parse()
        .map_err(|_| WebhookError::MalformedTimestamp)?;
    if v1.is_empty() {
        return Err(WebhookError::NoV1Signature);
    }
    let skew = now_unix - t;
    if skew > TOLERANCE_SECS {
        return Err(WebhookError::TimestampTooOld(skew));
    }
    if -skew > TOLERANCE_SECS {
        return Err(WebhookError::TimestampInFuture(-skew));
    }
    let mut matched = false;
    for secret in secrets {
        let expected = mac(secret, t_text, body);
        for sig in &v1 {
            // Lower-case hex only, as sent: `hex::decode` would also take upper case, so one
            // signature would have two spellings.
            let canonical = sig.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            if let Ok(bytes) = hex::decode(sig)
                && canonical
            {
                matched |= bool::from(bytes.as_slice().ct_eq(&expected));
            }
        }
    }
    if matched {
        Ok(t)
    } else {
        Err(WebhookError::SignatureMismatch)
    }
}

/// A verified event's envelope: what is stored and routed; the object itself is re-read from
/// the provider when the event is applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: String,
    pub event_type: String,
    /// The provider's creation time (Unix seconds).
    pub created: i64,
    pub livemode: bool,
    /// `data.object.object` (`subscription`, `checkout.session`, `invoice`, `account`, …).
    pub object_type: String,
    /// `data.object.id`.
    pub object_id: String,
    /// `data.object` as sent (kept for the record; never trusted for state).
    pub object: serde_json::Value,
}

/// Parses an event body (after its signature was verified).
pub fn parse_event(body: &[u8]) -> Result<Event, WebhookError> {
    #[derive(Deserialize)]
    struct Data {
        object: serde_json::Value,
    }
    #[derive(Deserialize)]
    struct Envelope {
        id: String,
        #[serde(rename = "type")]
        event_type: String,
        created: i64,
        livemode: bool,
        data: Data,
    }
    let env: Envelope =
        serde_json::from_slice(body).map_err(|e| WebhookError::MalformedBody(e.to_string()))?;
    let text = |k: &str| {
        env.data.object[k]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| WebhookError::MalformedBody(format!("data.object.{k} is missing")))
    };
    if env.id.is_empty() || env.id.len() > 255 {
        return Err(WebhookError::MalformedBody("bad event id".into()));
    }
    Ok(Event {
        object_type: text("object")?,
        object_id: text("id")?,
        id: env.id,
        event_type: env.event_type,
        created: env.created,
        livemode: env.livemode,
        object: env.data.object,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S1: &str = "whsec_first";
    const S2: &str = "whsec_second";
    const NOW: i64 = 1_700_000_000;
    const BODY: &[u8] = br#"{"id":"evt_1"}"#;

    fn secrets(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn signature_matches_an_independent_computation() {
        // HMAC-SHA256(key "whsec_first", "1700000000.{\"id\":\"evt_1\"}"), computed with
        // Python's hmac module.
        let h = sign(S1, NOW, BODY);
        assert_eq!(
            h,
            "t=1700000000,v1=1e3d4a587cb2a36f93d7444746133dcfcd077e60212c2413513da26d6ddb0cbb"
        );
        assert_eq!(
            verify_signature(&secrets(&[S1]), Some(&h), BODY, NOW),
            Ok(NOW)
        );
    }

    #[test]
    fn any_v1_under_any_secret_matches() {
        let good = sign(S2, NOW, BODY);
        let other = sign("whsec_other", NOW, BODY);
        let sig = |h: &str| h.split_once(",v1=").unwrap().1.to_string();
        let header = format!("t={NOW},v1={},v0=abc,v1={}", sig(&other), sig(&good));
        assert_eq!(
            verify_signature(&secrets(&[S1, S2]), Some(&header), BODY, NOW),
            Ok(NOW)
        );
        assert_eq!(
            verify_signature(&secrets(&[S1]), Some(&header), BODY, NOW),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn bad_headers_say_which_check_failed() {
        let s = secrets(&[S1]);
        assert_eq!(
            verify_signature(&s, None, BODY, NOW),
            Err(WebhookError::MissingHeader("Stripe-Signature"))
        );
        assert_eq!(
            verify_signature(&s, Some("v1=00"), BODY, NOW),
            Err(WebhookError::MalformedTimestamp)
        );
        assert_eq!(
            verify_signature(&s, Some("t=-5,v1=00"), BODY, NOW),
            Err(WebhookError::MalformedTimestamp)
        );
        assert_eq!(
            verify_signature(&s, Some(&format!("t={NOW},v0=00")), BODY, NOW),
            Err(WebhookError::NoV1Signature)
        );
        let h = sign(S1, NOW, BODY);
        assert_eq!(
            verify_signature(&[], Some(&h), BODY, NOW),
            Err(WebhookError::NotConfigured)
        );
        let old = sign(S1, NOW - 301, BODY);
        assert_eq!(
            verify_signature(&s, Some(&old), BODY, NOW),
            Err(WebhookError::TimestampTooOld(301))
        );
        let edge = sign(S1, NOW - 300, BODY);
        assert!(verify_signature(&s, Some(&edge), BODY, NOW).is_ok());
        let future = sign(S1, NOW + 301, BODY);
        assert_eq!(
            verify_signature(&s, Some(&future), BODY, NOW),
            Err(WebhookError::TimestampInFuture(301))
        );
    }

    #[test]
    fn events_parse_with_their_object() {
        let body = br#"{"id":"evt_1","type":"customer.subscription.updated","created":5,"livemode":false,"data":{"object":{"id":"sub_1","object":"subscription"}}}"#;
        let e = parse_event(body).unwrap();
        assert_eq!(e.object_id, "sub_1");
        assert_eq!(e.object_type, "subscription");
        assert!(matches!(
            parse_event(br#"{"id":"evt_1"}"#),
            Err(WebhookError::MalformedBody(_))
        ));
    }

    #[test]
    fn only_monthly_prices_are_monthly() {
        let p = |interval: Option<(&str, i64)>| Price {
            id: "price_1".into(),
            active: true,
            recurring: interval.map(|(i, c)| Recurring {
                interval: i.into(),
                interval_count: c,
            }),
            lookup_key: None,
            nickname: None,
        };
        assert!(p(Some(("month", 1))).is_monthly());
        assert!(!p(Some(("month", 3))).is_monthly());
        assert!(!p(Some(("year", 1))).is_monthly());
        assert!(!p(None).is_monthly());
    }
}
