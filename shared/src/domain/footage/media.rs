//! A clip's web media (issue 38): what browsers play instead of the phone's original (often
//! HEVC, rotated, 4K or 60 fps): an H.264/AAC MP4 with its index at the front, at most 1080p,
//! rotation applied; a 540p one besides for long videos; a poster frame; and a scrub strip (a
//! sprite of thumbnails with a WebVTT index).
//!
//! The poster is cut from the source first and recorded at once, so a page shows it (and the
//! clip's timeline) while the rendition is made.
//!
//! ```text
//! (none) ─probe or store─▶ pending ─▶ rendering ─▶ ready
//!                             ▲            │
//!                             └──render────┴──▶ failed (not_video, no_video_track, media_truncated, …)
//! ```
//!
//! The render job (`RenderClip`, media queue, `worker::handlers::media`) is asked for in the
//! transaction that records the probe of an uploaded clip, or the store of a clip whose only
//! source is an external URL; `render` asks again. Each row names the job that owns it, so the
//! outcome of a superseded job changes nothing. The objects live under the clip's `media/`
//! prefix in session-videos (renditions) and sidecars (images), fixed names, so a second render
//! overwrites the one copy and deleting the clip deletes the prefix. The original is kept.

use super::jobs::RenderClip;
use super::keys;
use crate::db::{Db, Executor, Id};
use crate::domain::InWorkspace;
use crate::job::{Enqueued, Owner, enqueue};
use crate::repo::audit;
use crate::repo::clip_media;
use crate::repo::footage::{self, Clip};
use crate::storage::Store;
use crate::{Error, Result};
use serde_json::json;
use std::fmt::Write;

pub use crate::model::footage::{Image, MediaManifest, MediaStatus, Rendition, ScrubStrip};
pub use crate::repo::clip_media::ClipMedia;

/// Videos at least this long get the lower rendition too.
pub const LOW_RENDITION_FROM_MS: i64 = 120_000;

/// The file names under a clip's `media/` prefix.
pub mod names {
    pub const WEB: &str = "web.mp4";
    pub const LOW: &str = "low.mp4";
    pub const POSTER: &str = "poster.jpg";
    pub const STRIP: &str = "strip.jpg";
}

/// The key of a media object of `clip` (renditions in session-videos, images in sidecars).
pub fn key(org: Id, clip: Id, name: &str) -> String {
    format!("{}{name}", keys::media_prefix(org, clip))
}

/// What a render reads: the uploaded original, else the stored processed video (a clip whose
/// only source is an external URL); `None` until one of them is in our stores.
pub fn source(clip: &Clip) -> Option<(Store, &str, &'static str)> {
    match (&clip.raw_key, &clip.video_key) {
        (Some(k), _) => Some((Store::RawUploads, k, "original")),
        (None, Some(k)) => Some((Store::SessionVideos, k, "processed")),
        (None, None) => None,
    }
}

/// Enqueues the render of `clip` in the caller's transaction and marks its media `pending`
/// (the live render, if there is one, is the one job: its key is the clip).
pub async fn request(
    x: &mut impl Executor,
    org: Id,
    clip: Id,
    actor: Option<Id>,
) -> Result<Enqueued> {
    let work = RenderClip {
        org_id: org,
        clip_id: clip,
    };
    let job = enqueue(x, &work, Owner::new(org, actor)).await?;
    clip_media::pending(x, org, clip, job.id).await?;
    Ok(job)
}

/// Asks for a render unless the clip's media exists already (the probe and the store call this,
/// so probing again does not render again).
pub async fn request_once(x: &mut impl Executor, org: Id, clip: Id) -> Result<()> {
    if clip_media::get(x, org, clip).await?.is_none() {
        request(x, org, clip, None).await?;
    }
    Ok(())
}

/// `POST /api/clips/render`: renders the clip's media again (after a failure, or to pick up a
/// newer encoder setting). 409 `clip_video_unavailable` while the clip has no stored video.
pub async fn render(db: &Db, ws: &InWorkspace, clip_id: Id) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let clip = footage::get_clip(&mut tx, ws.org_id, clip_id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))?;
    if source(&clip).is_none() {
        return Err(Error::conflict(
            "clip_video_unavailable",
            "the clip has no video in our stores yet: upload it, or store its analysis",
        ));
    }
    let job = request(&mut tx, ws.org_id, clip_id, Some(ws.actor.user_id)).await?;
    let entry = ws.audit("clip.render", "clip", clip_id, json!({ "jobId": job.id }));
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    Ok(job)
}

