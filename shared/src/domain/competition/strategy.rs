//! The standings view and qualification goals (`/api/strategy/{athleteId}`, docs/competition.md
//! "Strategy"), and the circuit scoring rules they count under (`PATCH /api/circuits/{id}`).
//!
//! A circuit's standings are recomputed on each read from its events as synced (each event
//! division's final placings) under the circuit's rules ([`standings`]), so a rules change or
//! an event deleted by a member shows at once. The athlete is found in them through their
//! heatsource links. The provider's own ranking is shown beside it for comparison.

use std::collections::{BTreeMap, HashSet};

use chrono::Utc;
use serde::Serialize;
use serde_json::json;
use sqlx::types::Json;
use utoipa::ToSchema;

use super::events::EventView;
use super::roster::Source;
use super::standings::{self, Line, Outlook, Placing, Rules, StoredRules};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result, Validator};
use crate::providers::heatsource::Event;
use crate::repo::audit;
use crate::repo::competition::{self as repo, Circuit, RankingRow};
use crate::repo::strategy::{self as goals, Goal};

/// Leaders shown with each division's standings.
const LEADERS: usize = 10;

/// Event statuses (after members' overrides) that mean no more results will come.
const OVER: [&str; 6] = [
    "completed",
    "complete",
    "finished",
    "results",
    "cancelled",
    "canceled",
];

fn stored_rules(c: &Circuit) -> StoredRules {
    serde_json::from_value(c.rules.0.clone()).unwrap_or_default()
}

/// The rules in force for a circuit, defaults filled in.
pub fn rules_of(c: &Circuit) -> Rules {
    Rules::from(&stored_rules(c))
}

// ---- the circuit's rules ----

/// A change to a circuit's rules: a field left out stays, `null` returns it to the default.
#[derive(Clone, Debug, Default)]
pub struct RulesPatch {
    pub results_to_count: Option<Option<i64>>,
    pub qualification_place: Option<Option<i64>>,
    pub points_table: Option<Option<Vec<f64>>>,
}

/// The rules in force for a circuit, and which it stores.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RulesView {
    pub circuit_id: Id,
    pub rules: Rules,
    /// What the circuit sets (the rest is default).
    pub stored: StoredRules,
}

/// Applies a rules change (1–100 results to count, a qualification place of 1–10,000, a
/// points table per [`standings::check_points_table`]).
pub async fn set_rules(
    db: &Db,
    ws: &InWorkspace,
    circuit: Id,
    patch: &RulesPatch,
) -> Result<RulesView> {
    let mut v = Validator::new();
    let mut count = |field: &str, value: Option<i64>, max: i64| match value {
        Some(n) if !(1..=max).contains(&n) => {
            v.add(field, "out_of_range", format!("from 1 to {max}"));
            None
        }
        other => other.map(|n| n as u32),
    };
    let results_to_count = patch
        .results_to_count
        .map(|o| count("resultsToCount", o, 100));
    let qualification_place = patch
        .qualification_place
        .map(|o| count("qualificationPlace", o, 10_000));
    if let Some(Some(t)) = &patch.points_table
        && let Err(why) = standings::check_points_table(t)
    {
        v.add("pointsTable", "invalid", why);
    }
    v.finish()?;
    let mut tx = db.begin().await?;
    let c = repo::circuit(&mut tx, ws.org_id, circuit)
        .await?
        .ok_or_else(|| Error::not_found("circuit"))?;
    let mut rules = stored_rules(&c);
    if let Some(n) = results_to_count {
        rules.results_to_count = n;
    }
    if let Some(q) = qualification_place {
        rules.qualification_place = q;
    }
    if let Some(t) = &patch.points_table {
        rules.points_table = t.clone();
    }
    let value = serde_json::to_value(&rules).map_err(Error::internal)?;
    repo::set_rules(&mut tx, c.id, &value, Ts::now()).await?;
    audit::record(
        &mut tx,
        ws.audit("circuit.rules_updated", "circuit", c.id, value),
    )
    .await?;
    tx.commit().await?;
    Ok(RulesView {
        circuit_id: c.id,
        rules: Rules::from(&rules),
        stored: rules,
    })
}

