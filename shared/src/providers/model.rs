//! The generative model, over the OpenAI-compatible HTTP API that hosted models and local
//! servers both implement:
//!
//! - `POST {base}/v1/audio/transcriptions` (multipart: `file`, `model`, `response_format=json`)
//!   → `{"text": …}`: voice notes;
//! - `POST {base}/v1/chat/completions` with `response_format: {type: "json_schema", …}` →
//!   `choices[0].message.content`, a JSON document that must match the schema: coaching text.
//!
//! Errors: 401/403/400 are [`ProviderError::Rejected`] (not retried), 429 is
//! [`ProviderError::RateLimited`] with its `Retry-After`, 5xx and unreachable are retried three
//! times then [`ProviderError::Unavailable`], a slow answer is [`ProviderError::Timeout`], and a
//! body that is not the documented JSON (or an answer outside the schema) is `Unavailable`: a
//! later attempt may do better.

use bytes::Bytes;
use serde_json::{Value, json};

use super::http::{ProviderError, Retry, json_or_error, send};
use crate::config::ModelConfig;

const PROVIDER: &str = "generative model";

/// The adapter; cheap to clone.
#[derive(Clone, Debug)]
pub struct Model {
    cfg: ModelConfig,
    http: reqwest::Client,
}

/// A transcript and the model that wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Transcript {
    pub text: String,
    pub model: String,
}

/// A structured answer and the model that wrote it (`model` as the API names it, with its
/// version when the API gives one, e.g. `gpt-4o-mini-2024-07-18`).
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub value: Value,
    pub model: String,
}

impl Model {
    pub fn new(cfg: ModelConfig, http: reqwest::Client) -> Self {
        Model { cfg, http }
    }

    /// The adapter for an optional configuration: `None` is [`ProviderError::NotConfigured`].
    pub fn from_config(
        cfg: Option<&ModelConfig>,
        http: reqwest::Client,
    ) -> Result<Self, ProviderError> {
        cfg.map(|c| Model::new(c.clone(), http))
            .ok_or(ProviderError::NotConfigured(PROVIDER))
    }

    fn url(&self, path: &[&str]) -> url::Url {
        let mut u = self.cfg.base_url.clone();
        u.path_segments_mut()
            .expect("the configured base URL has a host")
            .pop_if_empty()
            .push("v1")
            .extend(path);
        u
    }

    /// Transcribes one audio file (`file_name` tells the server its format).
    pub async fn transcribe(
        &self,
        audio: Bytes,
        file_name: &str,
        content_type: &str,
    ) -> Result<Transcript, ProviderError> {
        let (boundary, body) = multipart(&[
            Part::Text("model", &self.cfg.transcribe_model),
            Part::Text("response_format", "json"),
            Part::File("file", file_name, content_type, &audio),
        ]);
        let body = Bytes::from(body);
        let url = self.url(&["audio", "transcriptions"]);
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http
                .post(url.clone())
                .bearer_auth(self.cfg.api_key.expose())
                .header(
                    reqwest::header::CONTENT_TYPE,
                    format!("multipart/form-data; boundary={boundary}"),
                )
                .body(body.clone())
                .timeout(self.cfg.timeout)
        })
        .await?;
        let v: Value = json_or_error(PROVIDER, resp).await?;
        let text = v["text"]
            .as_str()
            .ok_or_else(|| unexpected("the transcription has no text"))?;
        Ok(Transcript {
            text: text.trim().to_string(),
            model: self.cfg.transcribe_model.clone(),
        })
    }

    /// Asks the chat model for a JSON answer matching `schema` (a JSON Schema object named
    /// `name`), given a system and a user message.
    pub async fn answer(
        &self,
        system: &str,
        user: &str,
        name: &str,
        schema: &Value,
    ) -> Result<Answer, ProviderError> {
        let req = json!({
            "model": self.cfg.chat_model,
            "messages": [
                { "role": "system", "content": system },
                { "role": "user", "content": user },
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": { "name": name, "schema": schema, "strict": true },
            },
        });
        let url = self.url(&["chat", "completions"]);
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http
                .post(url.clone())
                .bearer_auth(self.cfg.api_key.expose())
                .json(&req)
                .timeout(self.cfg.timeout)
        })
        .await?;
        let v: Value = json_or_error(PROVIDER, resp).await?;
        let content = v["choices"][0]["message"]["content"]
            .as_str()
            .ok_or_else(|| unexpected("the completion has no message content"))?;
        let value: Value = serde_json::from_str(content)
            .map_err(|e| unexpected(&format!("the answer is not JSON: {e}")))?;
        matches_schema(&value, schema, "answer").map_err(|e| unexpected(&e))?;
        let model = v["model"]
            .as_str()
            .unwrap_or(&self.cfg.chat_model)
            .to_string();
        Ok(Answer { value, model })
    }
}

