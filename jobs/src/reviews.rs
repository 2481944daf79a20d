//! The reviews area's job types: the payloads are the domain's work
//! (`shared::domain::reviews::work`); here each gets its kind, queue, attempts and idempotency
//! key, and [`Enqueuer`] puts the domain's work into the queue.

use crate::{Enqueued, Job, Owner, Queue, enqueue};
use futures::future::BoxFuture;
use shared::db::{Id, Tx};
use shared::domain::reviews::work::{BuildReview, ReviewQueue};

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
