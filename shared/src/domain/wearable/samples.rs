//! Watch samples: GPS fixes (about 1 Hz), heart rate, and optionally IMU acceleration (up to
//! 100 Hz). Times are Unix milliseconds of the watch's clock. On the wire samples travel
//! columnar (`{"t": [...], "lat": [...], ...}`), which is compact and needs no per-sample keys.

pub use crate::model::wearable::Stream;

use serde::{Deserialize, Serialize};

/// The largest IMU rate accepted (samples per second).
pub const MAX_IMU_HZ: i64 = 100;

/// One GPS fix. `speed` is the receiver's (Doppler) speed over ground in m/s, `accuracy` its
/// estimated horizontal error in metres; either may be missing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpsFix {
    pub t: i64,
    pub lat: f64,
    pub lon: f64,
    pub speed: Option<f64>,
    pub accuracy: Option<f64>,
}

/// One heart-rate reading, beats per minute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeartRate {
    pub t: i64,
    pub bpm: u16,
}

/// One accelerometer reading in m/s² (gravity included), the watch's own axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Imu {
    pub t: i64,
    pub ax: f32,
    pub ay: f32,
    pub az: f32,
}

/// A session's samples, each stream in time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    pub gps: Vec<GpsFix>,
    pub hr: Vec<HeartRate>,
    pub imu: Vec<Imu>,
}

impl Samples {
    pub fn len(&self) -> usize {
        self.gps.len() + self.hr.len() + self.imu.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sorts every stream by time and drops repeated times (a live batch sent twice).
    pub fn normalise(&mut self) {
        self.gps.sort_by_key(|s| s.t);
        self.gps.dedup_by_key(|s| s.t);
        self.hr.sort_by_key(|s| s.t);
        self.hr.dedup_by_key(|s| s.t);
        self.imu.sort_by_key(|s| s.t);
        self.imu.dedup_by_key(|s| s.t);
    }

    /// The first and last sample time over every stream.
    pub fn span(&self) -> Option<(i64, i64)> {
        let firsts = [
            self.gps.first().map(|s| s.t),
            self.hr.first().map(|s| s.t),
            self.imu.first().map(|s| s.t),
        ];
        let lasts = [
            self.gps.last().map(|s| s.t),
            self.hr.last().map(|s| s.t),
            self.imu.last().map(|s| s.t),
        ];
        let a = firsts.into_iter().flatten().min()?;
        let b = lasts.into_iter().flatten().max()?;
        Some((a, b))
    }
}

/// GPS fixes, columnar. `speed` and `accuracy` may be absent, or hold nulls.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GpsColumns {
    /// Unix milliseconds.
    pub t: Vec<i64>,
    /// Degrees, WGS 84.
    pub lat: Vec<f64>,
    pub lon: Vec<f64>,
    /// m/s over ground.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Vec<Option<f64>>>,
    /// Estimated horizontal error, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<Vec<Option<f64>>>,
}

/// Heart rate, columnar.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HrColumns {
    pub t: Vec<i64>,
    pub bpm: Vec<u16>,
}

/// Accelerometer readings, columnar, m/s².
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImuColumns {
    pub t: Vec<i64>,
    pub ax: Vec<f32>,
    pub ay: Vec<f32>,
    pub az: Vec<f32>,
}

/// Samples as they travel in a JSON body or answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SampleColumns {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gps: Option<GpsColumns>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hr: Option<HrColumns>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imu: Option<ImuColumns>,
}

/// Why a sample is refused: the field (`samples.gps.lat[3]`) and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleError {
    pub field: String,
    pub message: String,
}

fn err(field: String, message: impl Into<String>) -> SampleError {
    SampleError {
        field,
        message: message.into(),
    }
}

/// Plausible ranges; anything outside is refused, never stored. The times are
/// `times::TimeKind::Recorded`'s range, as constants because every sample is checked (a unit
/// test keeps the two equal).
const MIN_T: i64 = 946_684_800_000; // 2000-01-01
const MAX_T: i64 = 4_102_444_800_000; // 2100-01-01

fn time_ok(t: i64) -> bool {
    (MIN_T..MAX_T).contains(&t)
}

