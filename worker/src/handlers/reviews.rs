//! Review jobs: the build. Voice notes (and their transcription) arrive with the next step of
//! the reviews area; until then a review has none, and the build records it `ready`.

use super::{Ctx, RunJob};
use jobs::JobError;
use serde_json::{Value, json};
use shared::domain::reviews::lifecycle;
use shared::domain::reviews::work::BuildReview;

impl RunJob for BuildReview {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        let ready = lifecycle::built(&ctx.deps.db, self.org_id, self.review_id).await?;
        Ok(json!({ "ready": ready }))
    }
}
