//! A generator of realistic labelled surf sessions, deterministic for a seed: the ground truth
//! for the detector's tests and for its benchmark (`bench/src/bin/bench_wearable.rs`), which
//! share this one generator.
//!
//! A session is simulated at 10 Hz: sitting (drifting with the current), paddling (strokes near
//! 1 Hz, 2.5–4.7 km/h), paddling for a wave (up to 5.4–7.9 km/h), rides (takeoff to kick-out,
//! log-normal duration with a median of 9 s and a mean near 11 s, clipped to 1–45 s, peaks of
//! 14–32 km/h, 10–16 km/h for rides under 3 s, speed and heading swinging with the turns),
//! the fall or kick-out, and paddling back out with duck dives. Waves paddled for but missed
//! (40% of attempts) never pass 8 km/h, except whitewater pushes (one miss in ten), which reach
//! 8–9 km/h for up to 1.5 s lying on the board: hard negatives.
//!
//! The watch then sees it through realistic faults: GPS at 1 Hz with a slowly wandering
//! position error (AR(1), 2.5 m rms per axis), Doppler speed noise (0.12 m/s, 0.5 m/s in
//! degraded epochs), no fix during duck dives and random dropouts of 3–12 s (rides included),
//! imprecise fixes (1%, 25–80 m accuracy), position spikes the receiver does not flag (0.3%,
//! 40–300 m jumps, half with absurd speeds) and Doppler glitches at rest (0.2%). Heart rate at
//! 1 Hz. IMU (optional) on the wrist: the stroke rhythm while paddling, board chatter and turn
//! forces while riding, the pop-up burst at takeoff and the fall's burst.
//!
//! Labels are the true ride windows (takeoff to kick-out), what a coach marks from video.

use super::samples::{GpsFix, HeartRate, Imu, Samples};

/// SplitMix64: small, fast, and the same sequence on every platform and release.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5EED_CAFE_F00D_1234)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.f()
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.f() < p
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.f().max(1e-12);
        let v = self.f();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// Session length in seconds.
    pub duration_s: f64,
    /// IMU rate (0: none).
    pub imu_hz: u32,
    /// Watch clock of the first sample, Unix ms.
    pub start_ms: i64,
    /// Where (degrees).
    pub lat: f64,
    pub lon: f64,
    /// Fault rates scale (1.0: the rates above; 0.0: a clean signal).
    pub faults: f64,
}

impl Options {
    pub fn new(seed: u64, duration_s: f64, imu_hz: u32) -> Options {
        Options {
            seed,
            duration_s,
            imu_hz,
            start_ms: 1_767_254_400_000 + (seed % 1000) as i64 * 86_400_000,
            lat: -33.8915,
            lon: 151.2767,
            faults: 1.0,
        }
    }
}

/// A generated session: the samples and the true ride windows (Unix ms, watch clock).
#[derive(Clone, Debug)]
pub struct Session {
    pub samples: Samples,
    pub rides: Vec<(i64, i64)>,
    /// Waves paddled for but not caught (start, end of the attempt).
    pub missed: Vec<(i64, i64)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    Sit,
    Paddle,
    Attempt,
    Push,
    Ride,
    Fall,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    act: Act,
    dur: f64,
    /// Target speed (m/s) or peak.
    speed: f64,
    heading: f64,
    /// Duck dives (GPS lost) while paddling out.
    ducks: bool,
}

const TICK: f64 = 0.1;

