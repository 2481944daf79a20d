//! The reviews area's background work, as payloads, and the queue the domain enqueues it
//! through (implemented by `jobs::reviews::Enqueuer`; the same inversion as footage's
//! `JobQueue`).

use crate::db::{Id, Tx};
use futures::future::BoxFuture;
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

/// Enqueues review work in the caller's transaction; returns the job id and whether a live job
/// for the same work was reused.
pub trait ReviewQueue: Send + Sync {
    fn build<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: BuildReview,
        user: Option<Id>,
    ) -> BoxFuture<'a, crate::Result<(Id, bool)>>;

    /// Whether job `job` is still queued or running.
    fn is_live<'a>(&'a self, tx: &'a mut Tx, job: Id) -> BoxFuture<'a, crate::Result<bool>>;

    /// Whether a transcription of note `note` is still queued or running.
    fn transcribing<'a>(&'a self, tx: &'a mut Tx, note: Id) -> BoxFuture<'a, crate::Result<bool>>;

    fn transcribe<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: TranscribeNote,
    ) -> BoxFuture<'a, crate::Result<(Id, bool)>>;

    /// Deletes recordings whose rows are gone (footage's `DeleteObjects`, raw-uploads store).
    fn delete_objects<'a>(
        &'a self,
        tx: &'a mut Tx,
        org: Id,
        owner: String,
        keys: Vec<String>,
    ) -> BoxFuture<'a, crate::Result<()>>;
}

// ---- coaching ----

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

/// Enqueues coaching work in the caller's transaction (implemented by
/// `jobs::reviews::Enqueuer`); returns the job id and whether a live job for the same work was
/// reused.
pub trait CoachingQueue: Send + Sync {
    fn generate<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: GenerateCoaching,
        user: Option<Id>,
    ) -> BoxFuture<'a, crate::Result<(Id, bool)>>;

    fn narrate<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: NarrateProgress,
        user: Option<Id>,
    ) -> BoxFuture<'a, crate::Result<(Id, bool)>>;
}
