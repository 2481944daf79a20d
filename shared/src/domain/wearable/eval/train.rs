//! Trains the detector's ride model ([`crate::domain::wearable::detect::model`]): every window
//! the detector proposes in simulated sessions of seeds of their own ([`TRAINING`]: the first
//! simulator's [`TRAIN`], the second's [`TRAIN_B`], the third's [`TRAIN_C`], the fourth's
//! [`TRAIN_D`] and the fifth's [`TRAIN_E`]), labelled a ride when it matches a true ride (IoU ≥
//! 0.5), and gradient-boosted trees fitted to them (depth 3, logistic loss); then the median
//! error of the bounds of the windows it takes, which the detector takes off. The development
//! and held-out sets are never trained on, nor the sixth simulator's.
//! `leave_one_simulator_out` measures how the training holds on physics it did not see.
//! `cargo test --release -p shared train_ride_model -- --ignored --nocapture` writes
//! `detect/trees.rs` (under three minutes in a release build);
//! `trained_trees_are_the_shipped_ones` checks that it reproduces.

use super::{Set, Simulator, import};
use crate::domain::wearable::accuracy::{Score, iou};
use crate::domain::wearable::detect::{
    self,
    model::{Ensemble, NF, Tree},
};

/// The training sessions' seeds.
pub const TRAIN: Set = Set {
    name: "training",
    first_seed: 20_000_001,
    per_cell: 40,
    model: Simulator::Sim,
};

/// Training seeds for the second simulator, reserved with [`super::FOURTH`] before `rides-5`.
pub const TRAIN_B: Set = Set {
    name: "training, second model",
    first_seed: 21_000_001,
    per_cell: 40,
    model: Simulator::SimB,
};

/// Training seeds for the third simulator, reserved with [`super::FIFTH`] before `rides-6`.
pub const TRAIN_C: Set = Set {
    name: "training, third model",
    first_seed: 22_000_001,
    per_cell: 40,
    model: Simulator::SimC,
};

/// The fourth simulator's training seeds, chosen with `rides-7`'s held-out sets.
pub const TRAIN_D: Set = Set {
    name: "training, fourth model",
    first_seed: 23_000_001,
    per_cell: 40,
    model: Simulator::SimD,
};

/// The fifth simulator's training seeds, chosen with `rides-8`'s held-out sets.
pub const TRAIN_E: Set = Set {
    name: "training, fifth model",
    first_seed: 24_000_001,
    per_cell: 40,
    model: Simulator::SimE,
};

/// A session: its true rides and every window the ride model judged.
pub type Session = (Vec<(i64, i64)>, Vec<detect::Scored>);

/// Each session of the set.
pub async fn windows(set: &Set) -> Vec<Session> {
    let mut out = Vec::new();
    for (seed, brk, sampling) in set.sessions() {
        let rec = set.model.record(seed, brk, sampling);
        let samples = import(&rec.gpx)
            .await
            .expect("the simulator writes GPX the import accepts");
        let (_, all) = detect::over(&samples, true).finish_scored();
        out.push((rec.rides, all));
    }
    out
}

/// The boosting's settings.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Boosting rounds, shrinkage and the leaves' L2 penalty.
    pub rounds: usize,
    pub rate: f64,
    pub lambda: f64,
    /// Features never split on (bit `f` for feature `f`).
    pub skip: u32,
}

/// The shipped model's settings.
pub const PARAMS: Params = Params {
    rounds: 400,
    rate: 0.1,
    lambda: 1.0,
    skip: 0,
};

/// The threshold at which windows are taken when the bias of their bounds is measured (the
/// detector's, `model::THRESHOLD`, is chosen on the development sets afterwards).
const BIAS_AT: f64 = 0.35;

/// The trained model: the ride ensemble, the bounds ensemble (base, trees) and the bias of the
/// bounds.
pub struct Trained {
    pub ride: (f64, Vec<Tree>),
    pub bounds: (f64, Vec<Tree>),
    pub start_bias_ms: i64,
    pub end_bias_ms: i64,
}

