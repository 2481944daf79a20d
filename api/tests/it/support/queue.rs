//! The job queue: enqueueing probe jobs and counting the queue's rows.

use super::app::{Session, TestApp};
use jobs::diagnostics::Probe;
use shared::job::Owner;

/// Enqueues a probe job in its own committed transaction.
pub async fn enqueue_probe(app: &TestApp, probe: Probe, owner: Owner) -> shared::job::Enqueued {
    let mut tx = app.state.db.begin().await.unwrap();
    let e = shared::job::enqueue(&mut tx, &probe, owner).await.unwrap();
    tx.commit().await.unwrap();
    e
}

/// Tasks in the queue table.
pub async fn queue_rows(app: &TestApp) -> i64 {
    app.count("job_queue").await
}

/// The signed-in user and workspace as a job's owner.
pub fn owner_of(s: &Session) -> Owner {
    Owner {
        org_id: Some(s.org_id),
        user_id: Some(s.user_id),
    }
}
