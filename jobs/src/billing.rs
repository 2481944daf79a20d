//! The billing area's job type: the payload is the domain's work
//! (`shared::domain::billing::work`); here it gets its kind, queue, attempts and idempotency
//! key, and [`Enqueuer`] puts the domain's work into the queue.

use crate::{Enqueued, Job, Owner, Queue, enqueue};
use futures::future::BoxFuture;
use shared::db::{Id, Tx};
use shared::domain::billing::work::{ApplyPaymentEvent, PaymentsQueue};

impl Job for ApplyPaymentEvent {
    const KIND: &'static str = "payments.apply_event";
    const QUEUE: Queue = Queue::Providers;
    /// The provider is re-read: while it is down the event waits (backoff up to an hour), as
    /// the provider itself keeps retrying deliveries for three days.
    const MAX_ATTEMPTS: u32 = 12;

    /// One job per event (the event row is stored once, so this only guards a re-enqueue).
    fn idempotency_key(&self) -> Option<String> {
        Some(self.event_id.clone())
    }
}

/// Enqueues the domain's billing work as jobs (in the domain operation's transaction).
pub struct Enqueuer;

/// The one instance api handlers pass to domain operations.
pub static ENQUEUER: Enqueuer = Enqueuer;

impl PaymentsQueue for Enqueuer {
    fn apply<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: ApplyPaymentEvent,
    ) -> BoxFuture<'a, shared::Result<Id>> {
        Box::pin(async move {
            let Enqueued { id, .. } = enqueue(tx, &job.spec(), Owner::default()).await?;
            Ok(id)
        })
    }
}
