//! Footage jobs: probe with ffprobe (`crate::media`), submit to and poll the analysis backend, best-effort
//! cancel, copy results into our stores, and delete objects whose rows are gone. Each records
//! its outcome through `shared::domain::footage::analysis`, so the clip state machine decides.

use super::{Ctx, RunJob};
use crate::media;
use jobs::JobError;
use serde_json::{Value, json};
use shared::domain::footage::analysis::{self as record, Applied, Report};
use shared::domain::footage::jobs::{
    AnalyzeClip, CancelAnalysis, DeleteObjects, PollClip, ProbeClip, StoreClip, StoreSession,
};
use shared::domain::footage::{ClipStatus, keys, request_token};
use shared::providers::analysis::{Analysis, ResultFile, SubmitRequest};
use shared::storage::Store;
use std::time::Duration;

/// How long the backend may read a signed source URL.
const SOURCE_URL_TTL: Duration = Duration::from_secs(6 * 3600);
/// The first poll's delay and the cap of the doubling delays after it.
const POLL_FIRST_MS: u64 = 1000;
const POLL_MAX_MS: u64 = 60_000;

fn analysis(ctx: &Ctx) -> Result<Analysis, JobError> {
    Ok(Analysis::from_config(
        ctx.deps.cfg.analysis.as_ref(),
        shared::providers::http::shared_client().clone(),
    )?)
}

/// Delay before poll round `round` (0-based): 1 s, 2 s, 4 s, … capped at a minute.
pub fn poll_delay_ms(round: u32) -> u64 {
    (POLL_FIRST_MS << round.min(16)).min(POLL_MAX_MS)
}

impl RunJob for AnalyzeClip {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let db = &ctx.deps.db;
        let Some(clip) = record::load(db, self.org_id, self.clip_id).await? else {
            return Ok(json!({ "skipped": "clip deleted" }));
        };
        if clip.analysis_generation != self.generation || !clip.status.in_flight() {
            return Ok(json!({ "skipped": "superseded" }));
        }
        let source_url = match (&clip.raw_key, &clip.source_url) {
            (Some(k), _) => ctx
                .deps
                .storage
                .presign_get(
                    Store::RawUploads,
                    k,
                    SOURCE_URL_TTL,
                    &ctx.deps.keys,
                    ctx.deps.cfg.public_base_url.as_str().trim_end_matches('/'),
                )
                .await
                .map_err(|e| JobError::Transient(e.to_string()))?,
            (None, Some(u)) => u.clone(),
            (None, None) => {
                record::fail(
                    db,
                    self.org_id,
                    self.clip_id,
                    "clip_not_uploaded",
                    "no source",
                )
                .await?;
                return Err(JobError::Permanent("the clip has no source".into()));
            }
        };
        let webhook_url = ctx
            .deps
            .cfg
            .analysis
            .as_ref()
            .and_then(|a| a.webhook_secret.as_ref())
            .map(|_| {
                format!(
                    "{}/api/webhooks/analysis",
                    ctx.deps.cfg.public_base_url.as_str().trim_end_matches('/')
                )
            });
        let req = SubmitRequest {
            source_url,
            client_request_token: request_token(self.clip_id, self.generation),
            webhook_url,
        };
        let job = match analysis(ctx)?.submit(&req).await {
            Ok(j) => j,
            Err(e) if e.is_permanent() => {
                record::fail(
                    db,
                    self.org_id,
                    self.clip_id,
                    "analysis_refused",
                    &e.to_string(),
                )
                .await?;
                return Err(e.into());
            }
            Err(e) => return Err(e.into()),
        };
        record::submitted(db, self.org_id, self.clip_id, self.generation, &job.id).await?;
        let applied = record::apply(
            db,
            self.org_id,
            self.clip_id,
            self.generation,
            Report::of(&job),
        )
        .await?;
        if applied == Applied::Continue {
            let poll = PollClip {
                org_id: self.org_id,
                clip_id: self.clip_id,
                generation: self.generation,
                round: 0,
            };
            record::poll_again(db, poll, poll_delay_ms(0)).await?;
        }
        Ok(json!({ "analysisId": job.id, "state": job.state }))
    }
}

