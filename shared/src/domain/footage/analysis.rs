//! What the worker's footage jobs (and the backend's completion webhook) record on a clip:
//! the backend's reports, probe results, stored copies and failures. Each is one
//! compare-and-set status change through [`next`], so a poll and a webhook that race, or a job
//! re-run after a crash, apply once; a report for an older analysis generation, or for a clip
//! cancelled or deleted meanwhile, is ignored.

use super::status::{ClipEvent, next};
use super::work::{JobQueue, PollClip, StoreClip, Work};
use crate::db::{Db, Id};
use crate::repo::footage::{self, Change, Clip};
use crate::{Error, Result};
use serde_json::Value;

/// The analysis backend's view of a job, as the domain needs it.
#[derive(Debug, Clone)]
pub enum Report {
    Queued,
    Running {
        progress: u8,
    },
    /// `result` is the backend's result document (file URLs, sizes, checksums), `stats` its stats.
    Succeeded {
        result: Value,
        stats: Value,
    },
    Failed {
        code: String,
        message: String,
    },
    Canceled,
}

/// What applying a report did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The clip moved (or its progress did); more reports will follow.
    Continue,
    /// The analysis ended (processed, failed or cancelled): polling stops.
    Finished,
    /// The report no longer concerns the clip (another generation, cancelled, deleted).
    Stale,
}

/// The clip, whatever its workspace (jobs carry the workspace id they were made in).
pub async fn load(db: &Db, org: Id, clip: Id) -> Result<Option<Clip>> {
    let mut c = db.acquire().await?;
    Ok(footage::get_clip(&mut c, org, clip).await?)
}

/// Records the backend job's id once the submit was accepted.
pub async fn submitted(
    db: &Db,
    org: Id,
    clip: Id,
    generation: i64,
    analysis_id: &str,
) -> Result<Applied> {
    let mut tx = db.begin().await?;
    let Some(k) = footage::get_clip(&mut tx, org, clip).await? else {
        return Ok(Applied::Stale);
    };
    if k.analysis_generation != generation || !k.status.in_flight() {
        return Ok(Applied::Stale);
    }
    let change = Change {
        analysis_id: Some(Some(analysis_id.to_string())),
        ..Change::default()
    };
    if !footage::set_status(&mut tx, clip, k.status, k.status, change).await? {
        return Ok(Applied::Stale);
    }
    tx.commit().await?;
    Ok(Applied::Continue)
}

/// Applies the backend's report for `generation`. On success the clip is `processed`, its stats
/// saved, and a store job enqueued (results are fetched promptly: their URLs expire).
pub async fn apply(
    db: &Db,
    q: &dyn JobQueue,
    org: Id,
    clip: Id,
    generation: i64,
    report: Report,
) -> Result<Applied> {
    let mut tx = db.begin().await?;
    let Some(k) = footage::get_clip(&mut tx, org, clip).await? else {
        return Ok(Applied::Stale);
    };
    if k.analysis_generation != generation || !k.status.in_flight() {
        return Ok(Applied::Stale);
    }
    let (event, change, finished) = match report {
        Report::Queued => return Ok(Applied::Continue),
        Report::Running { progress } => (
            ClipEvent::Running,
            Change {
                progress: Some(i64::from(progress.min(99))),
                ..Change::default()
            },
            false,
        ),
        Report::Succeeded { result, stats } => {
            let work = Work::Store(StoreClip {
                org_id: org,
                clip_id: clip,
            });
            let queued = q.enqueue(&mut tx, work, None).await?;
            (
                ClipEvent::Succeeded,
                Change {
                    progress: Some(100),
                    analysis_result: Some(result),
                    stats: Some(stats),
                    job_id: Some(queued.job_id),
                    ..Change::default()
                },
                true,
            )
        }
        Report::Failed { code, message } => (
            ClipEvent::Failed,
            Change {
                reason: Some(Some((format!("analysis_{code}"), message))),
                ..Change::default()
            },
            true,
        ),
        Report::Canceled => (
            ClipEvent::Cancelled,
            Change {
                reason: Some(Some((
                    "analysis_canceled".into(),
                    "the analysis backend cancelled the job".into(),
                ))),
                ..Change::default()
            },
            true,
        ),
    };
    let to = next(k.status, event)?;
    if !footage::set_status(&mut tx, clip, k.status, to, change).await? {
        return Ok(Applied::Stale);
    }
    tx.commit().await?;
    Ok(if finished {
        Applied::Finished
    } else {
        Applied::Continue
    })
}

/// Enqueues the next poll of the clip's analysis, `delay_ms` from now, and records it as the
/// clip's live job.
pub async fn poll_again(db: &Db, q: &dyn JobQueue, poll: PollClip, delay_ms: u64) -> Result<()> {
    let mut tx = db.begin().await?;
    let clip = poll.clip_id;
    let queued = q.enqueue(&mut tx, Work::Poll(poll, delay_ms), None).await?;
    footage::set_job(&mut tx, clip, queued.job_id).await?;
    tx.commit().await?;
    Ok(())
}

/// Fails the clip permanently with a stable code (probe of a file that is not video, a submit
/// the backend refused, a stored copy whose checksum did not match), from whatever status it is
/// in; a clip that cannot fail from there (stored, cancelled, failed) is left alone.
pub async fn fail(db: &Db, org: Id, clip: Id, code: &str, message: &str) -> Result<Applied> {
    let mut tx = db.begin().await?;
    let Some(k) = footage::get_clip(&mut tx, org, clip).await? else {
        return Ok(Applied::Stale);
    };
    let Ok(to) = next(k.status, ClipEvent::Failed) else {
        return Ok(Applied::Stale);
    };
    let change = Change {
        reason: Some(Some((code.to_string(), message.to_string()))),
        ..Change::default()
    };
    if !footage::set_status(&mut tx, clip, k.status, to, change).await? {
        return Ok(Applied::Stale);
    }
    tx.commit().await?;
    Ok(Applied::Finished)
}

/// Records what ffprobe read (`probe` is the JSON the api shows). A clip that moved on since
/// (e.g. already submitted) keeps its status and gets the probe.
pub async fn probed(db: &Db, org: Id, clip: Id, probe: Value) -> Result<Applied> {
    let mut tx = db.begin().await?;
    let Some(k) = footage::get_clip(&mut tx, org, clip).await? else {
        return Ok(Applied::Stale);
    };
    let to = next(k.status, ClipEvent::Probed).unwrap_or(k.status);
    let change = Change {
        probe: Some(probe),
        ..Change::default()
    };
    if !footage::set_status(&mut tx, clip, k.status, to, change).await? {
        return Err(Error::conflict(
            "clip_state_changed",
            "the clip changed while it was probed",
        ));
    }
    tx.commit().await?;
    Ok(Applied::Continue)
}

/// Records the stored copies of a processed clip: it becomes `stored`.
pub async fn stored(
    db: &Db,
    org: Id,
    clip: Id,
    video: (String, i64),
    overlay: (String, i64),
) -> Result<Applied> {
    let mut tx = db.begin().await?;
    let Some(k) = footage::get_clip(&mut tx, org, clip).await? else {
        return Ok(Applied::Stale);
    };
    let Ok(to) = next(k.status, ClipEvent::Stored) else {
        return Ok(Applied::Stale);
    };
    let change = Change {
        video: Some(video),
        overlay: Some(overlay),
        reason: Some(None),
        ..Change::default()
    };
    if !footage::set_status(&mut tx, clip, k.status, to, change).await? {
        return Ok(Applied::Stale);
    }
    tx.commit().await?;
    Ok(Applied::Finished)
}