fn unexpected(message: &str) -> ProviderError {
    ProviderError::Unavailable {
        provider: PROVIDER,
        message: message.to_string(),
    }
}

enum Part<'a> {
    Text(&'a str, &'a str),
    File(&'a str, &'a str, &'a str, &'a [u8]),
}

/// A `multipart/form-data` body (RFC 7578) and its boundary. Field and file names are ours or
/// sanitised (quotes and line breaks dropped), so no escaping is needed.
fn multipart(parts: &[Part<'_>]) -> (String, Vec<u8>) {
    let boundary = format!(
        "----surfcoach{}",
        hex::encode(crate::crypto::random_bytes(12))
    );
    let clean = |s: &str| s.replace(['"', '\r', '\n', '\\'], "");
    let mut body = Vec::new();
    for p in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match p {
            Part::Text(name, value) => {
                body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                        .as_bytes(),
                );
            }
            Part::File(name, file, ct, bytes) => {
                body.extend_from_slice(
                    format!(
                        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{}\"\r\nContent-Type: {}\r\n\r\n",
                        clean(file),
                        clean(ct)
                    )
                    .as_bytes(),
                );
                body.extend_from_slice(bytes);
                body.extend_from_slice(b"\r\n");
            }
        }
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (boundary, body)
}

/// Checks `v` against the subset of JSON Schema our coaching schemas use: `type` (object,
/// array, string, number, integer, boolean), `properties` with `required`, `items`, `enum`.
/// The model is asked for strict output, but a server that ignores the schema must not slip an
/// answer of the wrong shape into what coaches read.
pub fn matches_schema(v: &Value, schema: &Value, at: &str) -> Result<(), String> {
    if let Some(choices) = schema["enum"].as_array()
        && !choices.contains(v)
    {
        return Err(format!("{at} is not one of the allowed values"));
    }
    let ok = match schema["type"].as_str() {
        None => true,
        Some("object") => v.is_object(),
        Some("array") => v.is_array(),
        Some("string") => v.is_string(),
        Some("number") => v.is_number(),
        Some("integer") => v.is_i64() || v.is_u64(),
        Some("boolean") => v.is_boolean(),
        Some(_) => true,
    };
    if !ok {
        return Err(format!("{at} is not of type {}", schema["type"]));
    }
    if let Some(required) = schema["required"].as_array() {
        for r in required.iter().filter_map(Value::as_str) {
            if v.get(r).is_none() {
                return Err(format!("{at}.{r} is missing"));
            }
        }
    }
    if let (Some(props), Some(obj)) = (schema["properties"].as_object(), v.as_object()) {
        for (k, s) in props {
            if let Some(x) = obj.get(k) {
                matches_schema(x, s, &format!("{at}.{k}"))?;
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), v.as_array()) {
        for (i, x) in list.iter().enumerate() {
            matches_schema(x, items, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multipart_body_carries_each_field_and_the_file() {
        let (b, body) = multipart(&[
            Part::Text("model", "whisper-1"),
            Part::File("file", "no\"te.m4a", "audio/mp4", b"\x00\x01audio"),
        ]);
        let text = String::from_utf8_lossy(&body);
        assert!(text.starts_with(&format!("--{b}\r\n")));
        assert!(text.contains("name=\"model\"\r\n\r\nwhisper-1\r\n"));
        assert!(text.contains("filename=\"note.m4a\"\r\nContent-Type: audio/mp4\r\n\r\n"));
        assert!(text.ends_with(&format!("--{b}--\r\n")));
        assert!(body.windows(7).any(|w| w == b"\x00\x01audio"));
    }

    #[test]
    fn answers_are_checked_against_the_schema() {
        let schema = json!({
            "type": "object",
            "required": ["summary", "drills"],
            "properties": {
                "summary": { "type": "string" },
                "drills": { "type": "array", "items": { "type": "string" } },
                "level": { "type": "string", "enum": ["beginner", "advanced"] }
            }
        });
        let ok = json!({ "summary": "s", "drills": ["a"], "level": "advanced" });
        assert!(matches_schema(&ok, &schema, "answer").is_ok());
        for (bad, why) in [
            (json!({ "summary": "s" }), "answer.drills is missing"),
            (
                json!({ "summary": 1, "drills": [] }),
                "answer.summary is not of type \"string\"",
            ),
            (
                json!({ "summary": "s", "drills": [3] }),
                "answer.drills[0] is not of type \"string\"",
            ),
            (
                json!({ "summary": "s", "drills": [], "level": "pro" }),
                "answer.level is not one of the allowed values",
            ),
            (json!(["summary"]), "answer is not of type \"object\""),
        ] {
            assert_eq!(matches_schema(&bad, &schema, "answer").unwrap_err(), why);
        }
    }
}
