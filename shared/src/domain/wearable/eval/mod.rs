//! The detector's evaluation on sessions it was never tuned on (issue 40).
//!
//! [`sim`] simulates surfers and their watches with a physical model of its own (nothing shared
//! with `detect`), and writes each session as GPX. [`run`] reads every GPX back through the
//! import's own parser ([`super::gpx::GpxReader`]) and the stored form ([`super::codec`]), runs
//! the detector and a naive baseline ([`naive`]), and scores both against the simulated truth
//! two ways: temporal IoU ≥ 0.5 and both boundaries within ±2 s (one to one, best pairs first).
//!
//! Sets of seeds: [`DEV`] (the detector was developed against these), [`HELD_OUT`] (scored
//! once, when `rides-2` was finished), [`FRESH`] (chosen before `rides-3`'s tuning and scored
//! once after it), [`THIRD`] (chosen before `rides-4`'s work and scored once after it) and
//! [`FOURTH`] (chosen before `rides-5`'s and scored once after it; see docs/wearable.md);
//! [`train::TRAIN`] holds the ride model's training seeds, which [`train`] fits the model to.
//! Each set covers every break type × sampling mode, and no two share a seed (tested).
//!
//! [`sim_b`] is a second simulator, written independently of both `sim` and the detector (its
//! authors read neither): [`SECOND_MODEL`]'s sessions come from it ([`Simulator::SimB`]), scored
//! once for `rides-4`, which never saw its physics. `rides-5`'s model is trained on its sessions
//! too ([`train::TRAIN_B`]), developed against [`DEV_B`] and scored on [`SECOND_HELD`].
//!
//! [`sim_c`] is a third simulator, written without reading the detector, `sim`'s model or
//! `sim_b`'s: a surfer driven by a swell spectrum's wave groups on a spot's geometry, recorded
//! by watches of different makers. `rides-5`'s model is trained on sessions of both `sim` and
//! `sim_b`, so [`THIRD_MODEL`]'s sessions ([`Simulator::SimC`]) are the ones no part of its
//! making saw.
//!
//! For `rides-6` every set above is spent: [`FIFTH`], [`SECOND_HELD_2`], [`THIRD_HELD`],
//! [`DEV_C`] and [`train::TRAIN_C`] were chosen before its work started, and seeds 8 500 001 to
//! 8 500 045 were reserved for a fourth simulator, written by someone who reads neither the
//! detector nor the other three, whose sessions no part of `rides-6`'s making sees.
//!
//! [`sim_d`] is that fourth simulator (read by its author: none of `detect/`, `train`, `sim`'s
//! model, `sim_b` or `sim_c`): surfers on longboards, shortboards and foam boards, currents,
//! wave orbits and sets, and a watch whose firmware filters its fixes. [`FOURTH_MODEL`] holds
//! its sessions on those reserved seeds ([`Simulator::SimD`]).

pub mod sim;
pub mod sim_b;
pub mod sim_c;
pub mod sim_d;
pub mod sim_e;
pub mod sim_f;
pub mod train;

use super::accuracy::{Score, iou};
use super::codec;
use super::detect;
use super::gpx::GpxReader;
use super::samples::{GpsFix, HeartRate, Samples};
use sim::{Break, Sampling};
use std::collections::BTreeMap;

/// The development set: sessions per (break, sampling) and the first seed.
pub const DEV: Set = Set {
    name: "development",
    first_seed: 1,
    per_cell: 4,
    model: Simulator::Sim,
};
/// The held-out test set (different seeds), scored once.
pub const HELD_OUT: Set = Set {
    name: "held-out",
    first_seed: 900_001,
    per_cell: 5,
    model: Simulator::Sim,
};

/// A second held-out set, chosen before any tuning after the first was scored (`rides-3`) and
/// scored once, when that tuning was finished.
pub const FRESH: Set = Set {
    name: "fresh held-out",
    first_seed: 7_300_001,
    per_cell: 5,
    model: Simulator::Sim,
};

/// A third held-out set, chosen on 29 Nov before any work on `rides-4` started, to be scored
/// once when that work is finished (the fresh set was scored for `rides-3`).
pub const THIRD: Set = Set {
    name: "third held-out",
    first_seed: 4_402_001,
    per_cell: 5,
    model: Simulator::Sim,
};

/// Sessions from the second, independently written simulator ([`sim_b`]): 45 sessions (5 per
/// break × sampling), to be scored once by someone who did not write it.
pub const SECOND_MODEL: Set = Set {
    name: "second model",
    first_seed: 6_100_001,
    per_cell: 5,
    model: Simulator::SimB,
};

