//! A second session simulator for the evaluation (issue 40), written without reading the
//! detector or the body of [`super::sim`]: it reuses only that module's random numbers
//! ([`Pcg`]) and its vocabulary ([`Break`], [`Sampling`], [`Act`], [`Recorded`]), so the
//! detector can be scored on sessions from a physical model that shares none of its authors'
//! assumptions. It was tuned only for physical plausibility and against the naive baseline
//! (`super::naive`), never against the detector.
//!
//! **The sea.** Each session draws a spot (a real coast's position and the bearing of the open
//! sea), a breaking wave height `H` (log-normal: beach 1.1 m, reef 1.5 m, point 1.3 m median), a
//! swell period and a line where the waves break (beach 35 + 30·H m offshore, a reef 150–260 m,
//! a point 70–130 m). Waves come in sets (median 2 min apart at a beach, 3.3 at a reef, 4 at a
//! point) of 3–9 waves one swell period apart, the middle ones biggest, plus smaller lull
//! waves in between. A wave's speed where it breaks is the shallow-water speed `c = √(g·d)`
//! with the breaking depth `d = H / 0.78`; a board on the face goes 1.15–1.75 × `c` (15–30
//! km/h), a mushy wave 6.5–11 km/h. An along-shore current drifts everything in the water (at a
//! point, down the point).
//!
//! **The surfer** is a state machine at 10 Hz: walk from the car park, wax and watch, wade in,
//! paddle out (duck-diving the waves met in the impact zone, pushed back by whitewater on a
//! beach's inside; at a reef through the channel), sit in the line-up (drifting with the
//! current, rocked by passing swells, paddling back when drifted off the peak), rest after
//! each effort, and go for some waves (more often for bigger ones): a sprint of a few seconds,
//! the wave lifting the board to 60–85 % of `c` (10–15 km/h), then a miss (the wave passes and
//! the board slows), a nose-dive on the take-off (no ride), or a pop-up and a ride. A ride is a
//! trim with up-and-down turns (speed ±12–28 %, heading ±15–35° on a 2–5 s period), cutbacks on
//! reef and point waves, and ends in a fall (a wipe-out under water, then swimming for the
//! board), a kick-out over the back, the wave fizzling out, or the whitewater ridden towards
//! the sand and stepped off. Durations: beach rides log-normal around 4.5 s (a third 4 s or
//! less, straight-ish in), reef 9 s (left or right of the peak), point 22 s (along the shore,
//! up to 100 s), longer for better surfers. At a point, a surfer whose ride ended 150–350 m
//! down the point goes ashore and walks (some jog part of the way) back along the beach to
//! paddle out at the top. At the end: paddle in (sometimes on a last wave), walk to the car.
//! **The truth of a ride** runs from the moment the surfer is on their feet (the end of the
//! pop-up, the board already near wave speed) to the fall, the crossing of the crest in a
//! kick-out, the drop to the board when the wave dies, or the step off in the shallows.
//!
//! **The watch.** Its GNSS error (per-session 1σ 3–8 m) is a slow bias (a Gauss–Markov process
//! with a 1.5–7 min correlation time, drawn every 20–40 s and smoothly interpolated), a fast
//! jitter (0.3–0.8 m, 2–6 s of correlation, a third more with the wrist near the water) and
//! multipath steps (2–8 an hour, half as many again in the water, median 7 m and up to 35 m,
//! held 3–40 s). The antenna sees nothing under water: the watch arm's paddle strokes, duck
//! dives and wipe-outs; spontaneous losses of 2–30 s come on top, most often while riding (the
//! wave face, spray, a hand in the water). A lost lock takes longer to regain the longer it
//! was lost, and after a loss of 5 s or more the first solutions are off by metres to tens of
//! metres, the error shrinking in jumps as satellites come back (apparent speeds of 60–160
//! km/h). The receiver runs a constant-velocity Kalman filter at 10 Hz, coasts on its
//! prediction for 1–3 s without measurements (overshooting when a ride stops), restarts from
//! the next measurement after 5–10 s without, and in a fifth of sessions repeats its last
//! position through a loss instead of leaving a gap. It logs every second (1 Hz), every even
//! second (0.5 Hz), or "smart": a point when the position strays 3–6 m from the straight line
//! of the last logged velocity, the speed changes by 1 m/s or the heart rate by 6 bpm, at the
//! first fix after a gap, and else every 4–8 s. Times are whole seconds.
//!
//! **The file** is Garmin-like GPX 1.1: Garmin Connect's export (`ns3:` prefix, `.000Z`
//! times) or a device's own (`gpxtpx:` prefix, TrackPointExtension v1 or v2, segments
//! sometimes split at long gaps), positions quantised to FIT semicircles, and heart rate from a
//! wrist sensor following the effort with a lag (a few points without it in some sessions).

use super::sim::{Act, Break, Pcg, Recorded, Sampling};
use std::f64::consts::PI;
use std::fmt::Write as _;

/// Time step of the true motion (s).
const DT: f64 = 0.1;
/// True steps per second.
const PER_S: usize = 10;
const G: f64 = 9.81;
/// Garmin's TrackPointExtension namespaces.
const TPX_V1: &str = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1";
const TPX_V2: &str = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2";

/// Where a session happens: the waterline at the origin of the shore frame, and the bearing
/// of the open sea (degrees from north).
struct Spot {
    name: &'static str,
    lat: f64,
    lon: f64,
    seaward_deg: f64,
}

static BEACHES: [Spot; 4] = [
    Spot {
        name: "Hossegor",
        lat: 43.664,
        lon: -1.446,
        seaward_deg: 275.0,
    },
    Spot {
        name: "Huntington Beach",
        lat: 33.656,
        lon: -118.004,
        seaward_deg: 215.0,
    },
    Spot {
        name: "Scheveningen",
        lat: 52.108,
        lon: 4.265,
        seaward_deg: 295.0,
    },
    Spot {
        name: "Bondi",
        lat: -33.891,
        lon: 151.278,
        seaward_deg: 110.0,
    },
];

static REEFS: [Spot; 4] = [
    Spot {
        name: "Uluwatu",
        lat: -8.815,
        lon: 115.086,
        seaward_deg: 255.0,
    },
    Spot {
        name: "Coxos",
        lat: 39.003,
        lon: -9.425,
        seaward_deg: 290.0,
    },
    Spot {
        name: "Thurso East",
        lat: 58.598,
        lon: -3.497,
        seaward_deg: 10.0,
    },
    Spot {
        name: "Sunset Beach",
        lat: 21.679,
        lon: -158.041,
        seaward_deg: 320.0,
    },
];

static POINTS: [Spot; 4] = [
    Spot {
        name: "Jeffreys Bay",
        lat: -34.049,
        lon: 24.931,
        seaward_deg: 150.0,
    },
    Spot {
        name: "Rincon",
        lat: 34.374,
        lon: -119.478,
        seaward_deg: 205.0,
    },
    Spot {
        name: "Snapper Rocks",
        lat: -28.162,
        lon: 153.550,
        seaward_deg: 45.0,
    },
    Spot {
        name: "Raglan",
        lat: -37.787,
        lon: 174.827,
        seaward_deg: 330.0,
    },
];

/// One wave reaching the line-up: when (s from the start) and how high (m).
#[derive(Clone, Copy, Debug)]
struct Wave {
    t: f64,
    h: f64,
}

/// How a ride ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Fall,
    KickOut,
    Fizzle,
    Shore,
}

/// The day's sea and the surfer, in the shore frame: `x` metres along the shore, `y` metres
/// out to sea from the waterline.
struct Day {
    brk: Break,
    /// Typical breaking height (m) and swell period (s).
    h: f64,
    tp: f64,
    /// Where waves break, and where a ride meets the sand or the inside (m offshore).
    y_break: f64,
    y_shallow: f64,
    /// The take-off spot (at a beach: the peak being surfed now).
    peak: (f64, f64),
    /// A beach's peaks lie within ± this along the shore.
    zone: f64,
    /// Along-shore drift in the water (m/s).
    current: f64,
    /// The point's direction of travel along the shore (+1 or -1).
    side: f64,
    set_gap: f64,
    set_size: (u32, u32),
    lull_rate: f64,
    /// Chance of going for a typical wave, and of catching one gone for.
    p_go: f64,
    p_catch: f64,
    skill: f64,
    /// Seconds sat before going again after an effort.
    rest: (f64, f64),
    cruise: f64,
    sprint: f64,
    walk: f64,
    jog: f64,
    /// Share of a walk back along the beach that is jogged.
    jogger: f64,
    /// A point ride ending further than this from the peak: walk back.
    go_home: f64,
    /// The watch arm's stroke cycle (s) and the part of it the watch is under water.
    stroke: f64,
    dunk: f64,
}

