//! The AI analysis backend: the protocol of `docs/providers/analysis-backend.md` (submit a
//! signed source URL under a client request token, poll the job, cancel it best effort, and a
//! completion webhook signed per Standard Webhooks).
//!
//! Every call is safe to send again, so all go through [`send`] with [`Retry::Idempotent`]: a
//! submit is deduplicated by its token at the backend, a read has no effect, and cancelling
//! twice is the same as once. Mapping of answers: 2xx → the job; 429 →
//! [`ProviderError::RateLimited`] with its `Retry-After`; 409 (a submit with the same token in
//! progress), 5xx or a body that breaks the protocol → [`ProviderError::Unavailable`]; other 4xx
//! → [`ProviderError::Rejected`] (permanent); no
//! answer within the per-request timeout → [`ProviderError::Timeout`].
//!
//! The result types serialize exactly as the backend sends them (snake_case): they are also
//! what we store as JSON and show to clients, so there is one representation, not a wire one
//! and a camelCase copy.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::http::{ProviderError, Retry, retry_after, send};
use super::webhooks::{WebhookError, WebhookHeaders, verify_webhook};
pub use crate::config::AnalysisConfig;

pub const PROVIDER: &str = "analysis backend";

/// Per-request timeout unless [`Analysis::with_timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// The `type` of the completion webhook's body.
pub const COMPLETED_EVENT: &str = "analysis.completed";

/// The adapter: one per configuration, cheap to clone.
#[derive(Clone, Debug)]
pub struct Analysis {
    cfg: AnalysisConfig,
    http: reqwest::Client,
    timeout: Duration,
}

/// What a submit sends. `client_request_token` identifies the job: the same token always
/// returns the same job, whatever the rest of the request says (1–128 characters from
/// `A-Z a-z 0-9 - _ . :`).
#[derive(Clone, Serialize)]
pub struct SubmitRequest {
    /// A pre-signed `GET` URL of the source video (no credentials are sent with it).
    pub source_url: String,
    pub client_request_token: String,
    /// Where the completion webhook goes; `None`: poll only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
}

impl std::fmt::Debug for SubmitRequest {
    // The source URL carries a signature that grants access: keep it out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubmitRequest")
            .field("source_url", &"<signed url>")
            .field("client_request_token", &self.client_request_token)
            .field("webhook_url", &self.webhook_url)
            .finish()
    }
}

crate::text_enum! {
    /// An analysis job's state: queued → running → succeeded | failed | canceled.
    pub enum AnalysisState {
        Queued = "queued",
        Running = "running",
        Succeeded = "succeeded",
        Failed = "failed",
        Canceled = "canceled",
    }
}

impl AnalysisState {
    /// Succeeded, failed and canceled jobs never change again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            AnalysisState::Succeeded | AnalysisState::Failed | AnalysisState::Canceled
        )
    }
}

/// A job as the backend reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AnalysisJob {
    /// The backend's job id (opaque).
    pub id: String,
    pub state: AnalysisState,
    /// Percent done, 0–100, never decreasing.
    pub progress: u8,
    /// Why the job failed (only when `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AnalysisFailure>,
    /// Only when `succeeded`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<AnalysisResult>,
}

/// A failed job's reason: `code` is a stable snake_case string (`source_unreachable`,
/// `source_invalid`, `source_too_large`, `analysis_failed`, `internal`, or one we do not know).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AnalysisFailure {
    pub code: String,
    pub message: String,
}

/// A succeeded job's output: the processed video, the overlay sidecar and the statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AnalysisResult {
    pub video: ResultFile,
    pub overlay: ResultFile,
    pub stats: ClipStats,
}

/// A result file hosted by the backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResultFile {
    /// A time-limited `GET` URL (at least an hour from when the job was read); no credentials.
    pub url: String,
    /// Exact byte length.
    pub size: u64,
    /// Lowercase hex SHA-256 of the bytes, when the backend gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub content_type: String,
}

