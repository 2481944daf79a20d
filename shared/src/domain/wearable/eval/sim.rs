//! The evaluation's session simulator: a surfer's true path at 10 Hz from a physical model of
//! the spot and the surfer, then a watch recording it (sampling, GPS error, multipath, dropouts,
//! heart rate), written as GPX the way Garmin's exports are.
//!
//! It shares no code and no constant with the detector: its own random numbers (PCG32), its
//! own geometry (a shore frame: `u` metres towards the shore, `w` metres along it, the
//! waterline at `u = 0`), and ride truth defined physically: a ride starts at the pop-up (the
//! middle of the take-off's acceleration) and ends when the surfer falls or kicks out (the
//! start of the deceleration).

use std::f64::consts::PI;
use std::fmt::Write as _;

/// PCG32 (O'Neill), seeded through SplitMix-style scrambling of the seed.
pub struct Pcg(u64, u64);

impl Pcg {
    pub fn new(seed: u64) -> Pcg {
        let mut p = Pcg(0, (seed << 1) | 1);
        p.next_u32();
        p.0 = p.0.wrapping_add(seed ^ 0x853c_49e6_748f_ea9b);
        p.next_u32();
        p
    }
    pub fn next_u32(&mut self) -> u32 {
        let old = self.0;
        self.0 = old
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(self.1);
        let xs = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xs.rotate_right(rot)
    }
    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f64 {
        let hi = u64::from(self.next_u32()) << 21;
        let lo = u64::from(self.next_u32() >> 11);
        ((hi | lo) as f64) / (1u64 << 53) as f64
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
        (-2.0 * u.ln()).sqrt() * (2.0 * PI * v).cos()
    }
    /// Log-normal with the given median, clamped.
    pub fn lognormal(&mut self, median: f64, sigma: f64, lo: f64, hi: f64) -> f64 {
        (median * (sigma * self.normal()).exp()).clamp(lo, hi)
    }
    /// Log-uniform in [a, b].
    pub fn log_range(&mut self, a: f64, b: f64) -> f64 {
        (a.ln() + (b.ln() - a.ln()) * self.f()).exp()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Break {
    /// Short, fast rides close to the beach.
    Beach,
    /// A reef or beach peak: rides left and right of a fixed take-off spot.
    Reef,
    /// A point: long rides along the shore, walks and jogs back along the beach.
    Point,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sampling {
    /// A fix every second.
    Hz1,
    /// A fix every two seconds.
    Hz05,
    /// Garmin's "smart" recording: a fix when the course or speed changes, else every few seconds.
    Smart,
}

impl Break {
    pub fn name(self) -> &'static str {
        match self {
            Break::Beach => "beach break",
            Break::Reef => "reef / beach peak",
            Break::Point => "point break",
        }
    }
}

impl Sampling {
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Hz1 => "1 Hz",
            Sampling::Hz05 => "0.5 Hz",
            Sampling::Smart => "smart (irregular)",
        }
    }
}

/// What kind of motion the surfer is in (the truth the watch does not see).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Land,
    Paddle,
    Sit,
    Ride,
    Swim,
}

/// One true state, 10 per second.
#[derive(Clone, Copy, Debug)]
struct State {
    u: f64,
    w: f64,
    act: Act,
    /// Extra loss of signal (duck dive, wipe-out, wrist under water).
    under: bool,
}

/// A simulated, recorded session.
pub struct Recorded {
    pub gpx: String,
    /// True rides, Unix ms (start, end).
    pub rides: Vec<(i64, i64)>,
    pub brk: Break,
    pub sampling: Sampling,
    /// Rides with a recording gap of 4 s or more inside.
    pub rides_with_gaps: usize,
    pub fixes: usize,
    /// What the surfer was doing: (from ms, activity), in order.
    pub acts: Vec<(i64, Act)>,
}

const DT: f64 = 0.1;

struct Sim<'a> {
    r: &'a mut Pcg,
    s: Vec<State>,
    u: f64,
    w: f64,
    /// Current velocity (m/s) in the shore frame.
    vu: f64,
    vw: f64,
    rides: Vec<(f64, f64)>,
    drift: (f64, f64),
}

