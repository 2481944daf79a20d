//! Trains the detector's ride model ([`crate::domain::wearable::detect::model`]): every window
//! the detector considers in simulated sessions of seeds of their own ([`TRAIN`]), labelled a
//! ride when it matches a true ride (IoU ≥ 0.5), and gradient-boosted trees fitted to them
//! (depth 3, logistic loss); then the median error of the bounds of the windows it takes, which
//! the detector takes off. The development and held-out sets are never trained on.
//! `cargo test -p shared train_ride_model -- --ignored --nocapture` writes
//! `detect/trees.rs`; `trained_trees_are_the_shipped_ones` checks that it reproduces.

use super::{Set, Simulator, import};
use crate::domain::wearable::accuracy::{Score, iou};
use crate::domain::wearable::detect::{
    self,
    model::{NF, Tree},
};

/// The training sessions' seeds.
pub const TRAIN: Set = Set {
    name: "training",
    first_seed: 20_000_001,
    per_cell: 24,
    model: Simulator::Sim,
};

/// Training seeds for the second simulator, reserved with [`super::FOURTH`] before `rides-5`.
pub const TRAIN_B: Set = Set {
    name: "training, second model",
    first_seed: 21_000_001,
    per_cell: 24,
    model: Simulator::SimB,
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

/// Boosting rounds and shrinkage; the threshold at which windows are taken when the bias of
/// their bounds is measured (the detector's, `model::THRESHOLD`, is chosen on the development
/// set afterwards).
const ROUNDS: usize = 200;
const RATE: f64 = 0.1;
const LAMBDA: f64 = 1.0;
const BIAS_AT: f64 = 0.35;

/// The trained model.
pub struct Trained {
    pub base: f64,
    pub trees: Vec<Tree>,
    pub start_bias_ms: i64,
    pub end_bias_ms: i64,
}

impl Trained {
    pub fn probability(&self, x: &[f64; NF]) -> f64 {
        detect::model::probability(self.base, &self.trees, x)
    }
}

/// Fits the trees to the set's windows and measures the bias of the bounds.
pub async fn train(set: &Set) -> Trained {
    let sessions = windows(set).await;
    let ex: Vec<([f64; NF], bool)> = sessions
        .iter()
        .flat_map(|(truth, all)| {
            all.iter().filter(|c| !c.seaward).map(move |c| {
                let ride = truth.iter().any(|&t| iou(t, (c.start_ms, c.end_ms)) >= 0.5);
                (c.x, ride)
            })
        })
        .collect();
    let (base, trees) = boost(&ex);
    let mut m = Trained {
        base,
        trees,
        start_bias_ms: 0,
        end_bias_ms: 0,
    };
    (m.start_bias_ms, m.end_bias_ms) = bias(&sessions, &m);
    m
}

/// Gradient boosting on the logistic loss: trees of depth 3 whose splits are chosen among 32
/// quantiles of each feature.
fn boost(ex: &[([f64; NF], bool)]) -> (f64, Vec<Tree>) {
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
    let mut z = vec![base; n];
    let mut trees = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let p: Vec<f64> = z.iter().map(|s| 1.0 / (1.0 + (-s).exp())).collect();
        let g: Vec<f64> = (0..n).map(|i| p[i] - y[i]).collect();
        let h: Vec<f64> = p.iter().map(|p| (p * (1.0 - p)).max(1e-6)).collect();
        let mut node = vec![0usize; n];
        let mut tree = Tree {
            f: [0; 7],
            t: [f64::MAX; 7],
            leaf: [0.0; 8],
        };
        for k in 0..7 {
            let idx: Vec<usize> = (0..n).filter(|&i| node[i] == k).collect();
            let (gs, hs) = idx
                .iter()
                .fold((0.0, 0.0), |a, &i| (a.0 + g[i], a.1 + h[i]));
            let mut best = (0.0, 0usize, f64::MAX);
            for (f, cuts) in cuts.iter().enumerate() {
                for &c in cuts {
                    let (mut gl, mut hl) = (0.0, 0.0);
                    for &i in idx.iter().filter(|&&i| ex[i].0[f] <= c) {
                        gl += g[i];
                        hl += h[i];
                    }
                    let (gr, hr) = (gs - gl, hs - hl);
                    if hl < 1.0 || hr < 1.0 {
                        continue;
                    }
                    let gain =
                        gl * gl / (hl + LAMBDA) + gr * gr / (hr + LAMBDA) - gs * gs / (hs + LAMBDA);
                    if gain > best.0 {
                        best = (gain, f, c);
                    }
                }
            }
            tree.f[k] = best.1 as u8;
            tree.t[k] = best.2;
            for &i in &idx {
                node[i] = 2 * k + if ex[i].0[best.1] <= best.2 { 1 } else { 2 };
            }
        }
        for l in 0..8 {
            let (gs, hs) = (0..n)
                .filter(|&i| node[i] == l + 7)
                .fold((0.0, 0.0), |a, i| (a.0 + g[i], a.1 + h[i]));
            tree.leaf[l] = -RATE * gs / (hs + LAMBDA);
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
        for c in all
            .iter()
            .filter(|c| !c.seaward && m.probability(&c.x) >= BIAS_AT)
        {
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

/// The model as `detect/trees.rs`.
pub fn rust(m: &Trained) -> String {
    let mut s = String::from(
        "//! The ride model's trees, written by `eval::train` from the training seeds (`cargo test\n\
         //! -p shared train_ride_model -- --ignored --nocapture`); do not edit.\n\n\
         use super::model::Tree;\n\n",
    );
    s += &format!("pub const BASE: f64 = {:?};\n", m.base);
    s += &format!("pub const START_BIAS_MS: i64 = {};\n", m.start_bias_ms);
    s += &format!("pub const END_BIAS_MS: i64 = {};\n", m.end_bias_ms);
    s += &format!("pub static TREES: [Tree; {}] = [\n", m.trees.len());
    for t in &m.trees {
        s += &format!(
            "    Tree {{ f: {:?}, t: {:?}, leaf: {:?} }},\n",
            t.f, t.t, t.leaf
        );
    }
    s += "];\n";
    s
}

/// The ride model's threshold against the development set, for the trees as shipped.
pub async fn thresholds_on_dev() -> Vec<(f64, Score, Score)> {
    let dev = windows(&super::DEV).await;
    let mut out = Vec::new();
    for th in [0.25, 0.3, 0.35, 0.4, 0.45, 0.5] {
        let (mut a, mut b) = (Score::default(), Score::default());
        for (truth, all) in &dev {
            let found: Vec<(i64, i64)> = all
                .iter()
                .filter(|c| !c.seaward && c.p >= th)
                .map(|c| {
                    (
                        c.start_ms - detect::trees::START_BIAS_MS,
                        c.end_ms - detect::trees::END_BIAS_MS,
                    )
                })
                .collect();
            a.add(super::by_iou(truth, &found));
            b.add(super::by_bounds(truth, &found));
        }
        out.push((th, a, b));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trains the ride model and writes `detect/trees.rs`.
    #[tokio::test]
    #[ignore]
    async fn train_ride_model() {
        let m = train(&TRAIN).await;
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

    /// The shipped trees are what the training gives (`--ignored`: two minutes).
    #[tokio::test]
    #[ignore]
    async fn trained_trees_are_the_shipped_ones() {
        let m = train(&TRAIN).await;
        assert_eq!(rust(&m), include_str!("../detect/trees.rs"));
    }

    /// `cargo test -p shared threshold_on_dev -- --ignored --nocapture`.
    #[tokio::test]
    #[ignore]
    async fn threshold_on_dev() {
        for (th, a, b) in thresholds_on_dev().await {
            println!(
                "{th}: IoU P/R {:.3}/{:.3} F1 {:.3}; ±2 s {:.3}/{:.3}",
                a.precision(),
                a.recall(),
                a.f1(),
                b.precision(),
                b.recall()
            );
        }
    }
}
