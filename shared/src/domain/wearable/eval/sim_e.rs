//! The fifth simulator: surf sessions as a GPS watch records them, written without reading the
//! detector (`detect/`), its training (`train.rs`), the other four simulators' models (`sim`
//! beyond its public types `Pcg`, `Break`, `Sampling`, `Act` and `Recorded`; `sim_b`, `sim_c`,
//! `sim_d`) or the documents describing them (`docs/wearable.md`,
//! `docs/benchmarks/wearable.md`). Its author read `eval/mod.rs` (the sets, the naive baseline,
//! the scoring and the import) and `gpx.rs` (the parser the GPX must pass).
//!
//! # The water
//!
//! A spot is a straight shore in a local frame: `x` metres seaward of the mid-tide waterline,
//! `y` metres along the shore, placed on one of ten real coastlines (its seaward bearing and
//! time zone). A semidiurnal tide (amplitude 0.3–1.8 m) moves the waterline by `tide / slope`
//! and moves the take-off zone landward as it rises (at a beach by about 60 % of the
//! waterline's shift, at a reef or point by a few metres per metre of tide). A surface current
//! (up to 0.3 m/s, along the point at a point break) drifts a sitting surfer.
//!
//! Waves come in sets: a set of 3–8 waves one swell period apart (7–11 s at a beach, 10–17 s at
//! a reef or point), the middle ones the biggest, then a lull (1–7 min, log-normal) with the odd
//! smaller lone wave. A wave's speed where it breaks is the shallow-water speed
//! `c = sqrt(g · H_b / 0.78)` (a wave breaks in water about 1.3 times its height), so 2.5 m/s for
//! knee-high waves and 5.5 m/s for overhead ones; a rising tide over a bar or reef and wind chop
//! make it softer. A floating surfer moves with the swell's orbit (±0.22 H, one swell period) and
//! the chop's (2.8 s).
//!
//! # The surfer
//!
//! Drawn per session: skill (beginners mostly at beach breaks), cruising paddle speed
//! (0.8–1.5 m/s) and sprint for a wave (1.4–2.2 m/s), fitness (fatigue slows paddling by up to
//! 30 % and makes them choosier as the session goes on), eagerness, how many others share the
//! peak (a crowd lowers the chance of going for a wave and raises that of pulling back), how far
//! they let themselves drift before repositioning, and whether they jog back up a point. A
//! session lasts 45–150 min: a walk from the car park, a few minutes watching the waves, wading
//! in, paddling out with duck-dives through the impact zone, then waiting and attempting waves
//! until the planned time, often riding one last wave in, and walking back to the car.
//!
//! Going for a wave: a 3–6.5 s sprint, then one of four outcomes. Caught: the wave lifts the
//! board to nearly its own speed (1–1.5 s), the surfer pops up (0.3–0.8 s), rides. Lifted and
//! left behind: a burst to 0.7–0.95 `c` (10–15 km/h) for a second or two, then the wave passes.
//! Pulled back (someone else has it). Pearled or fell at the pop-up: a wipe-out, not a ride.
//!
//! **A ride** is the time the surfer stands on a planing board on the wave: from the completed
//! pop-up to the moment they stop standing (fall, kick out over the back and drop to the board,
//! go prone in the white water of a closing section, or step off in the shallows). Its heading
//! is the wave's direction (oblique at a point, where the swell wraps round it) plus an angle
//! across the face that grows with skill; speed is `c / cos(angle)` (the angle counted up to
//! 62°, the speed at most 41 km/h) plus the drop's boost, turns
//! swing the angle (and so the speed) every 2.5–4.5 s, and a cutback or the kick-out turns the
//! board beyond it and bleeds speed. Beach waves lose
//! speed as they run into shallower water; points have faster and slower sections. Durations are
//! log-normal: a median of 4.5 s at a beach (1.8–16 s), 11 s at a reef (3.5–35 s) and 40 s at a
//! point (10–150 s), longer for better surfers and bigger waves. The end decides what follows:
//! a kick-out leaves the surfer still behind the wave; a fall is 1.5–6 s under water, washed
//! shoreward, then climbing back on; a closing section carries them prone on the white water
//! for a few seconds at 60–80 % of the ride's speed; a straight-in ride ends wading.
//!
//! After a ride: back to the (wandering) peak at a beach, through the impact zone; round through
//! the channel at a reef; at a point, paddling back up outside the break, or, once far down the
//! point or tired, in to the beach, out of the water, a walk (4–6 km/h) or a jog (8–11 km/h) back
//! up the beach and in again at the top.
//!
//! # The watch
//!
//! A receiver computes a fix every second (at whole seconds, at a fixed fraction of a second,
//! or at an irregular rate of 0.45–2.6 s) from the wrist's position some 0.2–1.2 s earlier.
//! Its error: a wandering bias (3–8 m, drifting over 20–150 s: a first-order process smoothed
//! once more, so that it moves by centimetres to decimetres a second), white noise (0.15–0.6 m,
//! 30 % more when paddling), multipath episodes (a bias of 4–15 m for
//! 10–60 s, twice as often under a point's cliffs), rare single-fix spikes of 15–60 m, the
//! paddling arm's swing, and a jump (2–45 m, fading in about 3 s) in the first fix after a loss.
//! Under water the signal is lost, and after the wrist comes out the receiver needs a
//! reacquisition time (a make's median 1.5–4 s) before the next fix; random outages (2–30 s,
//! 3–8 an hour) come on top. Four makes filter differently: a Kalman-like position filter
//! (lag and overshoot) writing Garmin's semicircle-quantised positions and `.000` times; raw
//! fixes rounded to 5 decimals and whole-second times; an irregular-rate fused filter writing
//! milliseconds in local time; a Doppler-smoothed (carrier-smoothed) filter at a fractional
//! second. `Hz1` writes every fix, `Hz05` one every two seconds (an irregular clock: the first
//! fix 1.5 s or more after the last written), and `Smart` one when the
//! course turns by 30°, the speed changes by 1.2 m/s (or 30 %), the track leaves the line
//! predicted from the last written fix by a make's 6–10 m, or a make's 4–9 s have passed. Heart
//! rate follows effort with a lag (faster up than down), read optically about 3 s late, and is
//! written in Garmin's TrackPointExtension under `ns3:` or `gpxtpx:` (by seed).
//!
//! # Not modelled
//!
//! Other surfers' tracks, rips that carry a surfer out, board types, surfers riding prone by
//! choice (bodyboards), barometric elevation beyond a constant, cold starts of the receiver,
//! heart-rate dropouts, and the accelerometer. The only score its author looked at is the naive
//! baseline's (the ignored test `naive_baseline_on_the_fifth_model`); the detector was not run.

use super::sim::Act::{Land, Paddle, Ride, Sit, Swim};
use super::sim::{Act, Break, Pcg, Recorded, Sampling};
use chrono::{DateTime, FixedOffset};
use std::f64::consts::{PI, TAU};
use std::fmt::Write as _;

/// The truth's time step, s (100 ms).
const DT: f64 = 0.1;
const G: f64 = 9.81;
/// The semidiurnal tide's period, s.
const TIDE_PERIOD: f64 = 12.42 * 3600.0;
const M_PER_DEG: f64 = 111_320.0;

/// Coastlines: latitude, longitude, seaward bearing (degrees from north), UTC offset (hours).
const COASTS: [(f64, f64, f64, i32); 10] = [
    (38.963, -9.419, 280.0, 0),
    (43.662, -1.446, 270.0, 1),
    (-28.002, 153.432, 80.0, 10),
    (34.032, -118.679, 190.0, -8),
    (-37.801, 174.829, 290.0, 12),
    (30.544, -9.710, 250.0, 1),
    (50.418, -5.101, 300.0, 0),
    (-8.812, 115.088, 225.0, 8),
    (9.641, -85.168, 240.0, -6),
    (-34.108, 18.471, 160.0, 2),
];

fn steps(secs: f64) -> usize {
    (secs / DT).round().max(1.0) as usize
}

/// The spot's geometry, tide and current.
struct Spot {
    brk: Break,
    lat0: f64,
    lon0: f64,
    /// Seaward bearing, radians clockwise from north.
    bearing: f64,
    utc_offset_h: i32,
    /// Beach slope (rise over run).
    slope: f64,
    /// The take-off zone's distance from the mid-tide waterline, m.
    takeoff_x: f64,
    /// How far the take-off moves landward per metre of tide.
    tide_shift: f64,
    tide_amp: f64,
    tide_phase: f64,
    /// Where along the shore the surfer gets in.
    entry_y: f64,
    car: (f64, f64),
    /// A reef's deep channel (alongshore position), where surfers paddle back out.
    channel_y: f64,
    /// Surface current (seaward, alongshore), m/s.
    current: (f64, f64),
    /// How much softer a wave is at the top of the tide (0: not at all).
    tide_soften: f64,
    /// The waves' travel direction off shore-normal, toward the ride's side (radians).
    obliquity: (f64, f64),
}

