//! The ride detector: classifies a session into sitting, paddling and riding and produces ride
//! windows with start, end, distance, top and mean speed.
//!
//! Published thresholds: paddling reaches about 8 km/h, riding is above it; rides last 1–45 s
//! (about 11 s on average). The steps, each a named constant below:
//!
//! 1. **Clean the fixes.** Fixes worse than 20 m (`accuracy`) are dropped, as are fixes whose
//!    speed is above 60 km/h and *spikes*: a fix that is more than 15 m/s away from both its
//!    neighbours while they agree with each other.
//! 2. **Speed per fix**: the receiver's Doppler speed, checked against the speed the positions
//!    imply over the neighbouring fixes: a fast Doppler reading the positions do not move with
//!    (less than 45% of it) is a glitch and the positional speed stands in for it.
//! 3. **Runs**: consecutive fixes above 8 km/h, bridging dropouts and dips of up to 3.5 s (up to
//!    12 s with IMU when the wrist shows no paddling strokes across the gap).
//! 4. **Bounds**: where the speed crosses 8 km/h, interpolated between the fixes on either side
//!    (half a second beyond the run when the neighbour is far). With IMU the start moves to the
//!    pop-up (the first wrist acceleration 5 m/s² above gravity near the GPS start).
//! 5. **Checks**: a ride lasts 0.7–50 s (the published 1–45 s with room for the bounds), peaks
//!    at 10 km/h or more (a whitewater push lying on the board reaches 8–9), and moves in a
//!    consistent direction (net displacement at least 30% of the path). With IMU, a run during
//!    which the wrist keeps a paddling rhythm (see [`stroke_score`], above 0.5) is
//!    paddling, not a ride.
//!
//! [`VERSION`] names this algorithm; a stored window records the version that made it.

pub use crate::model::wearable::Ride;

use super::samples::{GpsFix, Imu, Samples};

/// The detector's version, recorded with every window it makes.
pub const VERSION: &str = "rides-1";

pub const MAX_ACCURACY_M: f64 = 20.0;
pub const RIDE_KMH: f64 = 8.0;
pub const MIN_PEAK_KMH: f64 = 10.0;
pub const MAX_SPEED_KMH: f64 = 60.0;
pub const SPIKE_MPS: f64 = 15.0;
pub const MIN_RIDE_S: f64 = 0.7;
pub const MAX_RIDE_S: f64 = 50.0;
pub const BRIDGE_S: f64 = 3.5;
pub const BRIDGE_IMU_S: f64 = 12.0;
pub const STROKE_SCORE: f64 = 0.5;
pub const POPUP_MPS2: f64 = 5.0;
const G: f64 = 9.81;

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
}

#[derive(Clone, Copy, Debug)]
struct P {
    t: i64,
    x: f64,
    y: f64,
    /// Speed used, m/s.
    s: f64,
}

