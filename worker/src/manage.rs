//! What people do to jobs through the api (`/api/jobs/{id}`): read one they may see, cancel one,
//! retry a failed one. Each is one operation with its audit entry in its transaction; which
//! kinds may be cancelled is the registry's ([`crate::handlers::registry`]).

use jobs::progress::{self, Progress};
use shared::db::{Db, Executor, Id, Ts};
use shared::domain::Actor;
use shared::job::Enqueued;
use shared::repo::{audit, orgs};
use shared::{Error, Result};

/// Who asks.
#[derive(Clone, Copy, Debug)]
pub struct Viewer {
    pub actor: Actor,
    /// Platform admins see every job.
    pub platform_admin: bool,
}

/// The job if `v` may see it (the jobs of their workspaces and their own; every job for a
/// platform admin); 404 otherwise (absent and not-yours look the same).
async fn visible(x: &mut impl Executor, v: &Viewer, id: Id) -> Result<Progress> {
    let job = progress::get(x, id)
        .await?
        .ok_or_else(|| Error::not_found("job"))?;
    let allowed = v.platform_admin
        || job.created_by == Some(v.actor.user_id)
        || match job.org_id {
            Some(org) => orgs::membership(x, v.actor.user_id, org).await?.is_some(),
            None => false,
        };
    if allowed {
        Ok(job)
    } else {
        Err(Error::not_found("job"))
    }
}

/// A job `v` may see.
pub async fn get(db: &Db, v: &Viewer, id: Id) -> Result<Progress> {
    let mut c = db.acquire().await?;
    visible(&mut c, v, id).await
}

/// Cancels a queued job at once; a running one is asked to stop and does at its next check.
/// 409 `not_cancellable` for a kind that cannot be, `job_finished` when it has ended.
pub async fn cancel(db: &Db, v: &Viewer, id: Id) -> Result<Progress> {
    let mut tx = db.begin().await?;
    let job = visible(&mut tx, v, id).await?;
    if !crate::handlers::registry().is_cancellable(&job.kind) {
        return Err(Error::conflict(
            "not_cancellable",
            "jobs of this kind cannot be cancelled",
        ));
    }
    if progress::request_cancel(&mut tx, id).await?.is_none() {
        return Err(Error::conflict(
            "job_finished",
            format!("the job has already {}", job.status),
        ));
    }
    let entry = v.actor.audit(
        job.org_id,
        "job.cancel_requested",
        "job",
        Some(id.to_string()),
        serde_json::json!({ "kind": job.kind }),
    );
    audit::record(&mut tx, entry).await?;
    let job = progress::get(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("job"))?;
    tx.commit().await?;
    Ok(job)
}

/// Re-queues a failed or cancelled job with fresh attempts (platform admins: the route's
/// policy). 409 `job_not_failed` otherwise.
pub async fn retry(db: &Db, by: &Actor, id: Id) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let job = progress::get(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("job"))?;
    if !progress::requeue(&mut tx, id).await? {
        return Err(Error::conflict(
            "job_not_failed",
            format!(
                "only failed or cancelled jobs can be retried; this one is {}",
                job.status
            ),
        ));
    }
    shared::job::push(&mut tx, job.queue, id, Ts::now(), 0).await?;
    let entry = by.audit(
        job.org_id,
        "job.retried",
        "job",
        Some(id.to_string()),
        serde_json::json!({ "kind": job.kind, "previousStatus": job.status }),
    );
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    Ok(Enqueued {
        id,
        existing: false,
    })
}