impl Sim<'_> {
    fn t(&self) -> f64 {
        self.s.len() as f64 * DT
    }
    fn push(&mut self, act: Act, under: bool) {
        self.u += self.vu * DT;
        self.w += self.vw * DT;
        self.s.push(State {
            u: self.u,
            w: self.w,
            act,
            under,
        });
    }
    /// Moves towards velocity (tu, tw) with time constant `tau` for `secs`, speed modulated by
    /// `stroke` (relative amplitude, frequency Hz).
    fn go(&mut self, act: Act, secs: f64, tu: f64, tw: f64, tau: f64, stroke: (f64, f64)) {
        let n = (secs / DT).round() as usize;
        let k = (DT / tau).min(1.0);
        let ph = self.r.range(0.0, 2.0 * PI);
        for i in 0..n {
            let m = 1.0 + stroke.0 * (2.0 * PI * stroke.1 * i as f64 * DT + ph).sin();
            let (du, dw) = (self.drift.0, self.drift.1);
            self.vu += (tu * m + du - self.vu) * k;
            self.vw += (tw * m + dw - self.vw) * k;
            let under = act == Act::Paddle && self.r.chance(0.0008);
            self.push(act, under);
        }
    }
    /// Heads to (u, w) at `speed` m/s (straight line), with the activity's rhythm.
    fn travel(&mut self, act: Act, to: (f64, f64), speed: f64, stroke: (f64, f64)) {
        let mut guard = 0;
        loop {
            let (du, dw) = (to.0 - self.u, to.1 - self.w);
            let d = (du * du + dw * dw).sqrt();
            if d < 3.0 || guard > 6000 {
                break;
            }
            guard += 1;
            let v = speed.min(d / 2.0).max(0.3);
            self.go(act, 1.0, du / d * v, dw / d * v, 1.2, stroke);
        }
    }
    fn sit(&mut self, secs: f64) {
        // Bobbing: a slow random walk of the velocity around the current's drift.
        let n = (secs / DT).round() as usize;
        for _ in 0..n {
            self.vu += (self.drift.0 - self.vu) * 0.05 + self.r.normal() * 0.02;
            self.vw += (self.drift.1 - self.vw) * 0.05 + self.r.normal() * 0.02;
            self.push(Act::Sit, false);
        }
    }
}

/// The spot's and this surfer's parameters for one session.
struct Spot {
    brk: Break,
    /// Line-up distance from the waterline, m.
    lineup: f64,
    /// Where along the shore the peak is.
    peak_w: f64,
    /// The side rides go (+1 along +w, -1 along -w); 0: either.
    side: f64,
    /// Shoreward bearing (radians, clockwise from north).
    bearing: f64,
    lat: f64,
    lon: f64,
}

