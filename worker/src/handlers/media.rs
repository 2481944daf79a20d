//! The render job: a clip's web media (`shared::domain::footage::media`) made with ffmpeg
//! (`crate::media`) in a temporary directory: the source is spooled from its store and probed;
//! the poster is cut from it and recorded at once; the rendition(s) are made with ffmpeg's
//! progress reported on the job (0–90 %), the scrub strip is cut from the rendition, and
//! everything is uploaded at the clip's fixed keys. The
//! original stays as it is. Memory stays flat: every byte moves file to file or as a stream.

use super::footage::spool;
use super::{Ctx, RunJob};
use crate::media::{self as ff, BadMedia, Probe};
use jobs::JobError;
use serde_json::{Value, json};
use shared::domain::footage::analysis as record;
use shared::domain::footage::jobs::RenderClip;
use shared::domain::footage::media::{
    self, Image, LOW_RENDITION_FROM_MS, MediaManifest, Rendition, names,
};
use shared::storage::Store;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How a render ends when it does not make the media.
enum Failure {
    /// The input is not a usable video: the media fails for good with its code.
    Bad(BadMedia),
    Job(JobError),
}

impl From<JobError> for Failure {
    fn from(e: JobError) -> Self {
        Failure::Job(e)
    }
}

impl RunJob for RenderClip {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let db = &ctx.deps.db;
        let Some(clip) = record::load(db, self.org_id, self.clip_id).await? else {
            return Ok(json!({ "skipped": "clip deleted" }));
        };
        let Some((store, key, source)) = media::source(&clip) else {
            let msg = "the clip has no video in our stores";
            media::failed(db, self.clip_id, ctx.job_id, "clip_video_unavailable", msg).await?;
            return Err(JobError::Permanent(msg.into()));
        };
        if !media::started(db, self.clip_id, ctx.job_id).await? {
            return Ok(json!({ "skipped": "superseded" }));
        }
        let dir = std::env::temp_dir().join(format!("render-{}-{}", self.clip_id, ctx.job_id));
        let made = async {
            tokio::fs::create_dir_all(&dir)
                .await
                .map_err(|e| JobError::Transient(format!("temporary directory: {e}")))?;
            render(ctx, &self, store, key, source, &dir).await
        }
        .await;
        let _ = tokio::fs::remove_dir_all(&dir).await;
        match made {
            Ok(manifest) => {
                if !media::ready(db, self.clip_id, ctx.job_id, &manifest).await? {
                    return Ok(json!({ "skipped": "clip deleted or rendered again" }));
                }
                Ok(json!({
                    "webBytes": manifest.web.size_bytes,
                    "lowBytes": manifest.low.as_ref().map(|l| l.size_bytes),
                    "width": manifest.web.width,
                    "height": manifest.web.height,
                }))
            }
            Err(Failure::Bad(b)) => {
                media::failed(db, self.clip_id, ctx.job_id, b.code, &b.message).await?;
                Err(JobError::Permanent(b.message))
            }
            Err(Failure::Job(e)) => {
                // The media never stays `rendering` after its last attempt.
                let code = match &e {
                    JobError::Cancelled => Some("render_cancelled"),
                    JobError::Permanent(_) => Some("render_failed"),
                    _ if ctx.last_attempt() => Some("render_failed"),
                    _ => None,
                };
                if let Some(code) = code {
                    media::failed(db, self.clip_id, ctx.job_id, code, &e.to_string()).await?;
                }
                Err(e)
            }
        }
    }
}

async fn render(
    ctx: &Ctx,
    job: &RenderClip,
    store: Store,
    key: &str,
    source: &str,
    dir: &Path,
) -> Result<MediaManifest, Failure> {
    let (org, clip) = (job.org_id, job.clip_id);
    let up = |name: &'static str, store: Store, path: PathBuf, ty: &'static str| async move {
        let key = media::key(org, clip, name);
        let size = upload(ctx, store, &key, &path, ty).await?;
        Ok::<_, JobError>((key, size))
    };
    let input = dir.join("source");
    spool(ctx, store, key, &input).await?;
    let src = probe(&input).await?;

    // The poster first, from the source (a second's work): pages show it from now on.
    let poster = dir.join(names::POSTER);
    ffmpeg(ctx, ff::poster_args(&input, src.duration_ms, &poster), None).await?;
    let p = probe(&poster).await?;
    let (poster_key, _) = up(names::POSTER, Store::Sidecars, poster, "image/jpeg").await?;
    let image = Image {
        key: poster_key,
        width: p.width,
        height: p.height,
    };
    media::poster_made(&ctx.deps.db, clip, ctx.job_id, &image)
        .await
        .map_err(JobError::from)?;

    let (web, low) = (dir.join(names::WEB), dir.join(names::LOW));
    let with_low = src.duration_ms >= LOW_RENDITION_FROM_MS;
    let args = ff::render_args(&input, &web, with_low.then_some(low.as_path()));
    ffmpeg(ctx, args, Some((src.duration_ms, "rendering"))).await?;
    let out = probe_output(&web, &src).await?;
    ctx.progress(Some(90), Some("scrub strip")).await?;
    let mut strip = ff::strip_layout(out.duration_ms, out.width, out.height);
    let strip_path = dir.join(names::STRIP);
    ffmpeg(ctx, ff::strip_args(&web, &strip, &strip_path), None).await?;

    ctx.progress(Some(95), Some("uploading")).await?;
    let (web_key, web_size) = up(names::WEB, Store::SessionVideos, web, "video/mp4").await?;
    let low = if with_low {
        let (key, size) = up(names::LOW, Store::SessionVideos, low.clone(), "video/mp4").await?;
        let l = probe_output(&low, &src).await?;
        Some(rendition(key, size, &l))
    } else {
        None
    };
    let (strip_key, _) = up(names::STRIP, Store::Sidecars, strip_path, "image/jpeg").await?;
    strip.key = strip_key;
    Ok(MediaManifest {
        source: source.to_string(),
        web: rendition(web_key, web_size, &out),
        low,
        strip,
        duration_ms: out.duration_ms,
    })
}

