//! The billing area's job: its payload with its kind, queue, attempts and idempotency key. The
//! webhook's store enqueues it with the event, in one transaction (`events::store`); the worker
//! runs it (`worker::handlers::billing`).

use crate::job::{Job, Queue};
use serde::{Deserialize, Serialize};

/// Apply one stored webhook event: re-read its object from the provider and apply what it
/// says now (`events::apply`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyPaymentEvent {
    pub event_id: String,
}

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