/// Chosen on 29 Nov before any work on `rides-5` started (the third set was scored for
/// `rides-4`), to be scored once when that work is finished.
pub const FOURTH: Set = Set {
    name: "fourth held-out",
    first_seed: 3_300_001,
    per_cell: 5,
    model: Simulator::Sim,
};

/// Development sessions from the second simulator: `rides-5` may be developed and trained on
/// [`sim_b`] sessions too, so the second simulator's figures from then on come from
/// [`SECOND_HELD`], chosen with this set before that work started.
pub const DEV_B: Set = Set {
    name: "second model, development",
    first_seed: 6_600_001,
    per_cell: 4,
    model: Simulator::SimB,
};

/// The second simulator's held-out sessions for `rides-5` ([`SECOND_MODEL`] was scored for
/// `rides-4`), scored once when that work is finished.
pub const SECOND_HELD: Set = Set {
    name: "second model, held-out",
    first_seed: 6_800_001,
    per_cell: 5,
    model: Simulator::SimB,
};

/// Sessions from the third, independently written simulator ([`sim_c`]): 45 sessions (5 per
/// break × sampling), chosen when it was written, to be scored once by someone who did not
/// write it.
pub const THIRD_MODEL: Set = Set {
    name: "third model",
    first_seed: 6_500_001,
    per_cell: 5,
    model: Simulator::SimC,
};

/// Chosen on 29 Nov before any work on `rides-6` started (every set above has been scored
/// once): the first simulator's fifth held-out set, to be scored once when that work is finished.
pub const FIFTH: Set = Set {
    name: "fifth held-out",
    first_seed: 5_500_001,
    per_cell: 5,
    model: Simulator::Sim,
};

/// The second simulator's second held-out set, chosen with [`FIFTH`] and scored once for
/// `rides-6`.
pub const SECOND_HELD_2: Set = Set {
    name: "second model, second held-out",
    first_seed: 7_700_001,
    per_cell: 5,
    model: Simulator::SimB,
};

/// Development sessions from the third simulator: `rides-6` may be trained on [`sim_c`]
/// sessions ([`train::TRAIN_C`]) and developed against these, so the third simulator's
/// figures from then on come from [`THIRD_HELD`], chosen with this set before that work.
pub const DEV_C: Set = Set {
    name: "third model, development",
    first_seed: 6_700_001,
    per_cell: 4,
    model: Simulator::SimC,
};

/// The third simulator's held-out sessions for `rides-6` ([`THIRD_MODEL`] was scored for
/// `rides-5`), scored once when that work is finished.
pub const THIRD_HELD: Set = Set {
    name: "third model, held-out",
    first_seed: 8_100_001,
    per_cell: 5,
    model: Simulator::SimC,
};

/// Sessions from the fourth, independently written simulator ([`sim_d`]): 45 sessions (5 per
/// break × sampling) on seeds reserved before `rides-6`'s work, to be scored once by someone
/// who did not write it. No part of `rides-6`'s making (the detector, its training, the other
/// three simulators) saw this model.
pub const FOURTH_MODEL: Set = Set {
    name: "fourth model",
    first_seed: 8_500_001,
    per_cell: 5,
    model: Simulator::SimD,
};

/// Chosen on 29 Nov (session 55) before any work on `rides-7` started (every set above has been
/// scored once): a held-out set from each of the four simulators, to be scored once when that
/// work is finished; `rides-7` may be trained on the fourth simulator's sessions
/// ([`train::TRAIN_D`]) and developed against [`DEV_D`]. Seeds [`FIFTH_MODEL_SEEDS`] are
/// reserved for a fifth simulator, written by someone who reads neither the detector nor the
/// other four, whose sessions no part of `rides-7`'s making sees.
pub const SIXTH: Set = Set {
    name: "sixth held-out",
    first_seed: 9_300_001,
    per_cell: 5,
    model: Simulator::Sim,
};
pub const SECOND_HELD_3: Set = Set {
    name: "second model, third held-out",
    first_seed: 9_500_001,
    per_cell: 5,
    model: Simulator::SimB,
};
pub const THIRD_HELD_2: Set = Set {
    name: "third model, second held-out",
    first_seed: 9_700_001,
    per_cell: 5,
    model: Simulator::SimC,
};
pub const FOURTH_HELD: Set = Set {
    name: "fourth model, held-out",
    first_seed: 9_900_001,
    per_cell: 5,
    model: Simulator::SimD,
};
/// Development sessions from the fourth simulator ([`FOURTH_MODEL`] was scored for `rides-6`).
pub const DEV_D: Set = Set {
    name: "fourth model, development",
    first_seed: 9_100_001,
    per_cell: 4,
    model: Simulator::SimD,
};
/// Reserved for the fifth simulator's 45 sessions (5 per break × sampling).
pub const FIFTH_MODEL_SEEDS: std::ops::RangeInclusive<u64> = 10_100_001..=10_100_045;
/// Sessions from the fifth, independently written simulator ([`sim_e`]) on
/// [`FIFTH_MODEL_SEEDS`], to be scored once by someone who did not write it.
pub const FIFTH_MODEL: Set = Set {
    name: "fifth model",
    first_seed: 10_100_001,
    per_cell: 5,
    model: Simulator::SimE,
};

