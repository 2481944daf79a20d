//! The notification jobs behind `shared::domain::notifications::NotifyQueue`: the domain's
//! operations enqueue through it, since the job types live here, above `shared`.

use crate::kinds::{Announcement, NotificationDrain, NotificationFanout};
use crate::{Enqueued, Job, Owner, enqueue};
use shared::db::{Id, Tx};
use shared::domain::notifications::{self as domain, JobOwner, NotifyQueue, Queued};

/// Enqueues the `notify` queue's jobs (`jobs::enqueue` in the caller's transaction).
#[derive(Clone, Copy, Debug, Default)]
pub struct NotifyJobs;

impl From<JobOwner> for Owner {
    fn from(o: JobOwner) -> Owner {
        Owner {
            org_id: o.org_id,
            user_id: o.user_id,
        }
    }
}

impl From<Enqueued> for Queued {
    fn from(e: Enqueued) -> Queued {
        Queued {
            id: e.id,
            existing: e.existing,
        }
    }
}

impl From<Queued> for Enqueued {
    fn from(q: Queued) -> Enqueued {
        Enqueued {
            id: q.id,
            existing: q.existing,
        }
    }
}

impl NotifyQueue for NotifyJobs {
    async fn fanout(&self, tx: &mut Tx, ids: Vec<Id>, owner: JobOwner) -> shared::Result<Queued> {
        let job = NotificationFanout {
            notification_ids: ids,
        };
        Ok(enqueue(tx, &job.spec(), owner.into()).await?.into())
    }

    async fn drain(&self, tx: &mut Tx) -> shared::Result<Queued> {
        let spec = NotificationDrain {}.spec();
        Ok(enqueue(tx, &spec, Owner::default()).await?.into())
    }

    async fn announce(
        &self,
        tx: &mut Tx,
        a: &domain::Announcement,
        owner: JobOwner,
    ) -> shared::Result<Queued> {
        let job = Announcement {
            announcement_id: a.id,
            org_id: a.org_id,
            title: a.title.clone(),
            body: a.body.clone(),
        };
        Ok(enqueue(tx, &job.spec(), owner.into()).await?.into())
    }
}