// ---- the standings view ----

/// An athlete's counted result, with the event it was in.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountedResult {
    /// The circuit event's id.
    pub event_id: Id,
    pub event_name: String,
    pub date: Option<String>,
    pub place: i64,
    pub points: f64,
    /// False for a discarded result (outside the best N).
    pub counted: bool,
}

/// An event still to come in a division.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemainingEvent {
    pub event_id: Id,
    pub name: String,
    pub date: Option<String>,
}

/// A leader of the division.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Leader {
    pub rank: u32,
    pub name: String,
    /// The provider's athlete id.
    pub competitor: String,
    pub total: f64,
    /// Whether this line is the athlete's.
    pub is_athlete: bool,
}

/// The provider's own ranking line for the athlete.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRanking {
    pub place: Option<i64>,
    pub points: Option<f64>,
}

/// The athlete's goal in this division, and where they stand against it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GoalStanding {
    pub goal: Goal,
    /// The goal's rank, or the qualification place; null when neither is set.
    pub target_rank: Option<u32>,
    pub met: bool,
    pub outlook: Option<Outlook>,
}

/// One division of a circuit, from the athlete's side.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DivisionStanding {
    pub division_id: String,
    pub division_name: String,
    /// Competitors with a result in the division.
    pub competitors: usize,
    /// Null while the athlete has no result here.
    pub rank: Option<u32>,
    pub total: f64,
    pub results: Vec<CountedResult>,
    pub remaining_events: Vec<RemainingEvent>,
    /// Against the circuit's qualification place; null when the circuit sets none.
    pub qualification: Option<Outlook>,
    pub goal: Option<GoalStanding>,
    pub leaders: Vec<Leader>,
    pub provider_ranking: Option<ProviderRanking>,
}

/// One circuit of the athlete's.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CircuitStanding {
    pub circuit_id: Id,
    pub name: String,
    pub rules: Rules,
    pub goal: Option<Goal>,
    /// The divisions the athlete has results, a ranking or a goal in (or the circuit's only
    /// division, or the one asked for).
    pub divisions: Vec<DivisionStanding>,
}

/// The standings view of one athlete.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StrategyView {
    pub athlete_id: Id,
    /// The athlete's heatsource ids the standings are matched on.
    pub competitor_ids: Vec<String>,
    pub circuits: Vec<CircuitStanding>,
    pub computed_at: Ts,
}

/// One division's placings and names, gathered from the circuit's events.
#[derive(Default)]
struct DivisionData {
    name: String,
    placings: Vec<Placing>,
    /// Circuit event ids with results in this division.
    events_with_results: HashSet<Id>,
}

/// The standings view for an athlete (404 when not the workspace's), of every circuit that
/// concerns them or only `circuit` (404 when not the workspace's), and only `division` when
/// given.
pub async fn view(
    db: &Db,
    ws: &InWorkspace,
    athlete: Id,
    circuit: Option<Id>,
    division: Option<&str>,
) -> Result<StrategyView> {
    view_in(db, ws.org_id, athlete, circuit, division).await
}

/// [`view`] for a workspace by id (a job that runs for one, e.g. the season report).
pub async fn view_in(
    db: &Db,
    org: Id,
    athlete: Id,
    circuit: Option<Id>,
    division: Option<&str>,
) -> Result<StrategyView> {
    let mut c = db.acquire().await?;
    let a = crate::domain::athletes::load(&mut c, org, athlete).await?;
    let ids: Vec<String> = repo::links_of(&mut c, a.id)
        .await?
        .into_iter()
        .filter(|l| l.provider == Source::Heatsource)
        .map(|l| l.external_id)
        .collect();
    let circuits = match circuit {
        Some(id) => vec![
            repo::circuit(&mut c, org, id)
                .await?
                .ok_or_else(|| Error::not_found("circuit"))?,
        ],
        None => repo::circuits_of_athlete(&mut c, org, a.id, &ids).await?,
    };
    let today = Utc::now().date_naive().to_string();
    let mut out = Vec::with_capacity(circuits.len());
    for circuit in circuits {
        let goal = goals::goal(&mut c, a.id, circuit.id).await?;
        let events = repo::circuit_events_with_data(&mut c, circuit.id).await?;
        let rankings = repo::rankings(&mut c, circuit.id).await?;
        out.push(circuit_standing(
            &circuit, &ids, &events, &rankings, goal, division, &today,
        ));
    }
    Ok(StrategyView {
        athlete_id: a.id,
        competitor_ids: ids,
        circuits: out,
        computed_at: Ts::now(),
    })
}

