//! The watch session page's drawings, laid out by the server as SVG (readable without script,
//! numbers as attributes, never styles): the track seen from above with its rides numbered,
//! and speed and heart rate over time with the rides as bands. Display only: the speed drawn
//! is the distance covered over a few seconds (or the watch's own speed), not the detector's.

use shared::domain::wearable::samples::{GpsFix, HeartRate};

/// The track's view box.
pub const MAP_W: f64 = 480.0;
pub const MAP_H: f64 = 320.0;
/// A time chart's view box: the plot between `LEFT`..`RIGHT` and `TOP`..`BOTTOM`.
pub const CHART_W: f64 = 640.0;
pub const CHART_H: f64 = 170.0;
const LEFT: f64 = 40.0;
const RIGHT: f64 = 630.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 140.0;
const MARGIN: f64 = 14.0;
/// Points of one drawn line at most: finer than the drawing shows, and the page stays small.
const MAX_POINTS: usize = 900;
/// The window the drawn speed is measured over.
const SPEED_WINDOW_MS: i64 = 4000;
/// Faster than anyone surfs: a GPS jump, left out of the drawing.
const MAX_DRAWN_KMH: f64 = 60.0;

/// Metres in a degree of latitude.
const M_PER_DEG: f64 = 111_195.0;

/// A ride's window, in ms of the watch clock, with its number.
pub struct Window {
    pub n: i64,
    pub start_ms: i64,
    pub end_ms: i64,
}

/// The track from above (north up).
pub struct Map {
    /// The whole track: the `points` of a polyline.
    pub track: String,
    /// Each ride: its number, its polyline, and where its number sits (its start).
    pub rides: Vec<(i64, String, f64, f64)>,
    /// Metres across the drawing, for its scale note.
    pub width_m: i64,
}

fn thin<T: Copy>(v: &[T], max: usize) -> Vec<T> {
    if v.len() <= max {
        return v.to_vec();
    }
    let step = v.len().div_ceil(max);
    let mut out: Vec<T> = v.iter().step_by(step).copied().collect();
    if let Some(last) = v.last() {
        out.push(*last);
    }
    out
}