fn plan(r: &mut Rng, duration: f64, shore: f64) -> Vec<Seg> {
    let mut segs = Vec::new();
    let mut t = 0.0;
    let seg = |act, dur, speed, heading, ducks| Seg {
        act,
        dur,
        speed,
        heading,
        ducks,
    };
    // Paddle out first.
    let d = r.range(60.0, 180.0);
    segs.push(seg(
        Act::Paddle,
        d,
        r.range(0.9, 1.3),
        shore + std::f64::consts::PI,
        true,
    ));
    t += d;
    while t < duration - 120.0 {
        let d = r.range(20.0, 150.0);
        segs.push(seg(
            Act::Sit,
            d,
            r.range(0.05, 0.35),
            r.range(0.0, std::f64::consts::TAU),
            false,
        ));
        t += d;
        if r.chance(0.35) {
            let d = r.range(5.0, 30.0);
            segs.push(seg(
                Act::Paddle,
                d,
                r.range(0.7, 1.2),
                r.range(0.0, std::f64::consts::TAU),
                false,
            ));
            t += d;
        }
        let caught = r.chance(0.6);
        let d = r.range(3.0, 7.0);
        let heading = shore + r.range(-0.2, 0.2);
        let peak = if caught { 2.0 } else { r.range(1.5, 2.2) };
        segs.push(seg(Act::Attempt, d, peak, heading, false));
        t += d;
        if caught {
            // Log-normal: median 9 s, sigma 0.6 (mean ≈ 10.8 s), clipped to 1–45 s.
            let dur = (9.0f64.ln() + 0.6 * r.normal()).exp().clamp(1.0, 45.0);
            let peak = if dur < 3.0 {
                r.range(2.8, 4.5)
            } else {
                r.range(3.9, 8.9)
            };
            let side = if r.chance(0.5) { 1.0 } else { -1.0 };
            let heading = shore + side * r.range(0.5, 1.4);
            segs.push(seg(Act::Ride, dur, peak, heading, false));
            segs.push(seg(Act::Fall, r.range(2.0, 3.5), 0.3, heading, false));
            let d = r.range(40.0, 200.0);
            segs.push(seg(
                Act::Paddle,
                d,
                r.range(0.9, 1.3),
                shore + std::f64::consts::PI,
                true,
            ));
            t += dur + d + 3.0;
        } else if r.chance(0.1) {
            let d = r.range(0.5, 1.5);
            segs.push(seg(Act::Push, d, r.range(2.25, 2.5), heading, false));
            segs.push(seg(Act::Fall, 2.0, 0.3, heading, false));
            let d2 = r.range(20.0, 60.0);
            segs.push(seg(
                Act::Paddle,
                d2,
                r.range(0.9, 1.3),
                shore + std::f64::consts::PI,
                true,
            ));
            t += d + 2.0 + d2;
        }
    }
    let rest = (duration - t).max(10.0);
    segs.push(seg(Act::Sit, rest, 0.2, 0.0, false));
    segs
}

/// The true state at each 10 Hz tick.
#[derive(Clone, Copy, Debug)]
struct Truth {
    act: Act,
    /// Seconds into the segment.
    tau: f64,
    x: f64,
    y: f64,
    v: f64,
    turn_rate: f64,
    stroke_phase: f64,
    /// GPS lost (duck dive).
    under: bool,
}

pub fn generate(o: &Options) -> Session {
    let mut r = Rng::new(o.seed);
    let shore = r.range(0.0, std::f64::consts::TAU);
    let segs = plan(&mut r, o.duration_s, shore);
    let mut truth: Vec<Truth> = Vec::new();
    let mut rides = Vec::new();
    let mut missed = Vec::new();
    let (mut x, mut y, mut v, mut phase) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (idx, s) in segs.iter().enumerate() {
        let n = (s.dur / TICK).round().max(1.0) as usize;
        let t0 = truth.len() as f64 * TICK;
        let t0_ms = o.start_ms + (t0 * 1000.0).round() as i64;
        let t1_ms = o.start_ms + ((t0 + n as f64 * TICK) * 1000.0).round() as i64;
        if s.act == Act::Ride {
            rides.push((t0_ms, t1_ms));
        }
        if s.act == Act::Attempt && segs.get(idx + 1).map(|n| n.act) != Some(Act::Ride) {
            missed.push((t0_ms, t1_ms));
        }
        let stroke_hz = match s.act {
            Act::Attempt => r.range(1.1, 1.3),
            _ => r.range(0.8, 1.0),
        };
        let turn_hz = r.range(0.25, 0.5);
        let turn_amp = r.range(0.3, 0.7);
        let mut next_duck = r.range(10.0, 30.0);
        let mut duck_left = 0.0f64;
        for i in 0..n {
            let tau = i as f64 * TICK;
            let target = match s.act {
                Act::Sit => s.speed,
                Act::Paddle => s.speed * (1.0 + 0.12 * (phase).sin()),
                Act::Attempt => 1.0 + (s.speed - 1.0) * (tau / s.dur).min(1.0),
                Act::Push => s.speed,
                Act::Ride => {
                    let rise = (tau / 0.8).min(1.0);
                    let swing = 1.0 + 0.15 * (std::f64::consts::TAU * turn_hz * tau).sin();
                    2.0 + (s.speed - 2.0) * rise * swing
                }
                Act::Fall => 0.3,
            };
            let k = match s.act {
                Act::Ride => 0.5,
                Act::Fall => 0.25,
                _ => 0.2,
            };
            v += (target - v) * k;
            let mut turn_rate = 0.0;
            let heading = match s.act {
                Act::Ride => {
                    let w = std::f64::consts::TAU * turn_hz;
                    turn_rate = turn_amp * w * (w * tau).cos();
                    s.heading + turn_amp * (w * tau).sin()
                }
                Act::Sit => s.heading + 0.3 * (0.05 * tau).sin(),
                _ => s.heading,
            };
            x += v * heading.sin() * TICK;
            y += v * heading.cos() * TICK;
            phase += std::f64::consts::TAU * stroke_hz * TICK;
            let mut under = false;
            if s.ducks && o.faults > 0.0 {
                if duck_left > 0.0 {
                    duck_left -= TICK;
                    under = true;
                } else if tau >= next_duck {
                    duck_left = r.range(2.0, 5.0);
                    next_duck = tau + duck_left + r.range(15.0, 40.0);
                    under = true;
                }
            }
            truth.push(Truth {
                act: s.act,
                tau,
                x,
                y,
                v,
                turn_rate,
                stroke_phase: phase,
                under,
            });
        }
    }
    let mut samples = Samples::default();
    gps_from(&mut r, o, &truth, &mut samples.gps);
    hr_from(&mut r, o, &truth, &mut samples.hr);
    if o.imu_hz > 0 {
        imu_from(&mut r, o, &truth, &mut samples.imu);
    }
    Session {
        samples,
        rides,
        missed,
    }
}

