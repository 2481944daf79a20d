//! The reviews area's job types: the payloads are the domain's work
//! (`shared::domain::reviews::work`); here each gets its kind, queue, attempts and idempotency
//! key, and [`Enqueuer`] puts the domain's work into the queue.

use crate::{Enqueued, Job, Owner, Queue, enqueue};
use futures::future::BoxFuture;
use shared::db::{Id, Tx};
use shared::domain::footage::work::{DeleteObjects, StoredObject};
use shared::domain::reviews::work::{BuildReview, ReviewQueue, TranscribeNote};
use shared::domain::reviews::work::{CoachingQueue, GenerateCoaching, NarrateProgress};
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

    fn is_live<'a>(&'a self, tx: &'a mut Tx, job: Id) -> BoxFuture<'a, shared::Result<bool>> {
        Box::pin(async move {
            let p = crate::progress::get(tx, job).await?;
            Ok(p.is_some_and(|p| {
                matches!(
                    p.status,
                    crate::progress::JobStatus::Queued | crate::progress::JobStatus::Running
                )
            }))
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

// ---- coaching ----

impl Job for GenerateCoaching {
    const KIND: &'static str = "coaching.generate";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 5;

    /// The request: the same session, mode and clips while the job is queued or running is one
    /// job (a double click); once it has ended, asking again generates the next version.
    fn idempotency_key(&self) -> Option<String> {
        let clips: Vec<String> = self.clip_ids.iter().map(ToString::to_string).collect();
        let digest = shared::crypto::sha256_b64url(clips.join(",").as_bytes());
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

async fn push<J: Job>(
    tx: &mut Tx,
    job: &J,
    org: Id,
    user: Option<Id>,
) -> shared::Result<(Id, bool)> {
    let owner = Owner {
        org_id: Some(org),
        user_id: user,
    };
    let Enqueued { id, existing } = enqueue(tx, &job.spec(), owner).await?;
    Ok((id, existing))
}

impl CoachingQueue for Enqueuer {
    fn generate<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: GenerateCoaching,
        user: Option<Id>,
    ) -> BoxFuture<'a, shared::Result<(Id, bool)>> {
        Box::pin(async move { push(tx, &job, job.org_id, user).await })
    }

    fn narrate<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: NarrateProgress,
        user: Option<Id>,
    ) -> BoxFuture<'a, shared::Result<(Id, bool)>> {
        Box::pin(async move { push(tx, &job, job.org_id, user).await })
    }
}