impl Spot {
    fn draw(rng: &mut Pcg, brk: Break) -> Spot {
        let (lat, lon, bearing, utc) = COASTS[(rng.f() * COASTS.len() as f64) as usize];
        // Slope, take-off distance, the take-off's share of the waterline's tidal shift, how
        // much softer waves are at high tide, the waves' obliquity (rad).
        let (slope, takeoff, shift_frac, soften, obliquity) = match brk {
            Break::Beach => ((0.02, 0.05), (60.0, 140.0), 0.6, 0.15, (0.0, 0.15)),
            Break::Reef => ((0.05, 0.1), (120.0, 280.0), 0.1, 0.12, (0.1, 0.35)),
            Break::Point => ((0.04, 0.08), (70.0, 150.0), 0.2, 0.05, (0.6, 0.85)),
        };
        let slope = rng.range(slope.0, slope.1);
        let along = match brk {
            Break::Point => rng.range(0.05, 0.3),
            _ => rng.range(-0.15, 0.15),
        };
        let entry_y = match brk {
            Break::Point => -40.0,
            _ => rng.range(-120.0, 120.0),
        };
        Spot {
            brk,
            lat0: lat + rng.range(-0.004, 0.004),
            lon0: lon + rng.range(-0.004, 0.004),
            bearing: (bearing + rng.range(-10.0, 10.0)).to_radians(),
            utc_offset_h: utc,
            slope,
            takeoff_x: rng.range(takeoff.0, takeoff.1),
            tide_shift: shift_frac / slope,
            tide_amp: rng.range(0.3, 1.8),
            tide_phase: rng.range(0.0, TAU),
            entry_y,
            car: (-rng.range(60.0, 250.0), entry_y + rng.range(-100.0, 100.0)),
            channel_y: rng.range(40.0, 90.0) * if rng.chance(0.5) { 1.0 } else { -1.0 },
            current: (rng.range(-0.05, 0.05), along),
            tide_soften: soften,
            obliquity,
        }
    }

    fn tide(&self, t: f64) -> f64 {
        self.tide_amp * (TAU * t / TIDE_PERIOD + self.tide_phase).sin()
    }

    fn waterline(&self, t: f64) -> f64 {
        -self.tide(t) / self.slope
    }

    /// Where waves are caught now: landward as the tide rises, never in the shallows.
    fn takeoff(&self, t: f64) -> f64 {
        (self.takeoff_x - self.tide_shift * self.tide(t)).max(self.waterline(t) + 35.0)
    }

    /// Local metres to latitude and longitude.
    fn latlon(&self, x: f64, y: f64) -> (f64, f64) {
        let (sb, cb) = self.bearing.sin_cos();
        let east = x * sb + y * cb;
        let north = x * cb - y * sb;
        (
            self.lat0 + north / M_PER_DEG,
            self.lon0 + east / (M_PER_DEG * self.lat0.to_radians().cos()),
        )
    }
}

/// The day's swell.
struct Swell {
    /// Significant breaking height, m.
    height: f64,
    period: f64,
    /// The mean lull between sets, s.
    lull: f64,
    per_set: (f64, f64),
    /// Wind chop, 0 (glassy) to 1 (blown out).
    chop: f64,
}

impl Swell {
    fn draw(rng: &mut Pcg, brk: Break) -> Swell {
        let (period, lull, per_set) = match brk {
            Break::Beach => (rng.range(7.0, 11.0), rng.range(60.0, 180.0), (3.0, 6.0)),
            Break::Reef => (rng.range(10.0, 15.0), rng.range(120.0, 360.0), (4.0, 7.0)),
            Break::Point => (rng.range(11.0, 17.0), rng.range(150.0, 420.0), (4.0, 8.0)),
        };
        Swell {
            height: rng.lognormal(1.1, 0.4, 0.4, 2.8),
            period,
            lull,
            per_set,
            chop: rng.f().powi(2),
        }
    }
}

/// One breaking wave at the take-off: when it arrives there (s) and its size relative to the
/// day's height.
#[derive(Clone, Copy, Debug)]
struct Wave {
    t: f64,
    size: f64,
}

/// The waves of a session: sets with lulls and the odd lone wave between them.
fn waves(rng: &mut Pcg, swell: &Swell, until: f64) -> Vec<Wave> {
    let mut out = Vec::new();
    let mut t = rng.range(10.0, swell.lull);
    while t < until {
        let n = rng.range(swell.per_set.0, swell.per_set.1 + 1.0).floor();
        let mut at = t;
        for i in 0..n as usize {
            let mid = (PI * (i as f64 + 0.5) / n).sin();
            out.push(Wave {
                t: at,
                size: (0.75 + 0.45 * mid) * rng.range(0.85, 1.15),
            });
            at += swell.period * rng.range(0.9, 1.1);
        }
        let lull = swell.lull * rng.lognormal(1.0, 0.5, 0.3, 3.0);
        for _ in 0..(lull / swell.lull * rng.range(0.0, 1.6)) as usize {
            out.push(Wave {
                t: at + rng.range(0.0, lull),
                size: rng.range(0.55, 0.85),
            });
        }
        t = at + lull;
    }
    out.sort_by(|a, b| a.t.total_cmp(&b.t));
    out
}

/// The surfer of one session.
struct Surfer {
    /// 0 a beginner, 1 an expert.
    skill: f64,
    paddle: f64,
    sprint: f64,
    fitness: f64,
    eager: f64,
    crowd: f64,
    /// How far they drift from the peak before paddling back, m.
    roam: f64,
    jogs: f64,
    /// Beyond this distance down a point they walk back rather than paddle.
    walk_after: f64,
    hr_rest: f64,
    hr_max: f64,
    /// Planned time from the car park back to it, s (48–150 min: a lull at the end or an early
    /// last wave cuts it by a few minutes).
    session: f64,
}

impl Surfer {
    fn draw(rng: &mut Pcg, brk: Break) -> Surfer {
        let skill = match brk {
            Break::Beach => rng.f().powf(1.3),
            _ => rng.range(0.3, 1.0),
        };
        Surfer {
            skill,
            paddle: rng.range(0.8, 1.1) + 0.4 * skill,
            sprint: rng.range(1.4, 1.8) + 0.4 * skill,
            fitness: rng.range(0.2, 0.95),
            eager: rng.range(0.7, 1.3),
            crowd: rng.log_range(1.0, 40.0),
            roam: rng.range(8.0, 22.0),
            jogs: rng.range(0.0, 0.8),
            walk_after: rng.range(120.0, 320.0),
            hr_rest: rng.range(52.0, 72.0),
            hr_max: rng.range(172.0, 198.0),
            session: rng.range(48.0, 150.0) * 60.0,
        }
    }
}

/// The surfer's true state, every [`DT`].
#[derive(Clone, Copy, Debug)]
struct Truth {
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
    act: Act,
    /// The watch is under water.
    wet: bool,
    /// 0 (resting) to 1 (flat out), what heart rate follows.
    effort: f64,
}

/// One step's intent: the velocity aimed at (with a time constant), what the surfer is doing.
#[derive(Clone, Copy)]
struct Move {
    v: (f64, f64),
    tau: f64,
    act: Act,
    wet: bool,
    effort: f64,
}

/// Standing still (or no push).
const STILL: (f64, f64) = (0.0, 0.0);

/// A [`Move`] with the watch in the air.
fn mv(act: Act, v: (f64, f64), tau: f64, effort: f64) -> Move {
    Move {
        v,
        tau,
        act,
        wet: false,
        effort,
    }
}

impl Move {
    fn wet(mut self) -> Move {
        self.wet = true;
        self
    }
}

/// How a ride ends.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    KickOut,
    Fall,
    /// The section closes: prone on the white water.
    Closeout,
    /// Into the shallows and stepping off.
    StraightIn,
}

/// One ride's plan.
struct RidePlan {
    dur: f64,
    /// The wave's direction off shore-normal toward `side`, radians.
    alpha: f64,
    /// The angle across the face, radians.
    theta: f64,
    turn: f64,
    turn_period: f64,
    phase: f64,
    /// A cutback's start (s into the ride), if any.
    cutback: Option<f64>,
    boost: f64,
    end: End,
}

enum Outcome {
    Caught,
    LeftBehind,
    PulledBack,
    Pearled,
}

/// The surfer in the water, stepping the truth forward.
struct Surf<'a> {
    rng: Pcg,
    spot: &'a Spot,
    swell: &'a Swell,
    me: &'a Surfer,
    waves: &'a [Wave],
    /// The first wave that has not yet reached the take-off (for duck-dives).
    next_wave: usize,
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
    /// How much the surfer floats with the orbit (0 on land and standing, 1 afloat).
    bob: f64,
    /// The peak now (a beach's wanders).
    peak_y: f64,
    out: Vec<Truth>,
    rides: Vec<(usize, usize)>,
}

