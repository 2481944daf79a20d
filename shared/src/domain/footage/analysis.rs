//! What the worker's footage jobs (and the backend's completion webhook) record on a clip:
//! the backend's reports, probe results, stored copies and failures. Each is one
//! compare-and-set status change through [`next`], so a poll and a webhook that race, or a job
//! re-run after a crash, apply once; a report for an older analysis generation, or for a clip
//! cancelled or deleted meanwhile, is ignored.

use super::jobs::{PollClip, StoreClip};
use super::status::{ClipEvent, next};
use crate::db::{Db, Id};
use crate::job::{Owner, enqueue, enqueue_at};
use crate::providers::analysis::{AnalysisJob, AnalysisState};
use crate::repo::footage::{self, Change, Clip};
use crate::{Error, Result};
use serde_json::{Value, json};

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

impl Report {
    /// The backend's job as the domain's report.
    pub fn of(job: &AnalysisJob) -> Report {
        match job.state {
            AnalysisState::Queued => Report::Queued,
            AnalysisState::Running => Report::Running {
                progress: job.progress,
            },
            AnalysisState::Succeeded => match &job.result {
                Some(r) => Report::Succeeded {
                    result: json!({ "video": r.video, "overlay": r.overlay }),
                    stats: serde_json::to_value(&r.stats).unwrap_or(Value::Null),
                },
                None => Report::Failed {
                    code: "no_result".into(),
                    message: "the backend reported success without a result".into(),
                },
            },
            AnalysisState::Failed => {
                let e = job.error.clone();
                Report::Failed {
                    code: e.as_ref().map_or("failed".into(), |e| e.code.clone()),
                    message: e.map_or("the analysis failed".into(), |e| e.message),
                }
            }
            AnalysisState::Canceled => Report::Canceled,
        }
    }
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
pub async fn apply(db: &Db, org: Id, clip: Id, generation: i64, report: Report) -> Result<Applied> {
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
            let work = StoreClip {
                org_id: org,
                clip_id: clip,
            };
            let queued = enqueue(&mut tx, &work, Owner::new(work.org_id, None)).await?;
            (
                ClipEvent::Succeeded,
                Change {
                    progress: Some(100),
                    analysis_result: Some(result),
                    stats: Some(stats),
                    job_id: Some(queued.id),
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
pub async fn poll_again(db: &Db, poll: PollClip, delay_ms: u64) -> Result<()> {
    let mut tx = db.begin().await?;
    let clip = poll.clip_id;
    let at = crate::db::Ts::now().plus(chrono::Duration::milliseconds(delay_ms as i64));
    let queued = enqueue_at(&mut tx, &poll, Owner::new(poll.org_id, None), at).await?;
    footage::set_job(&mut tx, clip, queued.id).await?;
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
    // A readable original: browsers get a rendition of it.
    super::media::request_once(&mut tx, org, clip).await?;
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
    // A clip whose only source is an external URL: its rendition is made from our copy.
    if k.raw_key.is_none() {
        super::media::request_once(&mut tx, org, clip).await?;
    }
    tx.commit().await?;
    Ok(Applied::Finished)
}

/// Applies a verified completion webhook: the job's report, for the clip and generation that
/// made the job. The webhook ends polling early (the next poll finds the clip finished and
/// stops); a duplicate delivery, or one for a job no clip knows yet (the submit has not
/// recorded the job's id), changes nothing and the poll picks the result up.
pub async fn completed(db: &Db, job: &AnalysisJob) -> Result<Applied> {
    let clip = {
        let mut c = db.acquire().await?;
        footage::clip_by_analysis(&mut c, &job.id).await?
    };
    let Some(k) = clip else {
        return Ok(Applied::Stale);
    };
    apply(db, k.org_id, k.id, k.analysis_generation, Report::of(job)).await
}

/// The poll round a sweep enqueues: past the doubling, so its follow-ups come a minute apart.
pub const SWEEP_ROUND: u32 = 16;

/// The most clips one sweep revives (the next run takes the rest).
pub const SWEEP_BATCH: i64 = 500;

/// The `clips-poll` task: clips waiting on the backend whose row has not moved since
/// `before` (a poll chain that ran out of attempts, a worker lost mid-chain) get a poll again.
/// Returns how many.
pub async fn sweep(db: &Db, before: crate::db::Ts) -> Result<u64> {
    let stalled = {
        let mut c = db.acquire().await?;
        footage::stalled_clips(&mut c, before, SWEEP_BATCH).await?
    };
    let mut n = 0;
    for k in stalled {
        let poll = PollClip {
            org_id: k.org_id,
            clip_id: k.id,
            generation: k.analysis_generation,
            round: SWEEP_ROUND,
        };
        poll_again(db, poll, 0).await?;
        n += 1;
    }
    Ok(n)
}
