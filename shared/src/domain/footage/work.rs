//! The footage area's background work, as payloads. The domain decides what work an operation
//! needs and enqueues it in the operation's transaction through a [`JobQueue`]; the `jobs`
//! crate gives each payload its job kind, queue, attempts and idempotency key, and the worker
//! runs it. (The `jobs` crate depends on `shared`, so the domain names the work and `jobs`
//! implements the queue.)

use crate::db::{Id, Tx};
use crate::storage::Store;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// Read a clip's original with ffprobe (media queue).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeClip {
    pub org_id: Id,
    pub clip_id: Id,
}

/// Sign the clip's source and submit it to the analysis backend (providers queue). The client
/// request token is `{clip_id}:{generation}`, so a retried submit is the same backend job.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubmitClip {
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

/// One piece of footage work.
#[derive(Debug, Clone)]
pub enum Work {
    Probe(ProbeClip),
    Submit(SubmitClip),
    /// Not before the given number of milliseconds from now.
    Poll(PollClip, u64),
    Cancel(CancelAnalysis),
    Store(StoreClip),
    StoreSession(StoreSession),
    DeleteObjects(DeleteObjects),
    JoinUpload(JoinUpload),
}

/// A job enqueued for some work: its id, and whether a live job for the same work was reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    pub job_id: Id,
    pub existing: bool,
}

/// Enqueues work in the caller's transaction (implemented by `jobs::Enqueuer`).
pub trait JobQueue: Send + Sync {
    fn enqueue<'a>(
        &'a self,
        tx: &'a mut Tx,
        work: Work,
        user: Option<Id>,
    ) -> BoxFuture<'a, crate::Result<Queued>>;
}
