//! Clip operations a member asks for: read, list, status of many, analyze, cancel, probe,
//! store and delete. The work itself runs in jobs (`work`); these validate, move the clip's
//! status, enqueue in the same transaction and audit.

use super::jobs::{AnalyzeClip, CancelAnalysis, DeleteObjects, ProbeClip, StoreClip, StoredObject};
use super::status::{ClipEvent, ClipStatus, next};
use crate::db::{Db, Id, Tx};
use crate::domain::InWorkspace;
use crate::job::{Enqueued, Owner, enqueue};
use crate::repo::audit;
use crate::repo::footage::{self, Change, Clip};
use crate::storage::Store;
use crate::video::token::VideoSource;
use crate::{Error, Result};
use serde_json::json;

const TARGET: &str = "clip";

/// The most clips one status read may name.
pub const MAX_STATUS_IDS: usize = 100;

pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<Clip> {
    let mut c = db.acquire().await?;
    footage::get_clip(&mut c, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))
}

/// What a clip list may be narrowed to.
#[derive(Debug, Default, Clone, Copy)]
pub struct Filter {
    pub session: Option<Id>,
    pub status: Option<ClipStatus>,
    pub athlete: Option<Id>,
    /// Newest first (the desk's "recent clips"); else oldest first, as the API lists them.
    pub newest_first: bool,
}

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    f: Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Clip>> {
    let mut c = db.acquire().await?;
    if let Some(s) = f.session {
        footage::get_session(&mut c, ws.org_id, s)
            .await?
            .ok_or_else(|| Error::not_found("footage session"))?;
    }
    Ok(footage::list_clips(
        &mut c,
        ws.org_id,
        f.session,
        f.status,
        f.athlete,
        f.newest_first,
        limit,
        offset,
    )
    .await?)
}

