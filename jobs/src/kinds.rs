//! Job types. Each area adds its jobs here as it is built; the worker maps each `KIND` to its
//! handler (`worker::handlers`).

use super::{Job, Queue};
use serde::{Deserialize, Serialize};

/// Queue diagnostics: runs through the whole machinery (enqueue, worker, progress, retries)
/// and does nothing else. Operators use it to check a deployment's queue end to end; the
/// benchmark and the worker's process tests use it as their workload.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Probe {
    /// Sleep this long while running (reporting progress and honouring cancellation).
    pub sleep_ms: u64,
    /// Fail transiently on the first N attempts.
    pub fail_attempts: u32,
    /// Fail permanently.
    pub fail_permanently: bool,
    /// Echoed in the result.
    pub marker: Option<String>,
    /// Deduplicate on this key.
    pub key: Option<String>,
}

impl Job for Probe {
    const KIND: &'static str = "diagnostics.probe";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 3;
    const CANCELLABLE: bool = true;

    fn idempotency_key(&self) -> Option<String> {
        self.key.clone()
    }
}

/// Whether jobs of `kind` may be cancelled by a user.
pub fn is_cancellable(kind: &str) -> bool {
    matches!(kind, k if k == Probe::KIND)
}
