//! What the wrist's accelerometer adds: a paddling rhythm and the pop-up.

use super::{G, POPUP_MPS2};
use crate::domain::wearable::samples::Imu;

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
pub fn popup(m: &[Imu], from: i64, to: i64) -> Option<i64> {
    slice(m, from, to)
        .iter()
        .find(|s| {
            let a = (f64::from(s.ax).powi(2) + f64::from(s.ay).powi(2) + f64::from(s.az).powi(2))
                .sqrt();
            a - G > POPUP_MPS2
        })
        .map(|s| s.t - 60)
}