/// Placings per division, from each synced event's final division rankings (`views` are the
/// `events` as members see them, in the same order), and the divisions the provider ranks.
/// `ids` are the athlete's heatsource ids, counted as one competitor (none for the whole table).
fn gather(
    events: &[(repo::CircuitEventRow, Json<serde_json::Value>)],
    views: &[EventView],
    rankings: &[RankingRow],
    ids: &[String],
) -> BTreeMap<String, DivisionData> {
    let mut divisions: BTreeMap<String, DivisionData> = BTreeMap::new();
    for ((row, data), view) in events.iter().zip(views) {
        let Ok(event) = serde_json::from_value::<Event>(data.0.clone()) else {
            continue; // a member's own event, or data this release cannot read
        };
        for d in &event.event_divisions {
            let names: BTreeMap<&str, &str> = d
                .heats
                .iter()
                .flat_map(|h| &h.competitors)
                .map(|c| (c.athlete_id.as_str(), c.athlete.name.as_str()))
                .collect();
            let entry = divisions.entry(d.division.id.clone()).or_default();
            entry.name = d.division.name.clone();
            for p in &d.ranking {
                let Some(place) = p.place else { continue };
                entry.events_with_results.insert(row.id);
                entry.placings.push(Placing {
                    // The athlete's several ids (linked twice) are one competitor.
                    competitor: if ids.contains(&p.athlete_id) {
                        ids[0].clone()
                    } else {
                        p.athlete_id.clone()
                    },
                    name: names
                        .get(p.athlete_id.as_str())
                        .map(|n| n.to_string())
                        .or_else(|| {
                            rankings
                                .iter()
                                .find(|r| r.athlete_external_id == p.athlete_id)
                                .map(|r| r.athlete_name.clone())
                        })
                        .unwrap_or_else(|| p.athlete_id.clone()),
                    event_id: view.id.to_string(),
                    place,
                });
            }
        }
    }
    for r in rankings {
        divisions
            .entry(r.division_id.clone())
            .or_insert_with(|| DivisionData {
                name: r.division_name.clone(),
                ..Default::default()
            });
    }
    divisions
}

/// One competitor's line of a circuit's standings, with the roster athlete linked to that
/// provider profile in the workspace (when one is).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TableLine {
    #[serde(flatten)]
    pub line: Line,
    pub athlete_id: Option<Id>,
}

/// One division of a circuit's standings: every competitor with a result, ranked.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DivisionTable {
    pub division_id: String,
    pub division_name: String,
    pub lines: Vec<TableLine>,
}

/// A circuit's standings in every division, counted under its rules exactly as [`view`]
/// counts them (the same placings, [`standings::table`]); 404 when not the workspace's.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CircuitTable {
    pub circuit_id: Id,
    pub rules: Rules,
    pub divisions: Vec<DivisionTable>,
}

pub async fn circuit_table(db: &Db, ws: &InWorkspace, circuit: Id) -> Result<CircuitTable> {
    let mut c = db.acquire().await?;
    let circuit = repo::circuit(&mut c, ws.org_id, circuit)
        .await?
        .ok_or_else(|| Error::not_found("circuit"))?;
    let events = repo::circuit_events_with_data(&mut c, circuit.id).await?;
    let rankings = repo::rankings(&mut c, circuit.id).await?;
    let linked: BTreeMap<String, Id> = repo::links_to(&mut c, Source::Heatsource, Some(ws.org_id))
        .await?
        .into_iter()
        .map(|l| (l.external_id, l.athlete_id))
        .collect();
    let rules = rules_of(&circuit);
    let views: Vec<EventView> = events.iter().map(|(e, _)| EventView::from(e)).collect();
    let divisions = gather(&events, &views, &rankings, &[])
        .into_iter()
        .map(|(id, d)| DivisionTable {
            lines: standings::table(&rules, &d.placings)
                .into_iter()
                .map(|line| TableLine {
                    athlete_id: linked.get(&line.competitor).copied(),
                    line,
                })
                .collect(),
            division_id: id,
            division_name: d.name,
        })
        .collect();
    Ok(CircuitTable {
        circuit_id: circuit.id,
        rules,
        divisions,
    })
}

