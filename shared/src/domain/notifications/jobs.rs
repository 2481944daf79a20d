//! The notification jobs, each payload with its kind, queue, attempts and idempotency key. The
//! operations that create notifications enqueue their delivery in their own transactions; the
//! worker runs them (`worker::handlers::notify`).

use crate::db::Id;
use crate::job::{Job, Queue};
use serde::{Deserialize, Serialize};

/// Sends the pending deliveries of these notifications (a `POST /api/notifications/send`, a
/// new message). Idempotent: each delivery is claimed before sending and closed after, so a
/// re-run sends only what is still pending.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationFanout {
    pub notification_ids: Vec<Id>,
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
    pub announcement_id: Id,
    /// Only this workspace's members; everyone when `None`.
    pub org_id: Option<Id>,
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
