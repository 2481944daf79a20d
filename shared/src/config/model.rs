//! The generative model (`MODEL_*`).

use super::env::{Env, parse_url};
use super::{ConfigError, Secret};
use std::time::Duration;
use url::Url;

/// The generative model: an OpenAI-compatible HTTP API (`POST /v1/audio/transcriptions`,
/// `POST /v1/chat/completions`), hosted or a local server speaking the same API.
#[derive(Clone, Debug)]
pub struct ModelConfig {
    /// The API's base URL; the adapter appends `/v1/…`.
    pub base_url: Url,
    /// Sent as `Authorization: Bearer`.
    pub api_key: Secret,
    /// The transcription model (`MODEL_TRANSCRIBE`, default `whisper-1`).
    pub transcribe_model: String,
    /// The chat model for coaching text (`MODEL_CHAT`, default `gpt-4o-mini`).
    pub chat_model: String,
    /// How long one request may take, body included (`MODEL_TIMEOUT_MS`, default 120000: a
    /// 25 MiB recording takes a while to transcribe).
    pub timeout: Duration,
}

impl ModelConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        const BASE: &str = "MODEL_BASE_URL";
        let Some(base) = env.get(BASE) else {
            return Ok(None);
        };
        Ok(Some(ModelConfig {
            base_url: parse_url(BASE, &base)?,
            api_key: env.required_secret("MODEL_API_KEY", BASE)?,
            transcribe_model: env
                .get("MODEL_TRANSCRIBE")
                .unwrap_or_else(|| "whisper-1".into()),
            chat_model: env
                .get("MODEL_CHAT")
                .unwrap_or_else(|| "gpt-4o-mini".into()),
            timeout: env.timeout_ms("MODEL_TIMEOUT_MS", 120_000)?,
        }))
    }
}
