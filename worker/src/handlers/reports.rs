//! The season report job (`shared::domain::season_report`): build, store, record.

use super::{Ctx, RunJob};
use jobs::JobError;
use serde_json::{Value, json};
use shared::domain::season_report;
use shared::domain::season_report::GenerateReport;

impl RunJob for GenerateReport {
    async fn run(self, ctx: &Ctx) -> Result<Value, JobError> {
        ctx.progress(Some(10), Some("gathering the season")).await?;
        let r = season_report::generate(
            &ctx.deps.db,
            &ctx.deps.storage,
            self.org_id,
            self.athlete_id,
            &self.period,
            ctx.job_id,
            self.user_id,
        )
        .await?;
        let base = format!("/api/reports/season/{}/{}", r.athlete_id, r.id);
        Ok(json!({
            "reportId": r.id,
            "summary": r.summary.0,
            "url": base,
            "htmlUrl": format!("{base}/html"),
        }))
    }
}