fn to_latlon(o: &Options, x: f64, y: f64) -> (f64, f64) {
    let lat = o.lat + y / 111_320.0;
    let lon = o.lon + x / (111_320.0 * o.lat.to_radians().cos());
    (lat, lon)
}

fn gps_from(r: &mut Rng, o: &Options, truth: &[Truth], out: &mut Vec<GpsFix>) {
    let f = o.faults;
    let (mut ex, mut ey) = (0.0f64, 0.0f64);
    let rho: f64 = 0.95;
    let sigma = 2.5 * (1.0 - rho * rho).sqrt() * f.min(1.0);
    let mut gap_left = 0i64;
    let secs = (truth.len() as f64 * TICK) as usize;
    for sec in 0..secs {
        let tr = truth[(sec * 10).min(truth.len() - 1)];
        ex = rho * ex + sigma * r.normal();
        ey = rho * ey + sigma * r.normal();
        let t = o.start_ms + sec as i64 * 1000 + (r.range(0.0, 20.0) as i64);
        if gap_left > 0 {
            gap_left -= 1;
            continue;
        }
        if r.chance(0.003 * f) {
            gap_left = r.range(3.0, 12.0) as i64;
            continue;
        }
        if tr.under {
            continue;
        }
        let wet = matches!(tr.act, Act::Paddle | Act::Attempt | Act::Push);
        let mut acc = if wet {
            r.range(4.0, 9.0)
        } else {
            r.range(3.0, 6.0)
        };
        let degraded = r.chance(0.02 * f);
        let sn = if degraded { 0.5 } else { 0.12 } * f.min(1.0);
        let mut speed = (tr.v + sn * r.normal()).abs();
        let (mut px, mut py) = (tr.x + ex, tr.y + ey);
        if r.chance(0.01 * f) {
            // An imprecise fix, and the receiver says so.
            acc = r.range(25.0, 80.0);
            px += acc * 0.7 * r.normal();
            py += acc * 0.7 * r.normal();
            speed = (tr.v + 1.5 * r.normal()).abs();
        } else if r.chance(0.003 * f) {
            // A spike the receiver does not flag.
            let d = r.range(40.0, 300.0);
            let a = r.range(0.0, std::f64::consts::TAU);
            px += d * a.sin();
            py += d * a.cos();
            if r.chance(0.5) {
                speed = r.range(2.8, 25.0);
            }
        } else if tr.act == Act::Sit && r.chance(0.002 * f) {
            // A Doppler glitch at rest.
            speed = r.range(2.5, 6.0);
        }
        let (lat, lon) = to_latlon(o, px, py);
        out.push(GpsFix {
            t,
            lat,
            lon,
            speed: Some(speed),
            accuracy: Some(acc),
        });
    }
}