impl Day {
    fn new(r: &mut Pcg, brk: Break) -> Day {
        let skill = r.f();
        let (h, tp, y_break, y_shallow) = match brk {
            Break::Beach => {
                let h = r.lognormal(1.1, 0.25, 0.6, 2.2);
                let yb = 35.0 + 30.0 * h + r.range(-10.0, 10.0);
                (h, r.range(7.0, 11.0), yb, r.range(8.0, 14.0))
            }
            Break::Reef => {
                let h = r.lognormal(1.5, 0.25, 0.8, 3.0);
                let yb = r.range(150.0, 260.0);
                (h, r.range(10.0, 16.0), yb, yb - r.range(70.0, 110.0))
            }
            Break::Point => {
                let h = r.lognormal(1.3, 0.25, 0.7, 2.6);
                (
                    h,
                    r.range(10.0, 16.0),
                    r.range(70.0, 130.0),
                    r.range(18.0, 30.0),
                )
            }
        };
        let side = if r.chance(0.5) { 1.0 } else { -1.0 };
        let (set_gap, set_size, lull_rate, p_go, current) = match brk {
            Break::Beach => (
                r.lognormal(120.0, 0.3, 60.0, 300.0),
                (3, 6),
                1.0 / 40.0,
                r.range(0.4, 0.65),
                r.range(-0.2, 0.2),
            ),
            Break::Reef => (
                r.lognormal(200.0, 0.3, 100.0, 500.0),
                (4, 7),
                1.0 / 100.0,
                r.range(0.35, 0.5),
                r.range(-0.1, 0.1),
            ),
            Break::Point => (
                r.lognormal(240.0, 0.3, 120.0, 600.0),
                (5, 9),
                1.0 / 150.0,
                r.range(0.3, 0.5),
                side * r.range(0.03, 0.15),
            ),
        };
        Day {
            brk,
            h,
            tp,
            y_break,
            y_shallow,
            peak: (0.0, y_break + r.range(3.0, 12.0)),
            zone: if brk == Break::Beach {
                r.range(80.0, 200.0)
            } else {
                0.0
            },
            current,
            side,
            set_gap,
            set_size,
            lull_rate,
            p_go: p_go * (0.7 + 0.6 * skill),
            p_catch: 0.6 + 0.3 * skill,
            skill,
            rest: (r.range(10.0, 30.0), r.range(40.0, 90.0)),
            cruise: r.range(0.8, 1.2),
            sprint: r.range(1.5, 2.0),
            walk: r.range(1.15, 1.5),
            jog: r.range(2.2, 3.0),
            jogger: if r.chance(0.4) {
                r.range(0.2, 0.7)
            } else {
                0.0
            },
            go_home: r.range(150.0, 350.0),
            stroke: r.range(1.3, 1.8),
            dunk: r.range(0.25, 0.4),
        }
    }

    /// The session's waves, in order: sets and the lull waves between them.
    fn waves(&self, r: &mut Pcg, len: f64) -> Vec<Wave> {
        let mut out = Vec::new();
        let mut t = r.range(0.0, self.set_gap);
        while t < len {
            let n =
                self.set_size.0 + (r.f() * f64::from(self.set_size.1 - self.set_size.0 + 1)) as u32;
            let mut tw = t;
            for k in 0..n {
                // The middle waves of a set are the biggest.
                let mid = 1.0 - (2.0 * f64::from(k) / f64::from(n.max(2) - 1) - 1.0).abs();
                out.push(Wave {
                    t: tw,
                    h: self.h * (0.85 + 0.25 * mid) * r.range(0.85, 1.15),
                });
                tw += self.tp * r.range(0.85, 1.15);
            }
            t = tw + self.set_gap * r.lognormal(1.0, 0.4, 0.3, 3.0);
        }
        let mut t = 0.0;
        loop {
            t += -(1.0 - r.f()).ln() / self.lull_rate;
            if t >= len {
                break;
            }
            out.push(Wave {
                t,
                h: self.h * r.range(0.45, 0.75),
            });
        }
        out.sort_by(|a, b| a.t.total_cmp(&b.t));
        out
    }
}

/// The true path at 10 Hz.
#[derive(Default)]
struct Tape {
    x: Vec<f64>,
    y: Vec<f64>,
    act: Vec<Act>,
    /// The watch under water (no satellite reaches it).
    under: Vec<bool>,
    /// Exertion, 0 to 1 (drives the heart rate).
    effort: Vec<f32>,
    /// True rides: step indices [start, end).
    rides: Vec<(usize, usize)>,
}

fn smoothstep(f: f64) -> f64 {
    let f = f.clamp(0.0, 1.0);
    f * f * (3.0 - 2.0 * f)
}

/// Steps in `s` seconds.
fn steps(s: f64) -> usize {
    (s / DT).round().max(1.0) as usize
}

struct Surfer<'a> {
    r: &'a mut Pcg,
    d: Day,
    waves: Vec<Wave>,
    x: f64,
    y: f64,
    /// The last step's velocity.
    vx: f64,
    vy: f64,
    /// Slow heading wander while paddling or walking (rad).
    wander: f64,
    tape: Tape,
}

