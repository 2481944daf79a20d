//! Wearable jobs: read a bulk sample file, run the detector, expire a quiet live session or an
//! upload that never came (`shared::domain::wearable::derive`).

use super::{Ctx, RunJob};
use jobs::JobError;
use serde_json::{Value, json};
use shared::domain::wearable::{DeriveSession, ExpireSession, IngestFile, derive};

impl RunJob for DeriveSession {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let d = derive::derive(&ctx.deps.db, self.org_id, self.session_id).await?;
        Ok(match d {
            Some(d) => {
                json!({ "rides": d.rides.len(), "version": d.version, "usedImu": d.used_imu })
            }
            None => json!({ "skipped": "nothing to derive" }),
        })
    }
}

impl RunJob for IngestFile {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        Ok(derive::ingest(
            &ctx.deps.db,
            &ctx.deps.storage,
            self.org_id,
            self.session_id,
        )
        .await?)
    }
}

impl RunJob for ExpireSession {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let what = derive::expire(&ctx.deps.db, self.org_id, self.session_id).await?;
        Ok(json!({ "outcome": what }))
    }
}