/// The stored status of up to [`MAX_STATUS_IDS`] clips, in the order asked; ids of clips that
/// do not exist in this workspace are left out. Never calls the backend.
pub async fn statuses(db: &Db, ws: &InWorkspace, ids: &[Id]) -> Result<Vec<Clip>> {
    if ids.is_empty() || ids.len() > MAX_STATUS_IDS {
        return Err(Error::field(
            "ids",
            "out_of_range",
            format!("name between 1 and {MAX_STATUS_IDS} clips"),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    let ids: Vec<Id> = ids.iter().copied().filter(|i| seen.insert(*i)).collect();
    let mut c = db.acquire().await?;
    Ok(footage::clips_by_ids(&mut c, ws.org_id, &ids).await?)
}

async fn load(tx: &mut Tx, ws: &InWorkspace, id: Id) -> Result<Clip> {
    footage::get_clip(tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))
}

const RACED: &str = "clip_state_changed";

/// Another writer moved the clip between our read and our write (a job finishing): the
/// client may simply ask again.
fn raced() -> Error {
    Error::conflict(
        "clip_state_changed", // RACED (a literal: docs/errors.md is read from the sources)
        "the clip changed while this request ran; read it and try again",
    )
}

/// How often a request that lost the race against a job's write to the clip (a probe or a
/// rendition finishing between our read and our write) reads it again before answering 409.
const RACE_RETRIES: usize = 3;

/// Runs `op` again while it loses that race: the person asked for an action, not for the
/// status the clip had an instant ago. Each try is its own transaction, rolled back when it lost.
async fn retrying_races<T, F, Fut>(mut op: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    let mut tries = 0;
    loop {
        match op().await {
            Err(e) if e.code == RACED && tries < RACE_RETRIES => tries += 1,
            r => return r,
        }
    }
}

/// Submits the clip to the analysis backend (a new generation of its analysis). A clip already
/// in flight returns its live job.
pub async fn analyze(db: &Db, ws: &InWorkspace, id: Id) -> Result<(Clip, Enqueued)> {
    retrying_races(|| analyze_once(db, ws, id)).await
}

async fn analyze_once(db: &Db, ws: &InWorkspace, id: Id) -> Result<(Clip, Enqueued)> {
    let mut tx = db.begin().await?;
    let clip = load(&mut tx, ws, id).await?;
    if clip.status.in_flight()
        && let Some(job_id) = clip.job_id
    {
        return Ok((
            clip,
            Enqueued {
                id: job_id,
                existing: true,
            },
        ));
    }
    if clip.raw_key.is_none() && clip.source_url.is_none() {
        return Err(Error::conflict(
            "clip_not_uploaded",
            "the clip's file has not been uploaded yet",
        ));
    }
    let to = next(clip.status, ClipEvent::Submitted)?;
    let generation = clip.analysis_generation + 1;
    let work = AnalyzeClip {
        org_id: ws.org_id,
        clip_id: id,
        generation,
    };
    let queued = enqueue(
        &mut tx,
        &work,
        Owner::new(work.org_id, Some(ws.actor.user_id)),
    )
    .await?;
    let change = Change {
        progress: Some(0),
        reason: Some(None),
        analysis_generation: Some(generation),
        analysis_id: Some(None),
        job_id: Some(queued.id),
        ..Change::default()
    };
    if !footage::set_status(&mut tx, id, clip.status, to, change).await? {
        return Err(raced());
    }
    let data = json!({ "generation": generation, "jobId": queued.id });
    audit::record(&mut tx, ws.audit("clip.analyze", TARGET, id, data)).await?;
    let clip = load(&mut tx, ws, id).await?;
    tx.commit().await?;
    Ok((clip, queued))
}

/// Cancels the clip at once here; the backend job, if any, is cancelled by a job, best effort.
pub async fn cancel(db: &Db, ws: &InWorkspace, id: Id) -> Result<Clip> {
    retrying_races(|| cancel_once(db, ws, id)).await
}

async fn cancel_once(db: &Db, ws: &InWorkspace, id: Id) -> Result<Clip> {
    let mut tx = db.begin().await?;
    let clip = load(&mut tx, ws, id).await?;
    let to = next(clip.status, ClipEvent::Cancelled)?;
    let change = Change {
        reason: Some(Some((
            "cancelled".into(),
            "cancelled by a member of the workspace".into(),
        ))),
        ..Change::default()
    };
    if !footage::set_status(&mut tx, id, clip.status, to, change).await? {
        return Err(raced());
    }
    if let (true, Some(aid)) = (clip.status.in_flight(), clip.analysis_id.clone()) {
        let work = CancelAnalysis {
            org_id: ws.org_id,
            clip_id: id,
            analysis_id: aid,
        };
        enqueue(
            &mut tx,
            &work,
            Owner::new(work.org_id, Some(ws.actor.user_id)),
        )
        .await?;
    }
    let data = json!({ "from": clip.status });
    audit::record(&mut tx, ws.audit("clip.cancel", TARGET, id, data)).await?;
    let clip = load(&mut tx, ws, id).await?;
    tx.commit().await?;
    Ok(clip)
}

/// Reads the clip's rotation, duration, codec, resolution and frame rate with ffprobe (a job).
pub async fn probe(db: &Db, ws: &InWorkspace, id: Id) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let clip = load(&mut tx, ws, id).await?;
    if clip.raw_key.is_none() {
        return Err(Error::conflict(
            "clip_not_uploaded",
            "only an uploaded clip can be probed",
        ));
    }
    next(clip.status, ClipEvent::Probed)?;
    let work = ProbeClip {
        org_id: ws.org_id,
        clip_id: id,
    };
    let queued = enqueue(
        &mut tx,
        &work,
        Owner::new(work.org_id, Some(ws.actor.user_id)),
    )
    .await?;
    footage::set_job(&mut tx, id, queued.id).await?;
    tx.commit().await?;
    Ok(queued)
}

/// Copies the processed video and overlay into our stores (a job; a stored clip's re-run
/// changes nothing).
pub async fn store(db: &Db, ws: &InWorkspace, id: Id) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let clip = load(&mut tx, ws, id).await?;
    next(clip.status, ClipEvent::Stored)?;
    let work = StoreClip {
        org_id: ws.org_id,
        clip_id: id,
    };
    let queued = enqueue(
        &mut tx,
        &work,
        Owner::new(work.org_id, Some(ws.actor.user_id)),
    )
    .await?;
    footage::set_job(&mut tx, id, queued.id).await?;
    tx.commit().await?;
    Ok(queued)
}

/// The storage objects a clip owns.
pub fn objects(clip: &Clip) -> Vec<StoredObject> {
    let mut out = Vec::new();
    if let Some(k) = &clip.raw_key {
        out.push(StoredObject::new(Store::RawUploads, k));
    }
    if let Some(k) = &clip.video_key {
        out.push(StoredObject::new(Store::SessionVideos, k));
    }
    if let Some(k) = &clip.overlay_key {
        out.push(StoredObject::new(Store::Sidecars, k));
    }
    out
}

/// The key prefixes of a clip's web media (in both stores that hold some).
pub fn prefixes(org: Id, clip: Id) -> Vec<StoredObject> {
    let prefix = super::keys::media_prefix(org, clip);
    vec![
        StoredObject::new(Store::SessionVideos, &prefix),
        StoredObject::new(Store::Sidecars, prefix),
    ]
}

