//! The billing area's background work, as payloads, and the queue the domain enqueues it
//! through (implemented by `jobs::billing::Enqueuer`; the same inversion as footage's
//! `JobQueue`).

use crate::db::{Id, Tx};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// Apply one stored webhook event: re-read its object from the provider and apply what it
/// says now (`events::apply`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyPaymentEvent {
    pub event_id: String,
}

/// Enqueues billing work in the caller's transaction; returns the job id.
pub trait PaymentsQueue: Send + Sync {
    fn apply<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: ApplyPaymentEvent,
    ) -> BoxFuture<'a, crate::Result<Id>>;
}
