//! Job types. Each area adds its jobs here as it is built, lists the type in [`ALL`], and
//! registers its runner in the worker's dispatch table (`worker::handlers::Runners`; a test
//! there checks that every kind listed here has exactly one runner).

use super::{Job, Queue};
use serde::{Deserialize, Serialize};
pub use shared::domain::billing::work::ApplyPaymentEvent;
pub use shared::domain::footage::work::{
    CancelAnalysis, DeleteObjects, JoinUpload, PollClip, ProbeClip, StoreClip, StoreSession,
    SubmitClip,
};
pub use shared::domain::reviews::work::{
    BuildReview, GenerateCoaching, NarrateProgress, TranscribeNote,
};
pub use shared::domain::wearable::{DeriveSession, ExpireSession, IngestFile};

/// Queue diagnostics: runs through the whole machinery (enqueue, worker, progress, retries)
/// and does nothing else. Operators use it to check a deployment's queue end to end; the
/// benchmark and the worker's process tests use it as their workload.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Probe {
    /// Sleep this long while running (reporting progress and honouring cancellation).
    pub sleep_ms: u64,
    /// Burn this much CPU time first, on a blocking thread (the benchmark's CPU-bound jobs).
    pub cpu_ms: u64,
    /// Fail transiently on the first N attempts.
    pub fail_attempts: u32,
    /// Fail permanently.
    pub fail_permanently: bool,
    /// Echoed in the result.
    pub marker: Option<String>,
    /// Deduplicate on this key.
    pub key: Option<String>,
    /// Apply this side effect exactly once, before sleeping: a ledger row written with its
    /// "already applied" mark in one transaction (`diagnostics`). A re-run after a crash
    /// during the sleep finds the mark and applies nothing; the chaos tests count the rows.
    pub effect: Option<String>,
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

/// A job type's constants, for code that has only a stored kind (the api's job views).
#[derive(Debug, Clone, Copy)]
pub struct KindInfo {
    pub kind: &'static str,
    pub queue: Queue,
    pub cancellable: bool,
}

const fn info<J: Job>() -> KindInfo {
    KindInfo {
        kind: J::KIND,
        queue: J::QUEUE,
        cancellable: J::CANCELLABLE,
    }
}

/// Every job type (scheduled tasks are listed in `cron`).
pub const ALL: &[KindInfo] = &[
    info::<Probe>(),
    info::<AthleteImport>(),
    info::<TrainingImport>(),
    info::<AthleteResync>(),
    info::<CompetitionImport>(),
    info::<SeasonReport>(),
    info::<AchievementsCheck>(),
    info::<NotificationFanout>(),
    info::<NotificationDrain>(),
    info::<Announcement>(),
    info::<ProbeClip>(),
    info::<SubmitClip>(),
    info::<PollClip>(),
    info::<CancelAnalysis>(),
    info::<StoreClip>(),
    info::<StoreSession>(),
    info::<DeleteObjects>(),
    info::<JoinUpload>(),
    info::<BuildReview>(),
    info::<TranscribeNote>(),
    info::<GenerateCoaching>(),
    info::<NarrateProgress>(),
    info::<ApplyPaymentEvent>(),
    info::<DeriveSession>(),
    info::<IngestFile>(),
    info::<ExpireSession>(),
];

/// Whether jobs of `kind` may be cancelled by a user.
pub fn is_cancellable(kind: &str) -> bool {
    ALL.iter().any(|k| k.kind == kind && k.cancellable)
}

/// A large athlete CSV import, staged in `import_uploads` by `POST /api/athletes/import`.
/// Idempotent: the import deduplicates, so a re-run after a crash imports nothing twice.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AthleteImport {
    pub upload_id: shared::db::Id,
    pub org_id: shared::db::Id,
    pub user_id: shared::db::Id,
    pub dry_run: bool,
    /// SHA-256 of the file: the same file sent twice while the first runs is one job.
    pub sha256: String,
}

impl Job for AthleteImport {
    const KIND: &'static str = "athletes.import";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}:{}", self.org_id, self.sha256, self.dry_run))
    }
}

/// A large training-session CSV import (see [`AthleteImport`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrainingImport {
    pub upload_id: shared::db::Id,
    pub org_id: shared::db::Id,
    pub user_id: shared::db::Id,
    pub dry_run: bool,
    pub sha256: String,
}

impl Job for TrainingImport {
    const KIND: &'static str = "training.import";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!("{}:{}:{}", self.org_id, self.sha256, self.dry_run))
    }
}

/// Re-import a provider-linked athlete from its provider (`POST /api/athletes/{id}/resync`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AthleteResync {
    pub org_id: shared::db::Id,
    pub athlete_id: shared::db::Id,
    /// Only the links to this provider (`POST /api/tourindex/import-results`); all when absent.
    #[serde(default)]
    pub only: Option<shared::domain::competition::roster::Source>,
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

