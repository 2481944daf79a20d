//! Steps 4 and 5 over one block of the session: candidate runs, the ride model, and the time
//! spent sitting and paddling in the block's core.

use super::clean::{Fx, dist};
use super::imu::{popup, stroke_score};
use super::shore::Shore;
use super::track::Track;
use super::*;
use crate::domain::wearable::samples::Imu;

/// A run that may hold a ride: the windows proposed for it, of which the ride model takes the
/// likeliest, judged once the whole session's shore side is known.
pub struct Candidate {
    /// The widest window's bounds (the grid points counted with the run).
    pub start: i64,
    pub end: i64,
    pub windows: Vec<Window>,
    /// Seconds of the track inside the run, and how they would count were it no ride.
    pub inside_s: f64,
    pub paddling_s: f64,
    pub sitting_s: f64,
}

/// One proposed window of a run: its bounds where the speed crosses one level.
pub struct Window {
    pub start: i64,
    pub end: i64,
    pub path: f64,
    /// The top and the mean of the speed inside it, km/h (one smoothed trace, so the top is
    /// never under the mean, as a path's length over a short window can make it).
    pub top_kmh: f64,
    pub mean_kmh: f64,
    /// Displacement (m) east and north.
    pub dx: f64,
    pub dy: f64,
    /// What the ride model reads ([`model`]); the shore feature is filled in last.
    pub x: [f64; model::NF],
}

/// What the blocks add up.
#[derive(Default)]
pub struct Totals {
    pub candidates: Vec<Candidate>,
    pub shore: Shore,
    /// Seconds outside any candidate.
    pub sitting_s: f64,
    pub paddling_s: f64,
    pub used_imu: bool,
    pub fixes: usize,
}

/// One block: the track `tr` of the kept fixes `f`, whose rides start in `core`; `last` when
/// nothing follows (a run reaching the block's end is then not cut short by it).
pub fn block(
    f: &[Fx],
    tr: &Track,
    core: (i64, i64),
    session_t0: i64,
    imu: Option<&[Imu]>,
    last: bool,
    out: &mut Totals,
) {
    let in_core = |t: i64| (core.0..core.1).contains(&t);
    out.fixes += f.iter().filter(|x| in_core(x.t)).count();
    out.shore.first.get_or_insert(f[0].p());
    out.shore.last = Some(f[f.len() - 1].p());
    out.used_imu |= imu.is_some();
    let n = tr.len();
    let (on, off) = (CANDIDATE_KMH / 3.6, OFF_KMH / 3.6);
    // 4. Runs above `off` reaching `on`, dips under a second and a half merged.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut k = 0;
    while k < n {
        if tr.s[k] <= off {
            k += 1;
            continue;
        }
        let a = k;
        while k < n && tr.s[k] > off {
            k += 1;
        }
        let b = k - 1;
        if tr.s[a..=b].iter().any(|&v| v >= on) {
            match runs.last_mut() {
                Some(last) if (a - last.1) as i64 * GRID_MS <= 1500 => last.1 = b,
                _ => runs.push((a, b)),
            }
        }
    }
    runs.retain(|&(a, _)| in_core(tr.time(a)));
    for &(a, b) in &runs {
        if tr.s[a..=b].iter().any(|&v| v >= ON_KMH / 3.6) {
            out.shore.run(tr.p(a), tr.p(b));
        }
    }
    // The line-up's sample: every fourth grid point of the session's grid.
    for k in 0..n {
        let t = tr.time(k);
        if in_core(t) && (t - session_t0).rem_euclid(4 * GRID_MS) == 0 && !tr.blind[k] {
            out.shore.point(tr.s[k], tr.p(k));
        }
    }
    let first_new = out.candidates.len();
    for (a, b) in runs {
        // A run reaching the block's end goes on beyond the margin: longer than any ride.
        if b == n - 1 && !last {
            continue;
        }
        if let Some(c) = ride(tr, a, b, imu) {
            out.candidates.push(c);
        }
    }
    activity(tr, core, first_new, out);
}

/// Step 5: the windows the run `a..=b` proposes, or none when it cannot be a ride at all (too
/// short or too long, or, with IMU, paddling strokes).
fn ride(tr: &Track, a: usize, b: usize, imu: Option<&[Imu]>) -> Option<Candidate> {
    let peak = tr.s[a..=b].iter().copied().fold(0.0, f64::max) * 3.6;
    let mut windows: Vec<Window> = Vec::new();
    for from in levels(peak) {
        for to in levels(peak) {
            for edge in [false, true] {
                if let Some(w) = window(tr, a, b, (from, to), edge, imu)
                    && windows.iter().all(|o| (o.start, o.end) != (w.start, w.end))
                {
                    windows.push(w);
                }
            }
        }
    }
    Some(Candidate {
        start: windows.iter().map(|w| w.start).min()?,
        end: windows.iter().map(|w| w.end).max()?,
        windows,
        inside_s: 0.0,
        paddling_s: 0.0,
        sitting_s: 0.0,
    })
}