/// Everything of one circuit, from rows already read.
fn circuit_standing(
    circuit: &Circuit,
    ids: &[String],
    events: &[(repo::CircuitEventRow, Json<serde_json::Value>)],
    rankings: &[RankingRow],
    goal: Option<Goal>,
    only: Option<&str>,
    today: &str,
) -> CircuitStanding {
    let rules = Rules::from(&stored_rules(circuit));
    let views: Vec<EventView> = events.iter().map(|(e, _)| EventView::from(e)).collect();
    let mut divisions = gather(events, &views, rankings, ids);
    // Which divisions to show.
    let mine: Vec<String> = divisions
        .iter()
        .filter(|(id, d)| {
            d.placings.iter().any(|p| ids.contains(&p.competitor))
                || rankings
                    .iter()
                    .any(|r| &r.division_id == *id && ids.contains(&r.athlete_external_id))
                || goal
                    .as_ref()
                    .is_some_and(|g| g.division_id.as_deref() == Some(id.as_str()))
        })
        .map(|(id, _)| id.clone())
        .collect();
    let shown: Vec<String> = match only {
        Some(d) => vec![d.to_string()],
        None if mine.is_empty() && divisions.len() == 1 => divisions.keys().cloned().collect(),
        None => mine,
    };
    let divisions_out = shown
        .into_iter()
        .map(|id| {
            let data = divisions.remove(&id).unwrap_or_default();
            division_standing(
                &rules,
                id,
                data,
                ids,
                &views,
                rankings,
                goal.as_ref(),
                today,
            )
        })
        .collect();
    CircuitStanding {
        circuit_id: circuit.id,
        name: circuit.name.clone(),
        rules,
        goal,
        divisions: divisions_out,
    }
}