fn hr_from(r: &mut Rng, o: &Options, truth: &[Truth], out: &mut Vec<HeartRate>) {
    let mut hr = 95.0f64;
    for (i, tr) in truth.iter().enumerate() {
        let target = match tr.act {
            Act::Sit => 100.0,
            Act::Paddle => 145.0,
            Act::Attempt | Act::Push => 160.0,
            Act::Ride | Act::Fall => 168.0,
        };
        hr += (target - hr) * 0.01;
        if i % 10 == 0 && !(tr.under && r.chance(0.5)) {
            out.push(HeartRate {
                t: o.start_ms + (i as i64) * 100,
                bpm: (hr + 2.0 * r.normal()).round().clamp(40.0, 220.0) as u16,
            });
        }
    }
}

fn imu_from(r: &mut Rng, o: &Options, truth: &[Truth], out: &mut Vec<Imu>) {
    const G: f64 = 9.81;
    let hz = f64::from(o.imu_hz);
    let n = (truth.len() as f64 * TICK * hz) as usize;
    let bob = r.range(0.08, 0.15);
    let mut fall_kick = (0.0f64, 0.0f64, 0.0f64);
    out.reserve(n);
    for k in 0..n {
        let ts = k as f64 / hz;
        let tr = truth[((ts / TICK) as usize).min(truth.len() - 1)];
        let tau = tr.tau + (ts - (ts / TICK).floor() * TICK);
        let nz = |r: &mut Rng, s: f64| s * r.normal();
        let (ax, ay, az) = match tr.act {
            Act::Sit => {
                let w = (std::f64::consts::TAU * bob * ts).sin();
                (
                    0.3 * w + nz(r, 0.08),
                    nz(r, 0.08),
                    G + 0.4 * w + nz(r, 0.08),
                )
            }
            Act::Paddle | Act::Attempt => {
                let a = if tr.act == Act::Attempt { 7.0 } else { 5.0 };
                let p = tr.stroke_phase + (ts % TICK) * 6.0;
                (
                    a * p.sin() + nz(r, 0.3),
                    0.5 * a * p.cos() + nz(r, 0.3),
                    G * (0.6 * p.sin()).cos() + nz(r, 0.3),
                )
            }
            Act::Push => (nz(r, 1.5), nz(r, 1.5), G + nz(r, 1.5)),
            Act::Ride => {
                let lateral = tr.v * tr.turn_rate;
                let pop = if tau < 0.4 {
                    10.0 * (std::f64::consts::PI * tau / 0.4).sin()
                } else {
                    0.0
                };
                (
                    0.6 * pop + nz(r, 1.0),
                    lateral + nz(r, 1.0),
                    G + pop + nz(r, 1.5),
                )
            }
            Act::Fall => {
                if tau < TICK {
                    fall_kick = (r.normal() * 6.0, r.normal() * 6.0, r.normal() * 6.0);
                }
                let e = (-tau / 0.3).exp();
                (
                    fall_kick.0 * e + nz(r, 0.3),
                    fall_kick.1 * e + nz(r, 0.3),
                    G + fall_kick.2 * e + nz(r, 0.3),
                )
            }
        };
        out.push(Imu {
            t: o.start_ms + (ts * 1000.0).round() as i64,
            ax: ax as f32,
            ay: ay as f32,
            az: az as f32,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_session() {
        let a = generate(&Options::new(7, 900.0, 25));
        let b = generate(&Options::new(7, 900.0, 25));
        assert_eq!(a.rides, b.rides);
        assert_eq!(a.samples, b.samples);
        let c = generate(&Options::new(8, 900.0, 25));
        assert_ne!(a.rides, c.rides);
    }

    #[test]
    fn rides_look_like_published_surfing() {
        let mut durations = Vec::new();
        for seed in 0..20 {
            let s = generate(&Options::new(seed, 3600.0, 0));
            for (a, b) in s.rides {
                durations.push((b - a) as f64 / 1000.0);
            }
            assert!(!s.samples.gps.is_empty() && !s.samples.hr.is_empty());
        }
        let mean = durations.iter().sum::<f64>() / durations.len() as f64;
        assert!(durations.len() > 150, "{} rides", durations.len());
        assert!((9.0..13.0).contains(&mean), "mean ride {mean:.1} s");
        assert!(durations.iter().all(|d| (1.0..=45.1).contains(d)));
    }
}
