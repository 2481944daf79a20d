//! The reviews area's job types: the payloads are the domain's work
//! (`shared::domain::reviews::work`); here each gets its kind, queue, attempts and idempotency
//! key, and [`Enqueuer`] puts the domain's work into the queue.

use crate::{Enqueued, Job, Owner, Queue, enqueue};
use futures::future::BoxFuture;
use shared::db::{Id, Tx};
use shared::domain::reviews::work::{BuildReview, ReviewQueue};
use shared::domain::reviews::work::{CoachingQueue, GenerateCoaching, NarrateProgress};

impl Job for BuildReview {
    const KIND: &'static str = "reviews.build";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}", self.review_id, self.revision))
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

async fn push<J: Job>(tx: &mut Tx, job: &J, org: Id, user: Option<Id>) -> shared::Result<(Id, bool)> {
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