/// Chosen on 29 Nov (session 56) before any work on `rides-8` started (every set above has been
/// scored once): a held-out set from each of the five simulators, to be scored once when that
/// work is finished; `rides-8` may be trained on the fifth simulator's sessions
/// ([`train::TRAIN_E`]) and developed against [`DEV_E`]. Seeds [`SIXTH_MODEL_SEEDS`] are
/// reserved for a sixth simulator, written by someone who reads neither the detector nor the
/// other five, whose sessions no part of `rides-8`'s making sees.
pub const SEVENTH: Set = Set {
    name: "seventh held-out",
    first_seed: 10_500_001,
    per_cell: 5,
    model: Simulator::Sim,
};
pub const SECOND_HELD_4: Set = Set {
    name: "second model, fourth held-out",
    first_seed: 10_700_001,
    per_cell: 5,
    model: Simulator::SimB,
};
pub const THIRD_HELD_3: Set = Set {
    name: "third model, third held-out",
    first_seed: 10_900_001,
    per_cell: 5,
    model: Simulator::SimC,
};
pub const FOURTH_HELD_2: Set = Set {
    name: "fourth model, second held-out",
    first_seed: 11_100_001,
    per_cell: 5,
    model: Simulator::SimD,
};
pub const FIFTH_HELD: Set = Set {
    name: "fifth model, held-out",
    first_seed: 11_300_001,
    per_cell: 5,
    model: Simulator::SimE,
};
/// Development sessions from the fifth simulator ([`FIFTH_MODEL`] was scored for `rides-7`).
pub const DEV_E: Set = Set {
    name: "fifth model, development",
    first_seed: 11_500_001,
    per_cell: 4,
    model: Simulator::SimE,
};
/// Reserved for the sixth simulator's 45 sessions (5 per break × sampling).
pub const SIXTH_MODEL_SEEDS: std::ops::RangeInclusive<u64> = 11_700_001..=11_700_045;
/// Sessions from the sixth, independently written simulator ([`sim_f`]) on
/// [`SIXTH_MODEL_SEEDS`], to be scored once by someone who did not write it.
pub const SIXTH_MODEL: Set = Set {
    name: "sixth model",
    first_seed: 11_700_001,
    per_cell: 5,
    model: Simulator::SimF,
};
/// Development sessions from the sixth simulator, chosen after [`SIXTH_MODEL`] was scored for
/// `rides-8`: for finding where that version loses on it (any later version trained on it is
/// judged on other physics).
pub const DEV_F: Set = Set {
    name: "sixth model, development",
    first_seed: 11_900_001,
    per_cell: 4,
    model: Simulator::SimF,
};

/// The development sets, one per simulator the ride model is trained on.
pub const DEVELOPMENT: [Set; 5] = [DEV, DEV_B, DEV_C, DEV_D, DEV_E];

/// The development set the diagnostics read: `EVAL_SET=dev` (the default), `dev-b`, `dev-c`,
/// `dev-d`, `dev-e` or `dev-f`.
pub fn dev_set() -> Set {
    match std::env::var("EVAL_SET").as_deref() {
        Ok("dev-b") => DEV_B,
        Ok("dev-c") => DEV_C,
        Ok("dev-d") => DEV_D,
        Ok("dev-e") => DEV_E,
        Ok("dev-f") => DEV_F,
        _ => DEV,
    }
}