/// A clip whose row has not moved for this long while waiting on the backend is polled again
/// by the `clips-poll` task (a live poll chain touches the row at least once a minute).
const STALLED_AFTER: chrono::Duration = chrono::Duration::minutes(10);

/// The `clips-poll` task: revives the polling of clips stuck waiting on the backend.
pub async fn clips_poll(ctx: &Ctx) -> Result<Value, JobError> {
    analysis(ctx)?;
    let before = shared::db::Ts::now().minus(STALLED_AFTER);
    let n = record::sweep(&ctx.deps.db, before).await?;
    Ok(json!({ "polled": n }))
}

impl RunJob for PollClip {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let db = &ctx.deps.db;
        let Some(clip) = record::load(db, self.org_id, self.clip_id).await? else {
            return Ok(json!({ "skipped": "clip deleted" }));
        };
        // A webhook may have ended the analysis already: polling stops without a call.
        let (true, Some(aid)) = (
            clip.analysis_generation == self.generation && clip.status.in_flight(),
            clip.analysis_id.clone(),
        ) else {
            return Ok(json!({ "skipped": clip.status }));
        };
        let job = analysis(ctx)?.get(&aid).await?;
        let applied = record::apply(
            db,
            self.org_id,
            self.clip_id,
            self.generation,
            Report::of(&job),
        )
        .await?;
        if applied == Applied::Continue {
            let round = self.round + 1;
            let next = PollClip { round, ..self };
            record::poll_again(db, next, poll_delay_ms(round)).await?;
        }
        Ok(json!({ "state": job.state, "progress": job.progress }))
    }
}

impl RunJob for CancelAnalysis {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let job = analysis(ctx)?.cancel(&self.analysis_id).await?;
        Ok(json!({ "state": job.state }))
    }
}

impl RunJob for ProbeClip {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let db = &ctx.deps.db;
        let Some(k) = record::load(db, self.org_id, self.clip_id).await? else {
            return Ok(json!({ "skipped": "clip deleted" }));
        };
        let Some(key) = k.raw_key else {
            return Err(JobError::Permanent("the clip has no uploaded file".into()));
        };
        // ffprobe needs a seekable file (an MP4's index may sit at its end): copy the
        // original to a temporary file chunk by chunk.
        let path = std::env::temp_dir().join(format!("probe-{}-{}", self.clip_id, ctx.job_id));
        let copied = spool(ctx, Store::RawUploads, &key, &path).await;
        let out = match copied {
            Ok(()) => {
                let p = path.clone();
                tokio::task::spawn_blocking(move || media::probe(&p))
                    .await
                    .map_err(|e| JobError::Transient(format!("ffprobe task: {e}")))?
                    .map_err(|e| JobError::Transient(e.0))
            }
            Err(e) => Err(e),
        };
        let _ = tokio::fs::remove_file(&path).await;
        match out? {
            Ok(probe) => {
                let probe = probe.to_json();
                record::probed(db, self.org_id, self.clip_id, probe.clone()).await?;
                Ok(probe)
            }
            Err(bad) => {
                record::fail(db, self.org_id, self.clip_id, bad.code, &bad.message).await?;
                Err(JobError::Permanent(bad.message))
            }
        }
    }
}

/// Copies the object at `key` in `store` to the file at `path`, chunk by chunk.
pub(super) async fn spool(
    ctx: &Ctx,
    store: Store,
    key: &str,
    path: &std::path::Path,
) -> Result<(), JobError> {
    use futures::StreamExt;
    use tokio::io::AsyncWriteExt;
    let transient = |e: &dyn std::fmt::Display| JobError::Transient(format!("spool: {e}"));
    let mut obj = ctx
        .deps
        .storage
        .get(store, key, None)
        .await
        .map_err(|e| transient(&e))?;
    let mut f = tokio::fs::File::create(path)
        .await
        .map_err(|e| transient(&e))?;
    while let Some(chunk) = obj.body.next().await {
        f.write_all(&chunk.map_err(|e| transient(&e))?)
            .await
            .map_err(|e| transient(&e))?;
    }
    f.flush().await.map_err(|e| transient(&e))?;
    Ok(())
}