impl Surf<'_> {
    fn now(&self) -> f64 {
        self.out.len() as f64 * DT
    }

    /// 0 fresh to about 1 spent.
    fn tired(&self) -> f64 {
        (self.now() / self.me.session).min(1.3).powf(1.5) * (1.0 - self.me.fitness)
    }

    fn dist(&self, tx: f64, ty: f64) -> f64 {
        (tx - self.x).hypot(ty - self.y)
    }

    fn toward(&self, tx: f64, ty: f64, speed: f64) -> (f64, f64) {
        let d = self.dist(tx, ty).max(1e-6);
        (speed * (tx - self.x) / d, speed * (ty - self.y) / d)
    }

    /// The swell's and the chop's orbit: offset (x, y) and its velocity.
    fn orbit(&self, t: f64) -> (f64, f64, f64, f64) {
        let w = TAU / self.swell.period;
        let a = 0.22 * self.swell.height;
        let wc = TAU / 2.8;
        let c = 0.12 * self.swell.chop;
        let (s1, c1) = (w * t).sin_cos();
        let (s2, c2) = (wc * t + 1.3).sin_cos();
        let (s3, c3) = (1.17 * wc * t + 0.4).sin_cos();
        (
            a * s1 + c * s2,
            c * s3,
            a * w * c1 + c * wc * c2,
            1.17 * c * wc * c3,
        )
    }

    fn step(&mut self, m: Move) {
        let k = (DT / m.tau).min(1.0);
        self.vx += (m.v.0 - self.vx) * k;
        self.vy += (m.v.1 - self.vy) * k;
        self.x += self.vx * DT;
        self.y += self.vy * DT;
        let afloat = matches!(m.act, Sit | Paddle | Swim);
        self.bob += (f64::from(u8::from(afloat)) - self.bob) * DT / 1.5;
        let (ox, oy, ovx, ovy) = self.orbit(self.now());
        let b = self.bob;
        self.out.push(Truth {
            x: self.x + b * ox,
            y: self.y + b * oy,
            vx: self.vx + b * ovx,
            vy: self.vy + b * ovy,
            act: m.act,
            wet: m.wet,
            effort: m.effort,
        });
    }

    fn hold(&mut self, secs: f64, m: Move) {
        for _ in 0..steps(secs) {
            self.step(m);
        }
    }

    /// Holds a move for a random time between `lo` and `hi` seconds.
    fn hold_for(&mut self, (lo, hi): (f64, f64), m: Move) {
        let secs = self.rng.range(lo, hi);
        self.hold(secs, m);
    }

    /// A paddler's surge with each arm's stroke (about 1.4 strokes a second).
    fn stroke(&self) -> f64 {
        1.0 + 0.15 * (TAU * 1.4 * self.now()).sin()
    }

    /// Whether a wave reached the take-off during the last step.
    fn wave_passes(&mut self) -> bool {
        let now = self.now();
        let mut passed = false;
        while self.waves.get(self.next_wave).is_some_and(|w| w.t <= now) {
            self.next_wave += 1;
            passed = true;
        }
        passed
    }

    fn in_impact_zone(&self) -> bool {
        let t = self.now();
        let in_channel =
            self.spot.brk == Break::Reef && (self.y - self.spot.channel_y).abs() < 30.0;
        !in_channel
            && self.x > self.spot.waterline(t) + 12.0
            && self.x < self.spot.takeoff(t) + 10.0
    }

    /// Under a breaking wave: slow, push the board under, get pushed back, come up.
    fn duck_dive(&mut self) {
        let v = (self.vx * 0.5, self.vy * 0.5);
        self.hold_for((0.3, 0.6), mv(Paddle, v, 0.4, 0.7));
        let under = self.rng.range(1.2, 2.8) * (0.7 + 0.3 * self.swell.height);
        let push = (-self.rng.range(0.4, 1.2), 0.0);
        self.hold(under, mv(Paddle, push, 0.5, 0.75).wet());
        self.hold_for((0.6, 1.2), mv(Paddle, STILL, 0.8, 0.7));
    }

    /// Paddles to (tx, ty) at `pace` times the cruising speed, duck-diving a passing wave in the
    /// impact zone with chance `duck` (beach breaks also throw random white water at you).
    fn paddle_to(&mut self, tx: f64, ty: f64, pace: f64, duck: f64) {
        let start = self.now();
        self.wave_passes();
        while self.dist(tx, ty) > 3.0 && self.now() - start < 900.0 {
            let passes = self.wave_passes()
                || (self.spot.brk == Break::Beach
                    && self.rng.chance(DT / (2.0 * self.swell.period)));
            if passes && self.in_impact_zone() && self.rng.chance(duck) {
                self.duck_dive();
                continue;
            }
            let tired = self.tired();
            let v = self.me.paddle * pace * (1.0 - 0.3 * tired) * self.stroke();
            let (ux, uy) = self.toward(tx, ty, v);
            let cur = self.spot.current;
            let effort = 0.45 + 0.15 * pace + 0.2 * tired;
            self.step(mv(Paddle, (ux + cur.0, uy + cur.1), 1.2, effort));
        }
    }

    fn walk_to(&mut self, tx: f64, ty: f64, speed: f64, effort: f64) {
        let start = self.now();
        while self.dist(tx, ty) > 1.5 && self.now() - start < 1800.0 {
            let gait = 1.0 + 0.05 * (TAU * 1.8 * self.now()).sin();
            let v = self.toward(tx, ty, speed * gait);
            self.step(mv(Land, v, 0.7, effort));
        }
    }

    /// Wades between the shallows and the waterline, pushing or carrying the board.
    fn wade_to(&mut self, tx: f64, ty: f64) {
        let start = self.now();
        while self.dist(tx, ty) > 1.5 && self.now() - start < 300.0 {
            let pace = self.rng.range(0.5, 0.9);
            let v = self.toward(tx, ty, pace);
            self.step(mv(Swim, v, 1.0, 0.4));
        }
    }

    /// Sits at the peak until `until`, drifting, paddling back when drifted too far.
    fn sit_until(&mut self, until: f64) {
        while self.now() < until {
            let t = self.now();
            let (sx, sy) = (self.spot.takeoff(t), self.peak_y);
            if self.dist(sx, sy) > self.me.roam {
                self.paddle_to(sx, sy, 0.6, 0.0);
                continue;
            }
            let cur = self.spot.current;
            let fidget = 0.2 + 0.05 * self.tired();
            self.step(mv(Sit, (cur.0 * 0.8, cur.1 * 0.8), 1.5, fidget));
        }
    }

    fn go_chance(&self, w: &Wave) -> f64 {
        let size = if w.size > 1.0 { 0.6 } else { 0.35 };
        let crowd = 1.0 / (1.0 + self.me.crowd / (6.0 + 24.0 * self.me.skill));
        (size * crowd * (1.0 - 0.5 * self.tired()) * self.me.eager).clamp(0.02, 0.95)
    }

    /// Waits at the peak for a wave to go for (with the paddling lead it needs), or `None` once
    /// the waves up to `until` are gone.
    fn wait_for_wave(&mut self, until: f64, take_any: bool) -> Option<(Wave, f64)> {
        loop {
            let soon = self.now() + 3.0;
            let i = self.waves.partition_point(|w| w.t < soon);
            let w = *self.waves.get(i)?;
            if w.t > until {
                return None;
            }
            let lead = self.rng.range(3.0, 6.5);
            self.sit_until(w.t - lead);
            let late = self.now() > w.t - lead + 1.0;
            if !late && (take_any || self.rng.chance(self.go_chance(&w))) {
                return Some((w, lead));
            }
            // Let this wave pass before choosing the next.
            self.sit_until(w.t + 0.5);
        }
    }

    /// The wave's speed where it breaks: shallow-water speed in water 1.3 times its height,
    /// softer at the top of the tide and in chop.
    fn wave_speed(&self, w: &Wave) -> f64 {
        let shoal = match self.spot.brk {
            Break::Beach => 1.0,
            Break::Reef => 1.2,
            Break::Point => 1.1,
        };
        let hb = self.swell.height * w.size * shoal;
        let tide = self.spot.tide(self.now()) / self.spot.tide_amp.max(0.1);
        let soft = (1.0 - self.spot.tide_soften * tide) * (1.0 - 0.1 * self.swell.chop);
        let c = (G * hb / 0.78).sqrt() * soft;
        // Beginners catch the white water, slower than the face.
        if self.me.skill < 0.35 && self.spot.brk == Break::Beach {
            c * 0.85
        } else {
            c
        }
    }

    /// Which way the ride goes along the shore (a point's always down the point).
    fn ride_side(&mut self) -> f64 {
        let right = self.spot.brk == Break::Point || self.rng.chance(0.5);
        if right { 1.0 } else { -1.0 }
    }

    fn outcome(&mut self, w: &Wave, take_any: bool) -> Outcome {
        let big_for_me = self.swell.height * w.size > 1.5 && self.me.skill < 0.4;
        let catch = ((0.35 + 0.5 * self.me.skill)
            * (1.0 - 0.25 * self.tired())
            * if big_for_me { 0.7 } else { 1.0 })
        .clamp(0.1, 0.92);
        if take_any || self.rng.chance(catch) {
            return Outcome::Caught;
        }
        let crowded = self.me.crowd / (self.me.crowd + 15.0);
        let r = self.rng.f();
        if r < 0.2 + 0.4 * crowded {
            Outcome::PulledBack
        } else if r < 0.85 {
            Outcome::LeftBehind
        } else {
            Outcome::Pearled
        }
    }

    /// Sprints for a wave and lives with what happens.
    fn attempt(&mut self, w: &Wave, lead: f64, last: bool) {
        let side = self.ride_side();
        let aim = self.wave_direction() * 0.5;
        for _ in 0..steps(lead) {
            let v = self.me.sprint * (1.0 - 0.25 * self.tired()) * self.stroke();
            self.step(mv(
                Paddle,
                (-v * aim.cos(), side * v * aim.sin()),
                0.8,
                0.85,
            ));
        }
        let c = self.wave_speed(w);
        match self.outcome(w, last) {
            Outcome::Caught => {
                self.lift(c, side, aim);
                self.hold_for(
                    (0.3, 0.8),
                    mv(Paddle, self.heading_v(c, side, aim), 0.4, 0.9),
                );
                let end = self.ride(w, c, side, last);
                self.after_ride(end, c);
                if !last {
                    self.return_to_peak();
                }
            }
            Outcome::LeftBehind => {
                let burst = c * self.rng.range(0.7, 0.95);
                self.hold_for(
                    (0.8, 2.0),
                    mv(Paddle, self.heading_v(burst, side, aim), 0.45, 0.9),
                );
                self.hold_for((2.0, 4.0), mv(Paddle, STILL, 1.2, 0.7));
            }
            Outcome::PulledBack => {
                self.hold_for((1.5, 3.0), mv(Paddle, STILL, 1.0, 0.6));
            }
            Outcome::Pearled => {
                self.lift(c, side, aim);
                self.hold_for(
                    (0.2, 1.0),
                    mv(Paddle, self.heading_v(c, side, aim), 0.4, 0.9),
                );
                self.wipeout(c);
                self.return_to_peak();
            }
        }
    }

    /// The wave's mean direction off shore-normal (toward the ride's side).
    fn wave_direction(&self) -> f64 {
        let (lo, hi) = self.spot.obliquity;
        (lo + hi) / 2.0
    }

    fn heading_v(&self, speed: f64, side: f64, heading: f64) -> (f64, f64) {
        (-speed * heading.cos(), side * speed * heading.sin())
    }

    /// The wave picks the board up: it accelerates to nearly the wave's speed, prone.
    fn lift(&mut self, c: f64, side: f64, aim: f64) {
        self.hold_for(
            (1.0, 1.5),
            mv(Paddle, self.heading_v(c * 0.9, side, aim), 0.5, 0.9),
        );
    }

    fn plan(&mut self, w: &Wave, last: bool) -> RidePlan {
        let s = self.me.skill;
        let r = &mut self.rng;
        let (median, lo, hi) = match self.spot.brk {
            Break::Beach => (4.5, 1.8, 16.0),
            Break::Reef => (11.0, 3.5, 35.0),
            Break::Point => (40.0, 10.0, 150.0),
        };
        let median = median * (0.6 + 0.8 * s) * (0.8 + 0.3 * w.size.min(1.4));
        let dur = if last {
            hi
        } else {
            r.lognormal(median, 0.5, lo, hi)
        };
        let (lo_a, hi_a) = self.spot.obliquity;
        let theta = match self.spot.brk {
            Break::Beach => (5.0 + 45.0 * s + r.range(-8.0, 8.0)).to_radians(),
            Break::Reef => (10.0 + 45.0 * s + r.range(-8.0, 8.0)).to_radians(),
            Break::Point => (15.0 + 30.0 * s + r.range(-8.0, 8.0)).to_radians(),
        }
        .max(0.0);
        // The chances of a kick-out, a fall, a closing section and a straight-in, cumulative.
        let ends = match self.spot.brk {
            Break::Beach => [0.2, 0.55, 0.7, 1.0],
            Break::Reef => [0.4 + 0.15 * s, 0.85, 1.0, 1.0],
            Break::Point => [0.5, 0.7, 0.8, 1.0],
        };
        let p = r.f();
        let end = match ends.iter().position(|&c| p < c) {
            _ if last => End::StraightIn,
            Some(0) => End::KickOut,
            Some(1) => End::Fall,
            Some(2) => End::Closeout,
            _ => End::StraightIn,
        };
        let face = self.swell.height * w.size;
        RidePlan {
            dur,
            alpha: r.range(lo_a, hi_a),
            theta,
            turn: (8.0 + 22.0 * s).to_radians() * r.range(0.7, 1.2),
            turn_period: r.range(2.5, 4.5),
            phase: r.range(0.0, TAU),
            cutback: (s > 0.6 && dur > 8.0 && r.chance(0.4)).then(|| dur * r.range(0.3, 0.6)),
            boost: 0.35 * (2.0 * G * face).sqrt(),
            end,
        }
    }

    /// How the wave's speed changes along the ride: a beach wave slows into the shallows, a
    /// reef's pulses, a point's has faster and slower sections.
    fn section(&self, u: f64, t: f64, plan: &RidePlan) -> f64 {
        match self.spot.brk {
            Break::Beach => 1.0 - 0.35 * u,
            Break::Reef => 1.0 + 0.12 * (TAU * t / 7.0 + plan.phase).sin(),
            Break::Point => {
                1.0 + 0.12 * (TAU * t / 11.0 + plan.phase).sin()
                    + 0.08 * (TAU * t / 23.0 + 2.0 * plan.phase).sin()
            }
        }
    }

    /// The ride itself (standing), returning how it ended.
    fn ride(&mut self, w: &Wave, c: f64, side: f64, last: bool) -> End {
        let plan = self.plan(w, last);
        let skill = self.me.skill;
        let start = self.out.len();
        let mut end = plan.end;
        let mut drag_left = 0.0;
        let n = steps(plan.dur);
        for i in 0..n {
            let t = i as f64 * DT;
            let u = t / plan.dur;
            if i > 10 && self.x < self.spot.waterline(self.now()) + 8.0 {
                end = End::StraightIn;
                break;
            }
            let ce = c * self.section(u, t, &plan);
            // The angle across the face while trimming sets the speed; a manoeuvre (kick-out,
            // cutback) turns the board further and bleeds speed.
            let mut trim = plan.theta + plan.turn * (TAU * t / plan.turn_period + plan.phase).sin();
            let (mut turn, mut k) = (0.0, 1.0);
            let left = plan.dur - t;
            match plan.end {
                End::KickOut if left < 1.3 => {
                    let p = 1.0 - left / 1.3;
                    turn = p * (110f64.to_radians() - trim);
                    k -= 0.55 * p;
                }
                End::StraightIn | End::Closeout if u > 0.7 => trim *= (1.0 - u) / 0.3,
                _ => {}
            }
            if let Some(cb) = plan.cutback {
                let p = (t - cb) / 1.6;
                if (0.0..1.0).contains(&p) {
                    turn += 150f64.to_radians() * (PI * p).sin();
                    k *= 1.0 - 0.4 * (PI * p).sin();
                }
            }
            let across = trim.clamp(-0.35, 62f64.to_radians());
            let drop = plan.boost * (1.0 - (-t / 0.5).exp()) * (-t / 1.8).exp();
            let speed = ((ce / across.cos() + drop) * k).min(11.5);
            let theta = trim + turn;
            // A hand dragged in the face on a turn puts the watch under for a moment.
            if drag_left <= 0.0 && self.rng.chance(DT * (0.002 + 0.008 * skill)) {
                drag_left = self.rng.range(0.4, 1.2);
            }
            drag_left -= DT;
            let mut m = mv(
                Ride,
                self.heading_v(speed, side, plan.alpha + theta),
                0.45,
                0.75,
            );
            m.wet = drag_left > 0.0;
            self.step(m);
        }
        self.rides.push((start, self.out.len()));
        end
    }

    /// Held under and washed in, then climbing back on the board.
    fn wipeout(&mut self, c: f64) {
        let under = self.rng.range(1.5, 4.0) * (0.7 + 0.3 * self.swell.height);
        let wash = (-0.6 * c, self.vy * 0.2);
        // The water stops a falling body within half a second, then the white water takes it.
        self.hold(0.5, mv(Swim, wash, 0.25, 0.85).wet());
        self.hold(under.min(6.0), mv(Swim, wash, 0.7, 0.85).wet());
        self.hold_for((2.0, 5.0), mv(Swim, (-0.2 * c, 0.0), 1.5, 0.7));
    }

    fn after_ride(&mut self, end: End, c: f64) {
        match end {
            End::KickOut => {
                self.hold_for((1.5, 3.0), mv(Paddle, STILL, 0.9, 0.6));
                let cur = self.spot.current;
                self.hold_for((2.0, 6.0), mv(Sit, cur, 1.5, 0.35));
            }
            End::Fall => self.wipeout(c),
            End::Closeout => {
                let v = c * self.rng.range(0.6, 0.8);
                let secs = self.rng.range(2.0, 6.0);
                for i in 0..steps(secs) {
                    let decay = (-(i as f64 * DT) / 3.0).exp();
                    self.step(mv(Paddle, (-v * decay, 0.0), 0.6, 0.55));
                }
            }
            End::StraightIn => {
                self.hold_for((2.0, 6.0), mv(Swim, STILL, 0.8, 0.4));
            }
        }
    }

    fn duck_chance(&self) -> f64 {
        match self.spot.brk {
            Break::Beach => 0.8,
            Break::Reef => 0.6,
            Break::Point => 0.4,
        }
    }

    fn return_to_peak(&mut self) {
        let t = self.now();
        let duck = self.duck_chance();
        match self.spot.brk {
            Break::Beach => {
                let shift = self.rng.normal() * 25.0;
                self.peak_y = (self.peak_y + shift).clamp(-150.0, 150.0);
                self.paddle_to(self.spot.takeoff(t), self.peak_y, 1.0, duck);
            }
            Break::Reef => {
                let ch = self.spot.channel_y;
                if (self.y - ch).abs() > 30.0 {
                    let x = self.x.max(self.spot.waterline(t) + 20.0);
                    self.paddle_to(x, ch, 1.0, duck);
                }
                self.paddle_to(self.spot.takeoff(t) + 20.0, ch, 1.0, 0.0);
                self.paddle_to(self.spot.takeoff(self.now()), self.peak_y, 0.8, 0.2);
            }
            Break::Point => {
                let far = self.y - self.peak_y > self.me.walk_after * (1.0 - 0.4 * self.tired());
                if far || self.x < self.spot.waterline(t) + 30.0 {
                    self.walk_back_up();
                } else {
                    self.paddle_to(self.spot.takeoff(t) + 30.0, self.peak_y + 20.0, 1.0, 0.15);
                    self.paddle_to(self.spot.takeoff(self.now()), self.peak_y, 0.7, 0.3);
                }
            }
        }
    }

    /// In to the beach, out of the water at the waterline.
    fn go_ashore(&mut self) {
        let t = self.now();
        let wl = self.spot.waterline(t);
        let y = self.y;
        if self.x > wl + 14.0 {
            self.paddle_to(wl + 14.0, y, 1.0, self.duck_chance() * 0.5);
        }
        self.wade_to(wl + 1.0, self.y);
        let pace = self.rng.range(0.9, 1.2);
        self.walk_to(wl - 8.0, self.y, pace, 0.3);
    }

    /// From the beach into the water and out to the peak.
    fn go_out(&mut self) {
        let wl = self.spot.waterline(self.now());
        let y = self.y;
        self.walk_to(wl, y, 1.0, 0.3);
        self.wade_to(wl + 12.0, y);
        let duck = self.duck_chance();
        self.paddle_to(self.spot.takeoff(self.now()), self.peak_y, 1.0, duck);
    }

    /// Down the point: ashore, then walk or jog back up the beach and in again at the top.
    fn walk_back_up(&mut self) {
        self.go_ashore();
        let x = self.spot.waterline(self.now()) - 10.0;
        let jog = self.rng.chance(self.me.jogs * (1.0 - self.tired()));
        let (v, effort) = if jog {
            (self.rng.range(2.2, 3.0), 0.65)
        } else {
            (self.rng.range(1.15, 1.6), 0.3)
        };
        self.walk_to(x, self.spot.entry_y, v, effort);
        self.hold_for((0.0, 40.0), mv(Land, STILL, 0.7, 0.15));
        self.go_out();
    }

    /// The whole session, from the car park back to it.
    fn session(&mut self) {
        self.x = self.spot.car.0;
        self.y = self.spot.car.1;
        let wl = self.spot.waterline(0.0);
        let v = self.rng.range(1.1, 1.5);
        self.walk_to(wl - 6.0, self.spot.entry_y, v, 0.3);
        self.hold_for((20.0, 240.0), mv(Land, STILL, 0.7, 0.12));
        self.go_out();
        // Four minutes kept for a last wave in and the walk back to the car.
        let end = self.me.session - 240.0;
        let mut rested = self.now();
        while self.now() < end {
            let due = self.now() - rested > 1200.0;
            if due && self.rng.chance(0.05 + 0.3 * self.tired()) {
                let rest = self.now() + self.rng.range(120.0, 360.0);
                self.sit_until(rest);
                rested = self.now();
            }
            match self.wait_for_wave(end, false) {
                Some((w, lead)) => self.attempt(&w, lead, false),
                None => break,
            }
        }
        if self.spot.brk != Break::Reef && self.rng.chance(0.6) {
            let until = self.now() + 180.0;
            if let Some((w, lead)) = self.wait_for_wave(until, true) {
                self.attempt(&w, lead, true);
            }
        } else if self.spot.brk == Break::Reef {
            let ch = self.spot.channel_y;
            self.paddle_to(self.spot.takeoff(self.now()), ch, 1.0, 0.0);
        }
        self.go_ashore();
        let v = self.rng.range(1.0, 1.4);
        self.walk_to(self.spot.car.0, self.spot.car.1, v, 0.3);
    }
}

