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