impl Surfer<'_> {
    fn now(&self) -> f64 {
        self.tape.x.len() as f64 * DT
    }

    fn push(&mut self, mut vx: f64, vy: f64, act: Act, under: bool, effort: f32) {
        if matches!(act, Act::Sit | Act::Paddle | Act::Swim) {
            vx += self.d.current;
        }
        self.x += vx * DT;
        self.y += vy * DT;
        if act != Act::Land && self.y < 0.5 {
            self.y = 0.5;
        }
        self.vx = vx;
        self.vy = vy;
        self.tape.x.push(self.x);
        self.tape.y.push(self.y);
        self.tape.act.push(act);
        self.tape.under.push(under);
        self.tape.effort.push(effort);
    }

    fn wander(&mut self, sigma: f64) -> f64 {
        let a = (-DT / 5.0f64).exp();
        self.wander = self.wander * a + sigma * (1.0 - a * a).sqrt() * self.r.normal();
        self.wander
    }

    /// The wave that reached the line-up during the last step, if any.
    fn wave_now(&self) -> Option<Wave> {
        let now = self.now();
        let i = self.waves.partition_point(|w| w.t <= now);
        i.checked_sub(1)
            .map(|i| self.waves[i])
            .filter(|w| w.t > now - DT)
    }

    /// The first wave after `t`.
    fn wave_after(&self, t: f64) -> Option<Wave> {
        let i = self.waves.partition_point(|w| w.t <= t);
        self.waves.get(i).copied()
    }

    fn walk_to(&mut self, tx: f64, ty: f64, speed: f64) {
        let effort = if speed > 2.0 { 0.6 } else { 0.25 };
        for _ in 0..100_000 {
            let (dx, dy) = (tx - self.x, ty - self.y);
            let dist = dx.hypot(dy);
            if dist < 0.5 {
                break;
            }
            let th = dy.atan2(dx) + 0.5 * self.wander(0.15);
            let v = (speed * (1.0 + 0.05 * self.r.normal())).min(dist / DT);
            self.push(v * th.cos(), v * th.sin(), Act::Land, false, effort);
        }
    }

    /// Along the beach, walking and jogging by turns.
    fn walk_along(&mut self, tx: f64) {
        for _ in 0..1000 {
            let dx = tx - self.x;
            if dx.abs() < 1.0 {
                break;
            }
            let seg = self.r.range(25.0, 80.0).min(dx.abs());
            let speed = if self.r.chance(self.d.jogger) {
                self.d.jog
            } else {
                self.d.walk
            };
            let (nx, ny) = (self.x + seg * dx.signum(), self.y + self.r.normal());
            self.walk_to(nx, ny, speed);
        }
    }

    fn stand(&mut self, secs: f64, act: Act, effort: f32) {
        for _ in 0..steps(secs) {
            let (a, b) = (0.05 * self.r.normal(), 0.05 * self.r.normal());
            self.push(a, b, act, false, effort);
        }
    }

    /// Wading with the board, to `ty` metres offshore.
    fn wade_to(&mut self, ty: f64) {
        let ty = ty.max(0.6);
        for _ in 0..10_000 {
            let dy = ty - self.y;
            if dy.abs() < 0.3 {
                break;
            }
            let v = self.r.range(0.5, 0.9).min(dy.abs() / DT) * dy.signum();
            let a = 0.05 * self.r.normal();
            self.push(a, v, Act::Swim, false, 0.35);
        }
    }

    fn paddle_to(&mut self, tx: f64, ty: f64, max_s: f64) {
        let deadline = self.now() + max_s;
        let mut rest_at = self.now() + self.r.range(25.0, 70.0);
        while self.now() < deadline {
            let (dx, dy) = (tx - self.x, ty - self.y);
            if dx.hypot(dy) < 3.0 {
                break;
            }
            if self.now() >= rest_at {
                let secs = self.r.range(3.0, 9.0);
                self.glide(secs, Act::Paddle);
                rest_at = self.now() + self.r.range(25.0, 70.0);
                continue;
            }
            if let Some(w) = self.wave_now()
                && self.y > self.d.y_shallow
                && self.y < self.d.y_break + 10.0
            {
                self.meet_wave(w);
                continue;
            }
            let th = dy.atan2(dx) + self.wander(0.2);
            let phase = self.now() / self.d.stroke;
            let v = self.d.cruise * (1.0 + 0.2 * (4.0 * PI * phase).sin());
            let under = phase.fract() < self.d.dunk;
            self.push(v * th.cos(), v * th.sin(), Act::Paddle, under, 0.5);
        }
    }

    /// Drifting to a stop from the last velocity.
    fn glide(&mut self, secs: f64, act: Act) {
        let k = (-DT / 1.5f64).exp();
        let (mut vx, mut vy) = (self.vx - self.d.current, self.vy);
        for _ in 0..steps(secs) {
            vx *= k;
            vy *= k;
            self.push(vx, vy, act, false, 0.2);
        }
    }

    /// A wave met in the impact zone while paddling: a duck dive under it, or on a beach's
    /// inside, held and pushed back by its whitewater.
    fn meet_wave(&mut self, w: Wave) {
        if self.d.brk != Break::Beach || self.y > self.d.y_break - 30.0 {
            let secs = self.r.range(2.0, 3.5);
            let back = self.r.range(1.0, 5.0) * w.h / self.d.h;
            for _ in 0..steps(secs) {
                let a = 0.1 * self.r.normal();
                self.push(a, -back / secs, Act::Paddle, true, 0.7);
            }
        } else {
            let secs = self.r.range(1.5, 3.0);
            let mut v = self.r.range(1.5, 3.0) * (w.h / self.d.h).sqrt();
            let n = steps(secs);
            for i in 0..n {
                v *= (-DT / 1.2f64).exp();
                let a = 0.1 * self.r.normal();
                self.push(a, -v, Act::Paddle, i < n * 6 / 10, 0.7);
            }
        }
    }

    /// Sitting in the line-up until `t_end`: drifting, rocked by the swells, paddling back to
    /// the peak when drifted off it.
    fn sit_until(&mut self, t_end: f64) {
        while self.now() < t_end {
            let now = self.now();
            let i = self.waves.partition_point(|w| w.t <= now);
            let orbital = i
                .checked_sub(1)
                .map(|i| self.waves[i])
                .filter(|w| now - w.t < self.d.tp)
                .map_or(0.0, |w| {
                    0.3 * w.h * (2.0 * PI * (now - w.t) / self.d.tp).sin()
                });
            let (a, b) = (0.08 * self.r.normal(), 0.08 * self.r.normal());
            self.push(a, b - orbital, Act::Sit, false, 0.1);
            let (dx, dy) = (self.x - self.d.peak.0, self.y - self.d.peak.1);
            if dx.abs() > 20.0 || dy.abs() > 20.0 {
                if self.d.brk == Break::Beach && dy.abs() <= 20.0 && self.r.chance(0.5) {
                    // At a beach the surfer may just take the bank drifted to.
                    self.d.peak.0 = self.x.clamp(-self.d.zone, self.d.zone);
                } else {
                    let (px, py) = (
                        self.d.peak.0 + 3.0 * self.r.normal(),
                        self.d.peak.1 + 3.0 * self.r.normal(),
                    );
                    self.paddle_to(px, py, 300.0);
                }
            }
        }
    }

    /// Going for wave `w`; `last` forces a ride to the shore (the last wave in).
    fn attempt(&mut self, w: Wave, last: bool) {
        let c = (G * w.h / 0.78).sqrt();
        let side = if self.d.brk == Break::Point {
            self.d.side
        } else if self.r.chance(0.5) {
            1.0
        } else {
            -1.0
        };
        let ang = match self.d.brk {
            Break::Beach => self.r.range(10.0, 60.0),
            Break::Reef => self.r.range(50.0, 80.0),
            Break::Point => self.r.range(65.0, 85.0),
        }
        .to_radians();
        let head = ang * 0.3;
        let (hx, hy) = (side * head.sin(), -head.cos());
        let mut v = self.vx.hypot(self.vy).min(1.0);
        // The sprint for it.
        while self.now() < w.t {
            v += (self.d.sprint - v) * DT / 0.7;
            let phase = self.now() / (self.d.stroke * 0.75);
            let under = phase.fract() < self.d.dunk * 1.2;
            self.push(v * hx, v * hy, Act::Paddle, under, 0.9);
        }
        // The wave lifts the board.
        let lift = (c * self.r.range(0.6, 0.85)).max(self.d.sprint + 0.4);
        let n = steps(self.r.range(1.0, 2.0));
        let v0 = v;
        for i in 0..n {
            v = v0 + (lift - v0) * smoothstep((i + 1) as f64 / n as f64);
            let phase = self.now() / (self.d.stroke * 0.75);
            let under = phase.fract() < self.d.dunk;
            self.push(v * hx, v * hy, Act::Paddle, under, 0.95);
        }
        let p_catch = if last { 0.95 } else { self.d.p_catch };
        if !self.r.chance(p_catch) {
            // Missed: the wave passes under the board.
            let k = (-DT / 0.9f64).exp();
            for _ in 0..steps(self.r.range(2.0, 3.5)) {
                v = 0.3 + (v - 0.3) * k;
                self.push(v * hx, v * hy, Act::Paddle, false, 0.7);
            }
            let secs = self.r.range(2.0, 6.0);
            self.stand(secs, Act::Sit, 0.3);
            if !last {
                self.back_to_peak();
            }
            return;
        }
        if !last && self.r.chance(0.05 + 0.07 * (1.0 - self.d.skill)) {
            // A nose-dive on the take-off: never up, no ride.
            self.wipeout(v, w.h);
            self.back_to_peak();
            return;
        }
        let mushy = self.r.chance(match self.d.brk {
            Break::Beach => 0.15,
            Break::Reef => 0.08,
            Break::Point => 0.12,
        });
        let vb = if mushy {
            self.r.range(1.8, 3.1)
        } else {
            c * match self.d.brk {
                Break::Beach => self.r.range(1.15, 1.6),
                _ => self.r.range(1.25, 1.75),
            }
        };
        // The pop-up: the board accelerates down the face, the surfer not yet standing.
        let n = steps(self.r.range(0.5, 1.1));
        let v0 = v;
        for i in 0..n {
            v = v0 + (0.82 * vb - v0) * smoothstep((i + 1) as f64 / n as f64);
            self.push(v * hx, v * hy, Act::Paddle, false, 0.95);
        }
        let end = self.ride(side, ang, vb, mushy, w.h, last);
        if !last {
            self.back_to_lineup(side, end == End::Shore);
        }
    }

    fn ride(&mut self, side: f64, ang0: f64, vb: f64, mushy: bool, h: f64, last: bool) -> End {
        let brk = self.d.brk;
        let skill = 0.8 + 0.4 * self.d.skill;
        let dur = skill
            * match brk {
                Break::Beach => self.r.lognormal(4.5, 0.55, 1.5, 20.0),
                Break::Reef => self.r.lognormal(9.0, 0.5, 3.0, 35.0),
                Break::Point => self.r.lognormal(22.0, 0.55, 6.0, 100.0),
            };
        let u = self.r.f();
        let mut end = if last {
            End::Shore
        } else {
            let (fall, kick, fizzle) = match brk {
                Break::Beach => (0.4, 0.3, 0.18),
                Break::Reef => (0.35, 0.5, 0.15),
                Break::Point => (0.3, 0.45, 0.1),
            };
            if u < fall {
                End::Fall
            } else if u < fall + kick {
                End::KickOut
            } else if u < fall + kick + fizzle {
                End::Fizzle
            } else {
                End::Shore
            }
        };
        let (a_v, a_h, period) = if mushy {
            (0.06, 0.1, self.r.range(3.0, 5.0))
        } else {
            (
                self.r.range(0.12, 0.28),
                self.r.range(15.0, 35.0).to_radians(),
                match brk {
                    Break::Beach => self.r.range(2.0, 3.5),
                    _ => self.r.range(2.8, 5.0),
                },
            )
        };
        let phi = self.r.range(0.0, 2.0 * PI);
        let cutbacks = !mushy && brk != Break::Beach;
        let mut cut_at = if cutbacks {
            self.r.range(6.0, 15.0)
        } else {
            f64::INFINITY
        };
        let mut slow = 0.0;
        let ks = (-DT / 4.0f64).exp();
        let start = self.tape.x.len();
        let mut tau = 0.0;
        let mut th = ang0;
        let mut v = vb;
        while tau < dur {
            if self.y <= self.d.y_shallow {
                end = End::Shore;
                break;
            }
            if brk != Break::Beach {
                slow = slow * ks + 0.1 * (1.0 - ks * ks).sqrt() * self.r.normal();
            }
            let arg = 2.0 * PI * tau / period + phi;
            v = vb * (1.0 - 0.18 * (-tau / 0.8).exp()) * (1.0 + a_v * arg.sin()) * (1.0 + slow);
            th = ang0 + a_h * (arg + PI / 2.0).sin();
            if tau >= cut_at {
                let f = (tau - cut_at) / 2.2;
                if f >= 1.0 {
                    cut_at += 2.2 + self.r.range(6.0, 15.0);
                } else {
                    let bump = (PI * f).sin();
                    th -= (ang0 + 0.6) * bump;
                    v *= 1.0 - 0.3 * bump;
                }
            }
            self.push(side * v * th.sin(), -v * th.cos(), Act::Ride, false, 0.7);
            tau += DT;
        }
        if end == End::Shore && brk == Break::Reef {
            // The inside of a reef is no place to ride to: out over the back before it.
            end = End::KickOut;
        }
        match end {
            End::Fall => {
                self.tape.rides.push((start, self.tape.x.len()));
                self.wipeout(v, h);
            }
            End::KickOut => {
                // Up the face and over the crest, then lying on the board behind the wave.
                let n = steps(self.r.range(0.5, 0.9));
                let (th0, v0) = (th, v);
                for i in 0..n {
                    let f = smoothstep((i + 1) as f64 / n as f64);
                    let t = th0 + (PI * 0.8 - th0) * f;
                    let s = v0 * (1.0 - 0.5 * f);
                    self.push(side * s * t.sin(), -s * t.cos(), Act::Ride, false, 0.7);
                }
                self.tape.rides.push((start, self.tape.x.len()));
                let secs = self.r.range(2.0, 4.0);
                self.glide(secs, Act::Sit);
            }
            End::Fizzle => {
                let k = (-DT / 1.3f64).exp();
                let stop = (0.4 * vb).max(1.3);
                let mut n = 0;
                while v > stop && n < 40 {
                    v *= k;
                    th *= 0.95;
                    self.push(side * v * th.sin(), -v * th.cos(), Act::Ride, false, 0.6);
                    n += 1;
                }
                self.tape.rides.push((start, self.tape.x.len()));
                let secs = self.r.range(1.5, 3.0);
                self.glide(secs, Act::Sit);
            }
            End::Shore => {
                // Straighten out and ride the whitewater in; step off, or fall in it.
                let bore = self.r.range(2.0, 3.0);
                let y_stop = self.d.y_shallow * self.r.range(0.3, 0.8);
                let cap = self.r.range(3.0, 12.0);
                let (th0, v0) = (th, v);
                let mut i = 0;
                while self.y > y_stop && (i as f64) * DT < cap {
                    let f = smoothstep(i as f64 * DT);
                    th = th0 * (1.0 - f);
                    v = bore + (v0 - bore) * (-(i as f64) * DT / 1.5).exp();
                    self.push(side * v * th.sin(), -v * th.cos(), Act::Ride, false, 0.6);
                    i += 1;
                }
                self.tape.rides.push((start, self.tape.x.len()));
                if self.y > y_stop {
                    self.wipeout(v, h * 0.5);
                } else {
                    let k = (-DT / 0.4f64).exp();
                    for _ in 0..steps(0.8) {
                        v *= k;
                        self.push(side * v * th.sin(), -v * th.cos(), Act::Swim, false, 0.4);
                    }
                    let secs = self.r.range(3.0, 8.0);
                    self.stand(secs, Act::Swim, 0.3);
                }
            }
        }
        end
    }

    /// Off the board: under water with the whitewater, then swimming for the board.
    fn wipeout(&mut self, v: f64, h: f64) {
        let k = (-DT / 1.2f64).exp();
        let mut vs = 0.5 * v;
        let under = self.r.lognormal(2.5 + 1.5 * h, 0.35, 1.2, 9.0);
        for _ in 0..steps(under) {
            vs = 0.8 + (vs - 0.8) * k;
            let a = 0.2 * self.r.normal();
            self.push(a, -vs, Act::Swim, true, 0.9);
        }
        for _ in 0..steps(self.r.range(2.0, 6.0)) {
            vs = 0.15 + (vs - 0.15) * k;
            let a = 0.1 * self.r.normal();
            self.push(a, -vs, Act::Swim, false, 0.8);
        }
    }

    /// After a missed wave: straight back to the take-off spot, a few metres away.
    fn back_to_peak(&mut self) {
        let (tx, ty) = (
            self.d.peak.0 + 3.0 * self.r.normal(),
            self.d.peak.1 + 3.0 * self.r.normal(),
        );
        self.paddle_to(tx, ty, 600.0);
    }

    /// After a ride: back out to the line-up, the way this break is paddled.
    fn back_to_lineup(&mut self, side: f64, ashore: bool) {
        let (px, py) = self.d.peak;
        match self.d.brk {
            Break::Beach => {
                if self.r.chance(0.35) {
                    self.d.peak.0 =
                        (self.x + 25.0 * self.r.normal()).clamp(-self.d.zone, self.d.zone);
                }
                let (tx, ty) = (
                    self.d.peak.0 + 3.0 * self.r.normal(),
                    py + 4.0 * self.r.normal(),
                );
                self.paddle_to(tx, ty, 1200.0);
            }
            Break::Reef => {
                // Out through the channel beside the reef.
                let ch = (px + side * self.r.range(30.0, 60.0), self.y.max(py - 30.0));
                self.paddle_to(ch.0, ch.1, 900.0);
                self.paddle_to(px, py, 900.0);
            }
            Break::Point => {
                if ashore || (self.x - px) * self.d.side > self.d.go_home {
                    self.walk_back();
                } else {
                    let out = py + self.r.range(25.0, 50.0);
                    self.paddle_to(self.x - self.d.side * 10.0, out, 900.0);
                    self.paddle_to(px + self.d.side * 15.0, out, 1200.0);
                    self.paddle_to(px, py, 600.0);
                }
            }
        }
    }

    /// A point: ashore, back along the beach (walking and jogging), in again above the peak.
    fn walk_back(&mut self) {
        if self.y > 6.0 {
            self.paddle_to(self.x, 5.0, 900.0);
        }
        self.wade_to(0.0);
        let up = -self.r.range(8.0, 20.0);
        self.walk_to(self.x, up, self.d.walk);
        let tx = self.d.peak.0 - self.d.side * self.r.range(0.0, 60.0);
        self.walk_along(tx);
        self.walk_to(self.x, 0.0, self.d.walk);
        let secs = self.r.range(10.0, 60.0);
        self.stand(secs, Act::Land, 0.2);
        let ty = self.r.range(4.0, 7.0);
        self.wade_to(ty);
        let (px, py) = self.d.peak;
        self.paddle_to(px - self.d.side * 20.0, py + 30.0, 1200.0);
        self.paddle_to(px, py, 600.0);
    }
}