impl Trained {
    pub fn ride(&self) -> Ensemble<'_> {
        Ensemble {
            base: self.ride.0,
            trees: &self.ride.1,
        }
    }
    pub fn bounds(&self) -> Ensemble<'_> {
        Ensemble {
            base: self.bounds.0,
            trees: &self.bounds.1,
        }
    }
}

/// Both bounds within 2 s.
fn near(a: (i64, i64), b: (i64, i64)) -> bool {
    (a.0 - b.0).abs() <= 2000 && (a.1 - b.1).abs() <= 2000
}

/// The ride model's training sets: five simulators.
pub const TRAINING: [Set; 5] = [TRAIN, TRAIN_B, TRAIN_C, TRAIN_D, TRAIN_E];

/// Fits the trees to the sets' windows and measures the bias of the bounds.
pub async fn train(sets: &[Set]) -> Trained {
    let mut sessions = Vec::new();
    for set in sets {
        sessions.extend(windows(set).await);
    }
    fit(&sessions, &PARAMS)
}

/// Fits the trees to the sessions' windows and measures the bias of the bounds.
pub fn fit(sessions: &[Session], params: &Params) -> Trained {
    let ex: Vec<([f64; NF], bool)> = sessions
        .iter()
        .flat_map(|(truth, all)| {
            all.iter().filter(|c| !c.seaward).map(move |c| {
                let ride = truth.iter().any(|&t| iou(t, (c.start_ms, c.end_ms)) >= 0.5);
                (c.x, ride)
            })
        })
        .collect();
    // The bounds model learns from the windows about a ride which have their bounds right.
    let ex_bounds: Vec<([f64; NF], bool)> = sessions
        .iter()
        .flat_map(|(truth, all)| {
            all.iter().filter(|c| !c.seaward).filter_map(move |c| {
                let w = (c.start_ms, c.end_ms);
                let t = truth.iter().find(|&&t| iou(t, w) >= 0.3)?;
                Some((c.x, near(*t, w)))
            })
        })
        .collect();
    // The two ensembles are independent: fitted side by side.
    let (ride, bounds) = std::thread::scope(|s| {
        let ride = s.spawn(|| boost(&ex, params));
        let bounds = boost(&ex_bounds, params);
        (ride.join().expect("the ride ensemble's fit ends"), bounds)
    });
    let mut m = Trained {
        ride,
        bounds,
        start_bias_ms: 0,
        end_bias_ms: 0,
    };
    (m.start_bias_ms, m.end_bias_ms) = bias(sessions, &m);
    m
}

/// The windows taken as rides, as the detector takes them ([`detect::model::choose`] over each
/// run's windows), given each window's probabilities (ride, bounds right) and the threshold.
pub fn taken(
    all: &[detect::Scored],
    score: impl Fn(&detect::Scored) -> (f64, f64),
    th: f64,
) -> Vec<&detect::Scored> {
    let mut out = Vec::new();
    for run in all.chunk_by(|a, b| a.run == b.run) {
        let scores = run.iter().map(|c| {
            let (p, q) = score(c);
            (if c.seaward { -1.0 } else { p }, q)
        });
        if let Some(i) = detect::model::choose(scores, th) {
            out.push(&run[i]);
        }
    }
    out
}

