//! Step 1: the fixes kept, in metres east and north of the session's first fix.

use super::{
    GAP_FACTOR, GAP_MIN_MS, MAX_ACCURACY_M, MAX_SPEED_KMH, REACQUIRE_M, SLACK_M, SPIKE_M, VMAX_MPS,
};
use crate::domain::wearable::samples::GpsFix;

/// A kept fix: Unix ms, metres east and north of the origin.
#[derive(Clone, Copy, Debug)]
pub struct Fx {
    pub t: i64,
    pub x: f64,
    pub y: f64,
}

impl Fx {
    pub fn p(&self) -> (f64, f64) {
        (self.x, self.y)
    }
}

pub fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

fn reach(dt_ms: i64) -> f64 {
    VMAX_MPS * dt_ms as f64 / 1000.0 + SLACK_M
}

/// The local plane: the session's first fix and metres per degree of longitude there.
#[derive(Clone, Copy, Debug)]
pub struct Origin {
    pub lat: f64,
    pub lon: f64,
    pub kx: f64,
    pub t: i64,
}

impl Origin {
    pub fn new(f: &GpsFix) -> Origin {
        Origin {
            lat: f.lat,
            lon: f.lon,
            kx: 111_320.0 * f.lat.to_radians().cos(),
            t: f.t,
        }
    }

    fn xy(&self, f: &GpsFix) -> Fx {
        Fx {
            t: f.t,
            x: (f.lon - self.lon) * self.kx,
            y: (f.lat - self.lat) * 111_320.0,
        }
    }
}

/// Fixes dropped, counted for the block's core only (its margins are another block's core).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rejected {
    pub inaccurate: usize,
    pub spikes: usize,
}

/// The interval beyond which a pause in the track is a dropout: [`GAP_FACTOR`] × the median
/// interval between fixes, at least [`GAP_MIN_MS`].
pub fn gap_threshold<'a>(fixes: impl Iterator<Item = &'a GpsFix>) -> i64 {
    let mut last: Option<i64> = None;
    let mut iv: Vec<i64> = Vec::new();
    for f in fixes {
        if let Some(p) = last.filter(|&p| f.t > p) {
            iv.push(f.t - p);
        }
        last = Some(last.map_or(f.t, |p| p.max(f.t)));
    }
    if iv.is_empty() {
        return GAP_MIN_MS;
    }
    let mid = iv.len() / 2;
    let (_, m, _) = iv.select_nth_unstable(mid);
    ((*m as f64 * GAP_FACTOR) as i64).max(GAP_MIN_MS)
}

/// Drops imprecise fixes, those whose receiver speed is impossible, physics outliers,
/// unconfirmed fixes after a gap and spikes; counts those in `core`.
pub fn clean(
    fixes: &[GpsFix],
    o: &Origin,
    gap_ms: i64,
    core: (i64, i64),
    rej: &mut Rejected,
) -> Vec<Fx> {
    let in_core = |t: i64| (core.0..core.1).contains(&t);
    let mut raw: Vec<Fx> = Vec::with_capacity(fixes.len());
    let mut prev: Option<&GpsFix> = None;
    for f in fixes {
        // The very position of the fix before: a receiver without a solution repeating its
        // last one (noise of metres never lands twice on the same centimetre). Read as a gap,
        // not as a stop.
        let repeat = prev.is_some_and(|p| p.lat == f.lat && p.lon == f.lon);
        prev = Some(f);
        if repeat {
            continue;
        }
        if f.accuracy.is_some_and(|a| a > MAX_ACCURACY_M) {
            rej.inaccurate += usize::from(in_core(f.t));
        } else if f.speed.is_some_and(|v| v * 3.6 > MAX_SPEED_KMH) {
            rej.spikes += usize::from(in_core(f.t));
        } else if raw.last().is_none_or(|p| f.t > p.t) {
            raw.push(o.xy(f));
        }
    }
    let mut kept: Vec<Fx> = Vec::with_capacity(raw.len());
    for i in 0..raw.len() {
        let c = raw[i];
        let next = raw.get(i + 1);
        if let Some(&p) = kept.last() {
            let far = dist(p.p(), c.p()) > reach(c.t - p.t);
            let confirmed = next.is_some_and(|n| dist(c.p(), n.p()) <= reach(n.t - c.t));
            let skips = next.is_some_and(|n| dist(p.p(), n.p()) <= reach(n.t - p.t));
            if far && (!confirmed || skips) {
                rej.spikes += usize::from(in_core(c.t));
                continue;
            }
            // The first fix after a gap, not confirmed by the one after it.
            if c.t - p.t > gap_ms
                && let Some(n) = next
                && n.t - c.t <= gap_ms
                && dist(c.p(), n.p()) > REACQUIRE_M + 9.0 * (n.t - c.t) as f64 / 1000.0
                && dist(p.p(), n.p()) <= reach(n.t - p.t)
            {
                rej.spikes += usize::from(in_core(c.t));
                continue;
            }
        }
        kept.push(c);
    }
    // A fix far from where its neighbours put it (the median of two fixes either side, all
    // within a few seconds): a spike the speed bound let through.
    let mut out: Vec<Fx> = Vec::with_capacity(kept.len());
    for i in 0..kept.len() {
        if i >= 2 && i + 2 < kept.len() && kept[i + 2].t - kept[i - 2].t <= 4 * gap_ms.min(3000) {
            let med = |v: [f64; 4]| {
                let mut v = v;
                v.sort_by(f64::total_cmp);
                (v[1] + v[2]) / 2.0
            };
            let n = [kept[i - 2], kept[i - 1], kept[i + 1], kept[i + 2]];
            let mx = med(n.map(|f| f.x));
            let my = med(n.map(|f| f.y));
            if dist(kept[i].p(), (mx, my)) > SPIKE_M {
                rej.spikes += usize::from(in_core(kept[i].t));
                continue;
            }
        }
        out.push(kept[i]);
    }
    out
}