fn ride(sim: &mut Sim, spot: &Spot) {
    let r = &mut *sim.r;
    let (dur, peak, angle) = match spot.brk {
        Break::Beach => {
            let d = r.lognormal(5.0, 0.45, 2.0, 14.0);
            let mushy = r.chance(0.2);
            let p = if mushy {
                r.range(10.5, 13.5)
            } else {
                r.range(14.0, 27.0)
            };
            let side = if r.chance(0.5) { 1.0 } else { -1.0 };
            (d, p, side * r.range(5.0, 60.0))
        }
        Break::Reef => {
            let d = r.lognormal(10.0, 0.45, 3.0, 30.0);
            let p = if r.chance(0.1) {
                r.range(11.0, 14.0)
            } else {
                r.range(15.0, 31.0)
            };
            let side = if r.chance(0.5) { 1.0 } else { -1.0 };
            (d, p, side * r.range(30.0, 72.0))
        }
        Break::Point => {
            let d = r.lognormal(24.0, 0.45, 7.0, 75.0);
            let p = r.range(15.0, 32.0);
            (d, p, spot.side * r.range(45.0, 80.0))
        }
    };
    let peak = peak / 3.6;
    let ramp = r.range(0.8, 1.6);
    let cruise = 0.8 * peak;
    let f_turn = r.range(0.15, 0.35);
    let amp_v = r.range(0.1, 0.3);
    let amp_h = r.range(10.0, 30.0);
    let fall = r.chance(0.6);
    let decel = if fall {
        r.range(0.3, 0.8)
    } else {
        r.range(0.8, 1.6)
    };
    let gap = if r.chance(0.3) {
        let len = r.log_range(2.0, 10.0);
        let at = r.range(0.0, dur);
        Some((at, len))
    } else {
        None
    };
    let t0 = sim.t();
    // Take-off: from paddling speed to the cruise speed.
    let n = (ramp / DT).round() as usize;
    let dir = angle.to_radians();
    let v0 = (sim.vu * sim.vu + sim.vw * sim.vw).sqrt();
    for i in 0..n {
        let v = v0 + (cruise - v0) * ((i + 1) as f64 / n as f64);
        sim.vu = v * dir.cos() * 0.7 + v * 0.3;
        sim.vw = v * dir.sin() * 0.7;
        let rel = sim.t() - t0 - ramp;
        let under = gap.is_some_and(|(a, l)| rel >= a && rel < a + l);
        sim.push(Act::Ride, under);
    }
    let start = t0 + ramp / 2.0;
    let ph = sim.r.range(0.0, 2.0 * PI);
    let m = (dur / DT).round() as usize;
    for i in 0..m {
        let tt = i as f64 * DT;
        let wave = (2.0 * PI * f_turn * tt + ph).sin();
        let v = (cruise * (1.0 + amp_v * wave) + (peak - cruise) * (1.0 - (-tt).exp()))
            .min(peak * 1.05);
        let h = dir + (amp_h * wave.cos()).to_radians();
        sim.vu = v * h.cos();
        sim.vw = v * h.sin();
        if sim.u > -12.0 {
            // The shallows: the wave closes out along the shore.
            sim.vu = sim.vu.min(0.0);
            sim.vw = v * sim.vw.signum();
        }
        let under = gap.is_some_and(|(a, l)| tt >= a && tt < a + l);
        sim.push(Act::Ride, under);
    }
    let end = sim.t();
    sim.rides.push((start, end));
    // The fall or kick-out: down to a drift in the whitewater.
    let n = (decel / DT).round() as usize;
    let (vu, vw) = (sim.vu, sim.vw);
    let after_gap = fall && sim.r.chance(0.3);
    let under_len = sim.r.range(3.0, 8.0);
    for i in 0..n {
        let f = 1.0 - (i + 1) as f64 / n as f64;
        sim.vu = vu * f + 0.4 * (1.0 - f);
        sim.vw = vw * f;
        let tt = end + i as f64 * DT - end;
        let under = after_gap || gap.is_some_and(|(a, l)| dur + tt >= a && dur + tt < a + l);
        sim.push(Act::Swim, under);
    }
    if after_gap {
        let k = (under_len / DT) as usize;
        for _ in 0..k {
            sim.vu = 0.3;
            sim.vw *= 0.9;
            sim.push(Act::Swim, true);
        }
    }
    // Whitewater push lying on the board (beach breaks mostly): not a ride.
    let p_push = if spot.brk == Break::Beach { 0.3 } else { 0.1 };
    if sim.r.chance(p_push) {
        let v = sim.r.range(6.0, 9.0) / 3.6;
        let secs = sim.r.range(2.0, 5.0);
        sim.go(Act::Swim, secs, v, 0.0, 0.6, (0.0, 0.0));
    }
    {
        let x = sim.r.range(2.0, 6.0);
        sim.sit(x);
    }
}