/// Gradient boosting on the logistic loss: trees of depth 3 whose splits are chosen among 32
/// quantiles of each feature (each example's bin per feature found once; a node's gradient sums
/// per bin in one pass).
fn boost(ex: &[([f64; NF], bool)], params: &Params) -> (f64, Vec<Tree>) {
    let Params {
        rounds,
        rate,
        lambda,
        skip,
    } = *params;
    let n = ex.len();
    let y: Vec<f64> = ex.iter().map(|e| f64::from(u8::from(e.1))).collect();
    let pos = y.iter().sum::<f64>().clamp(1.0, n as f64 - 1.0);
    let base = (pos / (n as f64 - pos)).ln();
    let cuts: Vec<Vec<f64>> = (0..NF)
        .map(|i| {
            let mut v: Vec<f64> = ex.iter().map(|e| e.0[i]).collect();
            v.sort_by(f64::total_cmp);
            let mut c: Vec<f64> = (1..32).map(|q| v[q * (n - 1) / 32]).collect();
            c.dedup();
            c
        })
        .collect();
    // bin[i][f]: the first cut at or above the value (the value is ≤ cuts[f][j] iff bin ≤ j).
    let bin: Vec<[u8; NF]> = ex
        .iter()
        .map(|e| std::array::from_fn(|f| cuts[f].partition_point(|&c| c < e.0[f]) as u8))
        .collect();
    let mut z = vec![base; n];
    let mut trees = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let p: Vec<f64> = z.iter().map(|s| 1.0 / (1.0 + (-s).exp())).collect();
        let g: Vec<f64> = (0..n).map(|i| p[i] - y[i]).collect();
        let h: Vec<f64> = p.iter().map(|p| (p * (1.0 - p)).max(1e-6)).collect();
        let mut node = vec![0usize; n];
        let mut tree = Tree {
            f: [0; 7],
            t: [f64::MAX; 7],
            leaf: [0.0; 8],
        };
        for depth in 0..3 {
            let first = (1 << depth) - 1;
            let width = 1 << depth;
            // Sums of g and h per node of this depth, feature and bin.
            let mut hist = vec![[[(0.0, 0.0); 32]; NF]; width];
            for i in 0..n {
                let hk = &mut hist[node[i] - first];
                for f in 0..NF {
                    let c = &mut hk[f][usize::from(bin[i][f])];
                    c.0 += g[i];
                    c.1 += h[i];
                }
            }
            for (j, hk) in hist.iter().enumerate() {
                let k = first + j;
                let (gs, hs) = hk[0].iter().fold((0.0, 0.0), |a, c| (a.0 + c.0, a.1 + c.1));
                let mut best = (0.0, 0usize, f64::MAX);
                for (f, cuts) in cuts.iter().enumerate() {
                    if skip & (1 << f) != 0 {
                        continue;
                    }
                    let (mut gl, mut hl) = (0.0, 0.0);
                    for (jb, &c) in cuts.iter().enumerate() {
                        gl += hk[f][jb].0;
                        hl += hk[f][jb].1;
                        let (gr, hr) = (gs - gl, hs - hl);
                        if hl < 1.0 || hr < 1.0 {
                            continue;
                        }
                        let gain = gl * gl / (hl + lambda) + gr * gr / (hr + lambda)
                            - gs * gs / (hs + lambda);
                        if gain > best.0 {
                            best = (gain, f, c);
                        }
                    }
                }
                tree.f[k] = best.1 as u8;
                tree.t[k] = best.2;
            }
            for i in 0..n {
                let k = node[i];
                node[i] = 2 * k
                    + if ex[i].0[usize::from(tree.f[k])] <= tree.t[k] {
                        1
                    } else {
                        2
                    };
            }
        }
        for l in 0..8 {
            let (gs, hs) = (0..n)
                .filter(|&i| node[i] == l + 7)
                .fold((0.0, 0.0), |a, i| (a.0 + g[i], a.1 + h[i]));
            tree.leaf[l] = -rate * gs / (hs + lambda);
        }
        for i in 0..n {
            z[i] += tree.value(&ex[i].0);
        }
        trees.push(tree);
    }
    (base, trees)
}

/// The median error (ms) of the start and of the end of the windows the model takes that
/// match a true ride: the detector's bias, taken off its bounds.
fn bias(sessions: &[Session], m: &Trained) -> (i64, i64) {
    let (mut ds, mut de) = (Vec::new(), Vec::new());
    for (truth, all) in sessions {
        for c in taken(
            all,
            |c| (m.ride().probability(&c.x), m.bounds().probability(&c.x)),
            BIAS_AT,
        ) {
            let w = (c.start_ms, c.end_ms);
            if let Some(t) = truth.iter().find(|&&t| iou(t, w) >= 0.5) {
                ds.push(w.0 - t.0);
                de.push(w.1 - t.1);
            }
        }
    }
    let median = |v: &mut Vec<i64>| {
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0)
    };
    (median(&mut ds), median(&mut de))
}