/// A clip's statistics, times in milliseconds from the start of the video, speeds in km/h.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClipStats {
    pub duration_ms: u64,
    pub wave_count: u32,
    pub top_speed_kmh: f64,
    pub avg_speed_kmh: f64,
    /// Ride windows in time order.
    #[serde(default)]
    pub rides: Vec<RideWindow>,
    /// Predicted maneuvers in time order.
    #[serde(default)]
    pub maneuvers: Vec<PredictedManeuver>,
}

/// One ride: `start_ms` < `end_ms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RideWindow {
    pub start_ms: u64,
    pub end_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_speed_kmh: Option<f64>,
}

/// One predicted maneuver. `kind` is the model's vocabulary (`bottom_turn`, `cutback`, `snap`,
/// `floater`, `aerial`, `tube`, `re_entry`, `carve`, …) kept as text: the vocabulary grows, and a
/// new type must not make a whole analysis unreadable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PredictedManeuver {
    #[serde(rename = "type")]
    pub kind: String,
    pub at_ms: u64,
    /// 0 to 1.
    pub confidence: f64,
    /// Index into [`ClipStats::rides`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ride_index: Option<u32>,
}

/// A verified completion webhook.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisWebhook {
    /// `webhook-id`: the same on every retry of the event; dedupe on it.
    pub id: String,
    /// The job as it ended.
    pub job: AnalysisJob,
}

impl Analysis {
    pub fn new(cfg: AnalysisConfig, http: reqwest::Client) -> Self {
        Analysis {
            cfg,
            http,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The adapter for an optional configuration: `None` is [`ProviderError::NotConfigured`].
    pub fn from_config(
        cfg: Option<&AnalysisConfig>,
        http: reqwest::Client,
    ) -> Result<Self, ProviderError> {
        cfg.map(|c| Analysis::new(c.clone(), http))
            .ok_or(ProviderError::NotConfigured(PROVIDER))
    }

    /// Sets the per-request timeout (each attempt, body included).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Creates the job for `req.client_request_token`, or returns the job that token already
    /// made (in whatever state it is). Safe to retry.
    pub async fn submit(&self, req: &SubmitRequest) -> Result<AnalysisJob, ProviderError> {
        let url = self.url(&[]);
        self.call(|| self.http.post(url.clone()).json(req)).await
    }

    /// Reads a job.
    pub async fn get(&self, id: &str) -> Result<AnalysisJob, ProviderError> {
        let url = self.job_url(id, None)?;
        self.call(|| self.http.get(url.clone())).await
    }

    /// Asks the backend to stop a job (best effort) and returns it as it is then: `canceled`,
    /// or unchanged when it had already ended.
    pub async fn cancel(&self, id: &str) -> Result<AnalysisJob, ProviderError> {
        let url = self.job_url(id, Some("cancel"))?;
        self.call(|| self.http.post(url.clone())).await
    }

    /// Verifies a completion webhook with the configured secret (see
    /// [`super::webhooks::verify_webhook`]) and reads the job it carries. Without a configured
    /// secret every delivery is refused.
    pub fn verify_webhook(
        &self,
        headers: WebhookHeaders<'_>,
        body: &[u8],
        now_unix: i64,
    ) -> Result<AnalysisWebhook, WebhookError> {
        let secret = self
            .cfg
            .webhook_secret
            .as_ref()
            .map(|s| s.expose().as_str())
            .ok_or(WebhookError::NotConfigured)?;
        let event = verify_webhook(secret, headers, body, now_unix)?;
        if event.event_type != COMPLETED_EVENT {
            return Err(WebhookError::MalformedBody(format!(
                "unexpected event type `{}`",
                event.event_type
            )));
        }
        let job: AnalysisJob = serde_json::from_value(event.data)
            .map_err(|e| WebhookError::MalformedBody(e.to_string()))?;
        check(&job).map_err(WebhookError::MalformedBody)?;
        Ok(AnalysisWebhook { id: event.id, job })
    }

    /// `{base}/v1/analyses[/…]`, keeping a path the base may have.
    fn url(&self, extra: &[&str]) -> url::Url {
        let mut u = self.cfg.base_url.clone();
        u.path_segments_mut()
            .expect("the configured base URL has a host")
            .pop_if_empty()
            .extend(["v1", "analyses"])
            .extend(extra);
        u
    }

    fn job_url(&self, id: &str, action: Option<&str>) -> Result<url::Url, ProviderError> {
        if id.is_empty() {
            // `…/analyses/` would be another resource: refuse before sending anything.
            return Err(ProviderError::Rejected {
                provider: PROVIDER,
                status: 404,
                message: "empty analysis id".into(),
            });
        }
        Ok(match action {
            Some(a) => self.url(&[id, a]),
            None => self.url(&[id]),
        })
    }

    async fn call(
        &self,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<AnalysisJob, ProviderError> {
        let resp = send(PROVIDER, Retry::Idempotent, || {
            build()
                .bearer_auth(self.cfg.api_key.expose())
                .header(reqwest::header::ACCEPT, "application/json")
                .timeout(self.timeout)
        })
        .await?;
        let status = resp.status();
        let wait = retry_after(resp.headers());
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
        if status.is_success() {
            let job: AnalysisJob =
                serde_json::from_slice(&bytes).map_err(|e| unexpected(e.to_string()))?;
            check(&job).map_err(unexpected)?;
            return Ok(job);
        }
        let message = error_message(&bytes);
        if status.as_u16() == 429 {
            Err(ProviderError::RateLimited {
                provider: PROVIDER,
                retry_after: wait,
            })
        } else if status.as_u16() == 409 {
            // `request_in_progress`: the same token's first submit is still being handled;
            // the protocol says to retry shortly, so this one 4xx is transient.
            Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("status {status}: {message}"),
            })
        } else if status.is_client_error() {
            Err(ProviderError::Rejected {
                provider: PROVIDER,
                status: status.as_u16(),
                message,
            })
        } else {
            Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("status {status}: {message}"),
            })
        }
    }
}