/// Paddling for a wave: caught (a ride), lifted and left behind (a burst) or missed.
fn attempt(sim: &mut Sim, spot: &Spot) {
    let secs = sim.r.range(3.0, 7.0);
    let v = sim.r.range(5.0, 7.5) / 3.6;
    let a = sim.r.range(-20.0f64, 20.0).to_radians();
    let f = sim.r.range(0.9, 1.3);
    sim.go(Act::Paddle, secs, v * a.cos(), v * a.sin(), 1.0, (0.25, f));
    let catch = match spot.brk {
        Break::Beach => 0.55,
        Break::Reef => 0.55,
        Break::Point => 0.6,
    };
    let x = sim.r.f();
    if x < catch {
        ride(sim, spot);
    } else if x < catch + 0.25 {
        // Lifted by the wave to 10–15 km/h, then it passes under.
        let top = sim.r.range(10.0, 15.0) / 3.6;
        let up = sim.r.range(0.6, 1.2);
        let hold = sim.r.range(0.3, 2.5);
        let down = sim.r.range(1.0, 2.2);
        sim.go(
            Act::Paddle,
            up,
            top * a.cos(),
            top * a.sin(),
            0.3,
            (0.0, 0.0),
        );
        sim.go(
            Act::Paddle,
            hold,
            top * a.cos(),
            top * a.sin(),
            0.3,
            (0.0, 0.0),
        );
        sim.go(Act::Paddle, down, 0.2, 0.0, down / 2.5, (0.0, 0.0));
        {
            let x = sim.r.range(2.0, 8.0);
            sim.sit(x);
        }
    } else {
        sim.go(Act::Paddle, 1.5, 0.0, 0.0, 0.8, (0.0, 0.0));
    }
}

fn paddle_speed(r: &mut Pcg) -> f64 {
    r.range(2.8, 4.6) / 3.6
}

fn stroke(r: &mut Pcg) -> (f64, f64) {
    (r.range(0.15, 0.35), r.range(0.7, 1.1))
}

/// Out of the water, along the beach to `w`, and back in: a walk or a jog.
fn beach_return(sim: &mut Sim, spot: &Spot, to_w: f64) {
    let sp = paddle_speed(sim.r);
    let st = stroke(sim.r);
    let w = sim.w;
    sim.travel(Act::Paddle, (-2.0, w), sp, st);
    let beach = sim.r.range(5.0, 25.0);
    let dw = sim.r.range(-5.0, 5.0);
    sim.travel(Act::Land, (beach, w + dw), 1.2, (0.1, 1.8));
    let jog = sim.r.chance(0.5);
    let v = if jog {
        sim.r.range(8.0, 12.0) / 3.6
    } else {
        sim.r.range(4.0, 6.0) / 3.6
    };
    let cad = if jog { (0.08, 2.8) } else { (0.1, 1.9) };
    let du = sim.r.range(-4.0, 4.0);
    sim.travel(Act::Land, (beach + du, to_w), v, cad);
    {
        let x = sim.r.range(3.0, 20.0);
        sim.sit(x);
    }
    let w = sim.w;
    sim.travel(Act::Land, (0.0, w), 1.2, (0.1, 1.8));
    let sp = paddle_speed(sim.r);
    let st = stroke(sim.r);
    sim.travel(Act::Paddle, (-spot.lineup, to_w), sp, st);
}

