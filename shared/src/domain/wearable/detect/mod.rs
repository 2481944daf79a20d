//! The ride detector (`rides-8`, issue 40): classifies a session into sitting, paddling and
//! riding and produces ride windows with start, end, distance, top and mean speed and the
//! ride's direction relative to the shore. Built for GPS-only watches (most GPX and FIT files
//! carry no IMU, and positions without the receiver's speed); the IMU refines it when present.
//!
//! 1. **Clean.** Fixes worse than 25 m (`accuracy`) or whose receiver speed is above 60 km/h are
//!    dropped, and so is a fix repeating the very position of the one before (a receiver
//!    without a solution holding its last one: a gap, not a stop). Then physics: a fix farther
//!    from the last kept fix than a surfer can go ([`VMAX_MPS`] × Δt + [`SLACK_M`] of position
//!    error) is an outlier unless the next fix confirms it (and not the one before); the first
//!    fix after a gap must be confirmed by the fix after it (re-acquired fixes are often tens
//!    of metres off).
//! 2. **A regular track.** Positions are interpolated onto a [`GRID_MS`] grid, whatever the
//!    sampling (1 Hz, 0.5 Hz, "smart" recording), and the speed at each grid point is the
//!    displacement over a centred [`SMOOTH_MS`] window: smoothing that keeps a 2 s ride.
//! 3. **Gaps are never stops.** An interval longer than [`GAP_FACTOR`] × the track's median
//!    interval over the session's first block (at least [`GAP_MIN_MS`]) and at most [`MAX_BRIDGE_MS`] is a dropout: when the
//!    fixes on both sides are riding and the distance across the gap is consistent with riding,
//!    the ride continues through it; when only the side before (after) is riding, the ride
//!    lasts as long as that speed takes to cover the distance across the gap, after (before)
//!    which the surfer is taken as stopped. Longer gaps carry no speed.
//! 4. **Candidates** (`rides-5`): runs above [`OFF_KMH`] that reach [`CANDIDATE_KMH`]
//!    (hysteresis; a slow whitewater ride goes no faster). Each run proposes several windows:
//!    its start where the speed first rises to one level and its end where it last falls below
//!    one, the levels being one between paddling and the run's peak (0.4 × peak + 2 km/h,
//!    clamped to 7.5–12 km/h) and shares of the peak ([`LEVELS`]), so that a take-off sprint or
//!    a slow straighten-out either side of the ride need not be part of it; crossings are
//!    interpolated between grid points.
//! 5. **The ride model** ([`model`]): gradient-boosted trees read what each window of
//!    [`MIN_RIDE_S`]–[`MAX_RIDE_S`] shows (peak and mean speed, time above [`ON_KMH`],
//!    duration, path and how straight it is, the speed before and after it (5–25 s and
//!    25–90 s away) and just before its start, whether the surfer heads back towards its start
//!    after it (paddling back out), at what share of the peak each bound crosses, the share of
//!    the minute either side at a walking or jogging pace ([`FOOT_PACE_KMH`]), whether the
//!    track comes back to where it was (multipath), the share inside a dropout, the sampling
//!    interval, and its angle to straight in) and give the probability that it is a ride; the
//!    run's likeliest window is its ride when likely enough, and a window heading out to sea
//!    (more than [`SEAWARD_DEG`] from shoreward) never is. The trees were trained on sessions
//!    of the evaluation's first five simulators (`rides-8`), on seeds of their own, never on
//!    its development or held-out sets; the median bias of the bounds measured there is taken
//!    off. With IMU a window in which the wrist keeps a paddling rhythm ([`stroke_score`]) is
//!    paddling, and the start moves to the pop-up.
//!
//! The shoreward direction comes from the track itself (no coastline data): from the line-up
//! (where the surfer sits) towards where the session starts and ends (the beach), or, when the
//! watch was started in the water, the mean direction of the fast runs.
//!
//! **Memory flat in the session's length** (`rides-4`): the [`Detector`] takes samples in time
//! order and judges the session a block at a time: the rides starting in a [`CORE_MS`] core,
//! read with [`MARGIN_MS`] of track either side (more than the longest ride and the minute and
//! a half of context the ride model reads after it), so it holds about 18 minutes of samples
//! whatever the session's length. What needs the whole session (the shore side, the time
//! sitting and paddling) is gathered as it goes in bounded form ([`shore`]); the shore test
//! runs last over the windows found. Judged in blocks or whole, a session gives the same rides (tested).
//! Modules: [`clean`] (step 1), [`track`] (2, 3), [`block`] (4, 5), [`imu`], [`shore`].
//!
//! [`VERSION`] names this algorithm; a stored window records the version that made it.

