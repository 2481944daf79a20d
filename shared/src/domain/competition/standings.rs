//! The standings arithmetic behind `GET /api/strategy/{athleteId}` (docs/competition.md
//! "Strategy"): places turned into points by the circuit's table, the best N results counted
//! and the rest discarded, competitors ranked, the gap to the qualification line, and the
//! finishes in the remaining events that would reach it. Pure functions over plain values, so
//! the arithmetic is tested against hand-worked examples without a database.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The points table used when a circuit sets none: 1st to 12th; later places score 0.
pub const DEFAULT_POINTS: [f64; 12] = [
    1000.0, 800.0, 650.0, 550.0, 450.0, 400.0, 350.0, 300.0, 250.0, 200.0, 150.0, 100.0,
];

/// A circuit's scoring rules as stored (every field optional; defaults in [`Rules`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredRules {
    /// How many of an athlete's best results count (the rest are discarded); all when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_to_count: Option<u32>,
    /// Places 1..=this qualify; no qualification line when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualification_place: Option<u32>,
    /// Points for 1st, 2nd, ...; places past the end score 0. [`DEFAULT_POINTS`] when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points_table: Option<Vec<f64>>,
}

/// The rules in force: stored values with the defaults filled in.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rules {
    pub results_to_count: Option<u32>,
    pub qualification_place: Option<u32>,
    pub points_table: Vec<f64>,
    /// Whether the points table is the default one (the circuit sets none).
    pub default_points_table: bool,
}

impl From<&StoredRules> for Rules {
    fn from(s: &StoredRules) -> Self {
        Rules {
            results_to_count: s.results_to_count,
            qualification_place: s.qualification_place,
            default_points_table: s.points_table.is_none(),
            points_table: s
                .points_table
                .clone()
                .unwrap_or_else(|| DEFAULT_POINTS.to_vec()),
        }
    }
}

impl Rules {
    /// The points a place earns: the table's entry, 0 past its end (or for a place below 1).
    /// Tied athletes share a place and so the same points.
    pub fn points(&self, place: i64) -> f64 {
        usize::try_from(place - 1)
            .ok()
            .and_then(|i| self.points_table.get(i))
            .copied()
            .unwrap_or(0.0)
    }

    /// The total of the best `results_to_count` of `points` (all when unset).
    pub fn best_total(&self, points: &[f64]) -> f64 {
        let mut p = points.to_vec();
        p.sort_by(|a, b| b.total_cmp(a));
        p.iter()
            .take(self.results_to_count.map_or(usize::MAX, |n| n as usize))
            .sum()
    }
}

/// One finish of one competitor in one event of a division.
#[derive(Clone, Debug, PartialEq)]
pub struct Placing {
    pub competitor: String,
    pub name: String,
    pub event_id: String,
    pub place: i64,
}

/// A result as counted.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    pub event_id: String,
    pub place: i64,
    pub points: f64,
    /// False for a discarded result (outside the best N).
    pub counted: bool,
}

/// One competitor's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// The provider's athlete id.
    pub competitor: String,
    pub name: String,
    /// Standard competition ranking: equal totals share a rank (1, 2, 2, 4).
    pub rank: u32,
    pub total: f64,
    /// In the order the events are given, discarded ones marked.
    pub results: Vec<Scored>,
}

/// Scores one competitor's placings: which count (the best N by points; on equal points the
/// earlier event counts first), and the total.
fn score(rules: &Rules, placings: &[&Placing]) -> (Vec<Scored>, f64) {
    let mut order: Vec<usize> = (0..placings.len()).collect();
    order.sort_by(|&a, &b| {
        rules
            .points(placings[b].place)
            .total_cmp(&rules.points(placings[a].place))
            .then(a.cmp(&b))
    });
    let n = rules.results_to_count.map_or(usize::MAX, |n| n as usize);
    let mut counted = vec![false; placings.len()];
    for &i in order.iter().take(n) {
        counted[i] = true;
    }
    let results: Vec<Scored> = placings
        .iter()
        .zip(counted)
        .map(|(p, counted)| Scored {
            event_id: p.event_id.clone(),
            place: p.place,
            points: rules.points(p.place),
            counted,
        })
        .collect();
    let total = results.iter().filter(|r| r.counted).map(|r| r.points).sum();
    (results, total)
}

