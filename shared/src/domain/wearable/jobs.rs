//! The wearable area's jobs: each payload with its kind, queue, attempts and idempotency key.
//! The area's operations enqueue them in their own transactions; the worker runs them
//! (`worker::handlers::wearable`).

use crate::db::{Id, Ts, Tx};
use crate::domain::footage::jobs::{DeleteObjects, StoredObject};
use crate::job::{Job, Owner, Queue, enqueue, enqueue_at};
use crate::storage::Store;
use serde::{Deserialize, Serialize};

/// Run the detector over a session (after new samples, or asked for again).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeriveSession {
    pub org_id: Id,
    pub session_id: Id,
}

/// Read a session's bulk sample file into chunks, then derive.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestFile {
    pub org_id: Id,
    pub session_id: Id,
}

/// Look at a session when it may have expired: a live one that went quiet ends (and is
/// derived), one still waiting for its file after [`UPLOAD_WAIT_HOURS`] is removed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpireSession {
    pub org_id: Id,
    pub session_id: Id,
    /// Unix ms this check was planned for (part of the idempotency key).
    pub due_ms: i64,
}

impl Job for DeriveSession {
    const KIND: &'static str = "wearable.derive";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 5;

    /// One live derivation per session: a rederive while one is queued joins it.
    fn idempotency_key(&self) -> Option<String> {
        Some(self.session_id.to_string())
    }
}

impl Job for IngestFile {
    const KIND: &'static str = "wearable.ingest";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.session_id.to_string())
    }
}

impl Job for ExpireSession {
    const KIND: &'static str = "wearable.expire";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}", self.session_id, self.due_ms))
    }
}

/// Enqueues `job` for workspace `org`; answers the job's id.
pub(super) async fn push(
    tx: &mut Tx,
    job: &impl Job,
    org: Id,
    user: Option<Id>,
) -> crate::Result<Id> {
    Ok(enqueue(tx, job, Owner::new(org, user)).await?.id)
}

/// Plans an expiry check for its due time.
pub(super) async fn plan(tx: &mut Tx, job: &ExpireSession) -> crate::Result<()> {
    let due =
        chrono::DateTime::from_timestamp_millis(job.due_ms).map_or_else(Ts::now, Ts::from_datetime);
    enqueue_at(tx, job, Owner::new(job.org_id, None), due).await?;
    Ok(())
}

/// The removal of a session's file from raw-uploads once its row is gone.
pub(super) fn delete_upload(org: Id, key: String) -> DeleteObjects {
    DeleteObjects {
        org_id: org,
        owner: "wearable_session".into(),
        objects: vec![StoredObject::new(Store::RawUploads, key)],
        prefixes: Vec::new(),
    }
}
