//! The analysis backend (`ANALYSIS_*`, `docs/providers/analysis-backend.md`).

use super::env::{Env, err, parse_url};
use super::{ConfigError, Secret};
use url::Url;

#[derive(Clone, Debug)]
pub struct AnalysisConfig {
    /// The backend's base URL; the adapter appends `/v1/analyses…`.
    pub base_url: Url,
    /// Sent as `Authorization: Bearer`.
    pub api_key: Secret,
    /// `whsec_<base64>`: verifies completion webhooks. `None`: webhooks are refused and the
    /// app relies on polling.
    pub webhook_secret: Option<Secret>,
}

impl AnalysisConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        const BASE: &str = "ANALYSIS_BASE_URL";
        let Some(base) = env.get(BASE) else {
            return Ok(None);
        };
        let webhook_secret = env.secret("ANALYSIS_WEBHOOK_SECRET");
        if let Some(s) = &webhook_secret {
            crate::providers::webhooks::decode_secret(s.expose()).map_err(|_| {
                err(
                    "ANALYSIS_WEBHOOK_SECRET",
                    "must be whsec_ followed by the base64 of the secret",
                )
            })?;
        }
        Ok(Some(AnalysisConfig {
            base_url: parse_url(BASE, &base)?,
            api_key: env.required_secret("ANALYSIS_API_KEY", BASE)?,
            webhook_secret,
        }))
    }
}