impl RunJob for StoreClip {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        store_clip(ctx, self.org_id, self.clip_id).await
    }
}

impl RunJob for StoreSession {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let clips = {
            let mut c = ctx.deps.db.acquire().await?;
            shared::repo::footage::session_clips(&mut c, self.session_id).await?
        };
        let todo: Vec<_> = clips
            .iter()
            .filter(|k| k.org_id == self.org_id && k.status == ClipStatus::Processed)
            .collect();
        for (i, k) in todo.iter().enumerate() {
            let pct = (i * 100 / todo.len().max(1)) as i64;
            ctx.progress(
                Some(pct),
                Some(&format!("clip {} of {}", i + 1, todo.len())),
            )
            .await?;
            store_clip(ctx, self.org_id, k.id).await?;
        }
        shared::domain::footage::sessions::stored(&ctx.deps.db, self.org_id, self.session_id)
            .await?;
        Ok(json!({ "stored": todo.len() }))
    }
}

/// A client for result downloads: no overall timeout (videos are large), but a connect and a
/// read timeout so a stalled transfer fails and is retried.
fn download_client() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(Duration::from_secs(60))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("reqwest client with static settings")
    })
}

/// Streams one result file into `store` at `key`, checking its size and (when given) its
/// SHA-256 as the bytes pass: a mismatch ends the upload with an error, so the store keeps no
/// bad copy (the local store renames only a complete file; S3 aborts the multipart upload).
async fn copy_result(
    ctx: &Ctx,
    file: &ResultFile,
    store: Store,
    key: &str,
) -> Result<i64, JobError> {
    use futures::StreamExt;
    use sha2::Digest;
    let resp = download_client()
        .get(&file.url)
        .send()
        .await
        .map_err(|e| JobError::Transient(format!("download: {}", e.without_url())))?;
    let status = resp.status();
    if !status.is_success() {
        let msg = format!("download of a result file answered {status}");
        return Err(if status.is_server_error() {
            JobError::Transient(msg)
        } else {
            JobError::Permanent(msg)
        });
    }
    let expect_size = file.size;
    let expect_sha = file.sha256.clone();
    let mut hasher = Some(sha2::Sha256::new());
    let mut seen = 0u64;
    let body = resp
        .bytes_stream()
        .map(Some)
        .chain(futures::stream::once(async { None }));
    let checked = body.filter_map(move |item| {
        let out = match item {
            Some(Ok(b)) => {
                seen += b.len() as u64;
                if let Some(h) = hasher.as_mut() {
                    h.update(&b);
                }
                Some(Ok(b))
            }
            Some(Err(e)) => Some(Err(std::io::Error::other(e.without_url()))),
            None => {
                let digest = hex::encode(hasher.take().expect("end comes once").finalize());
                if seen != expect_size {
                    Some(Err(std::io::Error::other(Mismatch(format!(
                        "size mismatch: expected {expect_size} bytes, got {seen}"
                    )))))
                } else if expect_sha
                    .as_ref()
                    .is_some_and(|s| !s.eq_ignore_ascii_case(&digest))
                {
                    Some(Err(std::io::Error::other(Mismatch(
                        "SHA-256 mismatch".into(),
                    ))))
                } else {
                    None
                }
            }
        };
        async move { out }
    });
    let n = ctx
        .deps
        .storage
        .put(store, key, checked, &file.content_type)
        .await
        .map_err(|e| match mismatch(&e) {
            // The backend's file is not what it described: fetching it again gives the same.
            Some(m) => JobError::Permanent(format!("{store}: {m}")),
            None => JobError::Transient(format!("store {store}: {e}")),
        })?;
    Ok(n as i64)
}

