//! The ride model: gradient-boosted trees over what a candidate window shows (its speed, length
//! and path, the track around it, its heading against the shore, dropouts inside it): one
//! ensemble gives the probability that it is a ride, another that its bounds are right; trained
//! on simulated sessions of seeds of their own (`eval::train`, which writes `detect/trees.rs`),
//! never on the development or held-out sets; the threshold was chosen on the development
//! sets of the five simulators trained on.

// The features, by their index in a window's feature vector.
/// Peak speed, km/h.
pub const PEAK: usize = 0;
/// ln of the window's seconds.
pub const SECS: usize = 1;
/// Seconds above [`super::ON_KMH`].
pub const ABOVE_ON: usize = 2;
/// ln(1 + path in metres).
pub const PATH: usize = 3;
/// Mean speed, km/h.
pub const MEAN: usize = 4;
/// Mean speed 5–25 s before and after, km/h ([`super::CONTEXT_MS`]).
pub const BEFORE: usize = 5;
pub const AFTER: usize = 6;
/// Share of the minute either side at a walking or jogging pace.
pub const ON_FOOT: usize = 7;
/// How far back the track comes 4–12 s later, as a share of the displacement (at most 3).
pub const COMES_BACK: usize = 8;
/// Displacement / path.
pub const STRAIGHT: usize = 9;
/// Share of the window inside a dropout.
pub const IN_GAP: usize = 10;
/// Mean speed 0.5–4 s before the start, km/h.
pub const LEAD_IN: usize = 11;
/// The session's usual interval between fixes, seconds.
pub const INTERVAL: usize = 12;
/// Cosine of the angle to straight in (0 when the shore side is unknown).
pub const SHOREWARD: usize = 13;
/// The speeds the window's start and end cross, as shares of its peak.
pub const START_LEVEL: usize = 14;
pub const END_LEVEL: usize = 15;
/// Share of the 4 s before the start, and after the end, inside a dropout.
pub const GAP_BEFORE: usize = 16;
pub const GAP_AFTER: usize = 17;
/// Mean speed 25–90 s before and after, km/h ([`super::FAR_CONTEXT_MS`]): waiting in the
/// line-up and paddling back out, or walking on.
pub const FAR_BEFORE: usize = 18;
pub const FAR_AFTER: usize = 19;
/// How close the track comes back to the window's start 15–90 s after its end, as a share of
/// the displacement (at most 3): a surfer paddles back out after a ride.
pub const RETURNS: usize = 20;
pub const NF: usize = 21;

/// One tree of depth 3: node `k`'s children are `2k + 1` (feature `f[k]` at most `t[k]`) and
/// `2k + 2`; the leaves are nodes 7–14.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    pub f: [u8; 7],
    pub t: [f64; 7],
    pub leaf: [f64; 8],
}

impl Tree {
    pub fn value(&self, x: &[f64; NF]) -> f64 {
        let mut k = 0;
        for _ in 0..3 {
            k = 2 * k
                + if x[usize::from(self.f[k])] <= self.t[k] {
                    1
                } else {
                    2
                };
        }
        self.leaf[k - 7]
    }
}

/// Trees summed on a base score (log-odds), read as a probability.
pub struct Ensemble<'a> {
    pub base: f64,
    pub trees: &'a [Tree],
}

impl Ensemble<'_> {
    pub fn probability(&self, x: &[f64; NF]) -> f64 {
        let z = self.base + self.trees.iter().map(|t| t.value(x)).sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// The ride among a run's windows, given each one's probability of being a ride (`p`, from
/// [`super::trees::RIDE`]; negative when it cannot be one) and of having both bounds within
/// 2 s of the ride's (`q`, from [`super::trees::BOUNDS`]): of the windows likely rides
/// (`p` at least `threshold`, the detector's being [`THRESHOLD`]), the one whose bounds are
/// likeliest right.
pub fn choose(scores: impl Iterator<Item = (f64, f64)>, threshold: f64) -> Option<usize> {
    scores
        .enumerate()
        .filter(|(_, (p, _))| *p >= threshold)
        .max_by(|a, b| a.1.1.total_cmp(&b.1.1))
        .map(|(i, _)| i)
}

/// A window is a ride when the model gives it this probability or more (chosen on the
/// development sets of the five simulators trained on: F1 at IoU ≥ 0.5 is 0.849–0.854 from 0.4
/// to 0.6, highest here, the middle of that plateau).
pub const THRESHOLD: f64 = 0.5;