/// The session's setting and its truth.
struct Session {
    spot: Spot,
    me: Surfer,
    truth: Vec<Truth>,
    /// Rides as truth indices [start, end).
    rides: Vec<(usize, usize)>,
}

/// Simulates the surfer (no watch yet).
fn surf(rng: &mut Pcg, brk: Break) -> Session {
    let spot = Spot::draw(rng, brk);
    let swell = Swell::draw(rng, brk);
    let me = Surfer::draw(rng, brk);
    let waves = waves(rng, &swell, me.session + 1800.0);
    let mut s = Surf {
        rng: Pcg::new(u64::from(rng.next_u32()) | (u64::from(rng.next_u32()) << 32)),
        spot: &spot,
        swell: &swell,
        me: &me,
        waves: &waves,
        next_wave: 0,
        x: 0.0,
        y: 0.0,
        vx: 0.0,
        vy: 0.0,
        bob: 0.0,
        peak_y: 0.0,
        out: Vec::with_capacity((me.session / DT) as usize + 20_000),
        rides: Vec::new(),
    };
    s.session();
    let (truth, rides) = (s.out, s.rides);
    Session {
        spot,
        me,
        truth,
        rides,
    }
}

// ---------- the watch ----------

/// How a make filters its positions.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Filter {
    Raw,
    /// A constant-velocity position filter (Kalman-like): lag, and overshoot after stops.
    Lag {
        alpha: f64,
        beta: f64,
    },
    /// Positions carried forward by Doppler velocity and pulled toward each fix.
    Doppler {
        gain: f64,
    },
}

