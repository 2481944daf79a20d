//! The reviews area's job types: the payloads are the domain's work
//! (`shared::domain::reviews::work`); here each gets its kind, queue, attempts and idempotency
//! key, and [`Enqueuer`] puts the domain's work into the queue.

use crate::{Enqueued, Job, Owner, Queue, enqueue};
use futures::future::BoxFuture;
use shared::db::{Id, Tx};
use shared::domain::footage::work::{DeleteObjects, StoredObject};
use shared::domain::reviews::work::{BuildReview, ReviewQueue, TranscribeNote};
use shared::storage::Store;

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

/// Enqueues the domain's review work as jobs (in the domain operation's transaction).
pub struct Enqueuer;

/// The one instance api handlers pass to domain operations.
pub static ENQUEUER: Enqueuer = Enqueuer;

impl ReviewQueue for Enqueuer {
    fn build<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: BuildReview,
        user: Option<Id>,
    ) -> BoxFuture<'a, shared::Result<(Id, bool)>> {
        Box::pin(async move {
            let owner = Owner {
                org_id: Some(job.org_id),
                user_id: user,
            };
            let Enqueued { id, existing } = enqueue(tx, &job.spec(), owner).await?;
            Ok((id, existing))
        })
    }

    fn transcribe<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: TranscribeNote,
    ) -> BoxFuture<'a, shared::Result<(Id, bool)>> {
        Box::pin(async move {
            let owner = Owner {
                org_id: Some(job.org_id),
                user_id: None,
            };
            let Enqueued { id, existing } = enqueue(tx, &job.spec(), owner).await?;
            Ok((id, existing))
        })
    }

    fn delete_objects<'a>(
        &'a self,
        tx: &'a mut Tx,
        org: Id,
        owner: String,
        keys: Vec<String>,
    ) -> BoxFuture<'a, shared::Result<()>> {
        Box::pin(async move {
            let job = DeleteObjects {
                org_id: org,
                owner,
                objects: keys
                    .into_iter()
                    .map(|k| StoredObject::new(Store::RawUploads, k))
                    .collect(),
                prefixes: Vec::new(),
            };
            let owner = Owner {
                org_id: Some(org),
                user_id: None,
            };
            enqueue(tx, &job.spec(), owner).await?;
            Ok(())
        })
    }
}