/// The standings of one division: every competitor with a placing, best total first (equal
/// totals by name), ranked.
pub fn table(rules: &Rules, placings: &[Placing]) -> Vec<Line> {
    let mut by: BTreeMap<&str, Vec<&Placing>> = BTreeMap::new();
    for p in placings {
        by.entry(&p.competitor).or_default().push(p);
    }
    let mut lines: Vec<Line> = by
        .into_iter()
        .map(|(competitor, ps)| {
            let (results, total) = score(rules, &ps);
            Line {
                competitor: competitor.to_string(),
                name: ps[0].name.clone(),
                rank: 0,
                total,
                results,
            }
        })
        .collect();
    lines.sort_by(|a, b| {
        b.total
            .total_cmp(&a.total)
            .then_with(|| a.name.cmp(&b.name))
    });
    let mut rank = 0;
    let mut last = f64::NAN;
    for (i, l) in lines.iter_mut().enumerate() {
        if l.total != last {
            rank = i as u32 + 1;
            last = l.total;
        }
        l.rank = rank;
    }
    lines
}

/// Where an athlete stands against a target rank (the qualification place or a goal's).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Outlook {
    /// The rank to reach (1..=this).
    pub target_rank: u32,
    /// The total the athlete must reach: the `target_rank`-th best total of the others (0
    /// when fewer others have results). Reaching it is enough: a tie shares the rank.
    pub line_points: f64,
    /// `line_points` minus the athlete's total: positive is still needed, 0 or less is the
    /// cushion over the line.
    pub points_to_line: f64,
    pub reached: bool,
    /// The lowest place in the next event alone that reaches the line (the other totals as
    /// they stand); null when no place would, or when there is no remaining event.
    pub next_event_place: Option<i64>,
    /// The lowest place that, finished in every remaining event, reaches the line; null when
    /// none would, or when there is no remaining event.
    pub every_remaining_place: Option<i64>,
    /// For each place of the table: the total after finishing it in the next event, and after
    /// finishing it in every remaining event.
    pub scenarios: Vec<Scenario>,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scenario {
    pub place: i64,
    pub points: f64,
    pub total_after_next: f64,
    pub total_after_every_remaining: f64,
}

/// The athlete's outlook against `target_rank`, given their current points per result, the
/// others' totals, and how many events remain. Assumes the others' totals stand still (the
/// view cannot know their future results); that is written beside the figures in the docs.
pub fn outlook(
    rules: &Rules,
    own: &[f64],
    others: &[f64],
    remaining: usize,
    target_rank: u32,
) -> Outlook {
    let mut others = others.to_vec();
    others.sort_by(|a, b| b.total_cmp(a));
    let line_points = others
        .get(target_rank.saturating_sub(1) as usize)
        .copied()
        .unwrap_or(0.0);
    let total = rules.best_total(own);
    let with = |p: f64, times: usize| {
        let mut v = own.to_vec();
        v.extend(std::iter::repeat_n(p, times));
        rules.best_total(&v)
    };
    let places = 1..=rules.points_table.len() as i64;
    let scenarios: Vec<Scenario> = if remaining == 0 {
        Vec::new()
    } else {
        places
            .map(|place| {
                let p = rules.points(place);
                Scenario {
                    place,
                    points: p,
                    total_after_next: with(p, 1),
                    total_after_every_remaining: with(p, remaining),
                }
            })
            .collect()
    };
    // Points never rise with the place (the table is checked non-increasing), so the last
    // place that reaches the line is the lowest one needed.
    let lowest = |f: fn(&Scenario) -> f64| {
        scenarios
            .iter()
            .filter(|s| f(s) >= line_points)
            .map(|s| s.place)
            .max()
    };
    Outlook {
        target_rank,
        line_points,
        points_to_line: line_points - total,
        reached: total >= line_points,
        next_event_place: lowest(|s| s.total_after_next),
        every_remaining_place: lowest(|s| s.total_after_every_remaining),
        scenarios,
    }
}

