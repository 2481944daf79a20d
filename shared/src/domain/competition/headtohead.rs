//! Opponent suggestions (`GET /api/opponents/suggestions?athleteId=`): the competitors a roster
//! athlete meets in their divisions, with head-to-head records from the heats they shared.
//!
//! Where the data comes from: the athlete's heatsource profiles (their provider links), the
//! synced heatsource events (`heatsource-sync`: every event division with its heats, results
//! and competitors) and the workspace's circuit rankings (`import-rankings`). A division is the
//! provider's division id (the same in events and series rankings).
//!
//! - The athlete's divisions: every division in which one of their profiles appears in an event
//!   (a heat's competitors or results, the division's final ranking) or a circuit ranking.
//! - Candidates: everyone else who appears in those divisions, in any synced event or in a
//!   ranking of the workspace's circuits.
//! - Head to head, per heat both were in: the better heat place wins (1 beats 2); without
//!   both places, the higher heat total wins; equal places (or totals) are a tie; without
//!   either, the heat counts as shared but undecided. `lastMet` is the latest shared heat (the
//!   event's date, then the heat's start time).
//! - Order: most heats shared first, then the best place in a shared ranking, then by name.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;
use utoipa::ToSchema;

use super::roster::Source;
use crate::db::{Db, Id};
use crate::domain::InWorkspace;
use crate::error::{Error, Result};
use crate::providers::heatsource::{Event, Heat};
use crate::repo::competition::{self as competition, RankingRow};
use crate::repo::heatsource as synced;
use crate::repo::opponents as notes;

/// The latest heat two athletes shared.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastMet {
    pub event_id: String,
    pub event_name: String,
    /// YYYY-MM-DD, when the event has a date.
    pub date: Option<String>,
    pub division: String,
    pub round: Option<String>,
}

/// A head-to-head record from the athlete's side: `heats` = `wins` + `losses` + `ties` +
/// `undecided`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeadToHead {
    pub heats: u32,
    pub wins: u32,
    pub losses: u32,
    pub ties: u32,
    /// Shared heats without comparable results (no places, no totals).
    pub undecided: u32,
    pub last_met: Option<LastMet>,
}

/// A competitor of the athlete's divisions.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    pub provider: Source,
    /// The provider's athlete id.
    pub external_id: String,
    pub name: String,
    /// The roster athlete linked to this profile in the workspace, if any.
    pub athlete_id: Option<Id>,
    /// The shared divisions' names.
    pub divisions: Vec<String>,
    /// Their best place in a ranking of a shared division (the workspace's circuits).
    pub ranking_place: Option<i64>,
    pub head_to_head: HeadToHead,
    /// The workspace's notes on them.
    pub notes: i64,
}

#[derive(Default)]
struct Candidate {
    name: String,
    divisions: BTreeSet<String>,
    ranking_place: Option<i64>,
    h2h: HeadToHead,
    /// (event date, heat start) of `h2h.last_met`, for comparison.
    last_key: (String, String),
}

impl Candidate {
    fn named(&mut self, name: &str) {
        if self.name.is_empty() && !name.is_empty() {
            self.name = name.to_string();
        }
    }
}

/// Who is in a heat: competitors and anyone with a result.
fn in_heat(h: &Heat) -> BTreeSet<&str> {
    h.competitors
        .iter()
        .map(|c| c.athlete_id.as_str())
        .chain(h.result.iter().map(|r| r.athlete_id.as_str()))
        .collect()
}

/// The outcome of one shared heat for `me` against `them`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Loss,
    Tie,
    Undecided,
}