#[allow(clippy::too_many_arguments)]
fn division_standing(
    rules: &Rules,
    id: String,
    data: DivisionData,
    ids: &[String],
    views: &[EventView],
    rankings: &[RankingRow],
    goal: Option<&Goal>,
    today: &str,
) -> DivisionStanding {
    let table = standings::table(rules, &data.placings);
    let me = ids.first();
    let mine: Option<&Line> = table.iter().find(|l| Some(&l.competitor) == me);
    let others: Vec<f64> = table
        .iter()
        .filter(|l| Some(&l.competitor) != me)
        .map(|l| l.total)
        .collect();
    let own: Vec<f64> = mine
        .map(|l| l.results.iter().map(|r| r.points).collect())
        .unwrap_or_default();
    let remaining: Vec<RemainingEvent> = views
        .iter()
        .filter(|e| !data.events_with_results.contains(&e.id))
        .filter(|e| {
            !e.status
                .as_deref()
                .is_some_and(|s| OVER.contains(&s.to_lowercase().as_str()))
        })
        .filter(|e| e.date.as_deref().is_none_or(|d| d >= today))
        .map(|e| RemainingEvent {
            event_id: e.id,
            name: e.name.clone(),
            date: e.date.clone(),
        })
        .collect();
    let outlook_at = |rank: u32| standings::outlook(rules, &own, &others, remaining.len(), rank);
    let results = mine
        .map(|l| {
            l.results
                .iter()
                .filter_map(|r| {
                    let e = views.iter().find(|v| v.id.to_string() == r.event_id)?;
                    Some(CountedResult {
                        event_id: e.id,
                        event_name: e.name.clone(),
                        date: e.date.clone(),
                        place: r.place,
                        points: r.points,
                        counted: r.counted,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let goal = goal
        .filter(|g| g.division_id.as_deref().is_none_or(|d| d == id))
        .map(|g| {
            let target = g
                .target_rank
                .map(|r| r.max(1) as u32)
                .or(rules.qualification_place);
            let outlook = target.map(outlook_at);
            GoalStanding {
                goal: g.clone(),
                target_rank: target,
                met: mine.zip(target).is_some_and(|(l, t)| l.rank <= t),
                outlook,
            }
        });
    DivisionStanding {
        competitors: table.len(),
        rank: mine.map(|l| l.rank),
        total: mine.map_or(0.0, |l| l.total),
        results,
        qualification: rules.qualification_place.map(outlook_at),
        goal,
        leaders: table
            .iter()
            .take(LEADERS)
            .map(|l| Leader {
                rank: l.rank,
                name: l.name.clone(),
                competitor: l.competitor.clone(),
                total: l.total,
                is_athlete: Some(&l.competitor) == me,
            })
            .collect(),
        provider_ranking: rankings
            .iter()
            .find(|r| r.division_id == id && ids.contains(&r.athlete_external_id))
            .map(|r| ProviderRanking {
                place: r.place,
                points: r.points,
            }),
        remaining_events: remaining,
        division_name: data.name,
        division_id: id,
    }
}

// ---- goals ----

/// A goal as received.
#[derive(Clone, Debug)]
pub struct GoalFields {
    pub circuit_id: Id,
    pub division_id: Option<String>,
    pub target_rank: Option<i64>,
    pub note: Option<String>,
}

/// Sets the athlete's goal in a circuit (one per circuit: a second POST replaces it); whether
/// it was created. A goal without a rank is "qualify": the circuit must have a qualification
/// place.
pub async fn set_goal(
    db: &Db,
    ws: &InWorkspace,
    athlete: Id,
    f: &GoalFields,
) -> Result<(Goal, bool)> {
    let mut v = Validator::new();
    if let Some(r) = f.target_rank
        && !(1..=10_000).contains(&r)
    {
        v.add("targetRank", "out_of_range", "from 1 to 10000");
    }
    let division = f
        .division_id
        .as_deref()
        .map(|d| v.text("divisionId", d, 100));
    let note = f
        .note
        .as_deref()
        .map(|n| v.text("note", n, 2000))
        .filter(|n| !n.is_empty());
    v.finish()?;
    let mut tx = db.begin().await?;
    let a = crate::domain::athletes::load(&mut tx, ws.org_id, athlete).await?;
    let circuit = repo::circuit(&mut tx, ws.org_id, f.circuit_id)
        .await?
        .ok_or_else(|| Error::not_found("circuit"))?;
    if f.target_rank.is_none() && stored_rules(&circuit).qualification_place.is_none() {
        return Err(Error::field(
            "targetRank",
            "no_qualification_line",
            "this circuit sets no qualification place: give a target rank, or set the circuit's qualificationPlace",
        ));
    }
    let created = goals::upsert_goal(
        &mut tx,
        ws.org_id,
        a.id,
        circuit.id,
        division.as_deref(),
        f.target_rank.map(|r| r as i32),
        note.as_deref(),
        ws.actor.user_id,
        Ts::now(),
    )
    .await?;
    let goal = goals::goal(&mut tx, a.id, circuit.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the goal just set is missing")))?;
    audit::record(
        &mut tx,
        ws.audit(
            "strategy.goal_set",
            "athlete",
            a.id,
            json!({ "circuitId": circuit.id, "targetRank": goal.target_rank, "divisionId": goal.division_id }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok((goal, created))
}

/// Removes the athlete's goal in a circuit (404 when there is none).
pub async fn delete_goal(db: &Db, ws: &InWorkspace, athlete: Id, circuit: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    let a = crate::domain::athletes::load(&mut tx, ws.org_id, athlete).await?;
    repo::circuit(&mut tx, ws.org_id, circuit)
        .await?
        .ok_or_else(|| Error::not_found("circuit"))?;
    if !goals::delete_goal(&mut tx, a.id, circuit).await? {
        return Err(Error::not_found("goal"));
    }
    audit::record(
        &mut tx,
        ws.audit(
            "strategy.goal_deleted",
            "athlete",
            a.id,
            json!({ "circuitId": circuit }),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
