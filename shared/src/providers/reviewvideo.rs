//! The video-review provider's OAuth 2.0 authorization-code flow (Vimeo-style endpoints:
//! `/oauth/authorize`, `/oauth/access_token` with HTTP Basic client authentication, optional
//! PKCE S256).

use super::http::{ProviderError, Retry, json_or_error, send};
use crate::config::OAuthProviderConfig;
use serde::Deserialize;
use serde_json::Value;

pub const PROVIDER: &str = "reviewvideo";

#[derive(Clone, Debug)]
pub struct ReviewVideo {
    cfg: OAuthProviderConfig,
    http: reqwest::Client,
}

#[derive(Debug, Deserialize)]
pub struct TokenResponse {
    pub access_token: String,
    #[serde(default)]
    pub token_type: String,
    #[serde(default)]
    pub scope: String,
    #[serde(default)]
    pub user: Value,
}

impl ReviewVideo {
    pub fn new(cfg: OAuthProviderConfig, http: reqwest::Client) -> Self {
        ReviewVideo { cfg, http }
    }

    pub fn uses_pkce(&self) -> bool {
        self.cfg.pkce
    }

    /// The URL to send the browser to.
    pub fn authorize_url(
        &self,
        redirect_uri: &str,
        state: &str,
        code_challenge: Option<&str>,
    ) -> String {
        let mut url = self
            .cfg
            .base_url
            .join("oauth/authorize")
            .expect("base URL joins a relative path");
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &self.cfg.client_id)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("scope", &self.cfg.scopes)
                .append_pair("state", state);
            if let Some(ch) = code_challenge {
                q.append_pair("code_challenge", ch)
                    .append_pair("code_challenge_method", "S256");
            }
        }
        url.to_string()
    }

    /// Exchanges an authorization code for an access token.
    pub async fn exchange_code(
        &self,
        code: &str,
        redirect_uri: &str,
        code_verifier: Option<&str>,
    ) -> Result<TokenResponse, ProviderError> {
        let url = self
            .cfg
            .base_url
            .join("oauth/access_token")
            .expect("base URL joins a relative path");
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
        ];
        if let Some(v) = code_verifier {
            form.push(("code_verifier", v));
        }
        // Codes are single use: the exchange is never retried.
        let resp = send(PROVIDER, Retry::Once, || {
            self.http
                .post(url.clone())
                .basic_auth(&self.cfg.client_id, Some(self.cfg.client_secret.expose()))
                .header(
                    "Accept",
                    "application/vnd.vimeo.*+json;version=3.4, application/json",
                )
                .form(&form)
        })
        .await?;
        json_or_error(PROVIDER, resp).await
    }
}