impl SampleColumns {
    /// Checks every column (equal lengths, ranges, times) and turns them into samples, sorted
    /// and deduplicated. All errors are reported, at most 20.
    pub fn into_samples(self, prefix: &str) -> Result<Samples, Vec<SampleError>> {
        let mut errors = Vec::new();
        let mut out = Samples::default();
        if let Some(g) = self.gps {
            let n = g.t.len();
            let f = |c: &str| format!("{prefix}.gps.{c}");
            for (name, len) in [("lat", g.lat.len()), ("lon", g.lon.len())] {
                if len != n {
                    errors.push(err(f(name), format!("must have {n} values like t")));
                }
            }
            for (name, col) in [("speed", &g.speed), ("accuracy", &g.accuracy)] {
                if let Some(c) = col
                    && c.len() != n
                {
                    errors.push(err(f(name), format!("must have {n} values like t")));
                }
            }
            if errors.is_empty() {
                for i in 0..n {
                    let fix = GpsFix {
                        t: g.t[i],
                        lat: g.lat[i],
                        lon: g.lon[i],
                        speed: g.speed.as_ref().and_then(|s| s[i]),
                        accuracy: g.accuracy.as_ref().and_then(|s| s[i]),
                    };
                    if let Some(e) = check_fix(&fix) {
                        errors.push(err(format!("{prefix}.gps[{i}]"), e));
                    } else {
                        out.gps.push(fix);
                    }
                    if errors.len() >= 20 {
                        break;
                    }
                }
            }
        }
        if let Some(h) = self.hr {
            if h.bpm.len() != h.t.len() {
                errors.push(err(
                    format!("{prefix}.hr.bpm"),
                    format!("must have {} values like t", h.t.len()),
                ));
            } else {
                for (i, (&t, &bpm)) in h.t.iter().zip(&h.bpm).enumerate() {
                    if !time_ok(t) || !(20..=250).contains(&bpm) {
                        errors.push(err(
                            format!("{prefix}.hr[{i}]"),
                            "time must be a Unix millisecond time, bpm 20 to 250",
                        ));
                        if errors.len() >= 20 {
                            break;
                        }
                    } else {
                        out.hr.push(HeartRate { t, bpm });
                    }
                }
            }
        }
        if let Some(m) = self.imu {
            let n = m.t.len();
            if m.ax.len() != n || m.ay.len() != n || m.az.len() != n {
                errors.push(err(
                    format!("{prefix}.imu"),
                    format!("ax, ay and az must have {n} values like t"),
                ));
            } else {
                for i in 0..n {
                    let s = Imu {
                        t: m.t[i],
                        ax: m.ax[i],
                        ay: m.ay[i],
                        az: m.az[i],
                    };
                    if let Some(e) = check_imu(&s) {
                        errors.push(err(format!("{prefix}.imu[{i}]"), e));
                        if errors.len() >= 20 {
                            break;
                        }
                    } else {
                        out.imu.push(s);
                    }
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        out.normalise();
        Ok(out)
    }

    /// Samples as columns (for answers).
    pub fn from_samples(s: &Samples) -> SampleColumns {
        let gps = (!s.gps.is_empty()).then(|| GpsColumns {
            t: s.gps.iter().map(|f| f.t).collect(),
            lat: s.gps.iter().map(|f| f.lat).collect(),
            lon: s.gps.iter().map(|f| f.lon).collect(),
            speed: Some(s.gps.iter().map(|f| f.speed).collect()),
            accuracy: Some(s.gps.iter().map(|f| f.accuracy).collect()),
        });
        let hr = (!s.hr.is_empty()).then(|| HrColumns {
            t: s.hr.iter().map(|h| h.t).collect(),
            bpm: s.hr.iter().map(|h| h.bpm).collect(),
        });
        let imu = (!s.imu.is_empty()).then(|| ImuColumns {
            t: s.imu.iter().map(|m| m.t).collect(),
            ax: s.imu.iter().map(|m| m.ax).collect(),
            ay: s.imu.iter().map(|m| m.ay).collect(),
            az: s.imu.iter().map(|m| m.az).collect(),
        });
        SampleColumns { gps, hr, imu }
    }
}

/// What is wrong with a fix, if anything (the detector, not this check, drops imprecise ones).
pub fn check_fix(f: &GpsFix) -> Option<&'static str> {
    if !time_ok(f.t) {
        return Some("t must be a Unix millisecond time between 2000 and 2100");
    }
    if !(f.lat.is_finite() && (-90.0..=90.0).contains(&f.lat)) {
        return Some("lat must be between -90 and 90");
    }
    if !(f.lon.is_finite() && (-180.0..=180.0).contains(&f.lon)) {
        return Some("lon must be between -180 and 180");
    }
    if f.speed
        .is_some_and(|v| !(v.is_finite() && (0.0..=200.0).contains(&v)))
    {
        return Some("speed must be between 0 and 200 m/s");
    }
    if f.accuracy
        .is_some_and(|v| !(v.is_finite() && (0.0..=10_000.0).contains(&v)))
    {
        return Some("accuracy must be between 0 and 10000 m");
    }
    None
}

pub fn check_imu(s: &Imu) -> Option<&'static str> {
    if !time_ok(s.t) {
        return Some("t must be a Unix millisecond time between 2000 and 2100");
    }
    let ok = |v: f32| v.is_finite() && v.abs() <= 320.0;
    if !(ok(s.ax) && ok(s.ay) && ok(s.az)) {
        return Some("acceleration must be within ±320 m/s²");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_times_are_the_recorded_range() {
        let k = crate::times::TimeKind::Recorded;
        assert!(time_ok(MIN_T) && k.contains_millis(MIN_T));
        assert!(!time_ok(MIN_T - 1) && !k.contains_millis(MIN_T - 1));
        assert!(time_ok(MAX_T - 1) && k.contains_millis(MAX_T - 1));
        assert!(!time_ok(MAX_T) && !k.contains_millis(MAX_T));
    }
}
