//! The video-review provider's OAuth 2.0 app (`REVIEWVIDEO_*`).

use super::env::{Env, parse_url};
use super::{ConfigError, Secret};
use url::Url;

#[derive(Clone, Debug)]
pub struct OAuthProviderConfig {
    pub base_url: Url,
    pub client_id: String,
    pub client_secret: Secret,
    pub scopes: String,
    pub pkce: bool,
}

impl OAuthProviderConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        const BASE: &str = "REVIEWVIDEO_BASE_URL";
        let Some(base) = env.get(BASE) else {
            return Ok(None);
        };
        Ok(Some(OAuthProviderConfig {
            base_url: parse_url(BASE, &base)?,
            client_id: env.required("REVIEWVIDEO_CLIENT_ID", BASE)?,
            client_secret: env.required_secret("REVIEWVIDEO_CLIENT_SECRET", BASE)?,
            scopes: env
                .get("REVIEWVIDEO_SCOPES")
                .unwrap_or_else(|| "public private video_files".into()),
            pkce: env.flag("REVIEWVIDEO_PKCE", false)?,
        }))
    }
}