/// A competition import a member asked for (`/api/heatsource/*`, `/api/tourindex/*` job
/// routes): what to import is the `op`; it runs as the member who asked, in their workspace.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompetitionImport {
    pub org_id: shared::db::Id,
    pub user_id: Option<shared::db::Id>,
    pub op: ImportOp,
}

/// A workspace-wide achievements check (`POST /api/achievements/check` without `athleteId`):
/// every athlete not archived is evaluated and new awards notified. One per workspace while
/// queued or running; a re-run awards nothing twice (awards are unique per athlete).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AchievementsCheck {
    pub org_id: shared::db::Id,
    pub user_id: Option<shared::db::Id>,
}

impl Job for AchievementsCheck {
    const KIND: &'static str = "achievements.check";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.org_id.to_string())
    }
}

/// What a [`CompetitionImport`] does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ImportOp {
    /// A heatsource series' rankings into the workspace's circuit for it.
    Rankings {
        series_id: String,
        division_id: Option<String>,
    },
    /// A circuit's events, results and rankings.
    Standings { circuit_id: shared::db::Id },
    /// An event's competitors into the roster (and a circuit).
    BulkAdd {
        source: shared::domain::competition::roster::Source,
        event_id: String,
        division_id: Option<String>,
        circuit_id: Option<shared::db::Id>,
    },
    /// One tour's directory and events from the tour index.
    Scrape { tour: String },
    /// The workspace's tour-index-linked athletes refreshed.
    TourAthletes,
}

impl Job for CompetitionImport {
    const KIND: &'static str = "competition.import";
    const QUEUE: Queue = Queue::Providers;

    /// The same import asked again while one runs joins it. Directory scrapes are global
    /// data: one per tour whoever asks.
    fn idempotency_key(&self) -> Option<String> {
        let op = serde_json::to_string(&self.op).unwrap_or_default();
        Some(match &self.op {
            ImportOp::Scrape { .. } => op,
            _ => format!("{}:{op}", self.org_id),
        })
    }
}

/// A season report (`POST /api/reports/season/{athleteId}`): built, stored and recorded
/// under the job's id, so a retry rewrites the same report. The same report asked again while
/// one is being made joins it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeasonReport {
    pub org_id: shared::db::Id,
    pub user_id: Option<shared::db::Id>,
    pub athlete_id: shared::db::Id,
    pub period: shared::domain::season_report::Period,
}

impl Job for SeasonReport {
    const KIND: &'static str = "reports.season";
    const QUEUE: Queue = Queue::Default;

    fn idempotency_key(&self) -> Option<String> {
        Some(format!(
            "{}:{}:{}:{}",
            self.org_id, self.athlete_id, self.period.from, self.period.to
        ))
    }
}

/// Sends the pending deliveries of these notifications (a `POST /api/notifications/send`, a
/// new message). Idempotent: each delivery is claimed before sending and closed after, so a
/// re-run sends only what is still pending.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationFanout {
    pub notification_ids: Vec<shared::db::Id>,
}

impl Job for NotificationFanout {
    const KIND: &'static str = "notifications.fanout";
    const QUEUE: Queue = Queue::Notify;

    fn idempotency_key(&self) -> Option<String> {
        None
    }
}

/// Works through every due delivery (`POST /api/notifications/deliver`): ones whose fan-out
/// gave up for now after a transient failure, or whose worker died mid-send. One at a time.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NotificationDrain {}

impl Job for NotificationDrain {
    const KIND: &'static str = "notifications.drain";
    const QUEUE: Queue = Queue::Notify;

    fn idempotency_key(&self) -> Option<String> {
        Some("drain".into())
    }
}

/// A platform announcement (`POST /api/admin/notifications`): one notification per user of the
/// audience (everyone, or one workspace's members), then their delivery. Re-runs create no
/// duplicates (the announcement id is each notification's dedupe key).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Announcement {
    pub announcement_id: shared::db::Id,
    pub org_id: Option<shared::db::Id>,
    pub title: String,
    pub body: String,
}

impl Job for Announcement {
    const KIND: &'static str = "notifications.announce";
    const QUEUE: Queue = Queue::Notify;
    const MAX_ATTEMPTS: u32 = 5;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.announcement_id.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::Job;

    #[test]
    fn kinds_are_unique_and_apart_from_scheduled_tasks() {
        let mut kinds: Vec<_> = super::ALL.iter().map(|k| k.kind).collect();
        kinds.sort();
        kinds.dedup();
        assert_eq!(kinds.len(), super::ALL.len(), "a kind is listed twice");
        assert!(
            kinds
                .iter()
                .all(|k| crate::cron::CronTask::from_kind(k).is_none())
        );
        assert!(super::is_cancellable(super::Probe::KIND));
        assert!(!super::is_cancellable(super::AthleteImport::KIND));
    }
}
