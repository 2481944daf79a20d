//! A workspace's circuits: the heatsource series it follows, created by the first import of
//! the series' rankings (`POST /api/heatsource/import-rankings`), with the series' events,
//! results and rankings (`POST /api/heatsource/circuits/{id}/import-standings`), and the
//! athletes enrolled in it (`POST /api/athlete-search/import` with `circuitId`, the event
//! bulk-adds). Every import upserts by the provider's ids and reports per item.

use serde::Serialize;
use utoipa::ToSchema;

use super::SyncReport;
use super::events::EventView;
use super::roster::{self, Importer, Profile, Providers, Source};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result};
use crate::providers::heatsource::{Event, Organisation};
use crate::repo::competition::{self as repo, RankingRow, ResultRow};
use crate::repo::heatsource as synced;

/// A circuit as listed.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CircuitSummary {
    pub id: Id,
    pub name: String,
    pub provider: String,
    /// The provider's series id.
    pub external_id: String,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<repo::Circuit> for CircuitSummary {
    fn from(c: repo::Circuit) -> Self {
        CircuitSummary {
            id: c.id,
            name: c.name,
            provider: c.provider.to_string(),
            external_id: c.external_id,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

/// A circuit with its enrolled athletes, events and rankings.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CircuitView {
    #[serde(flatten)]
    pub circuit: CircuitSummary,
    pub athlete_ids: Vec<Id>,
    /// The scoring rules in force (`PATCH /api/circuits/{id}`), defaults filled in.
    pub rules: super::standings::Rules,
    /// Manual edits applied (`/api/circuits/{id}/events`).
    pub events: Vec<EventView>,
    pub rankings: Vec<RankingRow>,
}

pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    limit: i64,
    offset: i64,
) -> Result<Vec<CircuitSummary>> {
    let mut c = db.acquire().await?;
    Ok(repo::list_circuits(&mut c, ws.org_id, limit, offset)
        .await?
        .into_iter()
        .map(Into::into)
        .collect())
}

/// The circuit, 404 when it is not the workspace's.
pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<CircuitView> {
    let mut c = db.acquire().await?;
    let circuit = repo::circuit(&mut c, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("circuit"))?;
    Ok(CircuitView {
        athlete_ids: repo::enrolled(&mut c, circuit.id).await?,
        rules: super::strategy::rules_of(&circuit),
        events: repo::circuit_events(&mut c, circuit.id)
            .await?
            .iter()
            .map(EventView::from)
            .collect(),
        rankings: repo::rankings(&mut c, circuit.id).await?,
        circuit: circuit.into(),
    })
}

/// 404 unless the circuit is the workspace's (checked before a job is enqueued).
pub async fn exists(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    super::events::circuit_of(db, ws, id).await
}

/// What an import into a circuit did: the circuit, and the per-item report.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CircuitReport {
    pub circuit_id: Id,
    pub circuit_created: bool,
    #[serde(flatten)]
    pub report: SyncReport,
}

/// Imports the rankings of a heatsource series (every division it ranks, or one) into the
/// workspace's circuit for that series, created on the first import.
pub async fn import_rankings(
    db: &Db,
    p: Providers<'_>,
    by: &Importer,
    series_id: &str,
    division_id: Option<&str>,
) -> Result<CircuitReport> {
    let hs = p.heatsource()?;
    let series = hs
        .series(series_id)
        .await?
        .ok_or_else(|| Error::not_found("series"))?;
    let divisions: Vec<_> = series
        .rankings_divisions
        .iter()
        .filter(|d| division_id.is_none_or(|id| d.id == id))
        .collect();
    if divisions.is_empty() {
        return Err(Error::not_found("division"));
    }
    let (circuit, created) = {
        let mut tx = db.begin().await?;
        let c = repo::upsert_circuit(
            &mut tx,
            by.org_id,
            Source::Heatsource,
            &series.id,
            &series.name,
            by.user_id,
            Ts::now(),
        )
        .await?;
        tx.commit().await?;
        c
    };
    let mut report = SyncReport::default();
    for d in divisions {
        let item = format!("rankings of division {}", d.id);
        let ranking = match hs.rankings(&series.id, &d.id).await {
            Ok(Some(r)) => r,
            Ok(None) => {
                report.missing(item, "the provider no longer has this series");
                continue;
            }
            Err(e) => {
                report.fail(item, &e);
                continue;
            }
        };
        let mut tx = db.begin().await?;
        for r in ranking {
            let row = RankingRow {
                division_id: d.id.clone(),
                division_name: d.name.clone(),
                athlete_external_id: r.athlete.id.clone(),
                athlete_name: r.athlete.name.clone(),
                place: r.place,
                points: r.points,
            };
            report.count(
                repo::upsert_ranking(&mut tx, by.org_id, circuit.id, &row, Ts::now()).await?,
            );
        }
        tx.commit().await?;
    }
    Ok(CircuitReport {
        circuit_id: circuit.id,
        circuit_created: created,
        report,
    })
}