/// When the receiver computes fixes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Clock {
    Whole,
    /// At a fixed fraction past each second.
    Offset(f64),
    /// An irregular rate around 1 Hz.
    Irregular,
}

/// How times are written.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stamp {
    /// `2024-05-01T06:00:01Z`
    WholeZ,
    /// `2024-05-01T06:00:01.000Z`
    MillisZ,
    /// `2024-05-01T16:00:01.347+10:00`
    Local,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Coords {
    /// Garmin's semicircles (2^31 per 180°), written in full.
    Semicircles,
    Decimals(usize),
}

struct Watch {
    creator: &'static str,
    clock: Clock,
    stamp: Stamp,
    coords: Coords,
    filter: Filter,
    /// The wandering error's standard deviation (m) and time constant (s).
    sigma: f64,
    tau: f64,
    white: f64,
    latency: f64,
    /// Median reacquisition time after the wrist comes out of the water, s.
    reacquire: f64,
    spike_p: f64,
    outages_per_h: f64,
    multipath_per_h: f64,
    smart_max: f64,
    smart_dev: f64,
    hdop: bool,
    ele: bool,
    /// The extension's prefix and namespace.
    prefix: &'static str,
}

impl Watch {
    /// One of four makes, its settings drawn within the make's range.
    fn draw(rng: &mut Pcg) -> Watch {
        let make = (rng.f() * 4.0) as usize;
        let prefix = if rng.chance(0.5) { "ns3" } else { "gpxtpx" };
        // A Garmin-like watch: a Kalman-like filter, whole seconds written with milliseconds,
        // positions in semicircles, a barometric elevation.
        let garmin = Watch {
            creator: "Garmin Connect",
            clock: Clock::Whole,
            stamp: Stamp::MillisZ,
            coords: Coords::Semicircles,
            filter: Filter::Lag {
                alpha: rng.range(0.35, 0.55),
                beta: rng.range(0.06, 0.15),
            },
            sigma: rng.range(3.0, 5.5),
            tau: rng.range(40.0, 120.0),
            white: rng.range(0.15, 0.3),
            latency: rng.range(0.3, 0.8),
            reacquire: 1.5,
            spike_p: 0.0005,
            outages_per_h: 3.0,
            multipath_per_h: 3.0,
            smart_max: rng.range(6.0, 9.0),
            smart_dev: 8.0,
            hdop: false,
            ele: true,
            prefix,
        };
        match make {
            // Raw fixes through a third-party export: whole seconds, 5 decimals, noisier.
            1 => Watch {
                creator: "StravaGPX",
                stamp: Stamp::WholeZ,
                coords: Coords::Decimals(5),
                filter: Filter::Raw,
                sigma: rng.range(4.0, 8.0),
                tau: rng.range(20.0, 60.0),
                white: rng.range(0.3, 0.6),
                latency: rng.range(0.0, 0.3),
                reacquire: 2.5,
                spike_p: 0.003,
                outages_per_h: 6.0,
                multipath_per_h: 5.0,
                smart_max: rng.range(5.0, 7.0),
                smart_dev: 10.0,
                hdop: true,
                ele: false,
                ..garmin
            },
            // A phone-like fused filter at an irregular rate, slow to find the sky again.
            2 => Watch {
                creator: "HealthFit",
                clock: Clock::Irregular,
                stamp: Stamp::Local,
                coords: Coords::Decimals(8),
                filter: Filter::Lag {
                    alpha: rng.range(0.55, 0.75),
                    beta: rng.range(0.15, 0.25),
                },
                sigma: rng.range(3.0, 6.0),
                white: 0.3,
                latency: rng.range(0.5, 1.2),
                reacquire: 4.0,
                spike_p: 0.001,
                outages_per_h: 8.0,
                smart_max: 4.0,
                smart_dev: 6.0,
                hdop: true,
                ele: false,
                ..garmin
            },
            // Doppler-smoothed positions at a fixed fraction of each second.
            3 => Watch {
                creator: "Polar Flow",
                clock: Clock::Offset(rng.range(0.1, 0.9)),
                coords: Coords::Decimals(6),
                filter: Filter::Doppler {
                    gain: rng.range(0.08, 0.2),
                },
                sigma: rng.range(3.0, 5.0),
                tau: rng.range(40.0, 150.0),
                white: 0.2,
                latency: 0.2,
                reacquire: 2.0,
                spike_p: 0.0008,
                outages_per_h: 4.0,
                ele: false,
                ..garmin
            },
            _ => garmin,
        }
    }

