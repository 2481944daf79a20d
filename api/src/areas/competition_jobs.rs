//! The competition imports and syncs a member asks for (`/api/heatsource/*` and
//! `/api/tourindex/*` job routes): each validates what it can here (the provider is
//! configured, the circuit or athlete is the workspace's), enqueues one job with an audit
//! entry in the same transaction, and answers 202 with the job to poll. The same import asked
//! again while one runs answers that live job (`existing: true`).

use super::jobs::{JobAccepted, accepted};
use crate::auth::Acting;
use crate::http::extract::{Body, Path};
use crate::http::{Error, Result};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use shared::authz::Perm;
use shared::db::Id;
use shared::domain::InWorkspace;
use shared::domain::competition::jobs::{self, ImportOp};
use shared::domain::competition::{circuits, provider_ref, roster, roster::Source, tourindex};
use shared::job::scheduled::CronTask;
use utoipa::ToSchema;

type Accepted = (StatusCode, axum::Json<JobAccepted>);

/// 503 `provider_not_configured` before anything is queued.
fn need_heatsource(state: &AppState) -> Result<()> {
    state
        .providers()
        .heatsource()
        .map_err(shared::Error::from)?;
    Ok(())
}

fn need_tourindex(state: &AppState) -> Result<()> {
    state.providers().tourindex().map_err(shared::Error::from)?;
    Ok(())
}

async fn import(state: &AppState, ws: &InWorkspace, op: ImportOp) -> Result<Accepted> {
    Ok(accepted(jobs::import(&state.db, ws, op).await?))
}

/// A scheduled sync run now for the member.
async fn sync_now(state: &AppState, ws: &InWorkspace, task: CronTask) -> Result<Accepted> {
    Ok(accepted(jobs::sync_now(&state.db, ws, task).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportRankings {
    /// The provider's series id.
    pub series_id: String,
    /// One division only; all the series ranks when absent.
    pub division_id: Option<String>,
}

/// A heatsource series' rankings into the workspace's circuit for it (created on the first
/// import).
pub async fn import_rankings(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<ImportRankings>,
) -> Result<Accepted> {
    need_heatsource(&state)?;
    let op = ImportOp::Rankings {
        series_id: provider_ref("seriesId", &r.series_id)?,
        division_id: r
            .division_id
            .map(|d| provider_ref("divisionId", &d))
            .transpose()?,
    };
    import(&state, &ws, op).await
}

/// A circuit's events, results and rankings.
pub async fn import_standings(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<Id>,
) -> Result<Accepted> {
    circuits::exists(&state.db, &ws, id).await?;
    need_heatsource(&state)?;
    import(&state, &ws, ImportOp::Standings { circuit_id: id }).await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BulkAdd {
    /// heatsource: one division only (the division's or the event division's id).
    pub division_id: Option<String>,
    /// Enroll every competitor in this circuit of the workspace.
    pub circuit_id: Option<Id>,
}

async fn bulk_add(
    state: &AppState,
    ws: &InWorkspace,
    source: Source,
    event_id: &str,
    r: BulkAdd,
) -> Result<Accepted> {
    // Adding competitors creates roster athletes: the member must be allowed to.
    ws.require(Perm::AthletesCreate)?;
    if let Some(c) = r.circuit_id {
        circuits::exists(&state.db, ws, c).await?;
    }
    let op = ImportOp::BulkAdd {
        source,
        event_id: provider_ref("id", event_id)?,
        division_id: r
            .division_id
            .map(|d| provider_ref("divisionId", &d))
            .transpose()?,
        circuit_id: r.circuit_id,
    };
    import(state, ws, op).await
}

/// The competitors of a heatsource event into the roster (and a circuit).
pub async fn heatsource_bulk_add(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<String>,
    Body(r): Body<BulkAdd>,
) -> Result<Accepted> {
    need_heatsource(&state)?;
    bulk_add(&state, &ws, Source::Heatsource, &id, r).await
}

/// The athletes of a tour-index event's results into the roster (and a circuit).
pub async fn tourindex_bulk_add(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Path(id): Path<String>,
    Body(r): Body<BulkAdd>,
) -> Result<Accepted> {
    need_tourindex(&state)?;
    if r.division_id.is_some() {
        return Err(Error::field(
            "divisionId",
            "not_supported",
            "the tour index has one result list per event",
        )
        .into());
    }
    bulk_add(&state, &ws, Source::Tourindex, &id, r).await
}

/// Runs `heatsource-orgs-sync` now (the scheduled task's job; joins one already queued).
pub async fn organisations_sync(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<Accepted> {
    need_heatsource(&state)?;
    sync_now(&state, &ws, CronTask::HeatsourceOrgsSync).await
}

/// Runs `heatsource-sync` now.
pub async fn heatsource_sync(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<Accepted> {
    need_heatsource(&state)?;
    sync_now(&state, &ws, CronTask::HeatsourceSync).await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scrape {
    /// The tour's name on the index (`a-z`, `0-9`, `-`).
    pub tour: String,
}

/// One tour's directory and events from the tour index (global data: one scrape per tour
/// runs at a time, whoever asks).
pub async fn scrape(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<Scrape>,
) -> Result<Accepted> {
    need_tourindex(&state)?;
    let tour = tourindex::tour_name("tour", &r.tour)?;
    import(&state, &ws, ImportOp::Scrape { tour }).await
}

/// The workspace's tour-index-linked athletes refreshed (profiles and results).
pub async fn tourindex_athletes_sync(
    State(state): State<AppState>,
    Acting(ws): Acting,
) -> Result<Accepted> {
    need_tourindex(&state)?;
    import(&state, &ws, ImportOp::TourAthletes).await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportResults {
    /// The roster athlete.
    pub athlete_id: Id,
    /// Link the athlete to this tour-index profile first (when not linked yet).
    pub tourindex_id: Option<String>,
}

/// A roster athlete's tour-index results imported (best-effort; a resync limited to the
/// tour index). 409 `not_provider_linked` when the athlete has no tour-index link and no
/// `tourindexId` is given.
pub async fn import_results(
    State(state): State<AppState>,
    Acting(ws): Acting,
    Body(r): Body<ImportResults>,
) -> Result<Accepted> {
    need_tourindex(&state)?;
    if let Some(tid) = &r.tourindex_id {
        let tid = provider_ref("tourindexId", tid)?;
        roster::link_tourindex(&state.db, &ws, r.athlete_id, &tid).await?;
    }
    let linked = roster::linked_to(&state.db, &ws, r.athlete_id, Source::Tourindex).await?;
    if !linked {
        return Err(Error::conflict(
            "not_provider_linked",
            "this athlete is not linked to a tour-index profile; pass tourindexId",
        )
        .into());
    }
    let job = jobs::import_results(&state.db, &ws, r.athlete_id, Source::Tourindex).await?;
    Ok(accepted(job))
}