/// The scores (IoU ≥ 0.5; both bounds within 2 s) of the rides a trained model takes from the
/// sessions' windows at a threshold.
pub fn score(sessions: &[Session], m: &Trained, th: f64) -> (Score, Score) {
    scores(
        sessions,
        |c| (m.ride().probability(&c.x), m.bounds().probability(&c.x)),
        |c| detect::debiased(c.start_ms, c.end_ms, (m.start_bias_ms, m.end_bias_ms)),
        th,
    )
}

/// The scores of the rides taken from the sessions' windows, given each window's
/// probabilities (ride, bounds right), the bounds it reports and the threshold.
fn scores(
    sessions: &[Session],
    probability: impl Fn(&detect::Scored) -> (f64, f64),
    bounds: impl Fn(&detect::Scored) -> (i64, i64),
    th: f64,
) -> (Score, Score) {
    let (mut a, mut b) = (Score::default(), Score::default());
    for (truth, all) in sessions {
        let found: Vec<(i64, i64)> = taken(all, &probability, th)
            .into_iter()
            .map(&bounds)
            .collect();
        a.add(super::by_iou(truth, &found));
        b.add(super::by_bounds(truth, &found));
    }
    (a, b)
}

/// The model as `detect/trees.rs`.
pub fn rust(m: &Trained) -> String {
    let mut s = String::from(
        "//! The ride model's trees, written by `eval::train` from the training seeds (`cargo test\n\
         //! -p shared train_ride_model -- --ignored --nocapture`); do not edit.\n\n\
         use super::model::{Ensemble, Tree};\n\n",
    );
    s += &format!("pub const START_BIAS_MS: i64 = {};\n", m.start_bias_ms);
    s += &format!("pub const END_BIAS_MS: i64 = {};\n", m.end_bias_ms);
    for (name, (base, trees)) in [("RIDE", &m.ride), ("BOUNDS", &m.bounds)] {
        s += &format!(
            "pub static {name}: Ensemble = Ensemble {{ base: {base:?}, trees: &{name}_TREES }};\n"
        );
        s += &format!("static {name}_TREES: [Tree; {}] = [\n", trees.len());
        for t in trees {
            s += &format!(
                "    Tree {{ f: {:?}, t: {:?}, leaf: {:?} }},\n",
                t.f, t.t, t.leaf
            );
        }
        s += "];\n";
    }
    s
}

