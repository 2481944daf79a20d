//! The shoreward direction, from the track alone (no coastline data), gathered block by block
//! in memory that does not grow with the session.

use super::clean::dist;

/// Grid points kept for the line-up; beyond it every other one is dropped and the stride
/// doubles (a 1 Hz track sampled every 2 s fills it in four and a half hours).
const KEPT: usize = 8192;

/// What the blocks tell about the shore.
#[derive(Default)]
pub struct Shore {
    /// Unit directions of the fast runs, summed, and their count.
    runs: (f64, f64, f64),
    /// (speed, x, y) of grid points, every `stride`-th offered.
    points: Vec<(f64, f64, f64)>,
    stride: usize,
    offered: usize,
    /// The first and the last kept fix of the session.
    pub first: Option<(f64, f64)>,
    pub last: Option<(f64, f64)>,
}

impl Shore {
    /// A fast run from `a` to `b`.
    pub fn run(&mut self, a: (f64, f64), b: (f64, f64)) {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let m = dx.hypot(dy);
        if m > 5.0 {
            self.runs.0 += dx / m;
            self.runs.1 += dy / m;
            self.runs.2 += 1.0;
        }
    }

    /// A grid point with a known speed (m/s), for the line-up.
    pub fn point(&mut self, s: f64, p: (f64, f64)) {
        self.stride = self.stride.max(1);
        if self.offered.is_multiple_of(self.stride) {
            if self.points.len() == KEPT {
                let mut i = 0;
                self.points.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
            }
            if self.offered.is_multiple_of(self.stride) {
                self.points.push((s, p.0, p.1));
            }
        }
        self.offered += 1;
    }

    /// The shoreward unit vector (east, north), if the track shows one: from the line-up (the
    /// median position of the slowest fifth of the track, where the surfer sits) towards where
    /// the session starts and ends, when both are well away from it on the same side (the
    /// beach); else the fast runs' mean direction when they are consistent (on the whole they
    /// head inshore).
    pub fn direction(&self) -> Option<(f64, f64)> {
        let (sx, sy, n) = self.runs;
        let m = sx.hypot(sy);
        let from_runs = (n >= 3.0 && m / n > 0.3).then(|| (sx / m, sy / m));
        let (Some(a), Some(b)) = (self.first, self.last) else {
            return from_runs;
        };
        if self.points.is_empty() {
            return from_runs;
        }
        // The slowest fifth of the track (noise keeps a sitting surfer's speed above zero).
        let mut sp: Vec<f64> = self.points.iter().map(|p| p.0).collect();
        let q = sp.len() / 5;
        let slow = *sp.select_nth_unstable_by(q, f64::total_cmp).1;
        let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = self
            .points
            .iter()
            .filter(|p| p.0 <= slow && p.0 * 3.6 < 4.0)
            .map(|p| (p.1, p.2))
            .unzip();
        if xs.len() >= 20 {
            let mx = xs.len() / 2;
            let lx = *xs.select_nth_unstable_by(mx, f64::total_cmp).1;
            let ly = *ys.select_nth_unstable_by(mx, f64::total_cmp).1;
            let (ex, ey) = ((a.0 + b.0) / 2.0 - lx, (a.1 + b.1) / 2.0 - ly);
            let (da, db) = (dist(a, (lx, ly)), dist(b, (lx, ly)));
            let m = ex.hypot(ey);
            // Both ends on the same side of the line-up (the beach), well away from it.
            let same_side =
                ((a.0 - lx) * (b.0 - lx) + (a.1 - ly) * (b.1 - ly)) / (da * db).max(1.0);
            if da > 50.0 && db > 50.0 && m > 40.0 && same_side > 0.7 {
                return Some((ex / m, ey / m));
            }
        }
        from_runs
    }
}
