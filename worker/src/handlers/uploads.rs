//! The resumable uploads' background work: joining a complete upload's parts into the clip's
//! original (streamed part after part, one storage part in memory at a time), and expiring
//! uploads that stopped receiving bytes. The rules are `shared::domain::footage::uploads`.

use super::{Ctx, RunJob};
use futures::{StreamExt, TryStreamExt};
use jobs::JobError;
use serde_json::{Value, json};
use shared::db::Ts;
use shared::domain::footage::jobs::JoinUpload;
use shared::domain::footage::keys;
use shared::domain::footage::uploads::{self, UploadStatus};
use shared::storage::Store;

impl RunJob for JoinUpload {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let db = &ctx.deps.db;
        let st = &ctx.deps.storage;
        let Some(u) = uploads::load(db, self.org_id, self.upload_id).await? else {
            return Ok(json!({ "skipped": "upload deleted" }));
        };
        let parts_prefix = keys::upload_parts(u.org_id, u.id);
        match u.status {
            UploadStatus::Joining => {}
            // A re-run after the clip was made: only the parts may be left to remove.
            UploadStatus::Complete => {
                st.delete_prefix(Store::RawUploads, &parts_prefix)
                    .await
                    .map_err(|e| JobError::Transient(e.to_string()))?;
                return Ok(json!({ "clipId": u.clip_id, "skipped": "already joined" }));
            }
            other => return Ok(json!({ "skipped": format!("upload is {other}") })),
        }
        let parts = uploads::parts(db, u.id).await?;
        // The parts must tile 0..length exactly; the offsets moved compare-and-set, so
        // anything else is a bug or a hand-edited row, and retrying cannot fix it.
        let mut at = 0i64;
        for p in &parts {
            if p.part_offset != at {
                let why = format!("part missing at byte {at}");
                uploads::join_failed(db, &u, &why).await?;
                return Err(JobError::Permanent(why));
            }
            at += p.size;
        }
        if at != u.length {
            let why = format!("parts hold {at} of {} bytes", u.length);
            uploads::join_failed(db, &u, &why).await?;
            return Err(JobError::Permanent(why));
        }
        ctx.progress(Some(0), Some("joining parts")).await?;
        let key = keys::original(u.org_id, u.session_id, uploads::clip_id(&u));
        let storage = st.clone();
        let body = futures::stream::iter(parts)
            .then(move |p| {
                let storage = storage.clone();
                async move {
                    storage
                        .get(Store::RawUploads, &p.object_key, None)
                        .await
                        .map(|o| o.body)
                        .map_err(std::io::Error::other)
                }
            })
            .try_flatten()
            // Boxed: the closure's future would otherwise trip the Send check of `run`.
            .boxed();
        let content_type = u
            .content_type
            .clone()
            .unwrap_or_else(|| "application/octet-stream".into());
        let n = st
            .put(Store::RawUploads, &key, body, &content_type)
            .await
            .map_err(|e| JobError::Transient(format!("join: {e}")))?;
        if n as i64 != u.length {
            // A part object shorter than its row: the store lost bytes. Retrying reads the same.
            let why = format!("joined {n} of {} bytes", u.length);
            st.delete(Store::RawUploads, &key)
                .await
                .map_err(|e| JobError::Transient(e.to_string()))?;
            uploads::join_failed(db, &u, &why).await?;
            return Err(JobError::Permanent(why));
        }
        let clip = uploads::joined(db, &u).await?;
        st.delete_prefix(Store::RawUploads, &parts_prefix)
            .await
            .map_err(|e| JobError::Transient(e.to_string()))?;
        Ok(json!({ "clipId": clip.id, "bytes": n, "probeJobId": clip.job_id }))
    }
}

/// The `uploads-expire` task: uploads without bytes for `UPLOAD_EXPIRY_HOURS` expire, and a
/// job removes their parts.
pub async fn expire(ctx: &Ctx) -> Result<Value, JobError> {
    let n = uploads::expire(&ctx.deps.db, Ts::now()).await?;
    Ok(json!({ "expired": n }))
}