pub use crate::model::wearable::Ride;

mod block;
mod clean;
mod imu;
pub mod model;
mod shore;
#[rustfmt::skip]
pub mod trees;
mod track;

pub use imu::stroke_score;

use super::samples::{GpsFix, Imu, Samples};
use block::Totals;
use clean::{Origin, Rejected, clean, gap_threshold};
use std::collections::VecDeque;
use track::track;

/// The detector's version, recorded with every window it makes.
pub const VERSION: &str = "rides-8";

pub const MAX_ACCURACY_M: f64 = 25.0;
pub const MAX_SPEED_KMH: f64 = 60.0;
/// The fastest a surfer goes between two fixes, m/s (47 km/h).
pub const VMAX_MPS: f64 = 13.0;
/// Position error allowed on top of it, m.
pub const SLACK_M: f64 = 15.0;
/// After a gap, the next fix must be within this (m) plus 9 m/s × Δt of the first.
pub const REACQUIRE_M: f64 = 8.0;
/// A fix this far (m) from the median of its neighbours is a spike.
pub const SPIKE_M: f64 = 12.0;
pub const GRID_MS: i64 = 500;
pub const SMOOTH_MS: i64 = 3000;
pub const GAP_FACTOR: f64 = 2.5;
pub const GAP_MIN_MS: i64 = 3500;
pub const MAX_BRIDGE_MS: i64 = 40_000;
pub const ON_KMH: f64 = 10.5;
/// A run is a candidate when it reaches this speed (slow whitewater rides go no faster)...
pub const CANDIDATE_KMH: f64 = 8.5;
/// ...counted from when the speed rises above this.
pub const OFF_KMH: f64 = 6.0;
/// Shares of a run's peak speed whose crossings bound its other proposed windows.
pub const LEVELS: [f64; 3] = [0.55, 0.7, 0.85];
/// A level below them all, km/h: the end of a slow straighten-out in the whitewater.
pub const SLOW_LEVEL_KMH: f64 = 6.5;
pub const MIN_RIDE_S: f64 = 1.0;
pub const MAX_RIDE_S: f64 = 120.0;
pub const SEAWARD_DEG: f64 = 115.0;
/// The spans (ms before a window's start, after its end) whose mean speed the model reads.
pub const CONTEXT_MS: (i64, i64) = (5_000, 25_000);
/// The farther spans the model reads, and the span after a ride in which it looks for the
/// surfer heading back.
pub const FAR_CONTEXT_MS: (i64, i64) = (25_000, 90_000);
pub const RETURN_MS: (i64, i64) = (15_000, 90_000);
pub const FOOT_PACE_KMH: (f64, f64) = (5.5, 16.0);
pub const FOOT_CONTEXT_MS: i64 = 60_000;
pub const STROKE_SCORE: f64 = 0.5;
pub const POPUP_MPS2: f64 = 5.0;
const G: f64 = 9.81;
/// The span of a block whose rides it judges, and the track it reads either side.
pub const CORE_MS: i64 = 10 * 60_000;
pub const MARGIN_MS: i64 = 4 * 60_000;
// A block judges a window from track it holds: the longest ride and the farthest context read
// after it must fit in the margin.
const _: () = assert!(
    MARGIN_MS >= MAX_RIDE_S as i64 * 1000 + FAR_CONTEXT_MS.1
        && FAR_CONTEXT_MS.1 >= RETURN_MS.1
        && FAR_CONTEXT_MS.1 >= FOOT_CONTEXT_MS
);

/// Time spent in each activity, seconds.
#[derive(
    Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    pub sitting_s: f64,
    pub paddling_s: f64,
    pub riding_s: f64,
}