/// Checks a points table: 1–256 entries, each finite and 0..=1,000,000, never rising from one
/// place to the next. The error message says what is wrong.
pub fn check_points_table(t: &[f64]) -> Result<(), &'static str> {
    if t.is_empty() || t.len() > 256 {
        return Err("a points table has 1-256 entries");
    }
    if t.iter()
        .any(|p| !p.is_finite() || *p < 0.0 || *p > 1_000_000.0)
    {
        return Err("points are numbers from 0 to 1,000,000");
    }
    if t.windows(2).any(|w| w[1] > w[0]) {
        return Err("points never rise from one place to the next");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(n: Option<u32>, q: Option<u32>, table: &[f64]) -> Rules {
        Rules::from(&StoredRules {
            results_to_count: n,
            qualification_place: q,
            points_table: Some(table.to_vec()),
        })
    }

    fn p(who: &str, event: &str, place: i64) -> Placing {
        Placing {
            competitor: who.into(),
            name: who.to_uppercase(),
            event_id: event.into(),
            place,
        }
    }

    #[test]
    fn places_become_points_and_past_the_table_score_nothing() {
        let r = rules(None, None, &[100.0, 60.0, 40.0]);
        assert_eq!(r.points(1), 100.0);
        assert_eq!(r.points(3), 40.0);
        assert_eq!(r.points(4), 0.0);
        assert_eq!(r.points(0), 0.0);
        assert_eq!(r.points(-2), 0.0);
        let d = Rules::from(&StoredRules::default());
        assert!(d.default_points_table);
        assert_eq!(d.points(5), 450.0);
        assert_eq!(d.points(13), 0.0);
    }

    /// Worked by hand: table 1000/800/650/550/450, best 2 of 3.
    /// a: 3rd, 5th, 2nd = 650, 450, 800 -> counts 800 + 650 = 1450, the 5th discarded.
    /// b: 1st, 4th        = 1000 + 550 = 1550.
    /// c: 2nd, 1st, 3rd   = 800, 1000, 650 -> 1800, the 3rd discarded.
    /// d: 4th, 3rd, 4th   = 550, 650, 550 -> 1200; equal 550s: the earlier 4th counts.
    #[test]
    fn best_n_counts_and_discards_and_ranks() {
        let r = rules(Some(2), None, &[1000.0, 800.0, 650.0, 550.0, 450.0]);
        let t = table(
            &r,
            &[
                p("a", "e1", 3),
                p("a", "e2", 5),
                p("a", "e3", 2),
                p("b", "e1", 1),
                p("b", "e2", 4),
                p("c", "e1", 2),
                p("c", "e2", 1),
                p("c", "e3", 3),
                p("d", "e1", 4),
                p("d", "e2", 3),
                p("d", "e3", 4),
            ],
        );
        let got: Vec<(&str, u32, f64)> = t
            .iter()
            .map(|l| (l.competitor.as_str(), l.rank, l.total))
            .collect();
        assert_eq!(
            got,
            [
                ("c", 1, 1800.0),
                ("b", 2, 1550.0),
                ("a", 3, 1450.0),
                ("d", 4, 1200.0)
            ]
        );
        let a = &t[2];
        assert_eq!(
            a.results.iter().map(|s| s.counted).collect::<Vec<_>>(),
            [true, false, true]
        );
        let d = &t[3];
        assert_eq!(
            d.results.iter().map(|s| s.counted).collect::<Vec<_>>(),
            [true, true, false]
        );
    }

    #[test]
    fn equal_totals_share_a_rank_and_the_next_rank_skips() {
        let r = rules(None, None, &[10.0, 6.0, 4.0]);
        // x: 10; y: 6 + 4 = 10; z: 6; w: 4 + 0 (4th scores nothing)
        let t = table(
            &r,
            &[
                p("x", "e1", 1),
                p("y", "e1", 2),
                p("y", "e2", 3),
                p("z", "e2", 2),
                p("w", "e1", 3),
                p("w", "e2", 4),
            ],
        );
        let got: Vec<(&str, u32)> = t.iter().map(|l| (l.competitor.as_str(), l.rank)).collect();
        assert_eq!(got, [("x", 1), ("y", 1), ("z", 3), ("w", 4)]);
    }

    /// Worked by hand: table 1000/800/650/550/450, best 2, top 2 qualify, 2 events remain.
    /// The athlete has 650 (3rd) and 450 (5th) = 1100. Others: 1800, 1550, 1200.
    /// The line is the 2nd best other total, 1550: 450 short.
    /// Next event alone: a 2nd (800) gives 800 + 650 = 1450 < 1550; a 1st gives
    /// 1000 + 650 = 1650 >= 1550, so only a win does it.
    /// Every remaining event: two 3rds give 650 + 650 = 1300; two 2nds give 1600 >= 1550,
    /// so 2nd in both is the lowest that does it.
    #[test]
    fn the_gap_to_the_line_and_the_finishes_that_close_it() {
        let r = rules(Some(2), Some(2), &[1000.0, 800.0, 650.0, 550.0, 450.0]);
        let o = outlook(&r, &[650.0, 450.0], &[1200.0, 1800.0, 1550.0], 2, 2);
        assert_eq!(o.line_points, 1550.0);
        assert_eq!(o.points_to_line, 450.0);
        assert!(!o.reached);
        assert_eq!(o.next_event_place, Some(1));
        assert_eq!(o.every_remaining_place, Some(2));
        let third = &o.scenarios[2];
        assert_eq!(
            (third.total_after_next, third.total_after_every_remaining),
            (1300.0, 1300.0)
        );
        let second = &o.scenarios[1];
        assert_eq!(
            (second.total_after_next, second.total_after_every_remaining),
            (1450.0, 1600.0)
        );
    }

    #[test]
    fn above_the_line_the_gap_is_a_cushion_and_out_of_reach_is_null() {
        let r = rules(Some(2), Some(1), &[100.0, 50.0]);
        // Already top: 150 against the best other 120 -> cushion of 30.
        let o = outlook(&r, &[100.0, 50.0], &[120.0], 1, 1);
        assert_eq!(o.points_to_line, -30.0);
        assert!(o.reached);
        // Out of reach: 0 points, best two count, one event left, the line at 300.
        let o = outlook(&r, &[], &[300.0], 1, 1);
        assert_eq!(o.next_event_place, None);
        assert_eq!(o.every_remaining_place, None);
        // No event left: nothing to project.
        let o = outlook(&r, &[50.0], &[100.0], 0, 1);
        assert!(o.scenarios.is_empty());
        assert_eq!(o.next_event_place, None);
        // Fewer others than the target rank: the line is 0, already reached.
        let o = outlook(&r, &[], &[100.0], 1, 2);
        assert_eq!(o.line_points, 0.0);
        assert!(o.reached);
    }

    #[test]
    fn a_points_table_must_not_rise() {
        assert!(check_points_table(&[10.0, 10.0, 5.0, 0.0]).is_ok());
        assert!(check_points_table(&[10.0, 12.0]).is_err());
        assert!(check_points_table(&[]).is_err());
        assert!(check_points_table(&[-1.0]).is_err());
        assert!(check_points_table(&[f64::NAN]).is_err());
    }
}
