//! The ride model: a logistic regression over what a candidate window shows (its speed, length
//! and path, the track around it, its heading against the shore, dropouts inside it). Trained
//! on simulated sessions of their own seeds (`eval::train`, `cargo test -p shared
//! train_ride_model -- --ignored --nocapture` prints this file's constants), never on the
//! development or held-out sets; the threshold was chosen on the development set.

pub const PEAK: usize = 0;
pub const SECS: usize = 1;
pub const ABOVE_ON: usize = 2;
pub const PATH: usize = 3;
pub const MEAN: usize = 4;
pub const BEFORE: usize = 5;
pub const AFTER: usize = 6;
pub const ON_FOOT: usize = 7;
pub const COMES_BACK: usize = 8;
pub const STRAIGHT: usize = 9;
pub const IN_GAP: usize = 10;
pub const LEAD_IN: usize = 11;
pub const INTERVAL: usize = 12;
pub const SHOREWARD: usize = 13;
pub const NF: usize = 14;

/// The features' names, in order.
pub const NAMES: [&str; NF] = [
    "peak km/h",
    "ln seconds",
    "seconds above 10.5 km/h",
    "ln(1 + path m)",
    "mean km/h",
    "km/h 5-25 s before",
    "km/h 5-25 s after",
    "share of the minute either side at a foot pace",
    "how far back the track comes (share of the displacement)",
    "displacement / path",
    "share inside a dropout",
    "km/h 0.5-4 s before",
    "usual interval between fixes, s",
    "cosine of the angle to straight in (0 unknown)",
];

/// Standardised logistic regression.
pub struct Model {
    pub mean: [f64; NF],
    pub sd: [f64; NF],
    pub w: [f64; NF],
    pub b: f64,
}

impl Model {
    pub fn probability(&self, x: &[f64; NF]) -> f64 {
        let z: f64 = (0..NF)
            .map(|i| self.w[i] * (x[i] - self.mean[i]) / self.sd[i])
            .sum::<f64>()
            + self.b;
        1.0 / (1.0 + (-z).exp())
    }
}

/// A window is a ride when the model gives it this probability or more.
pub const THRESHOLD: f64 = 0.4;

pub const TRAINED: Model = Model {
    mean: [
        18.523854, 2.097235, 9.703962, 3.525021, 15.198870, 3.878220, 4.306316, 0.203672, 1.118838,
        0.911994, 0.112086, 4.611379, 2.933225, 0.531755,
    ],
    sd: [
        7.283593, 0.815090, 11.064199, 0.983109, 5.355430, 2.910985, 2.405791, 0.147793, 0.342142,
        0.172177, 0.222313, 2.391849, 2.535236, 0.414614,
    ],
    w: [
        0.502147, 0.464426, -0.595827, 1.841573, 1.052216, -0.810780, -0.144133, -0.495938,
        0.615189, 1.947694, 0.314703, 0.825729, 0.016238, 0.687616,
    ],
    b: -0.686709,
};
