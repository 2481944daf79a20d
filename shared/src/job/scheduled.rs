//! The scheduled tasks: each is a `/api/cron/{name}` route (for external callers and manual
//! runs) and a schedule of the worker's built-in scheduler. Both enqueue the same job,
//! `cron.{name}`, deduplicated while one is queued or running ([`trigger`]). The worker's
//! dispatch table maps every task to its runner (`worker::handlers`); the scheduler's tick
//! bookkeeping is `jobs::cron`.

use super::{Enqueued, JobSpec, Owner, Queue, enqueue_spec};
use crate::db::{Db, Ts};

crate::text_enum! {
    /// A scheduled task, spelled as in its route, its `SCHEDULE_<NAME>` variable (upper case,
    /// `_` for `-`) and its job kind (`cron.{name}`).
    pub enum CronTask {
        TourindexSync = "tourindex-sync",
        TourindexAthletesSync = "tourindex-athletes-sync",
        TourindexAvatars = "tourindex-avatars",
        HeatsourceSync = "heatsource-sync",
        HeatsourceOrgsSync = "heatsource-orgs-sync",
        BackfillSpots = "backfill-spots",
        ForecastsRefresh = "forecasts-refresh",
        ClipsPoll = "clips-poll",
        TokensCleanup = "tokens-cleanup",
        JobsPrune = "jobs-prune",
        AuditRetention = "audit-retention",
        DbMaintenance = "db-maintenance",
        WaitlistDigest = "waitlist-digest",
        VerificationReminders = "verification-reminders",
        UploadsExpire = "uploads-expire",
        NotificationsDue = "notifications-due",
        PushReceipts = "push-receipts",
    }
}

/// What the scheduler and the routes need to know about a task.
#[derive(Debug, Clone, Copy)]
pub struct TaskInfo {
    /// Six-field cron expression (with seconds), UTC. `SCHEDULE_<NAME>` overrides it.
    pub default_schedule: &'static str,
    pub queue: Queue,
    pub summary: &'static str,
}

/// The job kind prefix of scheduled tasks.
const KIND_PREFIX: &str = "cron.";

impl CronTask {
    pub fn info(self) -> TaskInfo {
        use CronTask::*;
        let (default_schedule, queue, summary) = match self {
            TourindexSync => (
                "0 15 3 * * *",
                Queue::Providers,
                "Refresh tour-index events and results",
            ),
            TourindexAthletesSync => (
                "0 45 3 * * *",
                Queue::Providers,
                "Refresh tour-index athlete profiles linked to rosters",
            ),
            TourindexAvatars => (
                "0 30 4 * * 1",
                Queue::Providers,
                "Refresh tour-index athlete pictures",
            ),
            HeatsourceSync => (
                "0 */30 * * * *",
                Queue::Providers,
                "Refresh heat-provider events, heats and results",
            ),
            HeatsourceOrgsSync => (
                "0 0 2 * * *",
                Queue::Providers,
                "Refresh the heat provider's organisation cache",
            ),
            BackfillSpots => (
                "0 0 5 * * *",
                Queue::Providers,
                "Fill in spot details for sessions without them",
            ),
            ForecastsRefresh => (
                "0 0 */3 * * *",
                Queue::Providers,
                "Refresh cached forecasts of the spots in use",
            ),
            ClipsPoll => (
                "0 */5 * * * *",
                Queue::Providers,
                "Poll the analysis backend for clips stuck in processing",
            ),
            TokensCleanup => (
                "0 10 * * * *",
                Queue::Default,
                "Delete expired sessions, tokens, OAuth states and rate-limit windows",
            ),
            JobsPrune => (
                "0 20 1 * * *",
                Queue::Default,
                "Delete finished job rows, queue rows and scheduler ticks past retention",
            ),
            AuditRetention => (
                "0 40 1 * * *",
                Queue::Default,
                "Delete audit entries older than AUDIT_RETENTION_DAYS",
            ),
            DbMaintenance => (
                "0 0 4 * * *",
                Queue::Default,
                "SQLite: refresh planner statistics (PRAGMA optimize) and truncate the WAL",
            ),
            WaitlistDigest => (
                "0 0 8 * * *",
                Queue::Notify,
                "Mail platform admins the new waitlist entries",
            ),
            VerificationReminders => (
                "0 0 9 * * *",
                Queue::Notify,
                "Remind accounts unverified after two days, once",
            ),
            UploadsExpire => (
                "0 25 * * * *",
                Queue::Media,
                "Expire resumable clip uploads idle past UPLOAD_EXPIRY_HOURS and remove their parts",
            ),
            NotificationsDue => (
                "0 * * * * *",
                Queue::Notify,
                "Deliver notifications that are due: held by quiet hours, or retried after a failure",
            ),
            PushReceipts => (
                "0 */15 * * * *",
                Queue::Notify,
                "Fetch Expo push receipts; remove the tokens of devices no longer registered",
            ),
        };
        TaskInfo {
            default_schedule,
            queue,
            summary,
        }
    }

    /// The job kind its runs are stored under: `cron.{name}`.
    pub fn kind(self) -> String {
        format!("{KIND_PREFIX}{}", self.as_str())
    }

    /// The task a job kind runs, if it is a scheduled task's.
    pub fn from_kind(kind: &str) -> Option<CronTask> {
        CronTask::parse(kind.strip_prefix(KIND_PREFIX)?).ok()
    }

    /// The environment variable that overrides its schedule: `SCHEDULE_TOKENS_CLEANUP`.
    pub fn schedule_var(self) -> String {
        format!(
            "SCHEDULE_{}",
            self.as_str().to_uppercase().replace('-', "_")
        )
    }

    pub fn spec(self) -> JobSpec {
        JobSpec {
            kind: self.kind(),
            queue: self.info().queue,
            max_attempts: 3,
            idempotency_key: Some("scheduled".into()),
            payload: serde_json::json!({}),
        }
    }
}

/// Enqueues `task`'s job now for `owner` (the live one when it is queued or running).
pub async fn trigger(db: &Db, task: CronTask, owner: Owner) -> crate::Result<Enqueued> {
    let mut tx = db.begin().await?;
    let job = enqueue_spec(&mut tx, &task.spec(), owner, Ts::now()).await?;
    tx.commit().await?;
    Ok(job)
}

#[cfg(test)]
mod tests {
    use super::CronTask;

    #[test]
    fn seventeen_tasks_with_kinds_that_map_back() {
        assert_eq!(CronTask::ALL.len(), 17);
        for &t in CronTask::ALL {
            assert_eq!(CronTask::from_kind(&t.kind()), Some(t));
        }
        assert_eq!(CronTask::from_kind("cron.nope"), None);
        assert_eq!(CronTask::from_kind("tokens-cleanup"), None);
        assert_eq!(
            CronTask::TokensCleanup.schedule_var(),
            "SCHEDULE_TOKENS_CLEANUP"
        );
    }
}