/// The whole session's true path.
fn surf(r: &mut Pcg, brk: Break) -> Tape {
    let d = Day::new(r, brk);
    let len = r.range(47.0, 108.0) * 60.0;
    let waves = d.waves(r, len + 1800.0);
    let (px, py, side) = (d.peak.0, d.peak.1, d.side);
    let entry = match brk {
        Break::Beach => px + r.range(-50.0, 50.0),
        Break::Reef => px + r.range(-150.0, 150.0),
        Break::Point => px - side * r.range(20.0, 100.0),
    };
    let car = (entry + r.range(-80.0, 80.0), -r.range(40.0, 120.0));
    let mut s = Surfer {
        r,
        d,
        waves,
        x: car.0,
        y: car.1,
        vx: 0.0,
        vy: 0.0,
        wander: 0.0,
        tape: Tape::default(),
    };
    let speed = if s.r.chance(0.15) { s.d.jog } else { s.d.walk };
    s.walk_to(entry, -10.0, speed);
    let secs = s.r.range(20.0, 150.0);
    s.stand(secs, Act::Land, 0.15);
    s.walk_to(entry, 0.0, s.d.walk);
    let ty = s.r.range(4.0, 8.0);
    s.wade_to(ty);
    match brk {
        Break::Beach => {}
        Break::Reef => {
            let sgn = if s.r.chance(0.5) { 1.0 } else { -1.0 };
            let ch = px + sgn * s.r.range(60.0, 120.0);
            s.paddle_to(ch, py - 20.0, 1200.0);
        }
        Break::Point => s.paddle_to(px - side * 20.0, py + 30.0, 1200.0),
    }
    s.paddle_to(px, py, 1200.0);
    let end_t = len - s.r.range(150.0, 300.0);
    let (rest0, rest1) = s.d.rest;
    let mut ready_at = s.now() + s.r.range(rest0, rest1);
    while s.now() < end_t {
        let Some(w) = s.wave_after(s.now() + 4.0) else {
            break;
        };
        if w.t > end_t + 60.0 {
            s.sit_until(end_t);
            break;
        }
        let lead = s.r.range(3.5, 5.5);
        s.sit_until(w.t - lead);
        let keen = s.d.p_go * (w.h / s.d.h).powi(2).min(1.5);
        if s.now() < w.t - 2.0 && s.now() >= ready_at && s.r.chance(keen) {
            s.attempt(w, false);
            ready_at = s.now() + s.r.range(rest0, rest1);
        } else {
            s.sit_until(w.t + 1.0);
        }
    }
    // Leaving: sometimes on a last wave, else paddling in; then up the beach to the car.
    let on_land = s.tape.act.last() == Some(&Act::Land);
    if !on_land {
        if brk != Break::Reef
            && s.r.chance(0.5)
            && let Some(w) = s.wave_after(s.now() + 6.0)
        {
            s.sit_until(w.t - 4.0);
            s.attempt(w, true);
        }
        if brk == Break::Reef {
            let ch = px + s.r.range(60.0, 120.0);
            s.paddle_to(ch, s.y.min(py - 20.0), 1200.0);
        }
        let x = s.x;
        s.paddle_to(x, 5.0, 1500.0);
        s.wade_to(0.0);
    }
    s.walk_to(car.0, car.1, s.d.walk);
    s.tape
}