/// The speeds (km/h) whose crossings bound a run's windows: one between paddling and the
/// peak, and shares of the peak ([`LEVELS`]), so that a take-off sprint or a slow straighten-out
/// either side of the ride need not be part of it.
fn levels(peak_kmh: f64) -> impl Iterator<Item = f64> {
    [(0.4 * peak_kmh + 2.0).clamp(7.5, 12.0), SLOW_LEVEL_KMH]
        .into_iter()
        .chain(
            LEVELS
                .iter()
                .map(move |f| f * peak_kmh)
                .filter(|&v| v >= 7.5),
        )
}

/// The window of the run `a..=b` starting where the speed first rises to `levels.0` (km/h) and
/// ending where it last falls below `levels.1`; with `edge`, a bound inside a dropout moves to
/// the dropout's edge within the window (the ride may have ended as the signal went, or begun
/// before it came back), and there is no such window when neither bound is in one.
fn window(
    tr: &Track,
    a: usize,
    b: usize,
    levels: (f64, f64),
    edge: bool,
    imu: Option<&[Imu]>,
) -> Option<Window> {
    let n = tr.len();
    let on = ON_KMH / 3.6;
    let peak = tr.s[a..=b].iter().copied().fold(0.0, f64::max);
    let peak_kmh = peak * 3.6;
    let (la, lb) = (levels.0 / 3.6, levels.1 / 3.6);
    let ka = (a..=b).find(|&k| tr.s[k] >= la)?;
    let kb = (a..=b).rev().find(|&k| tr.s[k] >= lb)?;
    if kb < ka {
        return None;
    }
    let mut start = if ka > 0 {
        tr.crossing(ka - 1, ka, la)
    } else {
        tr.time(ka) as f64
    }
    .round() as i64;
    let mut end = if kb + 1 < n {
        tr.crossing(kb, kb + 1, lb)
    } else {
        tr.time(kb) as f64
    }
    .round() as i64;
    if edge {
        let (ia, ib) = (tr.index(start), tr.index(end));
        if !tr.gap[ia] && !tr.gap[ib] {
            return None;
        }
        if let Some(k) = (ia..=ib).rev().find(|&k| !tr.gap[k]).filter(|_| tr.gap[ib]) {
            end = tr.time(k);
        }
        if let Some(k) = (ia..=ib).find(|&k| !tr.gap[k]).filter(|_| tr.gap[ia]) {
            start = tr.time(k);
        }
    }
    let (ka, kb) = (tr.index(start), tr.index(end));
    if kb <= ka {
        return None;
    }
    let above_on =
        tr.s[ka..=kb].iter().filter(|&&v| v >= on).count() as f64 * GRID_MS as f64 / 1000.0;
    if !(MIN_RIDE_S..=MAX_RIDE_S).contains(&((end - start) as f64 / 1000.0)) {
        return None;
    }
    if let Some(m) = imu {
        if end - start >= 1800 && stroke_score(m, start + 300, end) >= STROKE_SCORE {
            return None;
        }
        if let Some(t) = popup(m, start - 1500, start + 800) {
            start = t;
        }
    }
    let kmh = |v: Option<f64>| v.map_or(0.0, |v| v * 3.6);
    let before = kmh(tr.mean_speed(start - CONTEXT_MS.1, start - CONTEXT_MS.0));
    let after = kmh(tr.mean_speed(end + CONTEXT_MS.0, end + CONTEXT_MS.1));
    let lead_in = kmh(tr.mean_speed(start - 4000, start - 500));
    let far_before = kmh(tr.mean_speed(start - FAR_CONTEXT_MS.1, start - FAR_CONTEXT_MS.0));
    let far_after = kmh(tr.mean_speed(end + FAR_CONTEXT_MS.0, end + FAR_CONTEXT_MS.1));
    let (ia, ib) = (tr.index(start), tr.index(end));
    let (dx, dy) = (tr.x[ib] - tr.x[ia], tr.y[ib] - tr.y[ia]);
    let disp = dx.hypot(dy);
    let i0 = tr.index(start - 4000);
    let back = (tr.index(end + 4000)..=tr.index(end + 12_000))
        .filter(|&k| !tr.blind[k])
        .map(|k| dist(tr.p(i0), tr.p(k)))
        .fold(f64::INFINITY, f64::min);
    let returns = (tr.index(end + RETURN_MS.0)..=tr.index(end + RETURN_MS.1))
        .filter(|&k| !tr.blind[k])
        .map(|k| dist(tr.p(ia), tr.p(k)))
        .fold(f64::INFINITY, f64::min);
    let path: f64 = (ia..ib).map(|k| dist(tr.p(k), tr.p(k + 1))).sum();
    let secs = ((end - start) as f64 / 1000.0).max(0.1);
    let in_gap = (ia..=ib).filter(|&k| tr.gap[k]).count() as f64 / (ib - ia + 1) as f64;
    let (top, sum, known) = (ia..=ib)
        .filter(|&k| !tr.blind[k])
        .fold((0.0, 0.0, 0usize), |(t, s, n), k| {
            (f64::max(t, tr.s[k]), s + tr.s[k], n + 1)
        });
    let mut x = [0.0; model::NF];
    x[model::PEAK] = peak_kmh;
    x[model::SECS] = secs.ln();
    x[model::ABOVE_ON] = above_on;
    x[model::PATH] = path.ln_1p();
    x[model::MEAN] = path / secs * 3.6;
    x[model::BEFORE] = before;
    x[model::AFTER] = after;
    x[model::ON_FOOT] = on_foot_share(tr, start, end);
    x[model::COMES_BACK] = if disp > 8.0 {
        (back / disp).min(3.0)
    } else {
        1.0
    };
    x[model::STRAIGHT] = if path > 1.0 { disp / path } else { 0.0 };
    x[model::IN_GAP] = in_gap;
    x[model::LEAD_IN] = lead_in;
    x[model::INTERVAL] = tr.interval_s;
    x[model::START_LEVEL] = levels.0 / peak_kmh.max(1.0);
    x[model::END_LEVEL] = levels.1 / peak_kmh.max(1.0);
    let in_gap = |from: i64, to: i64| {
        let (a, b) = (tr.index(from), tr.index(to));
        (a..=b).filter(|&k| tr.gap[k]).count() as f64 / (b - a + 1) as f64
    };
    x[model::GAP_BEFORE] = in_gap(start - 4000, start);
    x[model::GAP_AFTER] = in_gap(end, end + 4000);
    x[model::FAR_BEFORE] = far_before;
    x[model::FAR_AFTER] = far_after;
    x[model::RETURNS] = if disp > 8.0 {
        (returns / disp).min(3.0)
    } else {
        1.0
    };
    Some(Window {
        start,
        end,
        path,
        top_kmh: top * 3.6,
        mean_kmh: if known > 0 {
            sum / known as f64 * 3.6
        } else {
            0.0
        },
        dx,
        dy,
        x,
    })
}