fn points(xy: impl Iterator<Item = (f64, f64)>) -> String {
    xy.map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Metres east and north of the first fix (flat earth: a surf session spans a few km at most).
fn metres(gps: &[GpsFix]) -> Vec<(i64, f64, f64)> {
    let Some(o) = gps.first() else {
        return Vec::new();
    };
    let k = M_PER_DEG;
    let cos = o.lat.to_radians().cos();
    gps.iter()
        .map(|f| (f.t, (f.lon - o.lon) * k * cos, (f.lat - o.lat) * k))
        .collect()
}

/// The map of `gps` with `rides` drawn over it; `None` without two fixes.
pub fn map(gps: &[GpsFix], rides: &[Window]) -> Option<Map> {
    let m = metres(gps);
    if m.len() < 2 {
        return None;
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(_, x, y) in &m {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    let span = ((x1 - x0) / (MAP_W - 2.0 * MARGIN))
        .max((y1 - y0) / (MAP_H - 2.0 * MARGIN))
        .max(0.05);
    // Centred, one scale for both axes (a square metre stays square); SVG's y grows down.
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let at = |x: f64, y: f64| (MAP_W / 2.0 + (x - cx) / span, MAP_H / 2.0 - (y - cy) / span);
    let track = points(thin(&m, MAX_POINTS).into_iter().map(|(_, x, y)| at(x, y)));
    let rides = rides
        .iter()
        .filter_map(|r| {
            let part: Vec<_> = m
                .iter()
                .filter(|(t, _, _)| (r.start_ms..=r.end_ms).contains(t))
                .copied()
                .collect();
            let &(_, sx, sy) = part.first()?;
            let (lx, ly) = at(sx, sy);
            Some((
                r.n,
                points(part.into_iter().map(|(_, x, y)| at(x, y))),
                lx,
                ly,
            ))
        })
        .collect();
    Some(Map {
        track,
        rides,
        width_m: (span * MAP_W).round() as i64,
    })
}

/// A value over the session's time.
pub struct TimeChart {
    /// The polyline's `points`.
    pub line: String,
    pub y_max: String,
    /// Each ride as a band: its number, x and width, and the middle of its label.
    pub bands: Vec<(i64, f64, f64, f64)>,
    /// Ticks along the time axis: x and the minutes into the session.
    pub ticks: Vec<(f64, String)>,
    /// The session's first and last instant (ms), for the page's drag-to-label script.
    pub t0: i64,
    pub t1: i64,
}

fn chart(series: &[(i64, f64)], span: (i64, i64), rides: &[Window], unit_max: f64) -> TimeChart {
    let (t0, t1) = span;
    let len = (t1 - t0).max(1) as f64;
    let x_of = |t: i64| LEFT + (RIGHT - LEFT) * (t - t0) as f64 / len;
    let hi = series
        .iter()
        .map(|&(_, v)| v)
        .fold(unit_max, f64::max)
        .ceil();
    let y_of = |v: f64| BOTTOM - (BOTTOM - TOP) * v / hi;
    let line = points(
        bucketed(series, t0, len)
            .into_iter()
            .map(|(t, v)| (x_of(t), y_of(v))),
    );
    let bands = rides
        .iter()
        .map(|r| {
            let x = x_of(r.start_ms);
            let w = (x_of(r.end_ms) - x).max(1.5);
            (r.n, x, w, x + w / 2.0)
        })
        .collect();
    let minutes = (len / 60_000.0).ceil() as i64;
    let every = [1, 2, 5, 10, 15, 30, 60]
        .into_iter()
        .find(|m| minutes / m <= 8)
        .unwrap_or(120);
    let ticks = (0..=minutes / every)
        .map(|i| {
            let m = i * every;
            (x_of(t0 + m * 60_000), m.to_string())
        })
        .filter(|(x, _)| *x <= RIGHT)
        .collect();
    TimeChart {
        line,
        y_max: format!("{hi:.0}"),
        bands,
        ticks,
        t0,
        t1,
    }
}

/// At most [`MAX_POINTS`] points: each bucket's highest value (a ride's peak survives).
fn bucketed(series: &[(i64, f64)], t0: i64, len: f64) -> Vec<(i64, f64)> {
    if series.len() <= MAX_POINTS {
        return series.to_vec();
    }
    let mut out: Vec<(i64, f64)> = Vec::with_capacity(MAX_POINTS);
    let mut bucket = usize::MAX;
    for &(t, v) in series {
        let b = ((t - t0) as f64 / len * MAX_POINTS as f64) as usize;
        match out.last_mut() {
            Some(last) if b == bucket => {
                if v > last.1 {
                    *last = (t, v);
                }
            }
            _ => {
                bucket = b;
                out.push((t, v));
            }
        }
    }
    out
}

/// Speed in km/h at each fix: the watch's own when it has one, else the distance over about
/// [`SPEED_WINDOW_MS`] around the fix; jumps faster than anyone surfs are left out.
pub fn speeds(gps: &[GpsFix]) -> Vec<(i64, f64)> {
    let m = metres(gps);
    let mut out = Vec::with_capacity(gps.len());
    let (mut lo, mut hi) = (0usize, 0usize);
    for (i, f) in gps.iter().enumerate() {
        let kmh = match f.speed {
            Some(s) => s * 3.6,
            None => {
                while m[lo].0 < f.t - SPEED_WINDOW_MS / 2 {
                    lo += 1;
                }
                hi = hi.max(i);
                while hi + 1 < m.len() && m[hi + 1].0 <= f.t + SPEED_WINDOW_MS / 2 {
                    hi += 1;
                }
                let dt = (m[hi].0 - m[lo].0) as f64 / 1000.0;
                if dt <= 0.0 {
                    continue;
                }
                let d = (m[hi].1 - m[lo].1).hypot(m[hi].2 - m[lo].2);
                d / dt * 3.6
            }
        };
        if kmh <= MAX_DRAWN_KMH {
            out.push((f.t, kmh));
        }
    }
    out
}

/// The speed chart (km/h).
pub fn speed_chart(gps: &[GpsFix], span: (i64, i64), rides: &[Window]) -> TimeChart {
    chart(&speeds(gps), span, rides, 20.0)
}

/// The heart-rate chart (beats per minute); `None` without readings.
pub fn heart_chart(hr: &[HeartRate], span: (i64, i64), rides: &[Window]) -> Option<TimeChart> {
    if hr.is_empty() {
        return None;
    }
    let series: Vec<(i64, f64)> = hr.iter().map(|h| (h.t, f64::from(h.bpm))).collect();
    Some(chart(&series, span, rides, 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(t: i64, lat: f64, lon: f64) -> GpsFix {
        GpsFix {
            t,
            lat,
            lon,
            speed: None,
            accuracy: None,
        }
    }

    #[test]
    fn speed_is_distance_over_the_window_and_jumps_are_left_out() {
        // 5 m/s due north, 1 Hz: one degree of latitude is about 111.2 km.
        let north = 5.0 / 111_195.0;
        let mut gps: Vec<GpsFix> = (0..10)
            .map(|i| fix(i * 1000, i as f64 * north, 0.0))
            .collect();
        gps.push(fix(10_000, 1.0, 0.0)); // 111 km away a second later
        let s = speeds(&gps);
        assert!(
            s.iter().take(8).all(|&(_, v)| (v - 18.0).abs() < 0.2),
            "{s:?}"
        );
        assert!(s.iter().all(|&(_, v)| v <= MAX_DRAWN_KMH), "{s:?}");
        assert!(s.len() < gps.len());
    }

    #[test]
    fn the_map_keeps_its_aspect_and_puts_rides_where_they_are() {
        // 100 m east, then 50 m north: wider than tall.
        let e = 1.0 / 111_195.0;
        let gps: Vec<GpsFix> = (0..=150)
            .map(|i| {
                let (x, y) = if i <= 100 { (i, 0) } else { (100, i - 100) };
                fix(i64::from(i) * 1000, f64::from(y) * e, f64::from(x) * e)
            })
            .collect();
        let rides = [Window {
            n: 1,
            start_ms: 100_000,
            end_ms: 150_000,
        }];
        let m = map(&gps, &rides).unwrap();
        let first: Vec<f64> = m
            .track
            .split(' ')
            .next()
            .unwrap()
            .split(',')
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(
            (first[0] - MARGIN).abs() < 0.5,
            "starts at the left edge: {first:?}"
        );
        // The ride goes north: up the drawing, from the right edge.
        let (n, line, x, y) = &m.rides[0];
        assert_eq!(*n, 1);
        assert!((x - (MAP_W - MARGIN)).abs() < 0.5, "{x}");
        let last_y: f64 = line
            .rsplit(' ')
            .next()
            .unwrap()
            .split(',')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        assert!(last_y < *y, "north is up: {last_y} < {y}");
        assert!(
            (95..=110).contains(&(m.width_m * (MAP_W as i64 - 28) / MAP_W as i64)),
            "{}",
            m.width_m
        );
    }

    #[test]
    fn a_chart_keeps_peaks_when_it_thins_and_places_ride_bands_in_time() {
        let series: Vec<(i64, f64)> = (0..5000)
            .map(|i| (i * 1000, if i == 2501 { 30.0 } else { 5.0 }))
            .collect();
        let rides = [Window {
            n: 3,
            start_ms: 2_500_000,
            end_ms: 2_510_000,
        }];
        let c = chart(&series, (0, 4_999_000), &rides, 20.0);
        assert!(c.line.split(' ').count() <= MAX_POINTS + 1);
        assert!(
            c.line.contains(&format!(",{TOP:.1}")),
            "the 30 km/h peak is drawn at the top"
        );
        assert_eq!(c.y_max, "30");
        let (n, x, w, _) = c.bands[0];
        assert_eq!(n, 3);
        assert!((x - (LEFT + RIGHT) / 2.0).abs() < 1.0, "{x}");
        assert!(w >= 1.5);
    }
}
