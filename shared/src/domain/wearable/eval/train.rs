//! Trains the detector's ride model ([`crate::domain::wearable::detect::model`]): every window
//! the detector considers in simulated sessions of seeds of their own ([`TRAIN`]), labelled a
//! ride when it matches a true ride (IoU ≥ 0.5), and a logistic regression fitted to them.
//! The development and held-out sets are never trained on.

use super::{Set, Simulator, import};
use crate::domain::wearable::accuracy::iou;
use crate::domain::wearable::detect::{self, model::NF};

/// The training sessions' seeds.
pub const TRAIN: Set = Set {
    name: "training",
    first_seed: 20_000_001,
    per_cell: 12,
    model: Simulator::Sim,
};

/// Every window of the set's sessions, with whether it is a ride.
pub async fn examples(set: &Set) -> Vec<([f64; NF], bool)> {
    let mut out = Vec::new();
    for (seed, brk, sampling) in set.sessions() {
        let rec = set.model.record(seed, brk, sampling);
        let samples = import(&rec.gpx)
            .await
            .expect("the simulator writes GPX the import accepts");
        let (_, all) = detect::over(&samples, true).finish_scored();
        for c in all.iter().filter(|c| !c.seaward) {
            let ride = rec
                .rides
                .iter()
                .any(|&t| iou(t, (c.start_ms, c.end_ms)) >= 0.5);
            out.push((c.x, ride));
        }
    }
    out
}

/// A fitted model: standardisation, weights and bias.
pub struct Fit {
    pub mean: [f64; NF],
    pub sd: [f64; NF],
    pub w: [f64; NF],
    pub b: f64,
}

/// Logistic regression by gradient descent on standardised features, with a little L2.
pub fn fit(ex: &[([f64; NF], bool)]) -> Fit {
    let n = ex.len().max(1) as f64;
    let mut mean = [0.0; NF];
    let mut sd = [0.0; NF];
    for i in 0..NF {
        mean[i] = ex.iter().map(|e| e.0[i]).sum::<f64>() / n;
        sd[i] = (ex.iter().map(|e| (e.0[i] - mean[i]).powi(2)).sum::<f64>() / n)
            .sqrt()
            .max(1e-6);
    }
    let z: Vec<([f64; NF], f64)> = ex
        .iter()
        .map(|(x, y)| {
            let mut z = [0.0; NF];
            for i in 0..NF {
                z[i] = (x[i] - mean[i]) / sd[i];
            }
            (z, if *y { 1.0 } else { 0.0 })
        })
        .collect();
    let (mut w, mut b) = ([0.0; NF], 0.0);
    let (rate, l2) = (0.5, 1e-3);
    for _ in 0..4000 {
        let mut gw = [0.0; NF];
        let mut gb = 0.0;
        for (x, y) in &z {
            let s: f64 = (0..NF).map(|i| w[i] * x[i]).sum::<f64>() + b;
            let e = 1.0 / (1.0 + (-s).exp()) - y;
            for i in 0..NF {
                gw[i] += e * x[i];
            }
            gb += e;
        }
        for i in 0..NF {
            w[i] -= rate * (gw[i] / n + l2 * w[i]);
        }
        b -= rate * gb / n;
    }
    Fit { mean, sd, w, b }
}

impl Fit {
    /// The model as the Rust constant `detect::model::TRAINED`.
    pub fn rust(&self) -> String {
        let list = |v: &[f64; NF]| {
            v.iter()
                .map(|x| format!("{x:.6}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "pub const TRAINED: Model = Model {{\n    mean: [{}],\n    sd: [{}],\n    w: [{}],\n    b: {:.6},\n}};",
            list(&self.mean),
            list(&self.sd),
            list(&self.w),
            self.b
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints the trained model (`cargo test -p shared train_ride_model -- --ignored
    /// --nocapture`), to paste into `detect/model.rs`.
    #[tokio::test]
    #[ignore]
    async fn train_ride_model() {
        let ex = examples(&TRAIN).await;
        let rides = ex.iter().filter(|e| e.1).count();
        println!("{} windows, {rides} rides", ex.len());
        let f = fit(&ex);
        for i in 0..NF {
            println!("{:>8.3}  {}", f.w[i], detect::model::NAMES[i]);
        }
        println!("{}", f.rust());
    }

    /// The ride model's threshold against the development set's F1 (`cargo test -p shared
    /// threshold_on_dev -- --ignored --nocapture`).
    #[tokio::test]
    #[ignore]
    async fn threshold_on_dev() {
        let mut sessions = Vec::new();
        let dev = super::super::DEV;
        for (seed, brk, sampling) in dev.sessions() {
            let rec = dev.model.record(seed, brk, sampling);
            let samples = import(&rec.gpx).await.unwrap();
            let (_, all) = detect::over(&samples, true).finish_scored();
            sessions.push((rec.rides, all));
        }
        for (th, ds, de) in [
            (0.4, 0, 0),
            (0.4, 0, -500),
            (0.4, 0, -1000),
            (0.4, -500, 0),
            (0.4, 500, 0),
            (0.4, 500, -500),
            (0.4, -500, -500),
        ] {
            let (mut a, mut b) = (
                crate::domain::wearable::accuracy::Score::default(),
                crate::domain::wearable::accuracy::Score::default(),
            );
            for (truth, all) in &sessions {
                let found: Vec<(i64, i64)> = all
                    .iter()
                    .filter(|c| !c.seaward && c.p >= th)
                    .map(|c| (c.start_ms + ds, c.end_ms + de))
                    .collect();
                a.add(super::super::by_iou(truth, &found));
                b.add(super::super::by_bounds(truth, &found));
            }
            println!(
                "{th} {ds} {de}: IoU P/R {:.3}/{:.3} F1 {:.3}; ±2 s {:.3}/{:.3}",
                a.precision(),
                a.recall(),
                a.f1(),
                b.precision(),
                b.recall()
            );
        }
    }
}