/// The share of the minute either side of a window (outside it) spent moving at a walking
/// or jogging pace ([`FOOT_PACE_KMH`]): on foot along the beach it is most of the time; in the
/// water a surfer sits, paddles slower, and rides faster.
fn on_foot_share(tr: &Track, start: i64, end: i64) -> f64 {
    let (lo, hi) = (FOOT_PACE_KMH.0 / 3.6, FOOT_PACE_KMH.1 / 3.6);
    let (mut n, mut foot) = (0usize, 0usize);
    let spans = [
        (start - FOOT_CONTEXT_MS, start - 1000),
        (end + 1000, end + FOOT_CONTEXT_MS),
    ];
    for (a, b) in spans {
        if b <= tr.t0 || a >= tr.time(tr.len() - 1) {
            continue;
        }
        for k in tr.index(a)..=tr.index(b) {
            if tr.blind[k] {
                continue;
            }
            n += 1;
            if (lo..=hi).contains(&tr.s[k]) {
                foot += 1;
            }
        }
    }
    if n < 20 { 0.0 } else { foot as f64 / n as f64 }
}

/// The core's grid points: inside a candidate window (counted with it, as riding if it passes
/// the shore test, else as it would be otherwise), paddling (≥ 1.8 km/h) or sitting.
fn activity(tr: &Track, core: (i64, i64), first_new: usize, out: &mut Totals) {
    let step = GRID_MS as f64 / 1000.0;
    // A window of the previous block may reach into this core.
    let mut r = first_new.saturating_sub(1);
    for k in 0..tr.len() {
        let t = tr.time(k);
        if tr.blind[k] || !(core.0..core.1).contains(&t) {
            continue;
        }
        while r < out.candidates.len() && out.candidates[r].end < t {
            r += 1;
        }
        let paddling = tr.s[k] * 3.6 >= 1.8;
        match out.candidates.get_mut(r).filter(|c| c.start <= t) {
            Some(c) => {
                c.inside_s += step;
                if paddling {
                    c.paddling_s += step;
                } else {
                    c.sitting_s += step;
                }
            }
            None if paddling => out.paddling_s += step,
            None => out.sitting_s += step,
        }
    }
}