    /// When the receiver computes fixes, s from the session's start.
    fn epochs(&self, rng: &mut Pcg, end: f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(end as usize + 2);
        match self.clock {
            Clock::Whole | Clock::Offset(_) => {
                let off = match self.clock {
                    Clock::Offset(o) => o,
                    _ => 0.0,
                };
                let mut k = 1.0;
                while k + off < end {
                    out.push(k + off);
                    k += 1.0;
                }
            }
            Clock::Irregular => {
                let mut t = rng.range(0.5, 1.5);
                while t < end {
                    out.push((t * 1000.0).round() / 1000.0);
                    t += rng.lognormal(1.0, 0.25, 0.45, 2.6);
                }
            }
        }
        out
    }
}

/// Random windows (start, end) over the session, `per_h` an hour, lengths log-normal.
fn random_windows(rng: &mut Pcg, end: f64, per_h: f64, len: (f64, f64, f64)) -> Vec<(f64, f64)> {
    let (median, lo, hi) = len;
    let n = (end / 3600.0 * per_h * rng.range(0.5, 1.5)).round() as usize;
    let mut out: Vec<(f64, f64)> = (0..n)
        .map(|_| {
            let a = rng.range(0.0, end);
            (a, a + rng.lognormal(median, 0.7, lo, hi))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// The truth at time `t` (s), interpolated.
fn truth_at(truth: &[Truth], t: f64) -> Truth {
    let f = (t / DT).max(0.0);
    let i = (f.floor() as usize).min(truth.len() - 1);
    let j = (i + 1).min(truth.len() - 1);
    let k = (f - i as f64).clamp(0.0, 1.0);
    let (a, b) = (truth[i], truth[j]);
    Truth {
        x: a.x + (b.x - a.x) * k,
        y: a.y + (b.y - a.y) * k,
        vx: a.vx + (b.vx - a.vx) * k,
        vy: a.vy + (b.vy - a.vy) * k,
        ..a
    }
}

/// A fix as written: time (s from the start), position (local m), hdop, heart rate.
struct Fix {
    t: f64,
    x: f64,
    y: f64,
    hdop: f64,
    hr: u16,
}

/// Heart rate at every truth step: effort with a lag, faster up than down, drifting up with
/// fatigue.
fn heart(truth: &[Truth], me: &Surfer) -> Vec<f64> {
    let mut hr = me.hr_rest + 20.0;
    let n = truth.len().max(1) as f64;
    truth
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let drift = 1.0 + 0.12 * (i as f64 / n) * (1.0 - me.fitness);
            let target = me.hr_rest + (me.hr_max - me.hr_rest) * (s.effort * drift).min(1.0);
            let tau = if target > hr { 14.0 } else { 35.0 };
            hr += (target - hr) * DT / tau;
            hr
        })
        .collect()
}

/// The receiver's state between fixes.
struct Receiver<'a> {
    w: &'a Watch,
    truth: &'a [Truth],
    outages: Vec<(f64, f64)>,
    /// Multipath episodes: (start, end), direction, size (m).
    multipath: Vec<((f64, f64), f64, f64)>,
    /// The wander: a first-order process `u` and its smoothed copy `e`, the error itself.
    u: (f64, f64),
    e: (f64, f64),
    /// The filter's position and velocity.
    p: Option<(f64, f64)>,
    v: (f64, f64),
    last_epoch: f64,
    last_valid: f64,
    last_wet: f64,
    reacquire: f64,
    was_wet: bool,
    /// The error of the first fix after a loss (x, y, when), fading.
    jump: (f64, f64, f64),
}

impl<'a> Receiver<'a> {
    fn new(w: &'a Watch, rng: &mut Pcg, session: &'a Session) -> Receiver<'a> {
        let end = session.truth.len() as f64 * DT;
        // Cliffs round a point reflect the signal more often.
        let cliffs = session.spot.brk == Break::Point;
        let mp_rate = w.multipath_per_h * if cliffs { 2.0 } else { 1.0 };
        let multipath = random_windows(rng, end, mp_rate, (25.0, 10.0, 60.0))
            .into_iter()
            .map(|win| (win, rng.range(0.0, TAU), rng.range(4.0, 15.0)))
            .collect();
        let u = (w.sigma * rng.normal(), w.sigma * rng.normal());
        Receiver {
            w,
            truth: &session.truth,
            outages: random_windows(rng, end, w.outages_per_h, (5.0, 2.0, 30.0)),
            multipath,
            u,
            e: u,
            p: None,
            v: STILL,
            last_epoch: 0.0,
            last_valid: f64::NEG_INFINITY,
            last_wet: f64::NEG_INFINITY,
            reacquire: 0.0,
            was_wet: false,
            jump: (0.0, 0.0, f64::NEG_INFINITY),
        }
    }

    /// Moves the wander on to `t`: it drifts by metres over minutes but only by centimetres to
    /// decimetres from one second to the next (a first-order process smoothed once more).
    fn wander(&mut self, rng: &mut Pcg, t: f64) {
        let dt = t - self.last_epoch;
        let decay = (-dt / self.w.tau).exp();
        let kick = self.w.sigma * (1.0 - decay * decay).sqrt();
        self.u.0 = self.u.0 * decay + kick * rng.normal();
        self.u.1 = self.u.1 * decay + kick * rng.normal();
        let follow = 1.0 - (-3.0 * dt / self.w.tau).exp();
        self.e.0 += (self.u.0 - self.e.0) * follow;
        self.e.1 += (self.u.1 - self.e.1) * follow;
    }

    /// Whether the receiver has a fix at `t`: not with the wrist under water at any moment
    /// since the last epoch, nor until it has reacquired after it came out, nor in an outage.
    fn has_fix(&mut self, rng: &mut Pcg, t: f64) -> bool {
        let last = self.truth.len() - 1;
        let (i0, i1) = (
            (self.last_epoch / DT) as usize,
            ((t / DT) as usize).min(last),
        );
        let wet = self.truth[i0.min(i1)..=i1].iter().any(|s| s.wet);
        if wet {
            if !self.was_wet {
                self.reacquire = rng.lognormal(self.w.reacquire, 0.5, 0.5, 8.0);
            }
            self.last_wet = t;
        }
        self.was_wet = wet;
        let outage = self.outages.iter().any(|&(a, b)| a <= t && t < b);
        // A firmware hiccup now and then skips a fix.
        !wet && t >= self.last_wet + self.reacquire && !outage && !rng.chance(0.002)
    }

    /// The measured position at `t` and the Doppler velocity: the wrist's true position a
    /// latency ago plus the wander, multipath, noise, the paddling arm's swing, a spike, and
    /// the jump of a fix just after a loss.
    fn measure(&mut self, rng: &mut Pcg, t: f64) -> ((f64, f64), (f64, f64)) {
        let w = self.w;
        if t - self.last_valid > 2.5 && self.p.is_some() {
            let (mag, dir) = (rng.lognormal(8.0, 0.6, 2.0, 45.0), rng.range(0.0, TAU));
            self.jump = (mag * dir.cos(), mag * dir.sin(), t);
        }
        let s = truth_at(self.truth, t - (w.latency + 0.1 * rng.normal()).max(0.0));
        let fade = (-(t - self.jump.2) / 3.0).exp();
        let mut m = (
            s.x + self.e.0 + self.jump.0 * fade,
            s.y + self.e.1 + self.jump.1 * fade,
        );
        for &((a, b), dir, mag) in &self.multipath {
            if a <= t && t < b {
                let shape = mag * (PI * (t - a) / (b - a)).sin();
                m = (m.0 + shape * dir.cos(), m.1 + shape * dir.sin());
            }
        }
        let paddling = s.act == Paddle;
        let white = w.white * if paddling { 1.3 } else { 1.0 };
        m = (m.0 + white * rng.normal(), m.1 + white * rng.normal());
        let mut doppler = (s.vx, s.vy);
        if paddling {
            // The arm swings the watch some 0.3 m fore and aft of the body at 0.7 Hz.
            let sp = s.vx.hypot(s.vy).max(0.1);
            let (sin, cos) = (TAU * 0.7 * t).sin_cos();
            let (dx, dy) = (s.vx / sp, s.vy / sp);
            m = (m.0 + 0.3 * sin * dx, m.1 + 0.3 * sin * dy);
            let swing = 0.3 * TAU * 0.7 * cos;
            doppler = (doppler.0 + swing * dx, doppler.1 + swing * dy);
        }
        if rng.chance(w.spike_p) {
            let (mag, dir) = (rng.range(15.0, 60.0), rng.range(0.0, TAU));
            m = (m.0 + mag * dir.cos(), m.1 + mag * dir.sin());
        }
        (m, doppler)
    }

    /// The make's filter: the position it outputs for measurement `m`.
    fn filter(&mut self, rng: &mut Pcg, t: f64, m: (f64, f64), doppler: (f64, f64)) -> (f64, f64) {
        let gap = t - self.last_valid;
        let p = match (self.w.filter, self.p) {
            (Filter::Raw, _) | (_, None) => m,
            (Filter::Lag { alpha, beta }, Some(p)) => {
                // Coasts on its velocity through a short loss (and overshoots), forgets it
                // after a long one.
                if gap > 10.0 {
                    self.v = STILL;
                }
                let pred = (p.0 + self.v.0 * gap, p.1 + self.v.1 * gap);
                let r = (m.0 - pred.0, m.1 - pred.1);
                let damp = if gap > 3.0 { 0.5 } else { 1.0 };
                self.v.0 = (self.v.0 + beta * r.0 / gap) * damp;
                self.v.1 = (self.v.1 + beta * r.1 / gap) * damp;
                (pred.0 + alpha * r.0, pred.1 + alpha * r.1)
            }
            (Filter::Doppler { gain }, Some(p)) if gap <= 5.0 => {
                let vx = doppler.0 + 0.12 * rng.normal();
                let vy = doppler.1 + 0.12 * rng.normal();
                (
                    (1.0 - gain) * (p.0 + vx * gap) + gain * m.0,
                    (1.0 - gain) * (p.1 + vy * gap) + gain * m.1,
                )
            }
            (Filter::Doppler { .. }, Some(_)) => m,
        };
        self.p = Some(p);
        self.last_valid = t;
        p
    }
}