/// Places first (lower wins), then totals (higher wins).
pub fn outcome(h: &Heat, me: &str, them: &str) -> Outcome {
    let r = |id: &str| h.result.iter().find(|r| r.athlete_id == id);
    let (a, b) = (r(me), r(them));
    let places = (a.and_then(|r| r.place), b.and_then(|r| r.place));
    if let (Some(p), Some(q)) = places {
        return match p.cmp(&q) {
            std::cmp::Ordering::Less => Outcome::Win,
            std::cmp::Ordering::Greater => Outcome::Loss,
            std::cmp::Ordering::Equal => Outcome::Tie,
        };
    }
    if let (Some(s), Some(t)) = (a.and_then(|r| r.total), b.and_then(|r| r.total)) {
        return match s.partial_cmp(&t) {
            Some(std::cmp::Ordering::Greater) => Outcome::Win,
            Some(std::cmp::Ordering::Less) => Outcome::Loss,
            Some(std::cmp::Ordering::Equal) => Outcome::Tie,
            None => Outcome::Undecided,
        };
    }
    Outcome::Undecided
}

/// The suggestions for the athlete whose provider ids are `me`, from the synced events and the
/// rankings; `rostered` maps provider ids to roster athletes, `note_counts` to notes. Sorted.
pub fn suggest(
    me: &HashSet<String>,
    events: &[Event],
    rankings: &[RankingRow],
    rostered: &HashMap<String, Id>,
    note_counts: &HashMap<String, i64>,
) -> Vec<Suggestion> {
    // The athlete's divisions (id -> name).
    let mut mine: HashMap<&str, &str> = HashMap::new();
    for e in events {
        for d in &e.event_divisions {
            let present = d
                .heats
                .iter()
                .any(|h| in_heat(h).iter().any(|a| me.contains(*a)))
                || d.ranking.iter().any(|r| me.contains(&r.athlete_id));
            if present {
                mine.insert(&d.division.id, &d.division.name);
            }
        }
    }
    for r in rankings {
        if me.contains(&r.athlete_external_id) {
            mine.entry(&r.division_id).or_insert(&r.division_name);
        }
    }
    let mut found: HashMap<String, Candidate> = HashMap::new();
    for e in events {
        let date = e
            .date
            .as_ref()
            .map(|d| d.chars().take(10).collect::<String>());
        for d in &e.event_divisions {
            if !mine.contains_key(d.division.id.as_str()) {
                continue;
            }
            let names: HashMap<&str, &str> = d
                .heats
                .iter()
                .flat_map(|h| h.competitors.iter())
                .map(|c| (c.athlete_id.as_str(), c.athlete.name.as_str()))
                .collect();
            let everyone: BTreeSet<&str> = d
                .heats
                .iter()
                .flat_map(in_heat)
                .chain(d.ranking.iter().map(|r| r.athlete_id.as_str()))
                .collect();
            for a in everyone.iter().filter(|a| !me.contains(**a)) {
                let c = found.entry(a.to_string()).or_default();
                c.named(names.get(a).copied().unwrap_or_default());
                c.divisions.insert(d.division.name.clone());
            }
            for h in &d.heats {
                let present = in_heat(h);
                let Some(my_id) = present.iter().find(|a| me.contains(**a)) else {
                    continue;
                };
                for them in present.iter().filter(|a| !me.contains(**a)) {
                    let c = found.entry(them.to_string()).or_default();
                    c.h2h.heats += 1;
                    match outcome(h, my_id, them) {
                        Outcome::Win => c.h2h.wins += 1,
                        Outcome::Loss => c.h2h.losses += 1,
                        Outcome::Tie => c.h2h.ties += 1,
                        Outcome::Undecided => c.h2h.undecided += 1,
                    }
                    let key = (
                        date.clone().unwrap_or_default(),
                        h.start_time.clone().unwrap_or_default(),
                    );
                    if c.h2h.last_met.is_none() || key > c.last_key {
                        c.last_key = key;
                        c.h2h.last_met = Some(LastMet {
                            event_id: e.id.clone(),
                            event_name: e.name.clone(),
                            date: date.clone(),
                            division: d.division.name.clone(),
                            round: h.round.clone(),
                        });
                    }
                }
            }
        }
    }
    for r in rankings {
        if me.contains(&r.athlete_external_id) || !mine.contains_key(r.division_id.as_str()) {
            continue;
        }
        let c = found.entry(r.athlete_external_id.clone()).or_default();
        c.named(&r.athlete_name);
        c.divisions.insert(r.division_name.clone());
        if let Some(p) = r.place {
            c.ranking_place = Some(c.ranking_place.map_or(p, |q| q.min(p)));
        }
    }
    let mut out: Vec<Suggestion> = found
        .into_iter()
        .map(|(id, c)| Suggestion {
            provider: Source::Heatsource,
            name: if c.name.is_empty() {
                id.clone()
            } else {
                c.name
            },
            athlete_id: rostered.get(&id).copied(),
            divisions: c.divisions.into_iter().collect(),
            ranking_place: c.ranking_place,
            head_to_head: c.h2h,
            notes: note_counts.get(&id).copied().unwrap_or(0),
            external_id: id,
        })
        .collect();
    out.sort_by(|a, b| {
        b.head_to_head
            .heats
            .cmp(&a.head_to_head.heats)
            .then_with(|| {
                a.ranking_place
                    .unwrap_or(i64::MAX)
                    .cmp(&b.ranking_place.unwrap_or(i64::MAX))
            })
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.external_id.cmp(&b.external_id))
    });
    out
}