/// The ride model's threshold against the development sets (every simulator trained on), for
/// the trees as shipped.
pub async fn thresholds_on_dev() -> Vec<(f64, Score, Score)> {
    let mut dev = Vec::new();
    for set in super::DEVELOPMENT {
        dev.extend(windows(&set).await);
    }
    [0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]
        .into_iter()
        .map(|th| {
            let (a, b) = scores(&dev, |c| (c.p, c.q), detect::Scored::bounds, th);
            (th, a, b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trains the ride model and writes `detect/trees.rs`.
    #[tokio::test]
    #[ignore]
    async fn train_ride_model() {
        let m = train(&TRAINING).await;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/domain/wearable/detect/trees.rs"
        );
        std::fs::write(path, rust(&m)).unwrap();
        println!(
            "bias: start {} ms, end {} ms",
            m.start_bias_ms, m.end_bias_ms
        );
    }

    /// The shipped trees are what the training gives (`--ignored`; under three minutes with
    /// `--release`).
    #[tokio::test]
    #[ignore]
    async fn trained_trees_are_the_shipped_ones() {
        let m = train(&TRAINING).await;
        assert_eq!(rust(&m), include_str!("../detect/trees.rs"));
    }

    /// How the training holds on physics it never saw: for each simulator, a model fitted to the
    /// other simulators' training sessions (the first half of each set, for speed), scored
    /// on the left-out simulator's development set. Settings from `LOSO_ROUNDS`, `LOSO_RATE`,
    /// `LOSO_LAMBDA` and `LOSO_SKIP` (features not split on, comma-separated indices; several
    /// variants separated by `;`, fitted side by side on the machine's cores).
    /// `cargo test --release -p shared leave_one_simulator_out -- --ignored --nocapture`.
    #[tokio::test]
    #[ignore]
    async fn leave_one_simulator_out() {
        let var = |k: &str| std::env::var(k).ok();
        let base = Params {
            rounds: var("LOSO_ROUNDS").map_or(200, |v| v.parse().unwrap()),
            rate: var("LOSO_RATE").map_or(0.2, |v| v.parse().unwrap()),
            lambda: var("LOSO_LAMBDA").map_or(PARAMS.lambda, |v| v.parse().unwrap()),
            skip: 0,
        };
        let variants: Vec<Params> = var("LOSO_SKIP")
            .unwrap_or_default()
            .split(';')
            .map(|v| Params {
                skip: v
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(|f| 1u32 << f.parse::<u32>().unwrap())
                    .sum(),
                ..base
            })
            .collect();
        // `LOSO_WITHOUT=k` leaves simulator k out of every fold's training (and its own fold):
        // each fold is then fitted to one simulator fewer, to see what one more buys.
        let without: Option<usize> = var("LOSO_WITHOUT").map(|v| v.parse().unwrap());
        let mut training = Vec::new();
        for set in TRAINING {
            let half = Set {
                per_cell: set.per_cell / 2,
                ..set
            };
            training.push(windows(&half).await);
        }
        let mut dev = Vec::new();
        for set in super::super::DEVELOPMENT {
            dev.push(windows(&set).await);
        }
        let n = TRAINING.len();
        let folds: Vec<usize> = (0..n).filter(|&i| Some(i) != without).collect();
        let jobs: Vec<(usize, usize)> = (0..variants.len())
            .flat_map(|v| folds.iter().map(move |&out| (v, out)))
            .collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let threads = std::thread::available_parallelism().map_or(1, |c| c.get());
        let mut done: Vec<(usize, usize, Trained)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut out = Vec::new();
                        loop {
                            let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(&(v, left)) = jobs.get(j) else {
                                break out;
                            };
                            let sessions: Vec<Session> = folds
                                .iter()
                                .copied()
                                .filter(|&i| i != left)
                                .flat_map(|i| training[i].iter().cloned())
                                .collect();
                            out.push((v, left, fit(&sessions, &variants[v])));
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap())
                .collect()
        });
        done.sort_by_key(|d| (d.0, d.1));
        for (v, params) in variants.iter().enumerate() {
            println!("{params:?}");
            let (mut f1, mut f1_bounds) = ([0.0; 4], [0.0; 4]);
            for (_, out, m) in done.iter().filter(|d| d.0 == v) {
                for (k, th) in [0.4, 0.5, 0.55, 0.6].into_iter().enumerate() {
                    let (a, b) = score(&dev[*out], m, th);
                    f1[k] += a.f1() / folds.len() as f64;
                    f1_bounds[k] += b.f1() / folds.len() as f64;
                    println!(
                        "without {} at {th}: IoU P/R {:.3}/{:.3} F1 {:.3}; ±2 s {:.3}/{:.3} F1 {:.3}",
                        TRAINING[*out].name,
                        a.precision(),
                        a.recall(),
                        a.f1(),
                        b.precision(),
                        b.recall(),
                        b.f1()
                    );
                }
            }
            println!("mean F1 at 0.4/0.5/0.55/0.6: IoU {f1:.3?}, ±2 s {f1_bounds:.3?}");
        }
    }

    /// `cargo test -p shared threshold_on_dev -- --ignored --nocapture`.
    #[tokio::test]
    #[ignore]
    async fn threshold_on_dev() {
        for (th, a, b) in thresholds_on_dev().await {
            println!(
                "{th}: IoU P/R {:.3}/{:.3} F1 {:.4}; ±2 s {:.3}/{:.3} F1 {:.4}",
                a.precision(),
                a.recall(),
                a.f1(),
                b.precision(),
                b.recall(),
                b.f1()
            );
        }
    }

    /// Where recall is lost: per break, sampling and ride length, the share of true rides with
    /// a candidate window at all (IoU ≥ 0.5; ±2 s) and with one the model takes.
    /// `EVAL_SET=dev|dev-b|dev-c|dev-d|dev-e|dev-f cargo test --release -p shared candidate_recall
    /// -- --ignored --nocapture`.
    #[tokio::test]
    #[ignore]
    async fn candidate_recall() {
        let set = super::super::dev_set();
        let sessions = windows(&set).await;
        let mut rows: std::collections::BTreeMap<String, [usize; 4]> = Default::default();
        for ((_, brk, sampling), (truth, all)) in set.sessions().into_iter().zip(&sessions) {
            for &t in truth {
                let shifted = |c: &detect::Scored| c.bounds();
                let ok = all.iter().filter(|c| !c.seaward);
                let cand = ok.clone().any(|c| iou(t, shifted(c)) >= 0.5);
                let near = ok.clone().any(|c| {
                    let w = shifted(c);
                    (w.0 - t.0).abs() <= 2000 && (w.1 - t.1).abs() <= 2000
                });
                let took = taken(all, |c| (c.p, c.q), detect::model::THRESHOLD)
                    .into_iter()
                    .any(|c| iou(t, shifted(c)) >= 0.5);
                let secs = (t.1 - t.0) as f64 / 1000.0;
                let len = match secs {
                    s if s < 3.0 => "a <3s",
                    s if s < 5.0 => "b 3-5s",
                    s if s < 10.0 => "c 5-10s",
                    s if s < 30.0 => "d 10-30s",
                    _ => "e 30s+",
                };
                for key in [
                    "all".to_string(),
                    format!("{brk:?}"),
                    format!("{sampling:?}"),
                    len.to_string(),
                ] {
                    let r = rows.entry(key).or_default();
                    r[0] += 1;
                    r[1] += usize::from(cand);
                    r[2] += usize::from(near);
                    r[3] += usize::from(took);
                }
            }
        }
        // The bounds' errors of the windows taken that match a ride.
        let (mut es, mut ee) = (Vec::new(), Vec::new());
        for (truth, all) in &sessions {
            for c in taken(all, |c| (c.p, c.q), detect::model::THRESHOLD) {
                let w = c.bounds();
                if let Some(t) = truth.iter().find(|&&t| iou(t, w) >= 0.5) {
                    es.push(w.0 - t.0);
                    ee.push(w.1 - t.1);
                }
            }
        }
        for (name, v) in [("start", &mut es), ("end", &mut ee)] {
            v.sort_unstable();
            let q = |f: f64| v[((v.len() - 1) as f64 * f) as usize] as f64 / 1e3;
            let within = v.iter().filter(|e| e.abs() <= 2000).count() as f64 / v.len() as f64;
            println!(
                "{name}: error p10 {:+.1} p25 {:+.1} p50 {:+.1} p75 {:+.1} p90 {:+.1} s; within 2 s {:.3}",
                q(0.1),
                q(0.25),
                q(0.5),
                q(0.75),
                q(0.9),
                within
            );
        }
        // Rides with a candidate but none within 2 s at both ends: which end is out of reach,
        // and which way.
        let (mut s_early, mut s_late, mut e_early, mut e_late, mut n) = (0, 0, 0, 0, 0);
        for (truth, all) in &sessions {
            for &t in truth {
                let c: Vec<(i64, i64)> = all
                    .iter()
                    .filter(|c| !c.seaward)
                    .map(|c| c.bounds())
                    .filter(|&w| iou(t, w) >= 0.3)
                    .collect();
                if c.is_empty() || c.iter().any(|&w| near(t, w)) {
                    continue;
                }
                n += 1;
                let ds = c.iter().map(|w| w.0 - t.0).min_by_key(|d| d.abs()).unwrap();
                let de = c.iter().map(|w| w.1 - t.1).min_by_key(|d| d.abs()).unwrap();
                s_early += usize::from(ds < -2000);
                s_late += usize::from(ds > 2000);
                e_early += usize::from(de < -2000);
                e_late += usize::from(de > 2000);
            }
        }
        println!(
            "{n} rides out of ±2 s reach: start early {s_early} late {s_late}; end early {e_early} late {e_late}"
        );
        println!("{}: rides, candidate IoU, candidate ±2 s, taken", set.name);
        for (k, r) in rows {
            let f = |x: usize| x as f64 / r[0] as f64;
            println!(
                "{k:10} {:5} {:.3} {:.3} {:.3}",
                r[0],
                f(r[1]),
                f(r[2]),
                f(r[3])
            );
        }
    }

    /// The features a diagnostic prints of a window (path in metres, not its log).
    fn show(x: &[f64; NF]) -> String {
        use detect::model::*;
        format!(
            "pk {:4.1} mn {:4.1} path {:4.0} int {:.1} bef {:4.1} aft {:4.1} fb {:4.1} fa {:4.1} ret {:.2} sh {:+.2} str {:.2} gap {:.2} foot {:.2}",
            x[PEAK],
            x[MEAN],
            x[PATH].exp_m1(),
            x[INTERVAL],
            x[BEFORE],
            x[AFTER],
            x[FAR_BEFORE],
            x[FAR_AFTER],
            x[RETURNS],
            x[SHOREWARD],
            x[STRAIGHT],
            x[IN_GAP],
            x[ON_FOOT]
        )
    }

    /// Rides some window matches (IoU ≥ 0.5) that the detector misses: is their run's ride
    /// another true ride (two rides in one run), a window of wrong bounds, or none at all (and
    /// how many of those the model gave more than 0.2)? Then, at beach breaks, the features of
    /// each missed ride's likeliest window (`MISS`) and of each false ride taken (`FALSE`), to
    /// compare. `EVAL_SET=… cargo test --release -p shared lost_with_a_candidate -- --ignored
    /// --nocapture`.
    #[tokio::test]
    #[ignore]
    async fn lost_with_a_candidate() {
        let set = super::super::dev_set();
        let sessions = windows(&set).await;
        let mut rows: std::collections::BTreeMap<String, [usize; 4]> = Default::default();
        for ((_, brk, _), (truth, all)) in set.sessions().into_iter().zip(&sessions) {
            let took = taken(all, |c| (c.p, c.q), detect::model::THRESHOLD);
            for &t in truth {
                let m: Vec<&detect::Scored> = all
                    .iter()
                    .filter(|c| !c.seaward && iou(t, c.bounds()) >= 0.5)
                    .collect();
                if m.is_empty() || took.iter().any(|c| iou(t, c.bounds()) >= 0.5) {
                    continue;
                }
                let runs: Vec<usize> = m.iter().map(|c| c.run).collect();
                let chosen = took.iter().find(|c| runs.contains(&c.run));
                // 0: none taken in the run; 1: another true ride taken; 2: wrong bounds.
                let kind = match chosen {
                    None => 0,
                    Some(c) if truth.iter().any(|&o| o != t && iou(o, c.bounds()) >= 0.5) => 1,
                    Some(_) => 2,
                };
                let pmax = m.iter().map(|c| c.p).fold(0.0, f64::max);
                let secs = (t.1 - t.0) as f64 / 1000.0;
                for key in ["all".to_string(), format!("{brk:?}")] {
                    let r = rows.entry(key).or_default();
                    r[kind] += 1;
                    r[3] += usize::from(kind == 0 && pmax > 0.2);
                }
                if kind != 2 && brk == super::super::Break::Beach {
                    let b = m.iter().max_by(|a, b| a.p.total_cmp(&b.p)).unwrap();
                    println!("MISS {secs:5.1}s p {pmax:.2} {}", show(&b.x));
                }
            }
        }
        for ((_, brk, _), (truth, all)) in set.sessions().into_iter().zip(&sessions) {
            for c in taken(all, |c| (c.p, c.q), detect::model::THRESHOLD) {
                if brk == super::super::Break::Beach
                    && !truth.iter().any(|&t| iou(t, c.bounds()) >= 0.5)
                {
                    let w = c.bounds();
                    let secs = (w.1 - w.0) as f64 / 1000.0;
                    println!("FALSE {secs:5.1}s p {:.2} {}", c.p, show(&c.x));
                }
            }
        }
        println!(
            "{}: none taken, another ride taken, wrong bounds, none (p > 0.2)",
            set.name
        );
        for (k, r) in rows {
            println!("{k:8} {:4} {:4} {:4} {:4}", r[0], r[1], r[2], r[3]);
        }
    }

    /// Slow straight-in windows (peak 8.5–12 km/h, 3–12 s, within 40° of straight in, straight
    /// paths): the share of them that are rides, per simulator. A surfer standing on white
    /// water and one pushed prone by it leave the same track; the simulators' populations
    /// decide which it mostly is. `cargo test --release -p shared slow_white_water_by_simulator
    /// -- --ignored --nocapture`.
    #[tokio::test]
    #[ignore]
    async fn slow_white_water_by_simulator() {
        use detect::model::*;
        let mut sets: Vec<Set> = TRAINING.to_vec();
        sets.push(super::super::DEV_F);
        for set in sets {
            // At most 10 sessions a cell (90 a simulator): enough for a share.
            let some = Set {
                per_cell: set.per_cell.min(10),
                ..set
            };
            let (mut n, mut rides) = (0usize, 0usize);
            for (truth, all) in windows(&some).await {
                for c in all.iter().filter(|c| !c.seaward) {
                    let x = &c.x;
                    let secs = x[SECS].exp();
                    if (8.5..12.0).contains(&x[PEAK])
                        && (3.0..12.0).contains(&secs)
                        && x[SHOREWARD] > 0.77
                        && x[STRAIGHT] > 0.9
                    {
                        n += 1;
                        rides += usize::from(
                            truth.iter().any(|&t| iou(t, (c.start_ms, c.end_ms)) >= 0.5),
                        );
                    }
                }
            }
            println!(
                "{:32} {n:6} windows, {:.3} rides",
                some.name,
                rides as f64 / n.max(1) as f64
            );
        }
    }

    /// Each missed ride of a few sessions: the nearest windows and the raw fix speeds.
    #[tokio::test]
    #[ignore]
    async fn missed_rides_dump() {
        let set = super::super::dev_set();
        let n: usize = std::env::var("EVAL_N")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(6);
        for (seed, brk, sampling) in set.sessions().into_iter().take(n) {
            let rec = set.model.record(seed, brk, sampling);
            let samples = import(&rec.gpx).await.unwrap();
            let (_, all) = detect::over(&samples, true).finish_scored();
            println!("== seed {seed} {brk:?} {sampling:?}");
            for &t in &rec.rides {
                let sh = |c: &detect::Scored| c.bounds();
                if all.iter().any(|c| !c.seaward && iou(t, sh(c)) >= 0.5) {
                    continue;
                }
                let near: Vec<String> = all
                    .iter()
                    .filter(|c| sh(c).1 > t.0 - 8000 && sh(c).0 < t.1 + 8000)
                    .map(|c| {
                        let w = sh(c);
                        format!(
                            "[{:+.1},{:+.1} p{:.2}{}]",
                            (w.0 - t.0) as f64 / 1e3,
                            (w.1 - t.0) as f64 / 1e3,
                            c.p,
                            if c.seaward { " sea" } else { "" }
                        )
                    })
                    .collect();
                let g = &samples.gps;
                let o = &g[0];
                let xy = |f: &crate::domain::wearable::samples::GpsFix| {
                    (
                        (f.lon - o.lon) * 111_320.0 * o.lat.to_radians().cos(),
                        (f.lat - o.lat) * 110_540.0,
                    )
                };
                let sp: Vec<String> = g
                    .windows(2)
                    .filter(|w| w[1].t > t.0 - 6000 && w[0].t < t.1 + 6000)
                    .map(|w| {
                        let (a, b) = (xy(&w[0]), xy(&w[1]));
                        let d = (b.0 - a.0).hypot(b.1 - a.1);
                        let dt = (w[1].t - w[0].t) as f64 / 1000.0;
                        format!("{:+.0}:{:.0}", (w[1].t - t.0) as f64 / 1e3, d / dt * 3.6)
                    })
                    .collect();
                println!(
                    "  miss {:.1}s  near {}\n    kmh {}",
                    (t.1 - t.0) as f64 / 1e3,
                    near.join(" "),
                    sp.join(" ")
                );
            }
        }
    }
}
