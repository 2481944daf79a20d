//! The job queue: enqueueing probe jobs and counting the queue's rows.

use super::app::{Session, TestApp};
use jobs::kinds::Probe;
use jobs::{Job, Owner};

/// Enqueues a probe job in its own committed transaction.
pub async fn enqueue_probe(app: &TestApp, probe: Probe, owner: Owner) -> jobs::Enqueued {
    let mut tx = app.state.db.begin().await.unwrap();
    let e = jobs::enqueue(&mut tx, &probe.spec(), owner).await.unwrap();
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
