//! The reviews and coaching jobs: each payload with its kind, queue, attempts and idempotency
//! key. The area's operations enqueue them in their own transactions (`crate::job::enqueue`);
//! the worker runs them (`worker::handlers::{reviews, coaching}`).

use crate::db::Id;
use crate::domain::footage::jobs::{DeleteObjects, StoredObject};
use crate::job::{Job, Queue};
use crate::storage::Store;
use serde::{Deserialize, Serialize};

/// Assemble a review: its voice notes transcribed best-effort, then `ready`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildReview {
    pub org_id: Id,
    pub review_id: Id,
    /// The review's `updated_at` when the build was asked for, in milliseconds: a rebuild after
    /// an edit is a new job, a second click on the same review is the same one.
    pub revision: i64,
}

/// Transcribe one voice note (a child of the build; one live job per note).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscribeNote {
    pub org_id: Id,
    pub review_id: Id,
    pub note_id: Id,
}

/// Generate coaching feedback for clips of a footage session: one feedback per clip
/// (`per_clip`) or one for all of them (`batch`), from their stats and the coach's keypoints.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateCoaching {
    pub org_id: Id,
    pub session_id: Id,
    /// The clips, sorted, checked analysed when asked for.
    pub clip_ids: Vec<Id>,
    pub mode: crate::model::reviews::CoachingMode,
    /// Who asked (the feedback's `created_by`); not part of the idempotency key.
    pub requested_by: Option<Id>,
}

/// Write the narrative of a stored progress report (its numbers stand without it).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NarrateProgress {
    pub org_id: Id,
    /// The progress row (kind `progress`) whose narrative this writes.
    pub feedback_id: Id,
}

impl Job for BuildReview {
    const KIND: &'static str = "reviews.build";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}", self.review_id, self.revision))
    }
}

impl Job for TranscribeNote {
    const KIND: &'static str = "reviews.transcribe";
    const QUEUE: Queue = Queue::Providers;
    /// Transient model failures (5xx, timeouts, 429) are retried; after the last attempt the
    /// note is recorded `failed` and the build goes on without it.
    const MAX_ATTEMPTS: u32 = 5;

    /// One live transcription per note: a rebuild while one runs joins it.
    fn idempotency_key(&self) -> Option<String> {
        Some(self.note_id.to_string())
    }
}

impl Job for GenerateCoaching {
    const KIND: &'static str = "coaching.generate";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 5;

    /// The request: the same session, mode and clips while the job is queued or running is one
    /// job (a double click); once it has ended, asking again generates the next version.
    fn idempotency_key(&self) -> Option<String> {
        let clips: Vec<String> = self.clip_ids.iter().map(ToString::to_string).collect();
        let digest = crate::crypto::sha256_b64url(clips.join(",").as_bytes());
        Some(format!("{}:{}:{digest}", self.session_id, self.mode))
    }
}

impl Job for NarrateProgress {
    const KIND: &'static str = "coaching.narrate";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.feedback_id.to_string())
    }
}

/// The deletion of recordings whose rows are gone (footage's job, raw-uploads store).
pub fn delete_recordings(org: Id, owner: String, keys: Vec<String>) -> DeleteObjects {
    DeleteObjects {
        org_id: org,
        owner,
        objects: keys
            .into_iter()
            .map(|k| StoredObject::new(Store::RawUploads, k))
            .collect(),
        prefixes: Vec::new(),
    }
}
