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

/// Enqueues review work in the caller's transaction; returns the job id and whether a live job
/// for the same work was reused.
pub trait ReviewQueue: Send + Sync {
    fn build<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: BuildReview,
        user: Option<Id>,
    ) -> BoxFuture<'a, crate::Result<(Id, bool)>>;
}
