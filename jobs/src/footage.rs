//! The footage area's job types: the payloads are the domain's work
//! (`shared::domain::footage::work`); here each gets its kind, queue, attempts and idempotency
//! key, and [`Enqueuer`] puts the domain's work into the queue.

use crate::{Enqueued, Job, Owner, Queue, enqueue_at};
use futures::future::BoxFuture;
use shared::db::{Id, Ts, Tx};
use shared::domain::footage::work::{
    CancelAnalysis, DeleteObjects, JobQueue, JoinUpload, PollClip, ProbeClip, Queued, StoreClip,
    StoreSession, SubmitClip, Work,
};

impl Job for ProbeClip {
    const KIND: &'static str = "footage.probe";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.clip_id.to_string())
    }
}

impl Job for SubmitClip {
    const KIND: &'static str = "footage.analyze";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 6;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}", self.clip_id, self.generation))
    }
}

impl Job for PollClip {
    const KIND: &'static str = "footage.poll";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 8;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!(
            "{}:{}:{}",
            self.clip_id, self.generation, self.round
        ))
    }
}

impl Job for CancelAnalysis {
    const KIND: &'static str = "footage.cancel_analysis";
    const QUEUE: Queue = Queue::Providers;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.analysis_id.clone())
    }
}

impl Job for StoreClip {
    const KIND: &'static str = "footage.store";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.clip_id.to_string())
    }
}

impl Job for StoreSession {
    const KIND: &'static str = "footage.store_session";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.session_id.to_string())
    }
}

impl Job for DeleteObjects {
    const KIND: &'static str = "footage.delete_objects";
    const QUEUE: Queue = Queue::Media;
    /// With the backoff capped at an hour, about a day of retries: objects are never orphaned
    /// by a storage outage.
    const MAX_ATTEMPTS: u32 = 40;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.owner.clone())
    }
}

impl Job for JoinUpload {
    const KIND: &'static str = "footage.join_upload";
    const QUEUE: Queue = Queue::Media;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.upload_id.to_string())
    }
}

/// Enqueues the domain's work as jobs (in the domain operation's transaction).
pub struct Enqueuer;

/// The one instance api handlers and jobs pass to domain operations.
pub static ENQUEUER: Enqueuer = Enqueuer;

impl JobQueue for Enqueuer {
    fn enqueue<'a>(
        &'a self,
        tx: &'a mut Tx,
        work: Work,
        user: Option<Id>,
    ) -> BoxFuture<'a, shared::Result<Queued>> {
        Box::pin(async move {
            let (spec, org, delay_ms) = match &work {
                Work::Probe(j) => (j.spec(), j.org_id, 0),
                Work::Submit(j) => (j.spec(), j.org_id, 0),
                Work::Poll(j, delay) => (j.spec(), j.org_id, *delay),
                Work::Cancel(j) => (j.spec(), j.org_id, 0),
                Work::Store(j) => (j.spec(), j.org_id, 0),
                Work::StoreSession(j) => (j.spec(), j.org_id, 0),
                Work::DeleteObjects(j) => (j.spec(), j.org_id, 0),
                Work::JoinUpload(j) => (j.spec(), j.org_id, 0),
            };
            let owner = Owner {
                org_id: Some(org),
                user_id: user,
            };
            let at = Ts::now().plus(chrono::Duration::milliseconds(delay_ms as i64));
            let Enqueued { id, existing } = enqueue_at(tx, &spec, owner, at).await?;
            Ok(Queued {
                job_id: id,
                existing,
            })
        })
    }
}
