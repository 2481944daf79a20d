//! The athletes area's job: a provider-linked athlete re-imported ([`AthleteResync`]), asked for
//! by `athletes::resync` and by the tour index's result import. The worker runs it
//! (`worker::handlers::competition`).

use crate::db::Id;
use crate::job::{Job, Queue};
use crate::model::competition::Source;
use serde::{Deserialize, Serialize};

/// Re-import a provider-linked athlete from its provider (`POST /api/athletes/{id}/resync`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AthleteResync {
    pub org_id: Id,
    pub athlete_id: Id,
    /// Only the links to this provider (`POST /api/tourindex/import-results`); all when absent.
    #[serde(default)]
    pub only: Option<Source>,
}

impl Job for AthleteResync {
    const KIND: &'static str = "athletes.resync";
    const QUEUE: Queue = Queue::Providers;

    fn idempotency_key(&self) -> Option<String> {
        Some(match self.only {
            None => self.athlete_id.to_string(),
            Some(s) => format!("{}:{s}", self.athlete_id),
        })
    }
}