/// Which simulator generates a set's sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    /// [`sim`], the evaluation's first simulator.
    Sim,
    /// [`sim_b`], the second one, written without reading `sim`'s model or the detector.
    SimB,
    /// [`sim_c`], the third one, written without reading the detector, `sim`'s model or
    /// `sim_b`'s.
    SimC,
    /// [`sim_d`], the fourth one, written without reading the detector or any of the other
    /// three.
    SimD,
    /// [`sim_e`], the fifth one, written without reading the detector or the other four.
    SimE,
    /// [`sim_f`], the sixth one, written without reading the detector or the other five.
    SimF,
}

impl Simulator {
    /// One simulated session of this model.
    pub fn record(self, seed: u64, brk: Break, sampling: Sampling) -> sim::Recorded {
        match self {
            Simulator::Sim => sim::record(seed, brk, sampling),
            Simulator::SimB => sim_b::record(seed, brk, sampling),
            Simulator::SimC => sim_c::record(seed, brk, sampling),
            Simulator::SimD => sim_d::record(seed, brk, sampling),
            Simulator::SimE => sim_e::record(seed, brk, sampling),
            Simulator::SimF => sim_f::record(seed, brk, sampling),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Set {
    pub name: &'static str,
    pub first_seed: u64,
    pub per_cell: u64,
    /// The simulator its sessions come from.
    pub model: Simulator,
}

pub const BREAKS: [Break; 3] = [Break::Beach, Break::Reef, Break::Point];
pub const SAMPLINGS: [Sampling; 3] = [Sampling::Hz1, Sampling::Hz05, Sampling::Smart];

impl Set {
    /// Every session of the set: (seed, break, sampling).
    pub fn sessions(&self) -> Vec<(u64, Break, Sampling)> {
        let mut out = Vec::new();
        for k in 0..self.per_cell {
            for b in BREAKS {
                for s in SAMPLINGS {
                    out.push((self.first_seed + out.len() as u64, b, s));
                }
            }
            let _ = k;
        }
        out
    }
}

/// The naive detector the issue compares with: speed between consecutive fixes, a fix implying
/// more than 60 km/h dropped, speed smoothed over three fixes, runs above 10 km/h lasting 3 s,
/// runs less than 3 s apart merged.
pub fn naive(gps: &[GpsFix]) -> Vec<(i64, i64)> {
    let Some(o) = gps.first() else {
        return Vec::new();
    };
    let kx = 111_320.0 * o.lat.to_radians().cos();
    let xy = |f: &GpsFix| ((f.lon - o.lon) * kx, (f.lat - o.lat) * 111_320.0);
    let mut kept: Vec<(i64, (f64, f64))> = Vec::with_capacity(gps.len());
    let mut speed: Vec<f64> = Vec::with_capacity(gps.len());
    for f in gps {
        let p = xy(f);
        let v = match kept.last() {
            Some(&(t0, q)) if f.t > t0 => {
                (p.0 - q.0).hypot(p.1 - q.1) / ((f.t - t0) as f64 / 1000.0) * 3.6
            }
            Some(_) => continue,
            None => 0.0,
        };
        if v > 60.0 {
            continue;
        }
        kept.push((f.t, p));
        speed.push(v);
    }
    let smooth: Vec<f64> = (0..speed.len())
        .map(|i| {
            let a = i.saturating_sub(1);
            let b = (i + 1).min(speed.len() - 1);
            speed[a..=b].iter().sum::<f64>() / (b - a + 1) as f64
        })
        .collect();
    let mut runs: Vec<(i64, i64)> = Vec::new();
    let mut cur: Option<(i64, i64)> = None;
    for (i, &v) in smooth.iter().enumerate() {
        let t = kept[i].0;
        if v > 10.0 {
            cur = Some(cur.map_or((t, t), |(a, _)| (a, t)));
        } else if let Some(c) = cur.take() {
            runs.push(c);
        }
    }
    runs.extend(cur);
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for r in runs {
        match merged.last_mut() {
            Some(m) if r.0 - m.1 < 3000 => m.1 = r.1,
            _ => merged.push(r),
        }
    }
    merged.retain(|(a, b)| b - a >= 3000);
    merged
}

/// Matches one to one, best pairs first, where `ok` accepts a pair.
fn matched(
    truth: &[(i64, i64)],
    found: &[(i64, i64)],
    ok: impl Fn((i64, i64), (i64, i64)) -> Option<f64>,
) -> Score {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, t) in truth.iter().enumerate() {
        for (j, d) in found.iter().enumerate() {
            if let Some(v) = ok(*t, *d) {
                pairs.push((v, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut ut, mut ud) = (vec![false; truth.len()], vec![false; found.len()]);
    let mut tp = 0u64;
    for (_, i, j) in pairs {
        if !ut[i] && !ud[j] {
            ut[i] = true;
            ud[j] = true;
            tp += 1;
        }
    }
    Score {
        true_positives: tp,
        false_positives: found.len() as u64 - tp,
        false_negatives: truth.len() as u64 - tp,
    }
}

/// IoU ≥ 0.5.
pub fn by_iou(truth: &[(i64, i64)], found: &[(i64, i64)]) -> Score {
    matched(truth, found, |t, d| {
        let v = iou(t, d);
        (v >= 0.5).then_some(v)
    })
}

/// Start and end each within ±2 s.
pub fn by_bounds(truth: &[(i64, i64)], found: &[(i64, i64)]) -> Score {
    matched(truth, found, |t, d| {
        let e = (t.0 - d.0).abs().max((t.1 - d.1).abs());
        (e <= 2000).then_some(-(e as f64))
    })
}

/// Reads a GPX document as the import does, then through the stored form.
pub async fn import(gpx: &str) -> Result<Samples, String> {
    let mut r = GpxReader::new(tokio::io::BufReader::new(gpx.as_bytes()));
    let mut s = Samples::default();
    while let Some(p) = r.next_point().await.map_err(|e| e.message)? {
        if let Some(bpm) = p.hr {
            s.hr.push(HeartRate { t: p.fix.t, bpm });
        }
        s.gps.push(p.fix);
    }
    let mut back = Samples::default();
    for c in codec::encode_all(&s) {
        codec::decode(c.stream, &c.data, &mut back).map_err(|e| e.0)?;
    }
    Ok(back)
}

/// The four scores of one detector.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scores {
    pub iou: Score,
    pub bounds: Score,
}

impl Scores {
    fn add(&mut self, o: Scores) {
        self.iou.add(o.iou);
        self.bounds.add(o.bounds);
    }
}

/// A group of sessions' results.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    pub sessions: usize,
    pub rides: usize,
    pub rides_with_gaps: usize,
    pub detector: Scores,
    pub naive: Scores,
    /// Sessions where the detector's F1 (IoU) beats / loses to the baseline's.
    pub better: usize,
    pub worse: usize,
}

impl Cell {
    fn add(&mut self, o: &Cell) {
        self.sessions += o.sessions;
        self.rides += o.rides;
        self.rides_with_gaps += o.rides_with_gaps;
        self.detector.add(o.detector);
        self.naive.add(o.naive);
        self.better += o.better;
        self.worse += o.worse;
    }
}

/// One session's outcome (for looking into the development set).
pub struct SessionResult {
    pub seed: u64,
    pub brk: Break,
    pub sampling: Sampling,
    pub truth: Vec<(i64, i64)>,
    pub found: Vec<(i64, i64)>,
    pub cell: Cell,
    /// Detected windows matching no true ride (IoU), with what the surfer was doing then.
    pub false_rides: Vec<(super::detect::Ride, Vec<sim::Act>)>,
    /// True rides no window matches.
    pub missed: Vec<(i64, i64)>,
}

pub async fn evaluate_one(
    model: Simulator,
    seed: u64,
    brk: Break,
    sampling: Sampling,
) -> SessionResult {
    let rec = model.record(seed, brk, sampling);
    let samples = import(&rec.gpx)
        .await
        .expect("the simulator writes GPX the import accepts");
    let d = detect::detect(&samples, true);
    let found: Vec<(i64, i64)> = d.rides.iter().map(|r| (r.start_ms, r.end_ms)).collect();
    let base = naive(&samples.gps);
    let det = Scores {
        iou: by_iou(&rec.rides, &found),
        bounds: by_bounds(&rec.rides, &found),
    };
    let nai = Scores {
        iou: by_iou(&rec.rides, &base),
        bounds: by_bounds(&rec.rides, &base),
    };
    let cell = Cell {
        sessions: 1,
        rides: rec.rides.len(),
        rides_with_gaps: rec.rides_with_gaps,
        better: usize::from(det.iou.f1() > nai.iou.f1() + 1e-9),
        worse: usize::from(det.iou.f1() + 1e-9 < nai.iou.f1()),
        detector: det,
        naive: nai,
    };
    let false_rides = d
        .rides
        .iter()
        .filter(|r| {
            rec.rides
                .iter()
                .all(|&t| iou(t, (r.start_ms, r.end_ms)) < 0.5)
        })
        .map(|r| {
            let mut acts: Vec<sim::Act> = rec
                .acts
                .iter()
                .enumerate()
                .filter(|(i, a)| {
                    let end = rec.acts.get(i + 1).map_or(i64::MAX, |n| n.0);
                    a.0 < r.end_ms && end > r.start_ms
                })
                .map(|(_, a)| a.1)
                .collect();
            acts.dedup();
            (r.clone(), acts)
        })
        .collect();
    let missed = rec
        .rides
        .iter()
        .copied()
        .filter(|&t| found.iter().all(|&f| iou(t, f) < 0.5))
        .collect();
    SessionResult {
        false_rides,
        missed,
        seed,
        brk,
        sampling,
        truth: rec.rides,
        found,
        cell,
    }
}

/// A set's results: overall, per sampling mode and per break type.
#[derive(Default)]
pub struct Report {
    pub set: String,
    pub all: Cell,
    pub by_sampling: BTreeMap<Sampling, Cell>,
    pub by_break: BTreeMap<Break, Cell>,
}

pub async fn run(set: &Set) -> (Report, Vec<SessionResult>) {
    let mut rep = Report {
        set: set.name.to_string(),
        ..Default::default()
    };
    let mut all = Vec::new();
    for (seed, b, s) in set.sessions() {
        let r = evaluate_one(set.model, seed, b, s).await;
        rep.all.add(&r.cell);
        rep.by_sampling.entry(s).or_default().add(&r.cell);
        rep.by_break.entry(b).or_default().add(&r.cell);
        all.push(r);
    }
    (rep, all)
}

fn pr(s: &Score) -> String {
    format!("{:.3} / {:.3}", s.precision(), s.recall())
}

impl Report {
    /// The report as Markdown tables: precision / recall of the detector and of the baseline.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "**{} set**: {} sessions, {} rides ({} with a gap of 4 s or more); the detector beats the baseline's F1 in {} sessions and loses in {}.\n\n",
            self.set,
            self.all.sessions,
            self.all.rides,
            self.all.rides_with_gaps,
            self.all.better,
            self.all.worse
        );
        out.push_str("| sessions | rides | detector P / R, IoU ≥ 0.5 | detector P / R, ±2 s | naive P / R, IoU ≥ 0.5 | naive P / R, ±2 s |\n|---|---|---|---|---|---|\n");
        let row = |name: &str, c: &Cell| {
            format!(
                "| {name} ({}) | {} | {} | {} | {} | {} |\n",
                c.sessions,
                c.rides,
                pr(&c.detector.iou),
                pr(&c.detector.bounds),
                pr(&c.naive.iou),
                pr(&c.naive.bounds)
            )
        };
        out.push_str(&row("all", &self.all));
        for (s, c) in &self.by_sampling {
            out.push_str(&row(s.name(), c));
        }
        for (b, c) in &self.by_break {
            out.push_str(&row(b.name(), c));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sets_do_not_share_a_seed_and_cover_every_cell() {
        let dev = DEV.sessions();
        let held = HELD_OUT.sessions();
        assert_eq!(dev.len(), 36);
        assert_eq!(held.len(), 45);
        assert!(dev.iter().all(|d| held.iter().all(|h| h.0 != d.0)));
        let second = SECOND_MODEL.sessions();
        assert_eq!(second.len(), 45);
        for other in [DEV, HELD_OUT, FRESH, THIRD] {
            assert_eq!(other.model, Simulator::Sim);
            let o = other.sessions();
            assert!(second.iter().all(|s| o.iter().all(|x| x.0 != s.0)));
        }
        for b in BREAKS {
            for s in SAMPLINGS {
                assert!(held.iter().any(|h| h.1 == b && h.2 == s));
            }
        }
        // No two sets share a seed, the ride model's training seeds included.
        let sets = [
            DEV,
            HELD_OUT,
            FRESH,
            THIRD,
            FOURTH,
            SECOND_MODEL,
            DEV_B,
            SECOND_HELD,
            THIRD_MODEL,
            FIFTH,
            SECOND_HELD_2,
            DEV_C,
            THIRD_HELD,
            FOURTH_MODEL,
            train::TRAIN,
            train::TRAIN_B,
            train::TRAIN_C,
            SIXTH,
            SECOND_HELD_3,
            THIRD_HELD_2,
            FOURTH_HELD,
            DEV_D,
            train::TRAIN_D,
            FIFTH_MODEL,
            SEVENTH,
            SECOND_HELD_4,
            THIRD_HELD_3,
            FOURTH_HELD_2,
            FIFTH_HELD,
            DEV_E,
            train::TRAIN_E,
            SIXTH_MODEL,
        ];
        for (i, a) in sets.iter().enumerate() {
            let sa = a.sessions();
            assert!(
                a.model == Simulator::SimE || sa.iter().all(|x| !FIFTH_MODEL_SEEDS.contains(&x.0)),
                "{} uses the fifth simulator's seeds",
                a.name
            );
            assert!(
                a.model == Simulator::SimF || sa.iter().all(|x| !SIXTH_MODEL_SEEDS.contains(&x.0)),
                "{} uses the sixth simulator's seeds",
                a.name
            );
            for b in &sets[i + 1..] {
                let sb = b.sessions();
                assert!(
                    sa.iter().all(|x| sb.iter().all(|y| x.0 != y.0)),
                    "{} and {} share a seed",
                    a.name,
                    b.name
                );
            }
        }
    }

    #[test]
    fn boundaries_match_within_two_seconds_one_to_one() {
        let t = [(0, 10_000), (20_000, 30_000)];
        let s = by_bounds(&t, &[(1_500, 11_900), (19_000, 33_000), (21_000, 29_000)]);
        assert_eq!((s.true_positives, s.false_positives), (2, 1));
    }

    #[tokio::test]
    async fn a_simulated_session_imports_with_its_heart_rate_under_either_prefix() {
        let mut prefixes = std::collections::HashSet::new();
        for seed in 0..6 {
            let r = sim::record(seed, Break::Beach, Sampling::Hz1);
            prefixes.insert(r.gpx.contains("ns3:hr"));
            let s = import(&r.gpx).await.unwrap();
            assert_eq!(s.gps.len(), r.fixes);
            assert_eq!(s.hr.len(), r.fixes);
            assert!(!r.rides.is_empty());
        }
        assert_eq!(prefixes.len(), 2);
    }

    /// The held-out set's figures: run once, when the detector was finished
    /// (`cargo test -p shared eval_held_out -- --ignored --nocapture`).
    #[tokio::test]
    #[ignore]
    async fn eval_held_out() {
        let (rep, _) = run(&HELD_OUT).await;
        println!("{}", rep.markdown());
    }

    /// The detector's time on a two-hour 1 Hz session (in the test profile: an upper bound on
    /// the release figure of `scripts/bench-wearable`).
    #[tokio::test]
    #[ignore]
    async fn detection_time_two_hours() {
        for hours in [1.0, 2.0, 4.0] {
            let s = super::super::synth::generate(&super::super::synth::Options::new(
                7,
                hours * 3600.0,
                0,
            ))
            .samples;
            let mut best = std::time::Duration::MAX;
            for _ in 0..5 {
                let t = std::time::Instant::now();
                std::hint::black_box(detect::detect(&s, false));
                best = best.min(t.elapsed());
            }
            println!("{hours} h, {} fixes: {:?}", s.gps.len(), best);
        }
    }

    /// The fresh held-out set's figures, for the final run only (`cargo test -p shared
    /// eval_fresh -- --ignored --nocapture`, the same as `BENCH_SET=fresh scripts/bench-wearable`).
    #[tokio::test]
    #[ignore]
    async fn eval_fresh() {
        let (rep, _) = run(&FRESH).await;
        println!("{}", rep.markdown());
    }

    /// The third held-out set's figures, scored once when `rides-4` was finished (`cargo test -p
    /// shared eval_third -- --ignored --nocapture`, the same as `BENCH_SET=third
    /// scripts/bench-wearable`).
    #[tokio::test]
    #[ignore]
    async fn eval_third() {
        let (rep, _) = run(&THIRD).await;
        println!("{}", rep.markdown());
    }

    /// The second model's figures, for its one scoring run only (`cargo test -p shared
    /// eval_second_model -- --ignored --nocapture`, the same as `BENCH_SET=second
    /// scripts/bench-wearable`).
    #[tokio::test]
    #[ignore]
    async fn eval_second_model() {
        let (rep, _) = run(&SECOND_MODEL).await;
        println!("{}", rep.markdown());
    }

    /// The third model's figures, for its one scoring run only (`cargo test -p shared
    /// eval_third_model -- --ignored --nocapture`, the same as `BENCH_SET=third-model
    /// scripts/bench-wearable`).
    #[tokio::test]
    #[ignore]
    async fn eval_third_model() {
        let (rep, _) = run(&THIRD_MODEL).await;
        println!("{}", rep.markdown());
    }

    /// The fourth model's figures, for its one scoring run only (`cargo test -p shared
    /// eval_fourth_model -- --ignored --nocapture`, the same as `BENCH_SET=fourth-model
    /// scripts/bench-wearable`).
    #[tokio::test]
    #[ignore]
    async fn eval_fourth_model() {
        let (rep, _) = run(&FOURTH_MODEL).await;
        println!("{}", rep.markdown());
    }

    /// `rides-5`'s held-out sets, each scored once when its work was finished (`cargo test -p
    /// shared eval_rides5_held_out -- --ignored --nocapture`; `BENCH_SET=fourth`,
    /// `second-held` and `third-model` give the same).
    #[tokio::test]
    #[ignore]
    async fn eval_rides5_held_out() {
        for set in [FOURTH, SECOND_HELD, THIRD_MODEL] {
            let (rep, _) = run(&set).await;
            println!("{}", rep.markdown());
        }
    }

    /// `rides-6`'s held-out sets, each scored once when its work was finished (`cargo test -p
    /// shared eval_rides6_held_out -- --ignored --nocapture`; `BENCH_SET=fifth`,
    /// `second-held-2` and `third-held` give the same).
    #[tokio::test]
    #[ignore]
    async fn eval_rides6_held_out() {
        for set in [FIFTH, SECOND_HELD_2, THIRD_HELD] {
            let (rep, _) = run(&set).await;
            println!("{}", rep.markdown());
        }
    }

    /// `rides-7`'s held-out sets and the fifth simulator's, each scored once when its work was
    /// finished (`cargo test --release -p shared eval_rides7_held_out -- --ignored
    /// --nocapture`; `BENCH_SET=sixth`, `second-held-3`, `third-held-2`, `fourth-held` and
    /// `fifth-model` give the same).
    #[tokio::test]
    #[ignore]
    async fn eval_rides7_held_out() {
        for set in [FIFTH_MODEL, SIXTH, SECOND_HELD_3, THIRD_HELD_2, FOURTH_HELD] {
            let (rep, _) = run(&set).await;
            println!("{}", rep.markdown());
        }
    }

    /// `rides-8`'s held-out sets and the sixth simulator's, each scored once when its work was
    /// finished (`cargo test --release -p shared eval_rides8_held_out -- --ignored
    /// --nocapture`; `BENCH_SET=seventh`, `second-held-4`, `third-held-3`, `fourth-held-2`,
    /// `fifth-held` and `sixth-model` give the same).
    #[tokio::test]
    #[ignore]
    async fn eval_rides8_held_out() {
        for set in [
            SIXTH_MODEL,
            SEVENTH,
            SECOND_HELD_4,
            THIRD_HELD_3,
            FOURTH_HELD_2,
            FIFTH_HELD,
        ] {
            let (rep, _) = run(&set).await;
            println!("{}", rep.markdown());
        }
    }

    /// The development set's figures (`cargo test -p shared eval_dev -- --ignored --nocapture`;
    /// `EVAL_SET=dev-b`, `dev-c`, `dev-d` or `dev-e` for the other simulators').
    #[tokio::test]
    #[ignore]
    async fn eval_dev() {
        let set = dev_set();
        let (rep, all) = run(&set).await;
        if std::env::var("EVAL_VERBOSE").is_ok() {
            for r in &all {
                let t0 = r.truth.first().map_or(0, |t| t.0) - 600_000;
                let f = |v: &[(i64, i64)]| {
                    v.iter()
                        .map(|(a, b)| {
                            format!("{:.0}-{:.0}", (a - t0) as f64 / 1e3, (b - t0) as f64 / 1e3)
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                println!(
                    "seed {} {:?} {:?} det {:?} naive {:?}\n  truth {}\n  found {}",
                    r.seed,
                    r.brk,
                    r.sampling,
                    r.cell.detector.iou,
                    r.cell.naive.iou,
                    f(&r.truth),
                    f(&r.found)
                );
                for (x, acts) in &r.false_rides {
                    println!(
                        "  FP {:.1}s top {} {:?} {:?}",
                        (x.end_ms - x.start_ms) as f64 / 1e3,
                        x.top_speed_kmh,
                        x.shore_angle_deg,
                        acts
                    );
                }
                println!("  missed {}", f(&r.missed));
            }
        }
        println!("{}", rep.markdown());
    }
}