/// The watch's receiver and logger, drawn per session.
struct Receiver {
    /// Slow bias: 1σ (m), correlation time (s), knot spacing (s).
    bias_sigma: f64,
    bias_tau: f64,
    knot: f64,
    /// Fast jitter: 1σ (m) and correlation time (s).
    fast_sigma: f64,
    fast_tau: f64,
    /// Multipath steps per second.
    multipath_rate: f64,
    /// Kalman filter: acceleration spectral density and the measurement σ it assumes.
    q: f64,
    meas_sigma: f64,
    /// Seconds it coasts without measurements, and after which it restarts.
    coast: f64,
    restart: f64,
    /// Repeats the last position through a loss of up to this long, instead of a gap.
    freeze: Option<f64>,
    /// Multiplies the spontaneous-loss hazard.
    loss: f64,
    /// Smart recording: deviation (m), speed change (m/s), longest interval (s).
    smart_dev: f64,
    smart_dv: f64,
    smart_max: i64,
}

impl Receiver {
    fn new(r: &mut Pcg) -> Receiver {
        let sigma = r.range(3.0, 8.0);
        let fast_sigma = r.range(0.3, 0.8);
        Receiver {
            bias_sigma: (sigma * sigma - fast_sigma * fast_sigma).sqrt(),
            bias_tau: r.range(90.0, 400.0),
            knot: r.range(20.0, 40.0),
            fast_sigma,
            fast_tau: r.range(2.0, 6.0),
            multipath_rate: r.range(2.0, 8.0) / 3600.0,
            q: r.range(0.8, 2.5),
            meas_sigma: r.range(2.0, 4.0),
            coast: r.range(1.0, 3.0),
            restart: r.range(5.0, 10.0),
            freeze: r.chance(0.2).then(|| r.range(10.0, 60.0)),
            loss: r.range(0.5, 1.6),
            smart_dev: r.range(3.0, 6.0),
            smart_dv: 1.0,
            smart_max: 4 + (r.f() * 5.0) as i64,
        }
    }

    /// Spontaneous losses of signal per second, by activity.
    fn hazard(&self, act: Act) -> f64 {
        self.loss
            * match act {
                Act::Ride => 0.05,
                Act::Paddle => 0.004,
                Act::Sit => 0.0015,
                Act::Swim => 0.01,
                Act::Land => 0.0003,
            }
    }
}

/// One axis of the receiver's constant-velocity Kalman filter.
#[derive(Clone, Copy)]
struct Axis {
    p: f64,
    v: f64,
    /// Covariance [[a, b], [b, c]].
    a: f64,
    b: f64,
    c: f64,
}

impl Axis {
    fn start(z: f64, meas_var: f64) -> Axis {
        Axis {
            p: z,
            v: 0.0,
            a: meas_var,
            b: 0.0,
            c: 4.0,
        }
    }
    fn predict(&mut self, q: f64) {
        self.p += self.v * DT;
        let (a, b, c) = (self.a, self.b, self.c);
        self.a = a + 2.0 * DT * b + DT * DT * c + q * DT.powi(3) / 3.0;
        self.b = b + DT * c + q * DT * DT / 2.0;
        self.c = c + q * DT;
    }
    fn update(&mut self, z: f64, meas_var: f64) {
        let s = self.a + meas_var;
        let (k1, k2) = (self.a / s, self.b / s);
        let e = z - self.p;
        self.p += k1 * e;
        self.v += k2 * e;
        let (a, b, c) = (self.a, self.b, self.c);
        self.a = (1.0 - k1) * a;
        self.b = (1.0 - k1) * b;
        self.c = c - k2 * b;
    }
}

/// What the receiver gives at one whole second: a position (shore frame, m) and velocity.
#[derive(Clone, Copy)]
struct Epoch {
    p: Option<(f64, f64)>,
    v: (f64, f64),
}

/// A multipath step: its offset (m), when it starts and stops holding, and its ramps (s).
#[derive(Clone, Copy)]
struct Multipath {
    offset: (f64, f64),
    start: f64,
    until: f64,
    ramp_in: f64,
    ramp_out: f64,
}