fn project(origin: &GpsFix, f: &GpsFix) -> (f64, f64) {
    let y = (f.lat - origin.lat) * 111_320.0;
    let x = (f.lon - origin.lon) * 111_320.0 * origin.lat.to_radians().cos();
    (x, y)
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Runs the detector; `use_imu` false ignores the IMU stream (the GPS-only figure).
pub fn detect(samples: &Samples, use_imu: bool) -> Detection {
    let imu = if use_imu && samples.imu.len() > 100 {
        Some(samples.imu.as_slice())
    } else {
        None
    };
    let mut d = Detection {
        version: VERSION.into(),
        used_imu: imu.is_some(),
        ..Default::default()
    };
    let Some(origin) = samples.gps.first() else {
        return d;
    };
    // 1. Clean.
    let mut raw: Vec<(i64, (f64, f64), Option<f64>)> = Vec::with_capacity(samples.gps.len());
    for f in &samples.gps {
        if f.accuracy.is_some_and(|a| a > MAX_ACCURACY_M) {
            d.rejected_inaccurate += 1;
            continue;
        }
        if f.speed.is_some_and(|v| v * 3.6 > MAX_SPEED_KMH) {
            d.rejected_spikes += 1;
            continue;
        }
        raw.push((f.t, project(origin, f), f.speed));
    }
    let mut kept: Vec<(i64, (f64, f64), Option<f64>)> = Vec::with_capacity(raw.len());
    for i in 0..raw.len() {
        let (t, p, _) = raw[i];
        let fast = |q: &(i64, (f64, f64), Option<f64>)| {
            let dt = ((t - q.0).abs() as f64 / 1000.0).max(0.2);
            dist(p, q.1) / dt > SPIKE_MPS
        };
        let prev = kept.last();
        let next = raw.get(i + 1);
        let spike = match (prev, next) {
            (Some(a), Some(b)) => {
                let dt = ((b.0 - a.0) as f64 / 1000.0).max(0.2);
                fast(a) && fast(b) && dist(a.1, b.1) / dt <= SPIKE_MPS
            }
            (Some(a), None) => fast(a),
            (None, Some(b)) => fast(b) && raw.get(i + 2).is_some_and(|c| !fast(c)),
            (None, None) => false,
        };
        if spike {
            d.rejected_spikes += 1;
        } else {
            kept.push(raw[i]);
        }
    }
    d.fixes = kept.len();
    // 2. Speeds.
    let pts: Vec<P> = (0..kept.len())
        .map(|i| {
            let (t, p, dopp) = kept[i];
            let near = |j: usize| (kept[j].0 - t).abs() <= 3000;
            let vpos = match (i.checked_sub(1), kept.get(i + 1)) {
                (Some(a), Some(_)) if near(a) && near(i + 1) => {
                    let (ta, pa, _) = kept[a];
                    let (tb, pb, _) = kept[i + 1];
                    Some(dist(pa, pb) / ((tb - ta) as f64 / 1000.0).max(0.5))
                }
                _ => None,
            };
            let s = match (dopp, vpos) {
                (Some(v), Some(vp)) if v * 3.6 > RIDE_KMH && vp < 0.45 * v => vp,
                (Some(v), _) => v,
                (None, Some(vp)) => vp,
                (None, None) => 0.0,
            };
            P {
                t,
                x: p.0,
                y: p.1,
                s,
            }
        })
        .collect();
    // 3. Runs.
    let hi = |p: &P| p.s * 3.6 > RIDE_KMH;
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        if !hi(p) {
            continue;
        }
        if let Some(last) = runs.last_mut() {
            let gap = (p.t - pts[last.1].t) as f64 / 1000.0;
            let bridge = gap <= BRIDGE_S
                || (gap <= BRIDGE_IMU_S
                    && imu.is_some_and(|m| stroke_score(m, pts[last.1].t, p.t) < STROKE_SCORE));
            if bridge {
                last.1 = i;
                continue;
            }
        }
        runs.push((i, i));
    }
    // 4 and 5. Bounds and checks.
    let ride_mps = RIDE_KMH / 3.6;
    for (a, b) in runs {
        let first = pts[a];
        let last = pts[b];
        let start = match a.checked_sub(1).map(|j| pts[j]) {
            Some(p) if first.t - p.t <= 2500 => {
                let f = ((ride_mps - p.s) / (first.s - p.s)).clamp(0.0, 1.0);
                p.t as f64 + f * (first.t - p.t) as f64
            }
            _ => first.t as f64 - 500.0,
        };
        let end = match pts.get(b + 1) {
            Some(n) if n.t - last.t <= 2500 => {
                let f = ((last.s - ride_mps) / (last.s - n.s)).clamp(0.0, 1.0);
                last.t as f64 + f * (n.t - last.t) as f64
            }
            _ => last.t as f64 + 500.0,
        };
        let mut start = start.round() as i64;
        let end = end.round() as i64;
        let run = &pts[a..=b];
        let top = run.iter().map(|p| p.s).fold(0.0, f64::max) * 3.6;
        let path: f64 = run
            .windows(2)
            .map(|w| dist((w[0].x, w[0].y), (w[1].x, w[1].y)))
            .sum();
        let disp = dist((first.x, first.y), (last.x, last.y));
        if top < MIN_PEAK_KMH {
            continue;
        }
        if run.len() >= 4 && disp < 0.3 * path {
            continue;
        }
        if let Some(m) = imu {
            if end - start >= 1800 && stroke_score(m, start + 300, end) >= STROKE_SCORE {
                continue;
            }
            if let Some(t) = popup(m, start - 1500, start + 800) {
                start = t;
            }
        }
        let secs = (end - start) as f64 / 1000.0;
        if !(MIN_RIDE_S..=MAX_RIDE_S).contains(&secs) {
            continue;
        }
        let mean = run.iter().map(|p| p.s).sum::<f64>() / run.len() as f64 * 3.6;
        let distance = if run.len() >= 2 {
            path
        } else {
            mean / 3.6 * secs
        };
        d.rides.push(Ride {
            start_ms: start,
            end_ms: end,
            distance_m: (distance * 10.0).round() / 10.0,
            top_speed_kmh: (top * 10.0).round() / 10.0,
            mean_speed_kmh: (mean * 10.0).round() / 10.0,
        });
    }
    d.activity = activity(&pts, &d.rides);
    d
}