fn rendition(key: String, size: i64, p: &Probe) -> Rendition {
    let bit_rate = match p.bit_rate {
        Some(b) => b,
        None if p.duration_ms > 0 => size * 8000 / p.duration_ms,
        None => 0,
    };
    Rendition {
        key,
        size_bytes: size,
        width: p.width,
        height: p.height,
        bit_rate,
    }
}

async fn probe(path: &Path) -> Result<Probe, Failure> {
    let p = path.to_path_buf();
    match tokio::task::spawn_blocking(move || ff::probe(&p)).await {
        Ok(Ok(Ok(probe))) => Ok(probe),
        Ok(Ok(Err(bad))) => Err(Failure::Bad(bad)),
        Ok(Err(e)) => Err(JobError::Transient(e.0).into()),
        Err(e) => Err(JobError::Transient(format!("ffprobe task: {e}")).into()),
    }
}

/// The rendition's probe, checked: it plays as it should (no rotation left to apply) and is as
/// long as its source. A source whose data ends before its index says (a cut recording with
/// the index at the front) decodes "successfully" into a short rendition: `media_truncated`.
async fn probe_output(path: &Path, source: &Probe) -> Result<Probe, Failure> {
    let out = probe(path).await?;
    if source.duration_ms > 2000 && out.duration_ms * 10 < source.duration_ms * 9 {
        return Err(Failure::Bad(BadMedia {
            code: "media_truncated",
            message: format!(
                "the file ends early: {} ms of video where it announces {} ms",
                out.duration_ms, source.duration_ms
            ),
        }));
    }
    if out.rotation != 0 {
        return Err(JobError::Permanent(format!(
            "the rendition is still rotated by {}°",
            out.rotation
        ))
        .into());
    }
    Ok(out)
}

/// Runs ffmpeg on a blocking thread. With `timed` (the input's duration and a label) its
/// progress is reported on the job, at most once a second, as 0–90 %; every two seconds the
/// job's cancel request is checked, and ffmpeg is killed when there is one.
async fn ffmpeg(ctx: &Ctx, args: Vec<String>, timed: Option<(i64, &str)>) -> Result<(), Failure> {
    let stop: Arc<AtomicBool> = ff::stop_flag();
    let (tx, mut rx) = tokio::sync::watch::channel(0i64);
    let flag = stop.clone();
    let mut task = tokio::task::spawn_blocking(move || {
        ff::run(&args, &flag, |ms| {
            tx.send_replace(ms);
        })
    });
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let (mut reported, mut ticks) = (-1i64, 0u64);
    let outcome = loop {
        tokio::select! {
            r = &mut task => break r,
            _ = tick.tick() => {
                ticks += 1;
                if let Some((duration, label)) = timed {
                    let ms = *rx.borrow_and_update();
                    let pct = (ms * 90 / duration.max(1)).clamp(0, 90);
                    if pct != reported {
                        reported = pct;
                        ctx.progress(Some(pct), Some(label)).await?;
                    }
                }
                if ticks % 2 == 0 && ctx.cancelled().await? {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    };
    match outcome {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(bad))) => Err(Failure::Bad(bad)),
        Ok(Err(_)) if stop.load(Ordering::Relaxed) => Err(JobError::Cancelled.into()),
        Ok(Err(e)) => Err(JobError::Transient(e.0).into()),
        Err(e) => Err(JobError::Transient(format!("ffmpeg task: {e}")).into()),
    }
}

/// Streams a file into a store.
async fn upload(
    ctx: &Ctx,
    store: Store,
    key: &str,
    path: &Path,
    content_type: &str,
) -> Result<i64, JobError> {
    use tokio::io::AsyncReadExt;
    let file = tokio::fs::File::open(path)
        .await
        .map_err(|e| JobError::Transient(format!("open {}: {e}", path.display())))?;
    let body = futures::stream::unfold(file, |mut f| async move {
        let mut buf = vec![0u8; 256 * 1024];
        match f.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(bytes::Bytes::from(buf)), f))
            }
            Err(e) => Some((Err(e), f)),
        }
    });
    let n = ctx
        .deps
        .storage
        .put(store, key, body, content_type)
        .await
        .map_err(|e| JobError::Transient(format!("store {store}: {e}")))?;
    Ok(n as i64)
}