/// Imports a circuit's events (those of the followed organisations that belong to its
/// series, fetched now), the results of its linked roster athletes in them, and its rankings.
pub async fn import_standings(
    db: &Db,
    p: Providers<'_>,
    by: &Importer,
    circuit_id: Id,
) -> Result<CircuitReport> {
    let hs = p.heatsource()?;
    let circuit = {
        let mut c = db.acquire().await?;
        repo::circuit(&mut c, by.org_id, circuit_id)
            .await?
            .ok_or_else(|| Error::not_found("circuit"))?
    };
    let orgs: Vec<Organisation> = {
        let mut c = db.acquire().await?;
        synced::organisations(&mut c)
            .await?
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect()
    };
    let mut report = SyncReport::default();
    let candidates: Vec<String> = orgs
        .iter()
        .filter(|o| o.series.iter().any(|s| s.id == circuit.external_id))
        .flat_map(|o| o.events.iter().map(|e| e.id.clone()))
        .collect();
    let links: std::collections::HashMap<String, Id> = {
        let mut c = db.acquire().await?;
        repo::links_to(&mut c, Source::Heatsource, Some(by.org_id))
            .await?
            .into_iter()
            .map(|l| (l.external_id, l.athlete_id))
            .collect()
    };
    for event_id in candidates {
        let item = format!("event {event_id}");
        let event: Event = match hs.event(&event_id).await {
            Ok(Some(e)) => e,
            Ok(None) => {
                report.missing(item, "the provider no longer has this event");
                continue;
            }
            Err(e) => {
                report.fail(item, &e);
                continue;
            }
        };
        if event
            .series
            .as_ref()
            .is_none_or(|s| s.id != circuit.external_id)
        {
            continue; // another series of the same organisation
        }
        let data = serde_json::to_value(&event).map_err(Error::internal)?;
        let now = Ts::now();
        let mut tx = db.begin().await?;
        report.count(
            repo::upsert_circuit_event(
                &mut tx,
                by.org_id,
                circuit.id,
                &event.id,
                &event.name,
                event.date.as_deref().map(|d| d.get(..10).unwrap_or(d)),
                event.status.as_deref(),
                &data,
                now,
            )
            .await?,
        );
        for d in &event.event_divisions {
            for place in &d.ranking {
                let Some(athlete) = links.get(&place.athlete_id) else {
                    continue;
                };
                let row = ResultRow {
                    provider: Source::Heatsource,
                    event_key: event.id.clone(),
                    division: d.division.name.clone(),
                    event_name: event.name.clone(),
                    event_date: event.date.as_ref().map(|d| d.chars().take(10).collect()),
                    place: place.place,
                    points: None,
                };
                report.count(repo::upsert_result(&mut tx, by.org_id, *athlete, &row, now).await?);
            }
        }
        tx.commit().await?;
    }
    let rankings = import_rankings(db, p, by, &circuit.external_id, None).await?;
    report.merge(rankings.report);
    Ok(CircuitReport {
        circuit_id: circuit.id,
        circuit_created: false,
        report,
    })
}

/// Adds an event's competitors to the roster (each resolved like an athlete-search import:
/// linked when known, else created), optionally only one division's, and enrolls them in
/// `circuit` when given. One failing competitor does not stop the others.
pub async fn bulk_add(
    db: &Db,
    p: Providers<'_>,
    by: &Importer,
    source: Source,
    event_id: &str,
    division_id: Option<&str>,
    circuit: Option<Id>,
) -> Result<SyncReport> {
    let competitors: Vec<Profile> = match source {
        Source::Heatsource => {
            let event = p
                .heatsource()?
                .event(event_id)
                .await?
                .ok_or_else(|| Error::not_found("event"))?;
            let mut seen = std::collections::HashSet::new();
            event
                .event_divisions
                .iter()
                .filter(|d| division_id.is_none_or(|id| d.division.id == id || d.id == id))
                .flat_map(|d| d.heats.iter().flat_map(|h| h.competitors.iter()))
                .filter(|c| seen.insert(c.athlete.id.clone()))
                .map(|c| {
                    let mut p = Profile::named(Source::Heatsource, &c.athlete.id, &c.athlete.name);
                    p.image = c.athlete.image.clone();
                    p
                })
                .collect()
        }
        Source::Tourindex => {
            let event = p
                .tourindex()?
                .event(event_id)
                .await?
                .ok_or_else(|| Error::not_found("event"))?;
            event
                .results
                .iter()
                .filter_map(|r| {
                    Some(Profile::named(
                        Source::Tourindex,
                        r.athlete_id.as_deref()?,
                        &r.athlete_name,
                    ))
                })
                .collect()
        }
    };
    let mut report = SyncReport::default();
    for profile in competitors {
        let item = format!("{} {} ({})", source, profile.id, profile.name);
        match roster::import(db, by, &profile, None, circuit).await {
            Ok(done) if done.created => report.created += 1,
            Ok(done) if done.linked || done.enrolled => report.updated += 1,
            Ok(_) => report.unchanged += 1,
            Err(e) if !e.kind.is_server_error() => report.missing(item, &e.message),
            Err(e) => return Err(e),
        }
    }
    Ok(report)
}