fn activity(pts: &[P], rides: &[Ride]) -> Activity {
    let mut a = Activity::default();
    for (i, p) in pts.iter().enumerate() {
        let dt = pts
            .get(i + 1)
            .map(|n| ((n.t - p.t) as f64 / 1000.0).min(2.0))
            .unwrap_or(1.0);
        if rides.iter().any(|r| (r.start_ms..=r.end_ms).contains(&p.t)) {
            a.riding_s += dt;
        } else if p.s * 3.6 >= 1.8 {
            a.paddling_s += dt;
        } else {
            a.sitting_s += dt;
        }
    }
    a.sitting_s = a.sitting_s.round();
    a.paddling_s = a.paddling_s.round();
    a.riding_s = a.riding_s.round();
    a
}

fn slice(m: &[Imu], from: i64, to: i64) -> &[Imu] {
    let a = m.partition_point(|s| s.t < from);
    let b = m.partition_point(|s| s.t <= to);
    &m[a..b.max(a)]
}

/// How rhythmic the wrist is over `[from, to]`: for any axis (mean removed) and any period
/// `T` of 0.6–1.4 s, half the normalised autocorrelation at `T` less the one at `T/2`.
/// Paddling strokes give 0.7 or more; riding (whose turns swing slower), sitting and falling
/// stay near 0 or below.
pub fn stroke_score(m: &[Imu], from: i64, to: i64) -> f64 {
    let w = slice(m, from, to);
    if w.len() < 16 {
        return 0.0;
    }
    let span_ms = (w[w.len() - 1].t - w[0].t).max(1) as f64;
    let hz = (w.len() - 1) as f64 * 1000.0 / span_ms;
    let axes: [Vec<f64>; 3] = [
        w.iter().map(|s| f64::from(s.ax)).collect(),
        w.iter().map(|s| f64::from(s.ay)).collect(),
        w.iter().map(|s| f64::from(s.az)).collect(),
    ];
    let lag_lo = (0.6 * hz).round() as usize;
    let lag_hi = (1.4 * hz).round() as usize;
    let step = ((0.05 * hz).round() as usize).max(1);
    let mut best = 0.0f64;
    for mut v in axes {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter_mut().for_each(|x| *x -= mean);
        let var: f64 = v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64;
        if var < 0.05 {
            continue;
        }
        let ac = |lag: usize| -> f64 {
            let n = v.len() - lag;
            (0..n).map(|i| v[i] * v[i + lag]).sum::<f64>() / n as f64 / var
        };
        let mut lag = lag_lo.max(2);
        while lag <= lag_hi && lag + 8 < v.len() {
            // A rhythm of period `lag` is in phase a period later and out of phase half a
            // period later; a slow swing (turns, swell) is in phase at both.
            best = best.max((ac(lag) - ac(lag / 2)) / 2.0);
            lag += step;
        }
    }
    best
}

/// The pop-up: the first reading in `[from, to]` whose acceleration exceeds gravity by
/// [`POPUP_MPS2`], less the ≈ 60 ms the burst takes to get there.
fn popup(m: &[Imu], from: i64, to: i64) -> Option<i64> {
    slice(m, from, to)
        .iter()
        .find(|s| {
            let a = (f64::from(s.ax).powi(2) + f64::from(s.ay).powi(2) + f64::from(s.az).powi(2))
                .sqrt();
            a - G > POPUP_MPS2
        })
        .map(|s| s.t - 60)
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
        assert!(sc.recall() >= 0.95 && sc.precision() >= 0.95, "{sc:?}");
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