fn simulate(r: &mut Pcg, brk: Break) -> (Spot, Vec<State>, Vec<(f64, f64)>) {
    let spot = Spot {
        brk,
        lineup: match brk {
            Break::Beach => r.range(50.0, 110.0),
            Break::Reef => r.range(120.0, 300.0),
            Break::Point => r.range(80.0, 200.0),
        },
        peak_w: 0.0,
        side: if r.chance(0.5) { 1.0 } else { -1.0 },
        bearing: r.range(0.0, 2.0 * PI),
        lat: r.range(-40.0, 50.0),
        lon: r.range(-170.0, 170.0),
    };
    let cur = r.range(0.0, 0.2);
    let cur_dir = r.range(0.0, 2.0 * PI);
    let mut sim = Sim {
        r,
        s: Vec::new(),
        u: 0.0,
        w: 0.0,
        vu: 0.0,
        vw: 0.0,
        rides: Vec::new(),
        drift: (cur * cur_dir.cos(), cur * cur_dir.sin()),
    };
    let length = sim.r.range(40.0, 110.0) * 60.0;
    // From the car park or the beach into the water (a few start the watch in the water).
    if sim.r.chance(0.85) {
        sim.u = sim.r.range(15.0, 80.0);
        sim.w = sim.r.range(-60.0, 60.0);
        {
            let x = sim.r.range(5.0, 40.0);
            sim.sit(x);
        }
        let w = sim.w;
        sim.travel(Act::Land, (0.0, w * 0.5), 1.3, (0.1, 1.8));
    } else {
        sim.u = -10.0;
    }
    let sp = paddle_speed(sim.r);
    let st = stroke(sim.r);
    sim.travel(Act::Paddle, (-spot.lineup, spot.peak_w), sp, st);
    while sim.t() < length {
        // The current has carried the surfer away: back to the peak.
        if (sim.w - spot.peak_w).abs() > 40.0 || (sim.u + spot.lineup).abs() > 40.0 {
            if spot.brk == Break::Point && (sim.w - spot.peak_w).abs() > 120.0 && sim.r.chance(0.75)
            {
                let to = spot.peak_w + sim.r.range(-20.0, 20.0);
                beach_return(&mut sim, &spot, to);
            } else if spot.brk != Break::Point && sim.r.chance(0.12) {
                let to = sim.w + sim.r.range(-200.0, 200.0);
                beach_return(&mut sim, &spot, to);
                let to = (-spot.lineup, spot.peak_w);
                let sp = paddle_speed(sim.r);
                let st = stroke(sim.r);
                sim.travel(Act::Paddle, to, sp, st);
            } else {
                let to = (
                    -spot.lineup + sim.r.range(-10.0, 10.0),
                    spot.peak_w + sim.r.range(-15.0, 15.0),
                );
                let sp = paddle_speed(sim.r);
                let st = stroke(sim.r);
                sim.travel(Act::Paddle, to, sp, st);
            }
        }
        let wait = sim.r.lognormal(50.0, 0.8, 5.0, 400.0);
        sim.sit(wait);
        if sim.r.chance(0.2) {
            let a = sim.r.range(0.0, 2.0 * PI);
            let v = paddle_speed(sim.r);
            let st = stroke(sim.r);
            let secs = sim.r.range(8.0, 40.0);
            sim.go(Act::Paddle, secs, v * a.cos(), v * a.sin(), 1.0, st);
        }
        attempt(&mut sim, &spot);
    }
    // In and out to the car park.
    let w = sim.w;
    let sp = paddle_speed(sim.r);
    let st = stroke(sim.r);
    sim.travel(Act::Paddle, (-2.0, w), sp, st);
    if sim.r.chance(0.8) {
        let to = (sim.r.range(15.0, 80.0), w + sim.r.range(-50.0, 50.0));
        sim.travel(Act::Land, to, 1.3, (0.1, 1.8));
        {
            let x = sim.r.range(5.0, 30.0);
            sim.sit(x);
        }
    }
    let rides = sim.rides.clone();
    (spot, sim.s, rides)
}

/// A first-order autoregressive error with standard deviation `sigma` and time constant `tau`.
struct Ar {
    x: (f64, f64),
    a: f64,
    b: f64,
}

impl Ar {
    fn new(r: &mut Pcg, sigma: f64, tau: f64, step: f64) -> Ar {
        let a = (-step / tau).exp();
        Ar {
            x: (sigma * r.normal(), sigma * r.normal()),
            a,
            b: sigma * (1.0 - a * a).sqrt(),
        }
    }
    fn step(&mut self, r: &mut Pcg) -> (f64, f64) {
        self.x.0 = self.a * self.x.0 + self.b * r.normal();
        self.x.1 = self.a * self.x.1 + self.b * r.normal();
        self.x
    }
}

fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// One session: the surfer, then the watch.
pub fn record(seed: u64, brk: Break, sampling: Sampling) -> Recorded {
    let mut r = Pcg::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5eed);
    let (spot, states, rides) = simulate(&mut r, brk);
    let start_ms = 1_767_250_000_000i64 + (r.range(0.0, 3.0e7) as i64) * 1000;
    // GPS error: slow wander (the 3–8 m), faster jitter, white noise.
    let sigma = r.range(3.0, 8.0);
    let tau = r.range(30.0, 120.0);
    let mut slow = Ar::new(&mut r, sigma, tau, DT);
    let (fs, ft) = (r.range(0.3, 0.7), r.range(1.5, 4.0));
    let mut fast = Ar::new(&mut r, fs, ft, DT);
    let white = r.range(0.1, 0.3);
    // Dropouts (2–30 s, log-uniform), about one every 3–6 minutes, wherever they fall.
    let total = states.len() as f64 * DT;
    let mut lost = vec![false; states.len()];
    let mut t = r.range(60.0, 300.0);
    while t < total {
        let len = r.log_range(2.0, 30.0);
        let a = (t / DT) as usize;
        let b = (((t + len) / DT) as usize).min(states.len());
        lost[a..b].iter_mut().for_each(|x| *x = true);
        t += len + r.range(120.0, 420.0);
    }
    for (i, s) in states.iter().enumerate() {
        if s.under {
            // Under water: a few seconds of no signal.
            let b = (i + 25).min(states.len());
            lost[i..b].iter_mut().for_each(|x| *x = true);
        }
    }
    // Multipath episodes: an extra offset that builds up and fades.
    let mut mp: Vec<(f64, f64, f64, f64, f64)> = Vec::new(); // (t, rise, hold, dx, dy)
    let mut t = r.range(30.0, 400.0);
    while t < total {
        let m = r.range(5.0, 20.0);
        let a = r.range(0.0, 2.0 * PI);
        mp.push((
            t,
            r.range(3.0, 8.0),
            r.range(0.0, 6.0),
            m * a.cos(),
            m * a.sin(),
        ));
        t += r.range(120.0, 600.0);
    }
    let multipath = |t: f64| -> (f64, f64) {
        for &(t0, rise, hold, dx, dy) in &mp {
            let x = t - t0;
            let f = if x < 0.0 || x > 2.0 * rise + hold {
                continue;
            } else if x < rise {
                x / rise
            } else if x < rise + hold {
                1.0
            } else {
                1.0 - (x - rise - hold) / rise
            };
            return (dx * f, dy * f);
        }
        (0.0, 0.0)
    };
    let (sb, cb) = spot.bearing.sin_cos();
    let m_lat = 111_320.0;
    let m_lon = 111_320.0 * spot.lat.to_radians().cos();
    let prefix = if r.chance(0.5) { "gpxtpx" } else { "ns3" };
    let split_segments = r.chance(0.5);
    let mut gpx = String::with_capacity(states.len() * 20);
    let _ = write!(
        gpx,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx creator=\"eval-sim\" version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:{prefix}=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\">\n <metadata><time>{}</time></metadata>\n <trk><name>Surfing</name><type>surfing</type>\n  <trkseg>\n",
        iso(start_ms)
    );
    // Heart rate: rises with effort, falls at rest.
    let mut hr = r.range(65.0, 85.0);
    let hr_rest = hr;
    let hr_max = r.range(165.0, 190.0);
    let mut last: Option<(usize, f64, f64)> = None; // (index, speed, heading) of the last fix
    let mut next_due = 0usize;
    let mut reacq = 0.0f64;
    let mut reacq_dir = (0.0, 0.0);
    let mut was_lost = false;
    let mut lost_for = 0usize;
    let mut fixes = 0usize;
    let mut fix_times: Vec<i64> = Vec::new();
    for (i, s) in states.iter().enumerate() {
        let e1 = slow.step(&mut r);
        let e2 = fast.step(&mut r);
        let effort = match s.act {
            Act::Sit => 0.0,
            Act::Paddle => 0.6,
            Act::Ride => 0.8,
            Act::Swim => 0.7,
            Act::Land => 0.35,
        };
        let target = hr_rest + (hr_max - hr_rest) * effort;
        hr += (target - hr) * DT / 20.0;
        if lost[i] {
            was_lost = true;
            lost_for += 1;
            continue;
        }
        if was_lost {
            was_lost = false;
            if lost_for >= 50 && r.chance(0.5) {
                reacq = r.range(10.0, 40.0);
                let a = r.range(0.0, 2.0 * PI);
                reacq_dir = (a.cos(), a.sin());
            }
            lost_for = 0;
        }
        // Fixes fall on whole seconds of the watch clock.
        if i % 10 != 0 || i < next_due {
            continue;
        }
        let due = match sampling {
            Sampling::Hz1 => true,
            Sampling::Hz05 => i % 20 == 0,
            Sampling::Smart => match last {
                None => true,
                Some((j, v0, h0)) => {
                    let k = i.saturating_sub(10);
                    let (du, dw) = (s.u - states[k].u, s.w - states[k].w);
                    let v = (du * du + dw * dw).sqrt();
                    let h = dw.atan2(du);
                    let dh = ((h - h0 + PI).rem_euclid(2.0 * PI) - PI).abs();
                    let waited = (i - j) as f64 * DT;
                    waited >= 8.0
                        || (waited >= 1.0
                            && ((v > 1.0 && dh > 0.5) || (v - v0).abs() > 1.2 + 0.3 * v0))
                }
            },
        };
        if !due {
            continue;
        }
        if r.chance(0.01) {
            continue; // a single fix lost
        }
        let k = i.saturating_sub(10);
        let (du, dw) = (s.u - states[k].u, s.w - states[k].w);
        last = Some((i, (du * du + dw * dw).sqrt(), dw.atan2(du)));
        if sampling == Sampling::Smart {
            next_due = i + 10;
        }
        let (mx, my) = multipath(i as f64 * DT);
        let mut eu = e1.0 + e2.0 + white * r.normal() + mx;
        let mut ew = e1.1 + e2.1 + white * r.normal() + my;
        if reacq > 1.0 {
            eu += reacq * reacq_dir.0;
            ew += reacq * reacq_dir.1;
            reacq *= r.range(0.3, 0.6);
        }
        if r.chance(0.003) {
            let m = r.range(30.0, 300.0);
            let a = r.range(0.0, 2.0 * PI);
            eu += m * a.cos();
            ew += m * a.sin();
        }
        let (u, w) = (s.u + eu, s.w + ew);
        // Shore frame to east/north: u along the bearing, w 90° clockwise of it.
        let north = u * cb - w * sb;
        let east = u * sb + w * cb;
        let lat = spot.lat + north / m_lat;
        let lon = spot.lon + east / m_lon;
        let ms = start_ms + (i as i64) * 100;
        if split_segments && fix_times.last().is_some_and(|&p| ms - p > 10_000) {
            gpx.push_str("  </trkseg>\n  <trkseg>\n");
        }
        fix_times.push(ms);
        fixes += 1;
        let _ = writeln!(
            gpx,
            "   <trkpt lat=\"{lat:.8}\" lon=\"{lon:.8}\"><ele>{:.1}</ele><time>{}</time><extensions><{prefix}:TrackPointExtension><{prefix}:hr>{}</{prefix}:hr></{prefix}:TrackPointExtension></extensions></trkpt>",
            (s.u.max(0.0) * 0.05 + r.normal() * 1.5),
            iso(ms),
            hr.round().clamp(40.0, 220.0) as i64
        );
    }
    gpx.push_str("  </trkseg>\n </trk>\n</gpx>\n");
    let to_ms = |t: f64| start_ms + (t * 1000.0).round() as i64;
    let rides: Vec<(i64, i64)> = rides.iter().map(|&(a, b)| (to_ms(a), to_ms(b))).collect();
    let rides_with_gaps = rides
        .iter()
        .filter(|&&(a, b)| {
            let lo = fix_times.partition_point(|&t| t < a);
            let hi = fix_times.partition_point(|&t| t <= b);
            let mut prev = a;
            for &t in &fix_times[lo..hi] {
                if t - prev >= 4000 {
                    return true;
                }
                prev = t;
            }
            b - prev >= 4000
        })
        .count();
    let mut acts: Vec<(i64, Act)> = Vec::new();
    for (i, st) in states.iter().enumerate() {
        if acts.last().is_none_or(|a| a.1 != st.act) {
            acts.push((start_ms + i as i64 * 100, st.act));
        }
    }
    Recorded {
        acts,
        gpx,
        rides,
        brk,
        sampling,
        rides_with_gaps,
        fixes,
    }
}