/// The clip's media row; `None` when no render was ever asked for. 404 for another
/// workspace's clip.
pub async fn get(db: &Db, ws: &InWorkspace, clip_id: Id) -> Result<Option<ClipMedia>> {
    let mut c = db.acquire().await?;
    footage::get_clip(&mut c, ws.org_id, clip_id)
        .await?
        .ok_or_else(|| Error::not_found("clip"))?;
    Ok(clip_media::get(&mut c, ws.org_id, clip_id).await?)
}

/// The media of a footage session's clips, by clip.
pub async fn of_session(
    db: &Db,
    ws: &InWorkspace,
    session: Id,
) -> Result<std::collections::HashMap<Id, ClipMedia>> {
    let mut c = db.acquire().await?;
    let rows = clip_media::of_session(&mut c, ws.org_id, session).await?;
    Ok(rows.into_iter().map(|m| (m.clip_id, m)).collect())
}

/// The render job `job` started: `rendering`. False when another render owns the row now.
pub async fn started(db: &Db, clip: Id, job: Id) -> Result<bool> {
    let mut c = db.acquire().await?;
    Ok(clip_media::set(&mut c, clip, job, MediaStatus::Rendering, None, None).await?)
}

/// The render job `job` made the clip's poster (before its rendition, so pages show it while
/// the rendition is made).
pub async fn poster_made(db: &Db, clip: Id, job: Id, poster: &Image) -> Result<bool> {
    let mut c = db.acquire().await?;
    Ok(clip_media::set_poster(&mut c, clip, job, poster).await?)
}

/// The render job `job` made `manifest`: `ready`. False when the clip is gone or another
/// render owns the row (the caller then deletes nothing: the keys are the clip's fixed ones).
pub async fn ready(db: &Db, clip: Id, job: Id, manifest: &MediaManifest) -> Result<bool> {
    let mut c = db.acquire().await?;
    Ok(clip_media::set(&mut c, clip, job, MediaStatus::Ready, None, Some(manifest)).await?)
}

/// The render job `job` failed for good, with a stable code and the reason.
pub async fn failed(db: &Db, clip: Id, job: Id, code: &str, message: &str) -> Result<bool> {
    let mut c = db.acquire().await?;
    let reason = Some((code, message));
    Ok(clip_media::set(&mut c, clip, job, MediaStatus::Failed, reason, None).await?)
}

/// The WebVTT index of a scrub strip: one cue per thumbnail, each pointing at its tile of the
/// sprite at `sprite_url` with a media fragment (`#xywh=x,y,w,h`), as players read them.
pub fn vtt(strip: &ScrubStrip, duration_ms: i64, sprite_url: &str) -> String {
    let mut out = String::from("WEBVTT\n");
    let columns = strip.columns.max(1);
    for i in 0..strip.count {
        let start = i * strip.interval_ms;
        let end = ((i + 1) * strip.interval_ms).min(duration_ms.max(start + 1));
        let (x, y) = (
            (i % columns) * strip.thumb_width,
            (i / columns) * strip.thumb_height,
        );
        let _ = write!(
            out,
            "\n{} --> {}\n{sprite_url}#xywh={x},{y},{},{}\n",
            cue_time(start),
            cue_time(end),
            strip.thumb_width,
            strip.thumb_height
        );
    }
    out
}

/// `HH:MM:SS.mmm`, as WebVTT writes a cue's time.
fn cue_time(ms: i64) -> String {
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    format!(
        "{h:02}:{:02}:{:02}.{:03}",
        rest / 60_000,
        rest % 60_000 / 1000,
        rest % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vtt_index_points_each_cue_at_its_tile() {
        let strip = ScrubStrip {
            key: String::new(),
            columns: 2,
            count: 3,
            interval_ms: 2000,
            thumb_width: 160,
            thumb_height: 90,
        };
        let v = vtt(&strip, 5000, "https://x/s.jpg?t=1");
        assert_eq!(
            v,
            "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nhttps://x/s.jpg?t=1#xywh=0,0,160,90\n\
             \n00:00:02.000 --> 00:00:04.000\nhttps://x/s.jpg?t=1#xywh=160,0,160,90\n\
             \n00:00:04.000 --> 00:00:05.000\nhttps://x/s.jpg?t=1#xywh=0,90,160,90\n"
        );
        assert_eq!(cue_time(3_723_004), "01:02:03.004");
    }
}