/// The suggestions for a roster athlete of the workspace (404 when not the workspace's; 409
/// `not_provider_linked` when the athlete has no heatsource profile).
pub async fn suggestions(db: &Db, ws: &InWorkspace, athlete: Id) -> Result<Vec<Suggestion>> {
    let mut c = db.acquire().await?;
    let a = crate::domain::athletes::load(&mut c, ws.org_id, athlete).await?;
    let me: HashSet<String> = competition::links_of(&mut c, a.id)
        .await?
        .into_iter()
        .filter(|l| l.provider == Source::Heatsource)
        .map(|l| l.external_id)
        .collect();
    if me.is_empty() {
        return Err(Error::conflict(
            "not_provider_linked",
            "this athlete has no heatsource profile: link one first (POST /api/athlete-search/import)",
        ));
    }
    let rostered: HashMap<String, Id> =
        competition::links_to(&mut c, Source::Heatsource, Some(ws.org_id))
            .await?
            .into_iter()
            .map(|l| (l.external_id, l.athlete_id))
            .collect();
    let counts: HashMap<String, i64> = notes::note_counts(&mut c, ws.org_id, Source::Heatsource)
        .await?
        .into_iter()
        .collect();
    let rankings = notes::org_rankings(&mut c, ws.org_id).await?;
    let events: Vec<Event> = synced::events(&mut c)
        .await?
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    Ok(suggest(&me, &events, &rankings, &rostered, &counts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::heatsource::{
        AthleteRef, Competitor, Division, EventDivision, HeatResult,
    };

    fn heat(round: &str, start: &str, results: &[(&str, Option<i64>, Option<f64>)]) -> Heat {
        Heat {
            round: Some(round.into()),
            round_position: None,
            start_time: Some(start.into()),
            end_time: None,
            result: results
                .iter()
                .filter(|(_, p, t)| p.is_some() || t.is_some())
                .map(|(a, p, t)| HeatResult {
                    athlete_id: a.to_string(),
                    place: *p,
                    total: *t,
                })
                .collect(),
            competitors: results
                .iter()
                .map(|(a, _, _)| Competitor {
                    athlete_id: a.to_string(),
                    bib: None,
                    athlete: AthleteRef {
                        id: a.to_string(),
                        name: format!("Surfer {a}"),
                        image: None,
                    },
                })
                .collect(),
        }
    }

    fn event(id: &str, date: &str, division: (&str, &str), heats: Vec<Heat>) -> Event {
        Event {
            id: id.into(),
            name: format!("Event {id}"),
            status: None,
            date: Some(format!("{date}T00:00:00Z")),
            organisation: None,
            series: None,
            location: None,
            event_divisions: vec![EventDivision {
                id: format!("{id}-{}", division.0),
                entry_count: None,
                division: Division {
                    id: division.0.into(),
                    name: division.1.into(),
                },
                heats,
                ranking: vec![],
            }],
        }
    }

    fn me() -> HashSet<String> {
        ["m".to_string()].into()
    }

    #[test]
    fn places_decide_then_totals_then_nothing() {
        let h = heat(
            "R1",
            "t",
            &[("m", Some(2), Some(9.0)), ("x", Some(1), Some(8.0))],
        );
        assert_eq!(outcome(&h, "m", "x"), Outcome::Loss, "places before totals");
        let h = heat(
            "R1",
            "t",
            &[("m", None, Some(12.5)), ("x", None, Some(11.0))],
        );
        assert_eq!(outcome(&h, "m", "x"), Outcome::Win);
        let h = heat("R1", "t", &[("m", Some(3), None), ("x", Some(3), None)]);
        assert_eq!(outcome(&h, "m", "x"), Outcome::Tie);
        let h = heat("R1", "t", &[("m", Some(1), None), ("x", None, Some(5.0))]);
        assert_eq!(outcome(&h, "m", "x"), Outcome::Undecided);
    }

    /// Hand-worked: m meets x in three heats (won R1 1-2, lost QF 3-1 on places, won SF on
    /// totals 14.1 vs 13.9), and y in one heat without results. z surfs the same division in
    /// another event (no shared heat); w is only in another division.
    #[test]
    fn head_to_head_counts_and_order() {
        let events = vec![
            event(
                "e1",
                "2026-03-01",
                ("men", "Men"),
                vec![
                    heat(
                        "R1",
                        "2026-03-01T08:00",
                        &[
                            ("m", Some(1), None),
                            ("x", Some(2), None),
                            ("y", Some(3), None),
                        ],
                    ),
                    heat(
                        "QF",
                        "2026-03-01T10:00",
                        &[("m", Some(3), None), ("x", Some(1), None)],
                    ),
                ],
            ),
            event(
                "e2",
                "2026-04-10",
                ("men", "Men"),
                vec![
                    heat(
                        "SF",
                        "2026-04-10T09:00",
                        &[("m", None, Some(14.1)), ("x", None, Some(13.9))],
                    ),
                    heat(
                        "R1",
                        "2026-04-10T07:00",
                        &[("m", None, None), ("y", None, None)],
                    ),
                    heat("R1", "2026-04-10T07:30", &[("z", Some(1), None)]),
                ],
            ),
            event(
                "e3",
                "2026-05-01",
                ("women", "Women"),
                vec![heat("F", "t", &[("w", Some(1), None)])],
            ),
        ];
        let rankings = vec![RankingRow {
            division_id: "men".into(),
            division_name: "Men".into(),
            athlete_external_id: "z".into(),
            athlete_name: "Zed".into(),
            place: Some(4),
            points: Some(100.0),
        }];
        let s = suggest(&me(), &events, &rankings, &HashMap::new(), &HashMap::new());
        let ids: Vec<&str> = s.iter().map(|s| s.external_id.as_str()).collect();
        assert_eq!(
            ids,
            ["x", "y", "z"],
            "most heats first; w is in no shared division"
        );
        let x = &s[0].head_to_head;
        assert_eq!(
            (x.heats, x.wins, x.losses, x.ties, x.undecided),
            (3, 2, 1, 0, 0)
        );
        let last = x.last_met.as_ref().unwrap();
        assert_eq!(
            (last.event_id.as_str(), last.round.as_deref()),
            ("e2", Some("SF"))
        );
        let y = &s[1].head_to_head;
        assert_eq!((y.heats, y.wins, y.losses, y.undecided), (2, 1, 0, 1));
        assert_eq!(
            y.last_met.as_ref().unwrap().date.as_deref(),
            Some("2026-04-10")
        );
        assert_eq!(s[2].head_to_head, HeadToHead::default());
        assert_eq!(
            (s[2].name.as_str(), s[2].ranking_place),
            ("Surfer z", Some(4))
        );
        assert_eq!(s[0].divisions, ["Men"]);
    }
}