/// Whether a smart recorder writes this fix, given the last written one and the one before.
fn smart_writes(w: &Watch, fix: (f64, f64, f64), last: &[Fix]) -> bool {
    let (t, x, y) = fix;
    let Some(a) = last.last() else { return true };
    let dt = t - a.t;
    if dt < 0.95 {
        return false;
    }
    if dt >= w.smart_max {
        return true;
    }
    let (vx, vy) = ((x - a.x) / dt, (y - a.y) / dt);
    let Some(b) = last.len().checked_sub(2).map(|i| &last[i]) else {
        return true;
    };
    let db = (a.t - b.t).max(0.5);
    let (ux, uy) = ((a.x - b.x) / db, (a.y - b.y) / db);
    let (s, s0) = (vx.hypot(vy), ux.hypot(uy));
    let turn = {
        let d = (vy.atan2(vx) - uy.atan2(ux)).rem_euclid(TAU);
        d.min(TAU - d)
    };
    let dev = (x - (a.x + ux * dt)).hypot(y - (a.y + uy * dt));
    (s.max(s0) > 1.0 && turn > 30f64.to_radians())
        || (s - s0).abs() > (0.3 * s0).max(1.2)
        || dev > w.smart_dev
}

/// The watch's record of a session: fixes as written, in time order.
fn record_fixes(
    w: &Watch,
    rng: &mut Pcg,
    session: &Session,
    sampling: Sampling,
    hr: &[f64],
) -> Vec<Fix> {
    let mut rx = Receiver::new(w, rng, session);
    let mut out: Vec<Fix> = Vec::new();
    let irregular = w.clock == Clock::Irregular;
    for t in w.epochs(rng, session.truth.len() as f64 * DT) {
        rx.wander(rng, t);
        let fix = rx.has_fix(rng, t);
        rx.last_epoch = t;
        if !fix {
            continue;
        }
        let (m, doppler) = rx.measure(rng, t);
        let p = rx.filter(rng, t, m, doppler);
        let writes = match sampling {
            Sampling::Hz1 => out.last().is_none_or(|a| t - a.t > 0.4),
            // An irregular clock writes the fix nearest two seconds on, a regular one every
            // other.
            Sampling::Hz05 => {
                let every = if irregular { 1.5 } else { 1.85 };
                out.last().is_none_or(|a| t - a.t >= every)
            }
            Sampling::Smart => smart_writes(w, (t, p.0, p.1), &out),
        };
        if writes {
            // The optical sensor reads about 3 s late.
            let lagged = ((t - 3.0).max(0.0) / DT) as usize;
            let bpm = hr[lagged.min(hr.len() - 1)] + 1.5 * rng.normal();
            let jump = rx.jump.0.hypot(rx.jump.1) * (-(t - rx.jump.2) / 3.0).exp();
            out.push(Fix {
                t,
                x: p.0,
                y: p.1,
                hdop: ((w.sigma + jump) / 5.0).max(0.6),
                hr: bpm.round().clamp(45.0, 205.0) as u16,
            });
        }
    }
    out
}

fn stamp(w: &Watch, ms: i64, utc_offset_h: i32) -> String {
    let t = DateTime::from_timestamp_millis(ms).expect("a time in range");
    match w.stamp {
        Stamp::WholeZ => t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Stamp::MillisZ => t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        Stamp::Local => {
            let off = FixedOffset::east_opt(utc_offset_h * 3600).expect("a valid offset");
            t.with_timezone(&off)
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
        }
    }
}

fn coord(w: &Watch, deg: f64) -> String {
    match w.coords {
        Coords::Semicircles => {
            let per = 2f64.powi(31) / 180.0;
            format!("{}", (deg * per).round() / per)
        }
        Coords::Decimals(n) => format!("{deg:.n$}"),
    }
}

/// The GPX document a watch's export writes.
fn write_gpx(w: &Watch, spot: &Spot, t0_ms: i64, fixes: &[Fix]) -> String {
    let ms = |t: f64| t0_ms + (t * 1000.0).round() as i64;
    let mut g = String::with_capacity(fixes.len() * 220 + 1024);
    let _ = write!(
        g,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx creator=\"{}\" version=\"1.1\" \
         xmlns=\"http://www.topografix.com/GPX/1/1\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xmlns:{}=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\" \
         xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n",
        w.creator, w.prefix
    );
    let _ = writeln!(
        g,
        "  <metadata>\n    <time>{}</time>\n  </metadata>",
        stamp(w, t0_ms, spot.utc_offset_h)
    );
    g.push_str("  <trk>\n    <name>Surfing</name>\n    <type>surfing</type>\n    <trkseg>\n");
    let pre = w.prefix;
    for (i, f) in fixes.iter().enumerate() {
        // Some exports start a new segment after a long loss of signal.
        if i > 0 && w.clock == Clock::Irregular && f.t - fixes[i - 1].t > 20.0 {
            g.push_str("    </trkseg>\n    <trkseg>\n");
        }
        let (lat, lon) = spot.latlon(f.x, f.y);
        let _ = write!(
            g,
            "      <trkpt lat=\"{}\" lon=\"{}\">",
            coord(w, lat),
            coord(w, lon)
        );
        if w.ele {
            g.push_str("<ele>2.4</ele>");
        }
        let _ = write!(g, "<time>{}</time>", stamp(w, ms(f.t), spot.utc_offset_h));
        if w.hdop {
            let _ = write!(g, "<hdop>{:.1}</hdop>", f.hdop);
        }
        let _ = writeln!(
            g,
            "<extensions><{pre}:TrackPointExtension><{pre}:hr>{}</{pre}:hr></{pre}:TrackPointExtension></extensions></trkpt>",
            f.hr
        );
    }
    g.push_str("    </trkseg>\n  </trk>\n</gpx>\n");
    g
}

/// Rides with two consecutive written fixes 4 s or more apart that leave 2 s of it uncovered.
fn rides_with_gaps(rides: &[(i64, i64)], times: &[i64]) -> usize {
    rides
        .iter()
        .filter(|&&(s, e)| {
            times
                .windows(2)
                .any(|p| p[1] - p[0] >= 4000 && p[1].min(e) - p[0].max(s) >= 2000)
        })
        .count()
}