/// What one run of the detector found.
#[derive(
    Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    pub version: String,
    pub used_imu: bool,
    pub rides: Vec<Ride>,
    pub activity: Activity,
    pub fixes: usize,
    pub rejected_inaccurate: usize,
    pub rejected_spikes: usize,
    /// The shoreward bearing the detector worked with (degrees clockwise from north).
    pub shore_bearing_deg: Option<f64>,
}

/// The detector over a session's samples in time order, a block at a time: each block's rides
/// are those starting in its [`CORE_MS`] core, judged with [`MARGIN_MS`] of track either side
/// (longer than any ride and the context the ride model reads), so the memory it holds does not
/// grow with the session. Feed GPS fixes and IMU readings as one time-ordered stream.
pub struct Detector {
    use_imu: bool,
    core_ms: i64,
    origin: Option<Origin>,
    gap_ms: Option<i64>,
    core_start: i64,
    gps: VecDeque<GpsFix>,
    imu: VecDeque<Imu>,
    rejected: Rejected,
    totals: Totals,
}

impl Detector {
    /// `use_imu` false ignores the IMU stream (the GPS-only figure).
    pub fn new(use_imu: bool) -> Detector {
        Detector {
            use_imu,
            core_ms: CORE_MS,
            origin: None,
            gap_ms: None,
            core_start: 0,
            gps: VecDeque::new(),
            imu: VecDeque::new(),
            rejected: Rejected::default(),
            totals: Totals::default(),
        }
    }

    pub fn gps(&mut self, f: GpsFix) {
        if self.origin.is_none() {
            self.origin = Some(Origin::new(&f));
            self.core_start = f.t;
        }
        self.gps.push_back(f);
        self.advance(f.t);
    }

    pub fn imu(&mut self, m: Imu) {
        if self.use_imu {
            self.imu.push_back(m);
            self.advance(m.t);
        }
    }

    /// Judges every block whose window ends before `t` (the streams come in time order).
    fn advance(&mut self, t: i64) {
        if self.origin.is_none() {
            // Readings before the first fix: only the last margin's worth can matter.
            while self.imu.front().is_some_and(|m| m.t < t - MARGIN_MS - 2000) {
                self.imu.pop_front();
            }
            return;
        }
        while t > self.core_start.saturating_add(self.core_ms) + MARGIN_MS {
            self.block(false);
        }
    }

    /// Judges the block whose core starts at `core_start` and moves on to the next.
    fn block(&mut self, last: bool) {
        let Some(o) = self.origin else { return };
        let cs = self.core_start;
        let ce = if last { i64::MAX } else { cs + self.core_ms };
        let (ws, we) = (cs - MARGIN_MS, ce.saturating_add(MARGIN_MS));
        // The session's dropout threshold, from its first block.
        let gap_ms = *self
            .gap_ms
            .get_or_insert_with(|| gap_threshold(self.gps.iter()));
        let fixes: Vec<GpsFix> = self
            .gps
            .iter()
            .filter(|f| (ws..=we).contains(&f.t))
            .copied()
            .collect();
        let kept = clean(&fixes, &o, gap_ms, (cs, ce), &mut self.rejected);
        if kept.len() >= 2 {
            let imu = self.imu.make_contiguous();
            let imu = &imu[imu.partition_point(|m| m.t < ws - 2000)..];
            let imu = (imu.len() > 100).then_some(imu);
            let t0 = o.t + (kept[0].t - o.t).div_euclid(GRID_MS) * GRID_MS;
            let tr = track(&kept, t0, gap_ms);
            block::block(&kept, &tr, (cs, ce), o.t, imu, last, &mut self.totals);
        }
        if !last {
            self.core_start = ce;
            while self.gps.front().is_some_and(|f| f.t < ce - MARGIN_MS) {
                self.gps.pop_front();
            }
            while self
                .imu
                .front()
                .is_some_and(|m| m.t < ce - MARGIN_MS - 2000)
            {
                self.imu.pop_front();
            }
        }
    }

    /// The last block, then the shore test and the ride model over every window.
    pub fn finish(self) -> Detection {
        self.judge(None)
    }

