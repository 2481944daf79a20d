//! Billing jobs: `payments.apply_event` applies one stored webhook event by re-reading its
//! object from the payment provider (`shared::domain::billing::events::apply`). The provider
//! not configured fails the job; the provider down or slow is retried with backoff.

use super::{Ctx, RunJob};
use jobs::JobError;
use serde_json::{Value, json};
use shared::domain::billing::events::{self, Applied};
use shared::domain::billing::jobs::ApplyPaymentEvent;

impl RunJob for ApplyPaymentEvent {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let payments = shared::domain::billing::adapter(&ctx.deps.cfg)?;
        let outcome = events::apply(&ctx.deps.db, &payments, &self.event_id).await?;
        Ok(match outcome {
            Applied::Done(note) => json!({ "applied": true, "note": note }),
            Applied::Superseded => {
                json!({ "applied": false, "note": "superseded by a later re-read" })
            }
            Applied::AlreadyDone => json!({ "applied": false, "note": "already applied" }),
        })
    }
}
