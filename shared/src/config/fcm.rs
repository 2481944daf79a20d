//! Firebase Cloud Messaging HTTP v1 (`FCM_SERVICE_ACCOUNT_FILE` or `FCM_SERVICE_ACCOUNT_JSON`,
//! `FCM_BASE_URL`, `FCM_TOKEN_URL`, `FCM_PROJECT_ID`).
//!
//! The service-account key is the JSON file Google's console gives (`type`, `project_id`,
//! `private_key_id`, `private_key` in PKCS#8 PEM, `client_email`, `token_uri`); it is read and
//! checked at start-up, so a bad key stops the process with the variable's name.

use super::env::{Env, err, parse_url};
use super::{ConfigError, Secret};
use serde::Deserialize;
use url::Url;

#[derive(Clone, Debug)]
pub struct FcmConfig {
    /// `https://fcm.googleapis.com`; `/v1/projects/{project}/messages:send` is appended.
    pub base_url: Url,
    /// The OAuth 2.0 token endpoint the signed JWT is exchanged at (the key's `token_uri`).
    pub token_url: Url,
    pub project_id: String,
    pub client_email: String,
    pub private_key_id: Option<String>,
    /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    pub private_key_pem: Secret,
}

#[derive(Deserialize)]
struct ServiceAccount {
    #[serde(default)]
    project_id: Option<String>,
    #[serde(default)]
    private_key_id: Option<String>,
    private_key: String,
    client_email: String,
    #[serde(default)]
    token_uri: Option<String>,
}

impl FcmConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        const FILE: &str = "FCM_SERVICE_ACCOUNT_FILE";
        const JSON: &str = "FCM_SERVICE_ACCOUNT_JSON";
        let (var, text) = match (env.get(FILE), env.get(JSON)) {
            (Some(path), _) => (
                FILE,
                std::fs::read_to_string(&path)
                    .map_err(|e| err(FILE, format!("cannot read {path}: {e}")))?,
            ),
            (None, Some(json)) => (JSON, json),
            (None, None) => return Ok(None),
        };
        let key: ServiceAccount = serde_json::from_str(&text).map_err(|e| {
            err(
                var,
                format!("not a service-account key (JSON with private_key, client_email): {e}"),
            )
        })?;
        crate::providers::fcm::signing_key(&key.private_key)
            .map_err(|m| err(var, format!("private_key: {m}")))?;
        let project_id = env
            .get("FCM_PROJECT_ID")
            .or(key.project_id)
            .ok_or_else(|| err("FCM_PROJECT_ID", "required: the key names no project_id"))?;
        let token_url = match env.get("FCM_TOKEN_URL") {
            Some(v) => parse_url("FCM_TOKEN_URL", &v)?,
            None => parse_url(
                var,
                key.token_uri
                    .as_deref()
                    .unwrap_or("https://oauth2.googleapis.com/token"),
            )?,
        };
        Ok(Some(FcmConfig {
            base_url: parse_url(
                "FCM_BASE_URL",
                &env.get("FCM_BASE_URL")
                    .unwrap_or_else(|| "https://fcm.googleapis.com".into()),
            )?,
            token_url,
            project_id,
            client_email: key.client_email,
            private_key_id: key.private_key_id,
            private_key_pem: Secret::new(key.private_key),
        }))
    }
}
