//! The scheduled tasks: each is a `/api/cron/{name}` route (for external callers and manual
//! runs) and a schedule of the worker's built-in scheduler. Both enqueue the same job,
//! `cron.{name}`, deduplicated while one is queued or running.

use super::{JobSpec, Queue};

#[derive(Debug, Clone, Copy)]
pub struct CronTask {
    pub name: &'static str,
    /// Six-field cron expression (with seconds), UTC. `SCHEDULE_<NAME>` overrides it.
    pub default_schedule: &'static str,
    pub queue: Queue,
    pub summary: &'static str,
}

pub const TASKS: &[CronTask] = &[
    CronTask {
        name: "tourindex-sync",
        default_schedule: "0 15 3 * * *",
        queue: Queue::Providers,
        summary: "Refresh tour-index events and results",
    },
    CronTask {
        name: "tourindex-athletes-sync",
        default_schedule: "0 45 3 * * *",
        queue: Queue::Providers,
        summary: "Refresh tour-index athlete profiles linked to rosters",
    },
    CronTask {
        name: "tourindex-avatars",
        default_schedule: "0 30 4 * * 1",
        queue: Queue::Providers,
        summary: "Refresh tour-index athlete pictures",
    },
    CronTask {
        name: "heatsource-sync",
        default_schedule: "0 */30 * * * *",
        queue: Queue::Providers,
        summary: "Refresh heat-provider events, heats and results",
    },
    CronTask {
        name: "heatsource-orgs-sync",
        default_schedule: "0 0 2 * * *",
        queue: Queue::Providers,
        summary: "Refresh the heat provider's organisation cache",
    },
    CronTask {
        name: "backfill-spots",
        default_schedule: "0 0 5 * * *",
        queue: Queue::Providers,
        summary: "Fill in spot details for sessions without them",
    },
    CronTask {
        name: "forecasts-refresh",
        default_schedule: "0 0 */3 * * *",
        queue: Queue::Providers,
        summary: "Refresh cached forecasts of the spots in use",
    },
    CronTask {
        name: "clips-poll",
        default_schedule: "0 */5 * * * *",
        queue: Queue::Providers,
        summary: "Poll the analysis backend for clips stuck in processing",
    },
    CronTask {
        name: "tokens-cleanup",
        default_schedule: "0 10 * * * *",
        queue: Queue::Default,
        summary: "Delete expired sessions, tokens, OAuth states and rate-limit windows",
    },
    CronTask {
        name: "jobs-prune",
        default_schedule: "0 20 1 * * *",
        queue: Queue::Default,
        summary: "Delete finished job rows, queue rows and scheduler ticks past retention",
    },
    CronTask {
        name: "audit-retention",
        default_schedule: "0 40 1 * * *",
        queue: Queue::Default,
        summary: "Delete audit entries older than AUDIT_RETENTION_DAYS",
    },
    CronTask {
        name: "db-maintenance",
        default_schedule: "0 0 4 * * *",
        queue: Queue::Default,
        summary: "SQLite: refresh planner statistics (PRAGMA optimize) and truncate the WAL",
    },
    CronTask {
        name: "waitlist-digest",
        default_schedule: "0 0 8 * * *",
        queue: Queue::Notify,
        summary: "Mail platform admins the new waitlist entries",
    },
    CronTask {
        name: "verification-reminders",
        default_schedule: "0 0 9 * * *",
        queue: Queue::Notify,
        summary: "Remind accounts unverified after two days, once",
    },
];

pub fn task(name: &str) -> Option<&'static CronTask> {
    TASKS.iter().find(|t| t.name == name)
}

pub fn kind(name: &str) -> String {
    format!("cron.{name}")
}

impl CronTask {
    pub fn spec(&self) -> JobSpec {
        JobSpec {
            kind: kind(self.name),
            queue: self.queue,
            max_attempts: 3,
            idempotency_key: Some("scheduled".into()),
            payload: serde_json::json!({}),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fourteen_unique_tasks() {
        let mut names: Vec<_> = super::TASKS.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 14);
    }
}