fn gm_step(x: f64, rho: f64, sigma: f64, r: &mut Pcg) -> f64 {
    x * rho + sigma * (1.0 - rho * rho).sqrt() * r.normal()
}

/// The receiver's output at every whole second of the tape.
fn receive(r: &mut Pcg, rx: &Receiver, tape: &Tape) -> Vec<Epoch> {
    let n = tape.x.len();
    let knots = (n as f64 * DT / rx.knot) as usize + 2;
    let rho = (-rx.knot / rx.bias_tau).exp();
    let mut bias = vec![(rx.bias_sigma * r.normal(), rx.bias_sigma * r.normal())];
    for k in 1..knots {
        let (bx, by) = bias[k - 1];
        bias.push((
            gm_step(bx, rho, rx.bias_sigma, r),
            gm_step(by, rho, rx.bias_sigma, r),
        ));
    }
    let rho_f = (-DT / rx.fast_tau).exp();
    let mut fast = (0.0, 0.0);
    let mut mp: Option<Multipath> = None;
    let mut lost_until = -1.0;
    let mut lost_at: Option<f64> = None;
    let mut lock_at = 0.0;
    // After a long loss: the offset's size, direction and the time of its next jump.
    let (mut re_mag, mut re_dir, mut re_next) = (0.0f64, 0.0f64, 0.0f64);
    let mut kf: Option<(Axis, Axis)> = None;
    let mut last_meas = f64::NEG_INFINITY;
    let mut last_out: Option<(f64, f64)> = None;
    let mvar = rx.meas_sigma * rx.meas_sigma;
    let mut out = Vec::with_capacity(n / PER_S + 1);
    for i in 0..n {
        let t = i as f64 * DT;
        let act = tape.act[i];
        let wet = act != Act::Land;
        let kt = t / rx.knot;
        let k0 = kt as usize;
        let f = smoothstep(kt - k0 as f64);
        let (b0, b1) = (bias[k0], bias[k0 + 1]);
        let b = (b0.0 + (b1.0 - b0.0) * f, b0.1 + (b1.1 - b0.1) * f);
        let fs = rx.fast_sigma * if wet && act != Act::Ride { 1.3 } else { 1.0 };
        fast = (gm_step(fast.0, rho_f, fs, r), gm_step(fast.1, rho_f, fs, r));
        if mp.is_none() && r.chance(rx.multipath_rate * if wet { 1.5 } else { 1.0 } * DT) {
            let m = r.lognormal(7.0, 0.5, 2.0, 35.0);
            let dir = r.range(0.0, 2.0 * PI);
            let hold = r.range(3.0, 40.0);
            mp = Some(Multipath {
                offset: (m * dir.cos(), m * dir.sin()),
                start: t,
                until: t + hold,
                ramp_in: r.range(0.3, 3.0),
                ramp_out: r.range(2.0, 8.0),
            });
        }
        let mut m = (0.0, 0.0);
        if let Some(Multipath {
            offset: o,
            start: t0,
            until: t1,
            ramp_in: rin,
            ramp_out: rout,
        }) = mp
        {
            let w = if t < t1 {
                smoothstep((t - t0) / rin)
            } else {
                1.0 - smoothstep((t - t1) / rout)
            };
            if t >= t1 + rout {
                mp = None;
            }
            m = (o.0 * w, o.1 * w);
        }
        if t >= lost_until && r.chance(rx.hazard(act) * DT) {
            lost_until = t + r.lognormal(4.5, 0.55, 2.0, 30.0);
        }
        let visible = !tape.under[i] && t >= lost_until;
        if !visible {
            lost_at.get_or_insert(t);
        } else if let Some(l) = lost_at.take() {
            let o = t - l;
            lock_at = t + 0.2 + 0.15 * o.min(20.0) * r.range(0.5, 1.5);
            if o >= 5.0 {
                re_mag = r.lognormal(0.8 * o.min(30.0), 0.6, 1.0, 120.0);
                re_dir = r.range(0.0, 2.0 * PI);
                re_next = lock_at + r.range(0.8, 2.5);
            }
        }
        if re_mag > 0.0 && t >= re_next {
            re_mag *= r.range(0.15, 0.6);
            re_dir += 1.2 * r.normal();
            re_next = t + r.range(0.8, 2.5);
            if re_mag < 0.8 {
                re_mag = 0.0;
            }
        }
        if let Some((ax, ay)) = kf.as_mut() {
            ax.predict(rx.q);
            ay.predict(rx.q);
        }
        if visible && t >= lock_at {
            let z = (
                tape.x[i] + b.0 + fast.0 + m.0 + re_mag * re_dir.cos(),
                tape.y[i] + b.1 + fast.1 + m.1 + re_mag * re_dir.sin(),
            );
            match kf.as_mut() {
                Some((ax, ay)) if t - last_meas <= rx.restart => {
                    ax.update(z.0, mvar);
                    ay.update(z.1, mvar);
                }
                _ => kf = Some((Axis::start(z.0, mvar), Axis::start(z.1, mvar))),
            }
            last_meas = t;
        }
        if i % PER_S == 0 {
            let since = t - last_meas;
            let e = match kf {
                Some((ax, ay)) if since <= rx.coast => {
                    last_out = Some((ax.p, ay.p));
                    Epoch {
                        p: last_out,
                        v: (ax.v, ay.v),
                    }
                }
                _ if rx.freeze.is_some_and(|f| since <= f) => Epoch {
                    p: last_out,
                    v: (0.0, 0.0),
                },
                _ => Epoch {
                    p: None,
                    v: (0.0, 0.0),
                },
            };
            out.push(e);
        }
    }
    out
}

/// Heart rate at every whole second: a wrist sensor following the effort with a lag.
fn heart(r: &mut Pcg, tape: &Tape) -> Vec<u16> {
    let rest = r.range(55.0, 72.0);
    let max = r.range(175.0, 195.0);
    let mut hr = rest + 30.0;
    let mut noise = 0.0;
    let rho = (-1.0f64 / 10.0).exp();
    (0..tape.x.len())
        .step_by(PER_S)
        .map(|i| {
            let target = rest + (max - rest) * (0.22 + 0.72 * f64::from(tape.effort[i]));
            let tau: f64 = if target > hr { 18.0 } else { 40.0 };
            hr += (target - hr) * (1.0 - (-1.0 / tau).exp());
            noise = gm_step(noise, rho, 2.5, r);
            (hr + noise).round().clamp(40.0, 210.0) as u16
        })
        .collect()
}

/// Which whole seconds the watch logs.
fn log_seconds(sampling: Sampling, rx: &Receiver, ep: &[Epoch], hr: &[u16]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut last: Option<usize> = None;
    let mut had = false;
    for (k, e) in ep.iter().enumerate() {
        let Some(p) = e.p else {
            had = false;
            continue;
        };
        let keep = match sampling {
            Sampling::Hz1 => true,
            Sampling::Hz05 => k % 2 == 0,
            Sampling::Smart => match last {
                None => true,
                Some(l) => {
                    let el = (k - l) as i64;
                    let lp = ep[l].p.expect("a logged second has a position");
                    let lv = ep[l].v;
                    let pred = (lp.0 + lv.0 * el as f64, lp.1 + lv.1 * el as f64);
                    let dev = (p.0 - pred.0).hypot(p.1 - pred.1);
                    let dv = (e.v.0.hypot(e.v.1) - lv.0.hypot(lv.1)).abs();
                    !had || el >= rx.smart_max
                        || dev > rx.smart_dev
                        || dv > rx.smart_dv
                        || hr[k].abs_diff(hr[l]) >= 6
                }
            },
        };
        had = true;
        if keep {
            out.push(k);
            last = Some(k);
        }
    }
    out
}

/// Unix seconds as RFC 3339 UTC, with or without milliseconds.
fn rfc3339(unix: i64, millis: bool) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        if millis { ".000" } else { "" }
    )
}

/// Degrees as a FIT position (semicircles) holds them.
fn semicircles(deg: f64) -> f64 {
    let k = 2f64.powi(31) / 180.0;
    (deg * k).round() / k
}

