//! The wearable area's job types: the payloads are the domain's work
//! (`shared::domain::wearable`); here each gets its kind, queue, attempts and idempotency key,
//! and [`Enqueuer`] puts the domain's work into the queue.

use crate::{Enqueued, Job, Owner, Queue, enqueue, enqueue_at};
use futures::future::BoxFuture;
use shared::db::{Id, Ts, Tx};
use shared::domain::footage::work::{DeleteObjects, StoredObject};
use shared::domain::wearable::{DeriveSession, ExpireSession, IngestFile, WearableQueue, Work};
use shared::storage::Store;

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

/// Enqueues the domain's wearable work as jobs (in the domain operation's transaction).
pub struct Enqueuer;

/// The one instance api handlers and worker jobs pass to domain operations.
pub static ENQUEUER: Enqueuer = Enqueuer;

impl WearableQueue for Enqueuer {
    fn enqueue<'a>(
        &'a self,
        tx: &'a mut Tx,
        work: Work,
        user: Option<Id>,
    ) -> BoxFuture<'a, shared::Result<Id>> {
        Box::pin(async move {
            let (org, spec, at) = match work {
                Work::Derive(j) => (j.org_id, j.spec(), None),
                Work::Ingest(j) => (j.org_id, j.spec(), None),
                Work::Expire(j) => {
                    let at =
                        chrono::DateTime::from_timestamp_millis(j.due_ms).map(Ts::from_datetime);
                    (j.org_id, j.spec(), at)
                }
                Work::DeleteObject { org_id, key } => {
                    let job = DeleteObjects {
                        org_id,
                        owner: "wearable_session".into(),
                        objects: vec![StoredObject::new(Store::RawUploads, key)],
                        prefixes: Vec::new(),
                    };
                    (org_id, job.spec(), None)
                }
            };
            let owner = Owner {
                org_id: Some(org),
                user_id: user,
            };
            let Enqueued { id, .. } = match at {
                Some(at) => enqueue_at(tx, &spec, owner, at).await?,
                None => enqueue(tx, &spec, owner).await?,
            };
            Ok(id)
        })
    }
}
