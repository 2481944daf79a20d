//! The footage area's jobs: each payload with its kind, queue, attempts and idempotency key.
//! The area's operations enqueue them in their own transactions (`crate::job::enqueue`); the
//! worker runs them (`worker::handlers::footage`).

use crate::db::Id;
use crate::job::{Job, Queue};
use crate::storage::Store;
use serde::{Deserialize, Serialize};

/// Read a clip's original with ffprobe (media queue).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeClip {
    pub org_id: Id,
    pub clip_id: Id,
}

/// Make a clip's web media: the H.264 rendition(s), the poster and the scrub strip (media
/// queue; `domain::footage::media`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderClip {
    pub org_id: Id,
    pub clip_id: Id,
}

/// Sign the clip's source and submit it to the analysis backend (providers queue). The client
/// request token is `{clip_id}:{generation}`, so a retried submit is the same backend job.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyzeClip {
    pub org_id: Id,
    pub clip_id: Id,
    pub generation: i64,
}

/// Read the backend job's state once; enqueues the next round until the job ends.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PollClip {
    pub org_id: Id,
    pub clip_id: Id,
    pub generation: i64,
    pub round: u32,
}

/// Best-effort cancel of the backend job (the clip is already cancelled locally).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelAnalysis {
    pub org_id: Id,
    pub clip_id: Id,
    pub analysis_id: String,
}

/// Copy a processed clip's video and overlay into our stores (media queue).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreClip {
    pub org_id: Id,
    pub clip_id: Id,
}

/// Store every processed clip of a footage session, reporting progress per clip.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreSession {
    pub org_id: Id,
    pub session_id: Id,
}

/// Join a complete resumable upload's parts into the clip's original and make the clip
/// (media queue).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JoinUpload {
    pub org_id: Id,
    pub upload_id: Id,
}

/// Storage objects whose rows are gone: deleted until none is left (retried until done).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteObjects {
    pub org_id: Id,
    /// What was deleted (`clip` or `session`) and its id, for the job list.
    pub owner: String,
    pub objects: Vec<StoredObject>,
    /// Key prefixes to remove whole (a session's upload parts).
    #[serde(default)]
    pub prefixes: Vec<StoredObject>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredObject {
    pub store: String,
    pub key: String,
}

impl StoredObject {
    pub fn new(store: Store, key: impl Into<String>) -> Self {
        StoredObject {
            store: store.name().to_string(),
            key: key.into(),
        }
    }

    pub fn store(&self) -> Option<Store> {
        Store::from_name(&self.store)
    }
}

impl Job for ProbeClip {
    const KIND: &'static str = "footage.probe";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.clip_id.to_string())
    }
}

impl Job for RenderClip {
    const KIND: &'static str = "footage.render";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 3;
    const CANCELLABLE: bool = true;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.clip_id.to_string())
    }
}

impl Job for AnalyzeClip {
    const KIND: &'static str = "footage.analyze";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 6;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}", self.clip_id, self.generation))
    }
}

impl Job for PollClip {
    const KIND: &'static str = "footage.poll";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 8;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!(
            "{}:{}:{}",
            self.clip_id, self.generation, self.round
        ))
    }
}

impl Job for CancelAnalysis {
    const KIND: &'static str = "footage.cancel_analysis";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.analysis_id.clone())
    }
}

impl Job for StoreClip {
    const KIND: &'static str = "footage.store";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.clip_id.to_string())
    }
}

impl Job for StoreSession {
    const KIND: &'static str = "footage.store_session";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.session_id.to_string())
    }
}

impl Job for DeleteObjects {
    const KIND: &'static str = "footage.delete_objects";
    const QUEUE: Queue = Queue::Media;
    /// With the backoff capped at an hour, about a day of retries: objects are never orphaned
    /// by a storage outage.
    const MAX_ATTEMPTS: u32 = 40;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.owner.clone())
    }
}

impl Job for JoinUpload {
    const KIND: &'static str = "footage.join_upload";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.upload_id.to_string())
    }
}