fn unexpected(message: String) -> ProviderError {
    ProviderError::Unavailable {
        provider: PROVIDER,
        message: format!("unexpected response body: {message}"),
    }
}

/// `code: message` from the protocol's error body, else the start of the body as text.
fn error_message(bytes: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Body {
        error: Inner,
    }
    #[derive(Deserialize)]
    struct Inner {
        code: String,
        #[serde(default)]
        message: String,
    }
    match serde_json::from_slice::<Body>(bytes) {
        Ok(b) => format!("{}: {}", b.error.code, b.error.message),
        Err(_) => String::from_utf8_lossy(bytes).chars().take(300).collect(),
    }
}

/// The promises of the protocol a caller relies on; a job that breaks one is refused rather
/// than stored.
fn check(job: &AnalysisJob) -> Result<(), String> {
    if job.id.is_empty() {
        return Err("job without an id".into());
    }
    if job.progress > 100 {
        return Err(format!("progress {} is over 100", job.progress));
    }
    match (job.state, &job.result) {
        (AnalysisState::Succeeded, None) => return Err("succeeded job without a result".into()),
        (AnalysisState::Succeeded, Some(r)) => {
            let s = &r.stats;
            let speeds = [s.top_speed_kmh, s.avg_speed_kmh];
            if speeds.iter().any(|v| !v.is_finite() || *v < 0.0) {
                return Err("speeds must be finite and not negative".into());
            }
            if s.rides.iter().any(|w| w.start_ms >= w.end_ms) {
                return Err("a ride ends before it starts".into());
            }
            if s.maneuvers
                .iter()
                .any(|m| !(0.0..=1.0).contains(&m.confidence))
            {
                return Err("a maneuver confidence is outside 0..1".into());
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter(base: &str) -> Analysis {
        Analysis::new(
            AnalysisConfig {
                base_url: base.parse().unwrap(),
                api_key: "k".into(),
                webhook_secret: None,
            },
            reqwest::Client::new(),
        )
    }

    #[test]
    fn urls_keep_the_base_path_and_escape_the_id() {
        let a = adapter("https://h.example/prefix/");
        assert_eq!(a.url(&[]).as_str(), "https://h.example/prefix/v1/analyses");
        let a = adapter("https://h.example/prefix");
        assert_eq!(
            a.job_url("an 1/x", Some("cancel")).unwrap().as_str(),
            "https://h.example/prefix/v1/analyses/an%201%2Fx/cancel"
        );
        let a = adapter("https://h.example");
        assert_eq!(
            a.job_url("an_1", None).unwrap().as_str(),
            "https://h.example/v1/analyses/an_1"
        );
        assert!(a.job_url("", None).unwrap_err().is_permanent());
    }

    #[test]
    fn jobs_round_trip_in_the_backend_spelling() {
        let wire = serde_json::json!({
            "id": "an_1", "state": "succeeded", "progress": 100,
            "created_at": "2026-11-23T14:02:11Z", "updated_at": "2026-11-23T14:03:02Z",
            "result": {
                "video": {"url": "http://f/v.mp4", "size": 10, "sha256": "ab", "content_type": "video/mp4"},
                "overlay": {"url": "http://f/o.json", "size": 2, "content_type": "application/json"},
                "stats": {"duration_ms": 1000, "wave_count": 1, "top_speed_kmh": 30.5,
                    "avg_speed_kmh": 20.0, "rides": [{"start_ms": 1, "end_ms": 900}],
                    "maneuvers": [{"type": "cutback", "at_ms": 5, "confidence": 0.5, "ride_index": 0}]}
            }
        });
        let job: AnalysisJob = serde_json::from_value(wire.clone()).unwrap();
        assert!(job.state.is_terminal());
        check(&job).unwrap();
        let back = serde_json::to_value(&job).unwrap();
        assert_eq!(back["result"]["stats"]["maneuvers"][0]["type"], "cutback");
        assert_eq!(back["result"]["stats"]["duration_ms"], 1000);
        assert!(back["result"]["overlay"].get("sha256").is_none());
        assert_eq!(back["result"], wire["result"]);
        assert!(!AnalysisState::Running.is_terminal());
        assert!(!AnalysisState::Queued.is_terminal());
    }

    #[test]
    fn jobs_that_break_the_protocol_are_refused() {
        let mut job = AnalysisJob {
            id: "an_1".into(),
            state: AnalysisState::Succeeded,
            progress: 100,
            error: None,
            result: None,
        };
        assert!(check(&job).unwrap_err().contains("without a result"));
        job.state = AnalysisState::Running;
        job.progress = 101;
        assert!(check(&job).is_err());
        let e: Result<AnalysisJob, _> =
            serde_json::from_str(r#"{"id":"a","state":"paused","progress":1}"#);
        assert!(e.unwrap_err().to_string().contains("paused"));
    }

    #[test]
    fn error_bodies_are_summarized() {
        assert_eq!(
            error_message(br#"{"error":{"code":"not_found","message":"no such job"}}"#),
            "not_found: no such job"
        );
        assert_eq!(error_message(b"plain"), "plain");
    }

    #[test]
    fn submit_requests_do_not_log_the_signed_url() {
        let r = SubmitRequest {
            source_url: "https://x/stream?token=secret".into(),
            client_request_token: "t".into(),
            webhook_url: None,
        };
        assert!(!format!("{r:?}").contains("secret"));
        let v = serde_json::to_value(&r).unwrap();
        assert!(v.get("webhook_url").is_none());
        assert_eq!(v["source_url"], "https://x/stream?token=secret");
    }
}
