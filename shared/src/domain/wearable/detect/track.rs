//! Steps 2 and 3: a regular track of positions and speeds, with dropouts bridged.

use super::clean::{Fx, dist};
use super::{GAP_FACTOR, GRID_MS, MAX_BRIDGE_MS, ON_KMH, SMOOTH_MS};

/// Positions (m) and speeds (m/s) every [`GRID_MS`] from `t0`.
pub struct Track {
    pub t0: i64,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub s: Vec<f64>,
    /// Inside a gap too long to bridge: no speed known.
    pub blind: Vec<bool>,
    /// Inside any dropout, bridged or not.
    pub gap: Vec<bool>,
    /// The session's usual interval between fixes, seconds.
    pub interval_s: f64,
}

impl Track {
    pub fn len(&self) -> usize {
        self.s.len()
    }
    pub fn time(&self, k: usize) -> i64 {
        self.t0 + k as i64 * GRID_MS
    }
    pub fn index(&self, t: i64) -> usize {
        (((t - self.t0).max(0) / GRID_MS) as usize).min(self.s.len().saturating_sub(1))
    }
    pub fn p(&self, k: usize) -> (f64, f64) {
        (self.x[k], self.y[k])
    }

    /// The mean speed over `[from, to]`, if the track covers it with four known points.
    pub fn mean_speed(&self, from: i64, to: i64) -> Option<f64> {
        if to <= self.t0 || from >= self.time(self.len() - 1) {
            return None;
        }
        let (a, b) = (self.index(from), self.index(to));
        let v: Vec<f64> = (a..=b)
            .filter(|&k| !self.blind[k])
            .map(|k| self.s[k])
            .collect();
        (v.len() >= 4).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// Where the speed crosses `level` between grid points `k0` and `k1` (ms).
    pub fn crossing(&self, k0: usize, k1: usize, level: f64) -> f64 {
        let (a, b) = (self.s[k0], self.s[k1]);
        let w = if (b - a).abs() > 1e-9 {
            ((level - a) / (b - a)).clamp(0.0, 1.0)
        } else {
            0.5
        };
        self.time(k0) as f64 + w * (self.time(k1) - self.time(k0)) as f64
    }
}

/// Speed (m/s) over about two seconds ending at (`forward` false) or starting at fix `i`,
/// from fixes on that side only.
fn side_speed(f: &[Fx], i: usize, forward: bool, gap_ms: i64) -> Option<f64> {
    let mut j = i;
    loop {
        let k = if forward {
            j.checked_add(1).filter(|&k| k < f.len())?
        } else {
            j.checked_sub(1)?
        };
        if (f[k].t - f[j].t).abs() > gap_ms {
            break;
        }
        j = k;
        if (f[j].t - f[i].t).abs() >= 1800 {
            break;
        }
    }
    let dt = (f[j].t - f[i].t).abs();
    (dt >= 900).then(|| dist(f[i].p(), f[j].p()) / (dt as f64 / 1000.0))
}

/// The track of the kept fixes `f` (at least two), on the grid from `t0` (at or before the
/// first fix), with `gap_ms` the session's dropout threshold.
pub fn track(f: &[Fx], t0: i64, gap_ms: i64) -> Track {
    let t1 = f[f.len() - 1].t;
    let n = ((t1 - t0) / GRID_MS) as usize + 1;
    let mut tr = Track {
        t0,
        x: Vec::with_capacity(n),
        y: Vec::with_capacity(n),
        s: vec![0.0; n],
        blind: vec![false; n],
        gap: vec![false; n],
        interval_s: gap_ms as f64 / GAP_FACTOR / 1000.0,
    };
    let mut j = 0usize;
    for k in 0..n {
        let t = t0 + k as i64 * GRID_MS;
        while j + 1 < f.len() && f[j + 1].t <= t {
            j += 1;
        }
        let (a, b) = (f[j], f[(j + 1).min(f.len() - 1)]);
        let w = if b.t > a.t {
            ((t - a.t) as f64 / (b.t - a.t) as f64).clamp(0.0, 1.0)
        } else {
            0.0
        };
        tr.x.push(a.x + (b.x - a.x) * w);
        tr.y.push(a.y + (b.y - a.y) * w);
    }
    let h = (SMOOTH_MS / 2 / GRID_MS) as usize;
    for k in 0..n {
        let a = k.saturating_sub(h);
        let b = (k + h).min(n - 1);
        if b > a {
            let secs = (b - a) as f64 * GRID_MS as f64 / 1000.0;
            tr.s[k] = dist(tr.p(a), tr.p(b)) / secs;
        }
    }
    // Gaps: bridged, cut where the riding side's speed has covered the distance, or blind.
    let ride = ON_KMH / 3.6;
    for i in 0..f.len() - 1 {
        let (a, b) = (f[i], f[i + 1]);
        let dt = b.t - a.t;
        if dt <= gap_ms {
            continue;
        }
        let (ka, kb) = (tr.index(a.t) + 1, tr.index(b.t));
        for k in ka..kb.min(n) {
            tr.gap[k] = true;
        }
        if dt > MAX_BRIDGE_MS {
            for k in ka..kb.min(n) {
                tr.s[k] = 0.0;
                tr.blind[k] = true;
            }
            continue;
        }
        let d = dist(a.p(), b.p());
        let v_gap = d / (dt as f64 / 1000.0);
        let vb = side_speed(f, i, false, gap_ms).unwrap_or(0.0);
        let va = side_speed(f, i + 1, true, gap_ms).unwrap_or(0.0);
        for k in ka.saturating_sub(1)..kb.min(n) {
            let t = tr.time(k);
            if t <= a.t || t >= b.t {
                continue;
            }
            tr.s[k] = match (vb >= ride, va >= ride) {
                (true, true) if v_gap >= 0.4 * vb.min(va) => {
                    v_gap.max(0.5 * (vb + va).min(2.0 * v_gap))
                }
                (true, _) => {
                    if ((t - a.t) as f64 / 1000.0) < d / vb {
                        vb
                    } else {
                        0.0
                    }
                }
                (false, true) => {
                    if ((b.t - t) as f64 / 1000.0) < d / va {
                        va
                    } else {
                        0.0
                    }
                }
                (false, false) => v_gap,
            };
        }
    }
    tr
}