/// Deletes the clip's rows in one transaction; its objects go through a job that retries
/// until they are gone, and an analysis in flight is cancelled at the backend.
pub async fn delete(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let clip = load(&mut tx, ws, id).await?;
    footage::delete_clip(&mut tx, ws.org_id, id).await?;
    let objects = objects(&clip);
    // Always: the media prefix may hold renditions even when the clip has no other object.
    let work = DeleteObjects {
        org_id: ws.org_id,
        owner: format!("clip:{id}"),
        objects: objects.clone(),
        prefixes: prefixes(ws.org_id, id),
    };
    enqueue(
        &mut tx,
        &work,
        Owner::new(work.org_id, Some(ws.actor.user_id)),
    )
    .await?;
    if let (true, Some(aid)) = (clip.status.in_flight(), clip.analysis_id.clone()) {
        let work = CancelAnalysis {
            org_id: ws.org_id,
            clip_id: id,
            analysis_id: aid,
        };
        enqueue(
            &mut tx,
            &work,
            Owner::new(work.org_id, Some(ws.actor.user_id)),
        )
        .await?;
    }
    let data = json!({ "sessionId": clip.session_id, "fileName": clip.file_name, "objects": objects.len() });
    audit::record(&mut tx, ws.audit("clip.delete", TARGET, id, data)).await?;
    tx.commit().await?;
    Ok(())
}

crate::text_enum! {
    /// Which video of a clip a signed stream URL plays: the web rendition or the lower one
    /// (`media`), the processed video (stored in session-videos) or the original (the upload in
    /// raw-uploads, or its external URL).
    pub enum VideoVariant {
        Web = "web",
        Low = "low",
        Processed = "processed",
        Original = "original",
    }
}

/// The source a stream URL for the clip reads. Without a variant: the web rendition once
/// ready, else the processed video once stored, else the original. 409
/// `clip_video_unavailable` when the one asked for (or any) does not exist yet.
pub async fn video_source(
    db: &Db,
    ws: &InWorkspace,
    id: Id,
    variant: Option<VideoVariant>,
) -> Result<(VideoVariant, VideoSource)> {
    let clip = get(db, ws, id).await?;
    let media = super::media::get(db, ws, id).await?.and_then(|m| {
        m.manifest
            .filter(|_| m.status == super::media::MediaStatus::Ready)
    });
    source_of(&clip, media.as_ref().map(|m| &m.0), variant)
}

/// The source of `clip`'s video given its ready web media: the variant asked for, else the
/// web rendition, the processed video once stored, the original (409 `clip_video_unavailable`
/// when there is none yet).
pub fn source_of(
    clip: &Clip,
    media: Option<&super::media::MediaManifest>,
    variant: Option<VideoVariant>,
) -> Result<(VideoVariant, VideoSource)> {
    let stored = |store: Store, key: &str| VideoSource::Stored {
        store,
        key: key.to_string(),
    };
    let source = |v: VideoVariant| match v {
        VideoVariant::Web => media.map(|m| stored(Store::SessionVideos, &m.web.key)),
        VideoVariant::Low => media
            .and_then(|m| m.low.as_ref())
            .map(|l| stored(Store::SessionVideos, &l.key)),
        VideoVariant::Processed => clip
            .video_key
            .as_deref()
            .map(|k| stored(Store::SessionVideos, k)),
        VideoVariant::Original => match (&clip.raw_key, &clip.source_url) {
            (Some(key), _) => Some(stored(Store::RawUploads, key)),
            (None, Some(url)) => Some(VideoSource::External { url: url.clone() }),
            (None, None) => None,
        },
    };
    let wanted = match variant {
        Some(v) => vec![v],
        None => vec![
            VideoVariant::Web,
            VideoVariant::Processed,
            VideoVariant::Original,
        ],
    };
    wanted
        .into_iter()
        .find_map(|v| source(v).map(|s| (v, s)))
        .ok_or_else(|| {
            Error::conflict(
                "clip_video_unavailable",
                match variant {
                    Some(VideoVariant::Processed) => {
                        "the processed video is kept once the clip is stored; store it first"
                    }
                    Some(VideoVariant::Web) => "the web rendition is not ready yet",
                    Some(VideoVariant::Low) => {
                        "there is no lower rendition: only long videos get one, once rendered"
                    }
                    _ => "the clip has no video yet",
                },
            )
        })
}

/// The stored overlay sidecar of a clip: (store, key). 409 `clip_overlay_unavailable` until
/// the clip is stored (the backend's own URLs expire, so only our copy is served).
pub async fn overlay(db: &Db, ws: &InWorkspace, id: Id) -> Result<(Store, String)> {
    let clip = get(db, ws, id).await?;
    clip.overlay_key
        .map(|k| (Store::Sidecars, k))
        .ok_or_else(|| {
            Error::conflict(
                "clip_overlay_unavailable",
                "the overlay is kept once the clip is stored; store it first",
            )
        })
}