    /// [`Detector::finish`], with every window the ride model judged (for training it).
    pub fn finish_scored(self) -> (Detection, Vec<Scored>) {
        let mut all = Vec::new();
        let d = self.judge(Some(&mut all));
        (d, all)
    }

    fn judge(mut self, mut all: Option<&mut Vec<Scored>>) -> Detection {
        self.block(true);
        let t = self.totals;
        let mut d = Detection {
            version: VERSION.into(),
            used_imu: t.used_imu,
            fixes: t.fixes,
            rejected_inaccurate: self.rejected.inaccurate,
            rejected_spikes: self.rejected.spikes,
            ..Default::default()
        };
        let shore = t.shore.direction();

        d.shore_bearing_deg = shore.map(|(x, y)| (x.atan2(y).to_degrees() + 360.0) % 360.0);
        let (mut sitting, mut paddling, mut riding) = (t.sitting_s, t.paddling_s, 0.0);
        for (run, c) in t.candidates.into_iter().enumerate() {
            // Each proposed window judged: the ride, if any, is the one whose bounds are
            // likeliest right among those likely rides and not heading out to sea.
            let mut judged = Vec::with_capacity(c.windows.len());
            for w in &c.windows {
                let disp = w.dx.hypot(w.dy);
                let rel = shore.filter(|_| disp > 3.0).map(|(sx, sy)| {
                    // Positive: to the surfer's right, facing the shore.
                    let along = w.dx * sy - w.dy * sx;
                    let toward = w.dx * sx + w.dy * sy;
                    along.atan2(toward).to_degrees()
                });
                // Heading out to sea: paddling out over a wave, not riding it.
                let seaward = rel.is_some_and(|r| r.abs() > SEAWARD_DEG);
                let mut x = w.x;
                x[model::SHOREWARD] = rel.map_or(0.0, |r| r.to_radians().cos());
                let (p, q) = (trees::RIDE.probability(&x), trees::BOUNDS.probability(&x));
                if let Some(all) = all.as_mut() {
                    all.push(Scored {
                        run,
                        start_ms: w.start,
                        end_ms: w.end,
                        x,
                        p,
                        q,
                        seaward,
                    });
                }
                judged.push((if seaward { -1.0 } else { p }, q, rel));
            }
            let Some(i) = model::choose(judged.iter().map(|j| (j.0, j.1)), model::THRESHOLD) else {
                sitting += c.sitting_s;
                paddling += c.paddling_s;
                continue;
            };
            let (w, rel) = (&c.windows[i], judged[i].2);
            // The run's time outside its ride counts as paddling.
            let secs = ((w.end - w.start) as f64 / 1000.0).max(0.1);
            riding += secs.min(c.inside_s);
            paddling += (c.inside_s - secs).max(0.0);
            let disp = w.dx.hypot(w.dy);
            let heading = (w.dx.atan2(w.dy).to_degrees() + 360.0) % 360.0;
            let r1 = |v: f64| (v * 10.0).round() / 10.0;
            let (start_ms, end_ms) = reported(w.start, w.end);
            d.rides.push(Ride {
                start_ms,
                end_ms,
                distance_m: r1(w.path),
                top_speed_kmh: r1(w.top_kmh),
                mean_speed_kmh: r1(w.mean_kmh),
                heading_deg: (disp > 3.0).then(|| heading.round()),
                shore_angle_deg: rel.map(f64::round),
            });
        }
        d.activity = Activity {
            sitting_s: sitting.round(),
            paddling_s: paddling.round(),
            riding_s: riding.round(),
        };
        d
    }
}

/// A window the ride model judged: what it read and the probability it gave.
#[derive(Clone, Debug)]
pub struct Scored {
    /// The run it was proposed for, numbered in the session.
    pub run: usize,
    pub start_ms: i64,
    pub end_ms: i64,
    pub x: [f64; model::NF],
    /// The probability that it is a ride, and that its bounds are right.
    pub p: f64,
    pub q: f64,
    /// Refused whatever the model says: heading out to sea.
    pub seaward: bool,
}

/// A window's bounds as a ride reports them: the model's measured bias taken off.
fn reported(start: i64, end: i64) -> (i64, i64) {
    debiased(start, end, (trees::START_BIAS_MS, trees::END_BIAS_MS))
}