/// A result file that is not the size or SHA-256 the backend gave.
#[derive(Debug)]
struct Mismatch(String);

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Mismatch {}

/// The [`Mismatch`] that ended an upload, if that is what ended it.
fn mismatch(e: &shared::storage::StorageError) -> Option<String> {
    let shared::storage::StorageError::Backend(e) = e else {
        return None;
    };
    e.chain()
        .filter_map(|c| c.downcast_ref::<std::io::Error>())
        .find_map(|io| io.get_ref()?.downcast_ref::<Mismatch>())
        .map(|m| m.0.clone())
}

/// Copies a processed clip's video and overlay into session-videos and sidecars at fixed keys
/// (a re-run overwrites the one copy) and marks it stored.
async fn store_clip(
    ctx: &Ctx,
    org: shared::db::Id,
    clip: shared::db::Id,
) -> Result<Value, JobError> {
    let db = &ctx.deps.db;
    let Some(k) = record::load(db, org, clip).await? else {
        return Ok(json!({ "skipped": "clip deleted" }));
    };
    match k.status {
        ClipStatus::Stored => return Ok(json!({ "skipped": "already stored" })),
        ClipStatus::Processed => {}
        other => {
            return Err(JobError::Permanent(format!(
                "a clip that is {other} cannot be stored"
            )));
        }
    }
    let result = k
        .analysis_result
        .as_ref()
        .map(|r| serde_json::from_value::<StoredResult>(r.0.clone()))
        .transpose()
        .map_err(|e| JobError::Permanent(format!("stored result unreadable: {e}")))?
        .ok_or_else(|| JobError::Permanent("the clip has no analysis result".into()))?;
    let video_key = keys::video(org, clip);
    let overlay_key = keys::overlay(org, clip);
    let outcome = async {
        let v = copy_result(ctx, &result.video, Store::SessionVideos, &video_key).await?;
        let o = copy_result(ctx, &result.overlay, Store::Sidecars, &overlay_key).await?;
        Ok::<_, JobError>((v, o))
    }
    .await;
    let (v, o) = match outcome {
        Ok(x) => x,
        Err(JobError::Permanent(m)) => {
            record::fail(db, org, clip, "store_failed", &m).await?;
            return Err(JobError::Permanent(m));
        }
        Err(e) => return Err(e),
    };
    record::stored(db, org, clip, (video_key, v), (overlay_key, o)).await?;
    Ok(json!({ "videoBytes": v, "overlayBytes": o }))
}

/// The part of the backend's result a clip keeps (`analysis_result`).
#[derive(serde::Deserialize)]
struct StoredResult {
    video: ResultFile,
    overlay: ResultFile,
}

impl RunJob for DeleteObjects {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let st = &ctx.deps.storage;
        let mut deleted = 0u64;
        for o in &self.objects {
            let store = o
                .store()
                .ok_or_else(|| JobError::Permanent(format!("no store {}", o.store)))?;
            st.delete(store, &o.key)
                .await
                .map_err(|e| JobError::Transient(e.to_string()))?;
            deleted += 1;
        }
        for p in &self.prefixes {
            let store = p
                .store()
                .ok_or_else(|| JobError::Permanent(format!("no store {}", p.store)))?;
            deleted += st
                .delete_prefix(store, &p.key)
                .await
                .map_err(|e| JobError::Transient(e.to_string()))?;
        }
        Ok(json!({ "deleted": deleted }))
    }
}

#[cfg(test)]
mod tests {
    use super::poll_delay_ms;

    #[test]
    fn polls_back_off_to_a_minute() {
        assert_eq!(poll_delay_ms(0), 1000);
        assert_eq!(poll_delay_ms(3), 8000);
        assert_eq!(poll_delay_ms(30), 60_000);
    }
}
