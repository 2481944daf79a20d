//! The payment processor, Stripe protocol (`PAYMENTS_*`, `docs/billing.md`).

use super::env::{Env, err, parse_url};
use super::{ConfigError, Secret};
use url::Url;

#[derive(Clone, Debug)]
pub struct PaymentsConfig {
    /// `https://api.stripe.com` in production; the adapter appends `/v1/…`.
    pub base_url: Url,
    /// Sent as `Authorization: Bearer` (`sk_live_…`/`sk_test_…`).
    pub secret_key: Secret,
    /// The webhook endpoint's signing secrets (`whsec_…`), several during a rotation; empty:
    /// the webhook answers 503 `provider_not_configured`.
    pub webhook_secrets: Vec<Secret>,
    /// The monthly platform prices a workspace may subscribe to (`price_…`).
    pub price_ids: Vec<String>,
    /// Whether this deployment takes live events (`PAYMENTS_LIVEMODE`, default false): an event
    /// of the other mode is refused.
    pub livemode: bool,
    /// The platform's share of marketplace payments, in percent (`PAYMENTS_APPLICATION_FEE_PERCENT`,
    /// default 10).
    pub application_fee_percent: u32,
}

impl PaymentsConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        const BASE: &str = "PAYMENTS_BASE_URL";
        let Some(base) = env.get(BASE) else {
            return Ok(None);
        };
        let fee = env.num("PAYMENTS_APPLICATION_FEE_PERCENT", 10)?;
        if fee > 100 {
            return Err(err(
                "PAYMENTS_APPLICATION_FEE_PERCENT",
                "must be between 0 and 100",
            ));
        }
        Ok(Some(PaymentsConfig {
            base_url: parse_url(BASE, &base)?,
            secret_key: env.required_secret("PAYMENTS_SECRET_KEY", BASE)?,
            webhook_secrets: env
                .list("PAYMENTS_WEBHOOK_SECRETS")
                .into_iter()
                .map(Secret::from)
                .collect(),
            price_ids: env.list("PAYMENTS_PRICE_IDS"),
            livemode: env.flag("PAYMENTS_LIVEMODE", false)?,
            application_fee_percent: fee as u32,
        }))
    }
}