/// One session: the surfer, then the watch, then its export.
pub fn record(seed: u64, brk: Break, sampling: Sampling) -> Recorded {
    let mut rng = Pcg::new(seed ^ 0x51e5_e5e5_0000_0005);
    let session = surf(&mut rng, brk);
    let watch = Watch::draw(&mut rng);
    let hr = heart(&session.truth, &session.me);
    let fixes = record_fixes(&watch, &mut rng, &session, sampling, &hr);
    // A local start between 06:00 and 16:00 on a day in 2023–2025.
    let day = (rng.f() * 1000.0) as i64;
    let local_min = rng.range(360.0, 960.0) as i64;
    let t0_ms = 1_672_531_200_000 + day * 86_400_000 + local_min * 60_000
        - i64::from(session.spot.utc_offset_h) * 3_600_000;
    let at = |i: usize| t0_ms + i as i64 * 100;
    let rides: Vec<(i64, i64)> = session.rides.iter().map(|&(a, b)| (at(a), at(b))).collect();
    let mut acts: Vec<(i64, Act)> = Vec::new();
    for (i, s) in session.truth.iter().enumerate() {
        if acts.last().is_none_or(|a| a.1 != s.act) {
            acts.push((at(i), s.act));
        }
    }
    let times: Vec<i64> = fixes
        .iter()
        .map(|f| t0_ms + (f.t * 1000.0).round() as i64)
        .collect();
    Recorded {
        gpx: write_gpx(&watch, &session.spot, t0_ms, &fixes),
        rides_with_gaps: rides_with_gaps(&rides, &times),
        rides,
        brk,
        sampling,
        fixes: fixes.len(),
        acts,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BREAKS, SAMPLINGS, by_bounds, by_iou, import, naive};
    use super::*;
    use crate::domain::wearable::accuracy::Score;

    #[tokio::test]
    async fn every_break_and_sampling_imports_with_its_fixes_and_heart_rate() {
        let mut prefixes = std::collections::HashSet::new();
        for (k, b) in BREAKS.into_iter().enumerate() {
            for (j, s) in SAMPLINGS.into_iter().enumerate() {
                let r = record(100 + (k * 3 + j) as u64, b, s);
                prefixes.insert(r.gpx.contains("<ns3:hr>"));
                let got = import(&r.gpx).await.unwrap();
                assert_eq!(got.gps.len(), r.fixes, "{b:?} {s:?}");
                assert_eq!(got.hr.len(), r.fixes);
                assert!(got.gps.windows(2).all(|p| p[0].t < p[1].t));
                assert!(!r.rides.is_empty(), "{b:?} {s:?}: no rides");
                assert!(got.hr.iter().all(|h| (45..=205).contains(&h.bpm)));
            }
        }
        assert_eq!(prefixes.len(), 2, "both extension prefixes appear");
    }

    #[test]
    fn deterministic_by_seed_and_different_across_seeds() {
        let a = record(7, Break::Reef, Sampling::Smart);
        let b = record(7, Break::Reef, Sampling::Smart);
        assert_eq!(a.gpx, b.gpx);
        assert_eq!(a.rides, b.rides);
        let c = record(8, Break::Reef, Sampling::Smart);
        assert_ne!(a.gpx, c.gpx);
        assert_ne!(a.rides, c.rides);
    }

    #[test]
    fn rides_and_acts_are_ordered_within_the_session() {
        for seed in 0..6 {
            let b = BREAKS[seed % 3];
            let r = record(200 + seed as u64, b, SAMPLINGS[(seed / 3) % 3]);
            let (first, last) = (r.acts[0].0, r.acts.last().unwrap().0);
            assert!(
                r.acts
                    .windows(2)
                    .all(|p| p[0].0 < p[1].0 && p[0].1 != p[1].1)
            );
            for (i, &(s, e)) in r.rides.iter().enumerate() {
                assert!(first <= s && s < e && e <= last, "{b:?} ride {i}");
                if i > 0 {
                    assert!(r.rides[i - 1].1 < s, "rides overlap");
                }
                // Each ride is exactly a run of Act::Ride.
                let at = r
                    .acts
                    .iter()
                    .position(|a| a.0 == s)
                    .expect("a ride starts an act");
                assert_eq!(r.acts[at].1, Act::Ride);
                assert_eq!(r.acts[at + 1].0, e);
            }
            let minutes = (last - first) as f64 / 60_000.0;
            assert!((40.0..165.0).contains(&minutes), "{minutes} min");
        }
    }

    /// Ride speed (mean, top) and duration from the truth.
    fn ride_stats(s: &Session) -> Vec<(f64, f64, f64)> {
        s.rides
            .iter()
            .map(|&(a, b)| {
                let v: Vec<f64> = s.truth[a..b]
                    .iter()
                    .map(|t| t.vx.hypot(t.vy) * 3.6)
                    .collect();
                let mean = v.iter().sum::<f64>() / v.len() as f64;
                let top = v.iter().copied().fold(0.0, f64::max);
                (mean, top, (b - a) as f64 * DT)
            })
            .collect()
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    #[test]
    fn rides_are_physically_plausible_for_each_break() {
        let mut durations = Vec::new();
        for b in BREAKS {
            let mut all = Vec::new();
            let mut counts = Vec::new();
            for seed in 0..4 {
                let s = surf(&mut Pcg::new(300 + seed), b);
                let st = ride_stats(&s);
                counts.push(st.len());
                all.extend(st);
                // Nobody sits on the sand or rides through the car park.
                let wl_min = -s.spot.tide_amp / s.spot.slope;
                assert!(s.truth.iter().all(|t| t.act != Act::Sit || t.x > wl_min));
            }
            for &(mean, top, dur) in &all {
                assert!((4.0..40.0).contains(&mean), "{b:?} mean {mean:.1} km/h");
                assert!(top < 50.0, "{b:?} top {top:.1} km/h");
                assert!(dur >= 0.9, "{b:?} {dur:.1} s");
            }
            assert!(counts.iter().sum::<usize>() >= 8, "{b:?} rides {counts:?}");
            let means: Vec<f64> = all.iter().map(|r| r.0).collect();
            assert!(
                means.iter().any(|&m| m < 12.0) || b == Break::Point,
                "{b:?} no mushy ride"
            );
            assert!(all.iter().any(|r| r.1 > 25.0), "{b:?} no fast ride");
            durations.push(median(all.iter().map(|r| r.2).collect()));
        }
        let (beach, reef, point) = (durations[0], durations[1], durations[2]);
        assert!(
            beach < 9.0 && beach < reef && reef < point && point > 25.0,
            "{durations:?}"
        );
    }

    #[tokio::test]
    async fn the_watch_loses_fixes_in_the_water_and_some_rides_have_gaps() {
        let (mut gaps, mut rides, mut longest) = (0, 0, 0);
        for seed in 0..6u64 {
            let sampling = [Sampling::Hz1, Sampling::Hz05][seed as usize % 2];
            let r = record(400 + seed, BREAKS[seed as usize % 3], sampling);
            gaps += r.rides_with_gaps;
            rides += r.rides.len();
            let gps = import(&r.gpx).await.unwrap().gps;
            let t: Vec<i64> = gps.iter().map(|f| f.t).collect();
            let mut step: Vec<i64> = t.windows(2).map(|p| p[1] - p[0]).collect();
            longest = longest.max(*step.iter().max().unwrap());
            step.sort_unstable();
            let typical = step[step.len() / 2];
            let want = [1000, 2000][seed as usize % 2];
            assert!((typical - want).abs() <= 250, "{sampling:?}: {typical} ms");
        }
        assert!(
            (4_000..120_000).contains(&longest),
            "longest gap {longest} ms"
        );
        assert!(
            gaps > 0 && gaps * 3 < rides,
            "{gaps} of {rides} rides with gaps"
        );
    }

    #[test]
    fn other_motions_stay_in_their_ranges() {
        let mut bursts = 0;
        for (k, b) in BREAKS.into_iter().enumerate() {
            let s = surf(&mut Pcg::new(500 + k as u64), b);
            let speed = |t: &Truth| t.vx.hypot(t.vy) * 3.6;
            // Two seconds into an activity: before that the body still carries the last one's
            // momentum.
            let (mut since, mut was) = (0, Land);
            for t in &s.truth {
                let (v, act) = (speed(t), t.act);
                since = if act == was { since + 1 } else { 0 };
                was = act;
                if since < 20 {
                    continue;
                }
                match act {
                    Land => assert!(v < 12.5, "{b:?} {v:.1} km/h on land"),
                    Sit => assert!(v < 5.0, "{b:?} sitting at {v:.1} km/h"),
                    Paddle | Swim => assert!(v < 25.0, "{b:?} {act:?} at {v:.1} km/h"),
                    Ride => {}
                }
            }
            // Waves that lift the paddler and pass: a second or more at 10 km/h or faster.
            let fast: Vec<bool> = s
                .truth
                .iter()
                .map(|t| t.act == Paddle && speed(t) > 10.0)
                .collect();
            bursts += fast.windows(10).filter(|w| w.iter().all(|&f| f)).count();
        }
        assert!(bursts > 0);
    }

    #[test]
    fn the_fifth_model_set_uses_its_reserved_seeds() {
        let set = super::super::FIFTH_MODEL;
        assert_eq!(set.model, super::super::Simulator::SimE);
        let seeds = set.sessions();
        assert_eq!(seeds.len(), 45);
        assert!(
            seeds
                .iter()
                .all(|s| super::super::FIFTH_MODEL_SEEDS.contains(&s.0))
        );
    }

    /// The naive baseline's precision / recall on [`super::super::FIFTH_MODEL`], per break and
    /// sampling (`cargo test -p shared --lib naive_baseline_on_the_fifth_model -- --ignored
    /// --nocapture`).
    #[tokio::test]
    #[ignore]
    async fn naive_baseline_on_the_fifth_model() {
        let set = super::super::FIFTH_MODEL;
        let mut cells: std::collections::BTreeMap<(String, String), (Score, Score, usize, usize)> =
            Default::default();
        for (seed, b, s) in set.sessions() {
            let r = set.model.record(seed, b, s);
            let got = import(&r.gpx).await.unwrap();
            let found = naive(&got.gps);
            let (i, d) = (by_iou(&r.rides, &found), by_bounds(&r.rides, &found));
            for key in [
                (b.name().to_string(), s.name().to_string()),
                (b.name().to_string(), "all".to_string()),
                ("all".to_string(), s.name().to_string()),
                ("all".to_string(), "all".to_string()),
            ] {
                let c = cells.entry(key).or_default();
                c.0.add(i);
                c.1.add(d);
                c.2 += r.rides.len();
                c.3 += r.rides_with_gaps;
            }
        }
        println!(
            "| break | sampling | rides (with gaps) | naive P / R, IoU ≥ 0.5 | naive P / R, ±2 s |"
        );
        println!("|---|---|---|---|---|");
        for ((b, s), (i, d, n, g)) in &cells {
            println!(
                "| {b} | {s} | {n} ({g}) | {:.3} / {:.3} | {:.3} / {:.3} |",
                i.precision(),
                i.recall(),
                d.precision(),
                d.recall()
            );
        }
    }
}
