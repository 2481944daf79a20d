//! The competition area's jobs: each payload with its kind, queue, attempts and idempotency
//! key, and the operations that ask for them (each enqueues with an audit entry naming the job,
//! in one transaction). The worker runs them (`worker::handlers::competition`).

use crate::db::{Db, Id};
use crate::domain::InWorkspace;
use crate::domain::athletes::jobs::AthleteResync;
use crate::job::scheduled::CronTask;
use crate::job::{Enqueued, Job, JobSpec, Owner, Queue, enqueue_spec};
use crate::model::competition::Source;
use crate::repo::audit;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A competition import a member asked for (`/api/heatsource/*`, `/api/tourindex/*` job
/// routes): what to import is the `op`; it runs as the member who asked, in their workspace.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompetitionImport {
    pub org_id: Id,
    pub user_id: Option<Id>,
    pub op: ImportOp,
}

/// What a [`CompetitionImport`] does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ImportOp {
    /// A heatsource series' rankings into the workspace's circuit for it.
    Rankings {
        series_id: String,
        division_id: Option<String>,
    },
    /// A circuit's events, results and rankings.
    Standings { circuit_id: Id },
    /// An event's competitors into the roster (and a circuit).
    BulkAdd {
        source: Source,
        event_id: String,
        division_id: Option<String>,
        circuit_id: Option<Id>,
    },
    /// One tour's directory and events from the tour index.
    Scrape { tour: String },
    /// The workspace's tour-index-linked athletes refreshed.
    TourAthletes,
}

impl Job for CompetitionImport {
    const KIND: &'static str = "competition.import";
    const QUEUE: Queue = Queue::Providers;

    /// The same import asked again while one runs joins it. Directory scrapes are global
    /// data: one per tour whoever asks.
    fn idempotency_key(&self) -> Option<String> {
        let op = serde_json::to_string(&self.op).unwrap_or_default();
        Some(match &self.op {
            ImportOp::Scrape { .. } => op,
            _ => format!("{}:{op}", self.org_id),
        })
    }
}

/// A workspace-wide achievements check (`POST /api/achievements/check` without `athleteId`):
/// every athlete not archived is evaluated and new awards notified. One per workspace while
/// queued or running; a re-run awards nothing twice (awards are unique per athlete).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AchievementsCheck {
    pub org_id: Id,
    pub user_id: Option<Id>,
}

impl Job for AchievementsCheck {
    const KIND: &'static str = "achievements.check";
    const QUEUE: Queue = Queue::Default;
    const MAX_ATTEMPTS: u32 = 3;

    fn idempotency_key(&self) -> Option<String> {
        Some(self.org_id.to_string())
    }
}

/// Enqueues `spec` for the member with an audit entry naming the job and `what` was asked.
async fn request(
    db: &Db,
    ws: &InWorkspace,
    spec: &JobSpec,
    what: serde_json::Value,
) -> Result<Enqueued> {
    let mut tx = db.begin().await?;
    let owner = Owner::new(ws.org_id, Some(ws.actor.user_id));
    let job = enqueue_spec(&mut tx, spec, owner, crate::db::Ts::now()).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "competition.import_requested",
            "job",
            job.id,
            json!({ "request": what }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(job)
}

/// An import into the member's workspace (the provider's checks are the caller's).
pub async fn import(db: &Db, ws: &InWorkspace, op: ImportOp) -> Result<Enqueued> {
    let what = serde_json::to_value(&op).map_err(Error::internal)?;
    let job = CompetitionImport {
        org_id: ws.org_id,
        user_id: Some(ws.actor.user_id),
        op,
    };
    request(db, ws, &job.spec(), what).await
}

/// A scheduled sync run now, on the member's request.
pub async fn sync_now(db: &Db, ws: &InWorkspace, task: CronTask) -> Result<Enqueued> {
    request(db, ws, &task.spec(), json!({ "task": task })).await
}

/// The athlete's results re-read from one provider they are linked to.
pub async fn import_results(
    db: &Db,
    ws: &InWorkspace,
    athlete: Id,
    source: Source,
) -> Result<Enqueued> {
    let job = AthleteResync {
        org_id: ws.org_id,
        athlete_id: athlete,
        only: Some(source),
    };
    let what = json!({ "kind": "importResults", "athleteId": athlete });
    request(db, ws, &job.spec(), what).await
}