/// A window's bounds less a bias of its start and end (ms), at least half a second long.
pub fn debiased(start: i64, end: i64, bias: (i64, i64)) -> (i64, i64) {
    let start_ms = start - bias.0;
    (start_ms, (end - bias.1).max(start_ms + 500))
}

impl Scored {
    /// The bounds a ride from this window would report.
    pub fn bounds(&self) -> (i64, i64) {
        reported(self.start_ms, self.end_ms)
    }
}

/// Runs the detector over samples in memory; `use_imu` false ignores the IMU stream.
pub fn detect(samples: &Samples, use_imu: bool) -> Detection {
    over(samples, use_imu).finish()
}

/// A detector that has been given every sample of `samples`, in time order.
pub fn over(samples: &Samples, use_imu: bool) -> Detector {
    let mut det = Detector::new(use_imu);
    let mut imu = samples.imu.iter().peekable();
    for f in &samples.gps {
        while let Some(m) = imu.next_if(|m| m.t <= f.t) {
            det.imu(*m);
        }
        det.gps(*f);
    }
    imu.for_each(|m| det.imu(*m));
    det
}

#[cfg(test)]
mod tests {
    use super::super::accuracy::score;
    use super::super::synth::{Options, generate};
    use super::*;

    #[test]
    fn a_clean_session_gives_its_rides() {
        let mut o = Options::new(3, 1800.0, 0);
        o.faults = 0.0;
        let s = generate(&o);
        let d = detect(&s.samples, false);
        let sc = score(
            &s.rides,
            &d.rides
                .iter()
                .map(|r| (r.start_ms, r.end_ms))
                .collect::<Vec<_>>(),
        );
        // rides-2 smooths over 3 s and reads positions only: the old generator's sub-3 s rides
        // peaking at 10–16 km/h are partly below its ride model.
        assert!(sc.recall() >= 0.85 && sc.precision() >= 0.95, "{sc:?}");
    }

    /// The session judged a block at a time gives what it gives judged whole.
    #[test]
    fn blocks_find_what_the_whole_session_does() {
        // With IMU and without, GPS faults and gaps, 40 minutes to 2 hours.
        let sessions: Vec<Samples> = (0..8)
            .map(|seed| {
                let secs = 2400.0 + 600.0 * seed as f64;
                generate(&Options::new(
                    seed,
                    secs,
                    if seed % 2 == 0 { 50 } else { 0 },
                ))
                .samples
            })
            .collect();
        for (i, s) in sessions.iter().enumerate() {
            let run = |core_ms: i64| {
                let mut det = Detector::new(true);
                det.core_ms = core_ms;
                let mut imu = s.imu.iter().peekable();
                for f in &s.gps {
                    while let Some(m) = imu.next_if(|m| m.t <= f.t) {
                        det.imu(*m);
                    }
                    det.gps(*f);
                }
                det.finish()
            };
            let (blocks, whole) = (run(CORE_MS), run(i64::MAX / 4));
            assert!(whole.rides.len() >= 5, "session {i}");
            assert_eq!(blocks, whole, "session {i}");
            // Short blocks too (2 minutes: a ride and its context still fit in the margins).
            assert_eq!(run(120_000).rides, whole.rides, "session {i}");
        }
    }

    #[test]
    fn imprecise_fixes_and_spikes_are_rejected() {
        let o = Options::new(11, 3600.0, 0);
        let s = generate(&o);
        let d = detect(&s.samples, false);
        assert!(d.rejected_inaccurate > 0);
        assert!(d.rejected_spikes > 0);
    }

    #[test]
    fn paddling_has_a_rhythm_and_riding_has_none() {
        let o = Options::new(5, 1200.0, 50);
        let s = generate(&o);
        let (a, b) = s.rides[0];
        assert!(stroke_score(&s.samples.imu, a + 500, b) < STROKE_SCORE);
        let (ma, mb) = (s.rides[0].1 + 8000, s.rides[0].1 + 16000);
        assert!(stroke_score(&s.samples.imu, ma, mb) > STROKE_SCORE);
    }
}