/// How the file is written: Garmin Connect's export, or a device's own.
struct Style {
    connect: bool,
    tpx: &'static str,
    creator: &'static str,
    /// A new track segment after a gap of at least this many seconds.
    split: Option<usize>,
    /// Share of points whose heart rate is missing.
    hr_missing: f64,
}

/// A simulated session: its truth, the watch's recording, and the GPX it exported.
pub fn record(seed: u64, brk: Break, sampling: Sampling) -> Recorded {
    let mut r = Pcg::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5eed_0b5e_55b0_0002);
    let spots = match brk {
        Break::Beach => &BEACHES,
        Break::Reef => &REEFS,
        Break::Point => &POINTS,
    };
    let spot = &spots[(r.f() * 4.0) as usize % 4];
    let tape = surf(&mut r, brk);
    let rx = Receiver::new(&mut r);
    let ep = receive(&mut r, &rx, &tape);
    let hr = heart(&mut r, &tape);
    let logged = log_seconds(sampling, &rx, &ep, &hr);
    let connect = r.chance(0.5);
    let style = Style {
        connect,
        tpx: if connect || r.chance(0.6) {
            TPX_V1
        } else {
            TPX_V2
        },
        creator: if connect {
            "Garmin Connect"
        } else {
            ["fenix 7", "Forerunner 965", "Instinct 2 Solar", "epix Pro"]
                [(r.f() * 4.0) as usize % 4]
        },
        split: (!connect && r.chance(0.5)).then(|| 15 + (r.f() * 15.0) as usize),
        hr_missing: if r.chance(0.4) {
            r.range(0.002, 0.02)
        } else {
            0.0
        },
    };
    // The start: a day in 2025–2026, a local hour between 6 and 17 at the spot's longitude.
    let day0 = 1_735_689_600 + 86_400 * (r.f() * 540.0) as i64;
    let local = r.range(6.0, 17.0) * 3600.0 - spot.lon / 15.0 * 3600.0;
    let t0 = day0 + local.round() as i64;
    let t0_ms = t0 * 1000;
    let ms = |i: usize| t0_ms + (i * 100) as i64;

    let sea = spot.seaward_deg.to_radians();
    let (sx, sy) = (sea.sin(), sea.cos());
    let (ax, ay) = (sea.cos(), -sea.sin());
    let k_lat = 111_320.0;
    let k_lon = 111_320.0 * spot.lat.to_radians().cos();
    let latlon = |p: (f64, f64)| {
        let east = p.0 * ax + p.1 * sx;
        let north = p.0 * ay + p.1 * sy;
        (
            semicircles(spot.lat + north / k_lat),
            semicircles(spot.lon + east / k_lon),
        )
    };

    let pre = if style.connect { "ns3" } else { "gpxtpx" };
    let mut gpx = String::with_capacity(logged.len() * 220 + 1024);
    if style.connect {
        let _ = write!(
            gpx,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx creator=\"Garmin Connect\" version=\"1.1\"\n  xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/11.xsd\"\n  xmlns:ns3=\"{}\"\n  xmlns=\"http://www.topografix.com/GPX/1/1\"\n  xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:ns2=\"http://www.garmin.com/xmlschemas/GpxExtensions/v3\">\n  <metadata>\n    <link href=\"connect.garmin.com\">\n      <text>Garmin Connect</text>\n    </link>\n    <time>{}</time>\n  </metadata>\n  <trk>\n    <name>{} Surfing</name>\n    <type>surfing</type>\n    <trkseg>\n",
            style.tpx,
            rfc3339(t0, true),
            spot.name
        );
    } else {
        let _ = write!(
            gpx,
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\" ?>\n<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:gpxx=\"http://www.garmin.com/xmlschemas/GpxExtensions/v3\" xmlns:gpxtpx=\"{}\" creator=\"{}\" version=\"1.1\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/11.xsd\">\n  <metadata><time>{}</time></metadata>\n  <trk>\n    <name>{}</name>\n    <trkseg>\n",
            style.tpx,
            style.creator,
            rfc3339(t0, false),
            spot.name
        );
    }
    let mut prev: Option<usize> = None;
    for &k in &logged {
        if let (Some(p), Some(split)) = (prev, style.split)
            && k - p >= split
        {
            gpx.push_str("    </trkseg>\n    <trkseg>\n");
        }
        prev = Some(k);
        let (lat, lon) = latlon(ep[k].p.expect("a logged second has a position"));
        let _ = write!(
            gpx,
            "      <trkpt lat=\"{lat}\" lon=\"{lon}\">\n        <time>{}</time>\n",
            rfc3339(t0 + k as i64, style.connect)
        );
        if !r.chance(style.hr_missing) {
            let _ = write!(
                gpx,
                "        <extensions>\n          <{pre}:TrackPointExtension>\n            <{pre}:hr>{}</{pre}:hr>\n          </{pre}:TrackPointExtension>\n        </extensions>\n",
                hr[k]
            );
        }
        gpx.push_str("      </trkpt>\n");
    }
    gpx.push_str("    </trkseg>\n  </trk>\n</gpx>\n");

    let times: Vec<i64> = logged.iter().map(|&k| t0_ms + k as i64 * 1000).collect();
    let rides: Vec<(i64, i64)> = tape.rides.iter().map(|&(a, b)| (ms(a), ms(b))).collect();
    let rides_with_gaps = rides
        .iter()
        .filter(|&&(a, b)| {
            times
                .windows(2)
                .any(|w| w[1] - w[0] >= 4000 && w[0] < b && w[1] > a)
        })
        .count();
    let mut acts: Vec<(i64, Act)> = Vec::new();
    for (i, &a) in tape.act.iter().enumerate() {
        if acts.last().is_none_or(|l| l.1 != a) {
            acts.push((ms(i), a));
        }
    }
    Recorded {
        gpx,
        rides,
        brk,
        sampling,
        rides_with_gaps,
        fixes: logged.len(),
        acts,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BREAKS, SAMPLINGS, SECOND_MODEL, by_bounds, by_iou, import, naive};
    use super::*;
    use crate::domain::wearable::accuracy::Score;
    use crate::domain::wearable::samples::Samples;
    use std::collections::{BTreeMap, HashSet};
    use std::sync::OnceLock;

    /// One session per break × sampling (seeds 101–109), with what the import read of it.
    fn cells() -> &'static [(Recorded, Samples)] {
        static CELLS: OnceLock<Vec<(Recorded, Samples)>> = OnceLock::new();
        CELLS.get_or_init(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            let mut out = Vec::new();
            for b in BREAKS {
                for s in SAMPLINGS {
                    let rec = record(101 + out.len() as u64, b, s);
                    let samples = rt.block_on(import(&rec.gpx)).unwrap();
                    out.push((rec, samples));
                }
            }
            out
        })
    }

    fn intervals(s: &Samples) -> Vec<i64> {
        s.gps.windows(2).map(|w| w[1].t - w[0].t).collect()
    }

    #[test]
    fn every_break_and_sampling_imports_with_the_fixes_and_heart_rate_written() {
        let mut prefixes = HashSet::new();
        for (rec, s) in cells() {
            assert_eq!(s.gps.len(), rec.fixes, "{:?} {:?}", rec.brk, rec.sampling);
            let hr_written = rec.gpx.matches(":hr>").count() / 2;
            assert_eq!(s.hr.len(), hr_written);
            assert!(hr_written as f64 >= 0.95 * rec.fixes as f64);
            prefixes.insert(rec.gpx.contains("<ns3:hr>"));
            assert!(rec.gpx.contains("<ns3:hr>") != rec.gpx.contains("<gpxtpx:hr>"));
            assert!(s.gps.iter().all(|f| f.t % 1000 == 0), "whole seconds");
            assert!(intervals(s).iter().all(|&d| d >= 1000));
            let minutes = (s.gps.last().unwrap().t - s.gps[0].t) as f64 / 60_000.0;
            assert!((44.0..=125.0).contains(&minutes), "{minutes} min");
        }
        assert_eq!(prefixes.len(), 2, "both Garmin prefixes");
    }

    #[test]
    fn truth_rides_are_ordered_and_last_as_long_as_the_break_makes_them() {
        let mut durations: BTreeMap<Break, Vec<f64>> = BTreeMap::new();
        let mut counts: BTreeMap<Break, usize> = BTreeMap::new();
        for (rec, s) in cells() {
            assert!(!rec.rides.is_empty());
            assert!(rec.rides.iter().all(|r| r.0 < r.1));
            assert!(rec.rides.windows(2).all(|w| w[0].1 <= w[1].0));
            assert!(rec.rides[0].0 > s.gps[0].t);
            assert!(rec.rides.last().unwrap().1 < s.gps.last().unwrap().t);
            // The surfer's activity says riding over each true ride, and nowhere else.
            let riding: i64 = rec
                .acts
                .windows(2)
                .filter(|w| w[0].1 == Act::Ride)
                .map(|w| w[1].0 - w[0].0)
                .sum();
            let truth: i64 = rec.rides.iter().map(|r| r.1 - r.0).sum();
            assert_eq!(riding, truth);
            *counts.entry(rec.brk).or_default() += rec.rides.len();
            durations
                .entry(rec.brk)
                .or_default()
                .extend(rec.rides.iter().map(|r| (r.1 - r.0) as f64 / 1000.0));
        }
        let median = |b: Break| {
            let mut d = durations[&b].clone();
            d.sort_by(f64::total_cmp);
            d[d.len() / 2]
        };
        let (beach, reef, point) = (
            median(Break::Beach),
            median(Break::Reef),
            median(Break::Point),
        );
        assert!((2.0..=8.0).contains(&beach), "beach median {beach} s");
        assert!(beach < reef && reef < point, "{beach} {reef} {point}");
        assert!(point > 15.0, "point median {point} s");
        assert!(durations[&Break::Beach].iter().any(|&d| d <= 4.0));
        assert!(counts[&Break::Beach] > counts[&Break::Point], "{counts:?}");
        let acts: HashSet<_> = cells()
            .iter()
            .flat_map(|(r, _)| r.acts.iter().map(|a| format!("{:?}", a.1)))
            .collect();
        assert_eq!(acts.len(), 5, "{acts:?}");
    }

    #[test]
    fn some_rides_hold_a_gap_of_four_seconds_or_more() {
        let (mut rides, mut with_gaps) = (0, 0);
        for (rec, s) in cells() {
            let gaps = rec
                .rides
                .iter()
                .filter(|r| {
                    s.gps
                        .windows(2)
                        .any(|w| w[1].t - w[0].t >= 4000 && w[0].t < r.1 && w[1].t > r.0)
                })
                .count();
            assert_eq!(gaps, rec.rides_with_gaps);
            rides += rec.rides.len();
            with_gaps += gaps;
        }
        assert!(
            with_gaps > rides / 10 && with_gaps < rides,
            "{with_gaps} of {rides}"
        );
    }

    #[test]
    fn half_hertz_logs_even_seconds_and_smart_logs_irregularly() {
        for (rec, s) in cells() {
            let iv = intervals(s);
            let share = |f: &dyn Fn(i64) -> bool| {
                iv.iter().filter(|&&d| f(d)).count() as f64 / iv.len() as f64
            };
            match rec.sampling {
                Sampling::Hz1 => assert!(share(&|d| d == 1000) > 0.95),
                Sampling::Hz05 => {
                    assert!(iv.iter().all(|d| d % 2000 == 0));
                    assert!(share(&|d| d == 2000) > 0.95);
                }
                Sampling::Smart => {
                    assert!(share(&|d| d == 1000) > 0.02, "some 1 s");
                    assert!(share(&|d| (2000..=3000).contains(&d)) > 0.05);
                    assert!(share(&|d| d >= 4000) > 0.5, "mostly sparse");
                    // The longest regular interval (4–8 s) is the commonest; longer ones are
                    // losses of signal.
                    assert!(share(&|d| d <= 8000) > 0.9, "{}", share(&|d| d <= 8000));
                    let mut count: BTreeMap<i64, usize> = BTreeMap::new();
                    for &d in &iv {
                        *count.entry(d).or_default() += 1;
                    }
                    let commonest = count.iter().max_by_key(|c| c.1).map(|c| *c.0);
                    assert!(matches!(commonest, Some(4000..=8000)), "{count:?}");
                }
            }
        }
    }

    #[test]
    fn jumps_after_losses_reach_motorway_speeds_somewhere() {
        let kmh = |s: &Samples| {
            let o = s.gps[0];
            let k = 111_320.0 * o.lat.to_radians().cos();
            s.gps
                .windows(2)
                .map(|w| {
                    let d = ((w[1].lon - w[0].lon) * k).hypot((w[1].lat - w[0].lat) * 111_320.0);
                    d / ((w[1].t - w[0].t) as f64 / 1000.0) * 3.6
                })
                .fold(0.0, f64::max)
        };
        let top = cells().iter().map(|(_, s)| kmh(s)).fold(0.0, f64::max);
        assert!((60.0..=400.0).contains(&top), "{top} km/h");
    }

    #[test]
    fn the_same_seed_gives_the_same_session() {
        let a = record(7, Break::Reef, Sampling::Smart);
        let b = record(7, Break::Reef, Sampling::Smart);
        assert_eq!(a.gpx, b.gpx);
        assert_eq!(a.rides, b.rides);
        assert_ne!(a.gpx, record(8, Break::Reef, Sampling::Smart).gpx);
        // The sampling changes the recording, not what the surfer did.
        assert_eq!(a.rides, record(7, Break::Reef, Sampling::Hz1).rides);
    }

    /// The naive baseline on the second model's 45 sessions, to compare how hard the set is
    /// (`cargo test -p shared naive_on_the_second_model -- --ignored --nocapture`). Runs no
    /// detector.
    #[tokio::test]
    #[ignore]
    async fn naive_on_the_second_model() {
        #[derive(Default)]
        struct Cell {
            sessions: usize,
            rides: usize,
            gaps: usize,
            iou: Score,
            bounds: Score,
        }
        let mut all = Cell::default();
        let mut by: BTreeMap<String, Cell> = BTreeMap::new();
        let mut durations: BTreeMap<Break, Vec<f64>> = BTreeMap::new();
        for (seed, b, s) in SECOND_MODEL.sessions() {
            let rec = SECOND_MODEL.model.record(seed, b, s);
            let samples = import(&rec.gpx).await.unwrap();
            let found = naive(&samples.gps);
            let (iou, bounds) = (by_iou(&rec.rides, &found), by_bounds(&rec.rides, &found));
            durations
                .entry(b)
                .or_default()
                .extend(rec.rides.iter().map(|r| (r.1 - r.0) as f64 / 1000.0));
            for key in [
                None,
                Some(format!("1 {}", s.name())),
                Some(format!("2 {}", b.name())),
            ] {
                let c = match key {
                    None => &mut all,
                    Some(k) => by.entry(k).or_default(),
                };
                c.sessions += 1;
                c.rides += rec.rides.len();
                c.gaps += rec.rides_with_gaps;
                c.iou.add(iou);
                c.bounds.add(bounds);
            }
        }
        let pr = |s: &Score| format!("{:.3} / {:.3}", s.precision(), s.recall());
        println!(
            "**second model**: {} sessions, {} rides ({} with a gap of 4 s or more)\n",
            all.sessions, all.rides, all.gaps
        );
        println!(
            "| sessions | rides | naive P / R, IoU ≥ 0.5 | naive P / R, ±2 s |\n|---|---|---|---|"
        );
        let row = |name: &str, c: &Cell| {
            println!(
                "| {name} ({}) | {} | {} | {} |",
                c.sessions,
                c.rides,
                pr(&c.iou),
                pr(&c.bounds)
            )
        };
        row("all", &all);
        for (k, c) in &by {
            row(&k[2..], c);
        }
        for (b, d) in &mut durations {
            d.sort_by(f64::total_cmp);
            println!(
                "\n{}: {} rides, median {:.1} s, 4 s or less {:.0} %",
                b.name(),
                d.len(),
                d[d.len() / 2],
                100.0 * d.iter().filter(|&&x| x <= 4.0).count() as f64 / d.len() as f64
            );
        }
    }
}
