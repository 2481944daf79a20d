//! A fourth session simulator (issue 40), written without reading the detector (`detect/`), the
//! body of the first simulator (`sim.rs` beyond its shared types), the second (`sim_b.rs`), the
//! third (`sim_c.rs`) or the ride model's training (`train.rs`). The ride model is trained on
//! sessions of all three other simulators, so this one scores the detector on a physical model
//! no part of its making saw. It reuses only `sim`'s random numbers ([`Pcg`]) and its public
//! types ([`Break`], [`Sampling`], [`Act`], [`Recorded`]); it was checked only for physical
//! plausibility and against the naive baseline ([`super::naive`]), never against the detector.
//!
//! **The surfer** rides one board a session: a longboard (trims at 12–17 km/h, stalls and walks
//! the board every 4–9 s, slowing to 55–80%), a shortboard (16–25 km/h, a cutback or a snap
//! every 2–5 s that drops the speed to 5–8 km/h and swings the heading 60–160° back towards the
//! curl) or, at beach breaks, a beginner's foam board (whitewater straight to the beach at
//! 12–15 km/h, slowing; 30–55% of waves paddled for are caught and 20–45% of those are ridden
//! prone). **Decision: a ride is standing.** It starts at the pop-up, after 0.8–1.8 s of prone
//! acceleration with the wave, and ends when the surfer loses balance (a fall), starts turning
//! over the back (a kick-out) or steps off in the shallows; a beginner's prone ride-in is
//! paddling, not a ride. Take-offs are angled (15–45° from straight in) or straight and turned
//! after 1–2.5 s; rides then run down the line at 45–85° (by break); 30% of beach rides and all
//! foam rides run straight in. Ride lengths are log-normal: medians 4.8 s at the beach, 12 s at
//! the reef, 28 s at the point (a longboard's 20% longer). 5–30% of waves are mushy (speed
//! × 0.6–0.75).
//!
//! **The water** is a spot frame (metres offshore of the waterline, metres along the shore), the
//! shore facing a random bearing anywhere on Earth. Waves of 0.7–2.2 m and a 9–15 s period come
//! in sets of 3–8 (every 1.5–3 minutes at the beach, 2.5–5 at the reef and the point, log-normal)
//! with smaller waves in the lulls; each wave carries a sitting or paddling surfer 0.3–1.2 m
//! shoreward and back as it passes. Currents carry anyone in the water: a rip at the beach
//! (0.3–1.1 m/s seaward in a band about 45 m wide, fed along the shore), a channel beside the
//! reef (0.2–0.6 m/s), a longshore current down the point (0.15–0.5 m/s). Another surfer takes
//! 10–45% of the waves; a surfer goes for 55–90% of the rest within reach, and paddles back
//! when drifted 15–30 m off the spot. A missed wave lifts the board to 10–15 km/h for a second
//! or two; 4–8% of catches pearl (a wipe-out without a ride). Beach surfers duck-dive the waves
//! that break on them while paddling out; at the point a ride that ends in the shallows, near
//! the beach or 250 m down the line is followed by a walk (4–6 km/h) or a jog (7–10 km/h) back
//! along the sand; at the reef the surfer paddles back through the channel. 45–120 minutes in
//! the water, between walks from and to the car park.
//!
//! **The watch**'s receiver makes a fix a second. It loses lock while the wrist is under water
//! (duck dives, wipe-outs, 2–12% of paddling seconds, and spray or a hand drag of 1–5 s on
//! 15–35% of rides) and in outages of 2–30 s (log-uniform, one every 8–20 minutes), and
//! re-acquires at once after a short loss, within 2.5 s after one under 10 s, within 5 s after a
//! longer one. After 8 s or more the first fix is a spike 20–60 m off in 10–30% of cases; after
//! 12 s or more the fixes start 8–35 m off and the error decays with a time constant of 2–6 s.
//! Otherwise the error is a damped oscillator per axis (1σ 3–8 m per session, a period of
//! 60–180 s: it wanders rather than jitters), 0.25–0.7 m of white noise, and multipath
//! excursions of 4–15 m (one every 15–40 minutes, rising over 2–6 s). Sixty per cent of watches
//! pass the fixes through a constant-velocity (alpha–beta) filter, which smooths and overshoots
//! at a sudden stop. The file holds whole-second times, with a second skipped or written twice
//! one time in 500; 1 Hz, every other second, or "smart": a fix after a loss, when the course
//! turns by 20–35°, the speed changes by 1.2–2 m/s, the surfer has moved 8–20 m, or 5–10 s have
//! passed. Heart rate follows the effort with a lag (18 s up, 45 s down); the optical sensor
//! misses 2–6% of readings. It is written in Garmin's TrackPointExtension as `ns3:` (v1) or
//! `gpxtpx:` (v2), by seed; some watches write `<ele>`, some start a new segment after a gap.
//! A ride counts in [`Recorded::rides_with_gaps`] when two written fixes 4 s or more apart
//! leave at least 2 s of it uncovered.

use super::sim::{Act, Break, Pcg, Recorded, Sampling};
use std::f64::consts::PI;
use std::fmt::Write as _;

/// The truth's time step, seconds.
const DT: f64 = 0.2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Board {
    Long,
    Short,
    Foam,
}

/// How a ride ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Fall,
    KickOut,
    Shallows,
}

/// One true instant, `1 / DT` per second: the watch's (the wrist's) position in the spot frame.
#[derive(Clone, Copy, Debug)]
struct Truth {
    /// Metres offshore of the waterline (negative on the sand).
    off: f64,
    /// Metres along the shore.
    along: f64,
    act: Act,
    /// The wrist under water (or the receiver otherwise blind).
    wet: bool,
    /// 0 (resting) to 1 (flat out), for the heart rate.
    effort: f64,
}

#[derive(Clone, Copy, Debug)]
struct Wave {
    /// When it breaks at the take-off spot, seconds from the session's start.
    t: f64,
    /// Where along the shore it peaks.
    peak: f64,
    /// Which way it peels: +1 towards positive `along`.
    dir: f64,
    /// Relative size (1 = the session's typical wave).
    size: f64,
    mushy: bool,
}

struct Spot {
    brk: Break,
    lineup_off: f64,
    entry_along: f64,
    /// Beach: the rip; reef: the channel.
    channel_along: f64,
    current: f64,
    drift_dir: f64,
    period: f64,
    /// Wave speed at the take-off, m/s.
    celerity: f64,
    crowd: f64,
    /// The session's typical wave height, metres.
    height: f64,
    /// Orbital excursion of a typical wave at the take-off, metres.
    orbit: f64,
}

struct Surfer {
    board: Board,
    paddle: f64,
    sprint: f64,
    ride: f64,
    catch: f64,
    popup: f64,
    picky: f64,
    jog: f64,
    walk_speed: f64,
    jog_speed: f64,
    stroke_loss: f64,
    spray: f64,
    drift_limit: f64,
    stroke_hz: f64,
}

struct World<'a> {
    r: &'a mut Pcg,
    spot: Spot,
    surfer: Surfer,
    waves: Vec<Wave>,
    t: f64,
    off: f64,
    along: f64,
    /// Where the surfer waits for waves (along the shore).
    home_along: f64,
    wet_until: f64,
    path: Vec<Truth>,
    rides: Vec<(f64, f64)>,
    end: f64,
}

fn smooth(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// A bump: 0 outside `centre ± half`, 1 at the centre.
fn bump(t: f64, centre: f64, half: f64) -> f64 {
    let x = (t - centre).abs() / half;
    if x >= 1.0 {
        0.0
    } else {
        0.5 * (1.0 + (PI * x).cos())
    }
}

impl Spot {
    fn new(r: &mut Pcg, brk: Break) -> Spot {
        let height = r.range(0.7, 2.2);
        let depth = height / 0.78;
        let celerity = (9.81 * depth).sqrt();
        let period = r.range(9.0, 15.0);
        let (lineup_off, entry_along, channel_along, current) = match brk {
            Break::Beach => (
                r.range(55.0, 100.0),
                0.0,
                if r.chance(0.5) { 1.0 } else { -1.0 } * r.range(45.0, 90.0),
                r.range(0.3, 1.1),
            ),
            Break::Reef => (
                r.range(150.0, 320.0),
                if r.chance(0.5) { 1.0 } else { -1.0 } * r.range(30.0, 120.0),
                if r.chance(0.5) { 1.0 } else { -1.0 } * r.range(55.0, 95.0),
                r.range(0.2, 0.6),
            ),
            Break::Point => (
                r.range(80.0, 190.0),
                r.range(-60.0, -25.0),
                0.0,
                r.range(0.15, 0.5),
            ),
        };
        Spot {
            brk,
            lineup_off,
            entry_along,
            channel_along,
            current,
            drift_dir: if r.chance(0.5) { 1.0 } else { -1.0 },
            period,
            celerity,
            crowd: r.range(0.1, 0.45),
            height,
            // Shallow-water orbit: H/2 · c / (ω h).
            orbit: (0.3 * height / 2.0 * celerity / (2.0 * PI / period * depth)).clamp(0.3, 1.2),
        }
    }

    /// The current (offshore, along) in m/s at a place; none on the sand.
    fn current(&self, off: f64, along: f64) -> (f64, f64) {
        if off <= 0.0 {
            return (0.0, 0.0);
        }
        let shore = smooth(off / 15.0);
        match self.brk {
            Break::Beach => {
                let d = along - self.channel_along;
                let g = (-(d / 22.0).powi(2)).exp();
                let outside = if off < self.lineup_off + 40.0 {
                    1.0
                } else {
                    0.3
                };
                let feed = if off < self.lineup_off {
                    -d.signum() * 0.25 * self.current * (1.0 - g)
                } else {
                    0.05 * self.drift_dir
                };
                (self.current * g * outside * shore, feed * shore)
            }
            Break::Reef => {
                let g = (-((along - self.channel_along) / 25.0).powi(2)).exp();
                (
                    self.current * g * shore,
                    0.15 * self.current * self.drift_dir * shore,
                )
            }
            Break::Point => {
                let f = if off < self.lineup_off + 20.0 {
                    1.0
                } else {
                    0.3
                };
                (0.0, self.current * f * shore)
            }
        }
    }
}

impl Surfer {
    fn new(r: &mut Pcg, brk: Break) -> Surfer {
        let x = r.f();
        let board = match brk {
            Break::Beach if x < 0.3 => Board::Foam,
            Break::Beach if x < 0.72 => Board::Short,
            Break::Beach => Board::Long,
            Break::Reef if x < 0.6 => Board::Short,
            Break::Reef => Board::Long,
            Break::Point if x < 0.5 => Board::Short,
            Break::Point => Board::Long,
        };
        let (paddle, sprint, ride, catch, popup, picky) = match board {
            Board::Long => (
                r.range(1.0, 1.35),
                r.range(1.6, 2.1),
                r.range(3.4, 4.8),
                r.range(0.7, 0.9),
                0.98,
                r.range(0.6, 0.9),
            ),
            Board::Short => (
                r.range(0.85, 1.2),
                r.range(1.5, 2.0),
                r.range(4.5, 7.0),
                r.range(0.55, 0.8),
                0.96,
                r.range(0.55, 0.85),
            ),
            Board::Foam => (
                r.range(0.6, 0.9),
                r.range(1.1, 1.5),
                r.range(3.2, 4.2),
                r.range(0.3, 0.55),
                r.range(0.55, 0.8),
                r.range(0.6, 0.9),
            ),
        };
        Surfer {
            board,
            paddle,
            sprint,
            ride,
            catch,
            popup,
            picky,
            jog: r.range(0.0, 0.7),
            walk_speed: r.range(1.1, 1.6),
            jog_speed: r.range(1.9, 2.7),
            stroke_loss: r.range(0.02, 0.12),
            spray: r.range(0.15, 0.35),
            drift_limit: r.range(15.0, 30.0),
            stroke_hz: r.range(0.4, 0.55),
        }
    }
}

/// The session's waves at the take-off: sets with lulls, and a few between sets.
fn waves(r: &mut Pcg, spot: &Spot, until: f64) -> Vec<Wave> {
    let (set_every, mushy) = match spot.brk {
        Break::Beach => (r.range(90.0, 180.0), r.range(0.1, 0.3)),
        Break::Reef => (r.range(150.0, 300.0), r.range(0.05, 0.2)),
        Break::Point => (r.range(180.0, 300.0), r.range(0.05, 0.2)),
    };
    let peak_spread = match spot.brk {
        Break::Beach => 22.0,
        Break::Reef => 6.0,
        Break::Point => 10.0,
    };
    let right_share = r.range(0.2, 0.8);
    let mut out = Vec::new();
    let mut t = r.range(10.0, set_every);
    let wave = |r: &mut Pcg, t: f64, size: f64| Wave {
        t,
        peak: r.normal() * peak_spread,
        dir: match spot.brk {
            Break::Point => 1.0,
            _ if r.chance(right_share) => 1.0,
            _ => -1.0,
        },
        size,
        mushy: r.chance(mushy),
    };
    while t < until {
        let n = 3 + (r.f() * 6.0) as usize;
        let big = r.range(1.1, 1.5);
        let mut u = t;
        for _ in 0..n {
            let size = big * r.range(0.85, 1.15);
            out.push(wave(r, u, size));
            u += spot.period * r.range(0.85, 1.15);
        }
        let next = u + r.lognormal(set_every, 0.5, 40.0, 900.0);
        // Smaller waves in the lull.
        let (gap, share) = match spot.brk {
            Break::Beach => ((20.0, 60.0), 0.8),
            _ => ((30.0, 90.0), 0.4),
        };
        let mut v = u + r.range(gap.0, gap.1);
        while v < next - 30.0 {
            if r.chance(share) {
                let size = r.range(0.6, 0.9);
                out.push(wave(r, v, size));
            }
            v += r.range(gap.0, gap.1);
        }
        t = next;
    }
    out.sort_by(|a, b| a.t.total_cmp(&b.t));
    out
}

impl World<'_> {
    /// Heading from here to a place, as unit (offshore, along); zero when there.
    fn towards(&self, off: f64, along: f64) -> (f64, f64, f64) {
        let (a, b) = (off - self.off, along - self.along);
        let d = a.hypot(b);
        if d < 1e-9 {
            (0.0, 0.0, 0.0)
        } else {
            (a / d, b / d, d)
        }
    }

    /// The passing waves' orbital displacement (shoreward positive) at a place in the water.
    fn orbital(&self, t: f64, off: f64) -> f64 {
        if off < 8.0 {
            return 0.0;
        }
        let c = self.spot.celerity;
        let p = self.spot.period;
        // A wave reaches `off` this long after it reaches the take-off spot.
        let lag = (self.spot.lineup_off - off) / c;
        let lo = self.waves.partition_point(|w| w.t + lag < t - p);
        let mut x = 0.0;
        for w in &self.waves[lo..] {
            let dt = t - (w.t + lag);
            if dt < -p {
                break;
            }
            let scale = (off / self.spot.lineup_off).clamp(0.3, 1.5).sqrt();
            x += self.spot.orbit * w.size * scale * bump(dt, 0.0, p) * (2.0 * PI * dt / p).sin();
        }
        x
    }

    /// One step: record the wrist where the body is (plus `wrist`), then move the body by
    /// `v` (offshore, along; m/s) and the current.
    fn step(&mut self, v: (f64, f64), act: Act, effort: f64, wrist: (f64, f64)) {
        let in_water = self.off > 0.0 && act != Act::Land;
        // The passing waves' orbits move the body (not a rider, who is on the wave).
        let orb = if in_water && act != Act::Ride {
            self.orbital(self.t + DT, self.off) - self.orbital(self.t, self.off)
        } else {
            0.0
        };
        self.path.push(Truth {
            off: self.off + wrist.0,
            along: self.along + wrist.1,
            act,
            wet: self.t < self.wet_until,
            effort,
        });
        let c = if in_water {
            self.spot.current(self.off, self.along)
        } else {
            (0.0, 0.0)
        };
        self.off += (v.0 + c.0) * DT - orb;
        self.along += (v.1 + c.1) * DT;
        self.t += DT;
    }

    fn wet_for(&mut self, secs: f64) {
        self.wet_until = self.wet_until.max(self.t + secs);
    }

    /// Walk or jog on the sand (or wade) to a place.
    fn walk_to(&mut self, off: f64, along: f64, speed: f64, effort: f64) {
        let phase = self.r.f() * 2.0 * PI;
        loop {
            let (a, b, d) = self.towards(off, along);
            if d < speed * DT * 1.5 {
                return;
            }
            let v = speed * (1.0 + 0.06 * (2.0 * PI * 0.9 * self.t + phase).sin());
            self.step((a * v, b * v), Act::Land, effort, (0.0, 0.0));
        }
    }

    /// Paddle prone to a place, duck-diving (or being pushed back by) the broken waves met on
    /// the way out, giving up after a while if the current is too strong.
    fn paddle_to(&mut self, off: f64, along: f64, speed: f64) {
        let give_up = self.t + 60.0 + 4.0 * self.towards(off, along).2 / speed;
        let mut next_wave = self.waves.partition_point(|w| w.t < self.t - 60.0);
        let mut next_second = self.t.ceil();
        while self.t < give_up && self.t < self.end + 600.0 {
            let (a, b, d) = self.towards(off, along);
            if d < 3.0 {
                return;
            }
            if self.t >= next_second {
                next_second += 1.0;
                if self.r.chance(self.surfer.stroke_loss) {
                    let s = self.r.range(0.4, 1.0);
                    self.wet_for(s);
                }
            }
            // A broken wave reaching the surfer inside the take-off spot.
            let inside = self.off > 5.0 && self.off < self.spot.lineup_off - 5.0;
            let lag = (self.spot.lineup_off - self.off).max(0.0) / (0.8 * self.spot.celerity);
            while next_wave < self.waves.len() && self.waves[next_wave].t + lag < self.t {
                let w = self.waves[next_wave];
                next_wave += 1;
                if inside && a > 0.3 && self.t - (w.t + lag) < 1.0 {
                    self.duck_dive(w.size);
                }
            }
            let stroke = 2.0 * PI * self.surfer.stroke_hz * self.t;
            let v = speed * (1.0 + 0.12 * (2.0 * stroke).sin());
            let wrist = 0.25 * stroke.sin();
            self.step(
                (a * v, b * v),
                Act::Paddle,
                0.45 + 0.2 * (speed / self.surfer.sprint).min(1.0),
                (a * wrist, b * wrist),
            );
        }
    }

    /// Under a broken wave (a foam board is pushed back instead): under water, carried
    /// shoreward.
    fn duck_dive(&mut self, size: f64) {
        let foam = self.surfer.board == Board::Foam;
        let secs = if foam {
            self.r.range(2.0, 4.0)
        } else {
            self.r.range(1.2, 3.0)
        };
        let push = if foam { 1.8 } else { 0.9 } * size;
        self.wet_for(secs);
        let n = (secs / DT) as usize;
        for i in 0..n {
            let f = 1.0 - i as f64 / n as f64;
            self.step((-push * f, 0.0), Act::Paddle, 0.75, (0.0, 0.0));
        }
    }

    /// Sit on the board until `until`, drifting; paddle back when the drift takes the surfer
    /// too far from their spot.
    fn sit(&mut self, until: f64) {
        let mut next_look = self.t + self.r.range(5.0, 15.0);
        while self.t < until {
            if self.t >= next_look {
                next_look = self.t + self.r.range(5.0, 15.0);
                let (_, _, d) = self.towards(self.spot.lineup_off, self.home_along);
                if d > self.surfer.drift_limit {
                    let (o, a) = (self.spot.lineup_off, self.home_along);
                    let v = self.surfer.paddle * self.r.range(0.7, 1.0);
                    self.paddle_to(o, a, v);
                    continue;
                }
            }
            // Sculling and shifting on the board.
            let j = 0.08 * (2.0 * PI * 0.13 * self.t).sin();
            self.step((j, 0.0), Act::Sit, 0.12, (0.0, 0.0));
        }
    }

    /// Go for a wave: sprint, then catch it (and ride it, standing or prone), miss it (it lifts
    /// the board and passes) or pearl.
    fn go_for(&mut self, w: Wave) {
        // Sprint for the last few seconds, lining up with the peak on the way.
        let lead = self.r.range(2.5, 5.0);
        self.sit(w.t - lead);
        let lateral = ((w.peak + self.home_along - self.along) / lead).clamp(-1.0, 1.0);
        let sprint = self.surfer.sprint;
        while self.t < w.t {
            let stroke = 2.0 * PI * self.surfer.stroke_hz * 1.4 * self.t;
            let v = sprint * (1.0 + 0.1 * (2.0 * stroke).sin());
            self.step(
                (-v, lateral),
                Act::Paddle,
                0.85,
                (-0.25 * stroke.sin(), 0.0),
            );
        }
        let caught = self
            .r
            .chance(self.surfer.catch * if w.mushy { 0.8 } else { 1.0 });
        if !caught {
            // The wave lifts the board and passes under it.
            let lift = self.r.range(2.8, 4.2) * w.size.sqrt().min(1.1);
            let hold = self.r.range(0.5, 1.5);
            let (up, down) = (0.6, 1.2);
            let total = up + hold + down;
            let mut s = 0.0;
            while s < total {
                let v = if s < up {
                    sprint + (lift - sprint) * smooth(s / up)
                } else if s < up + hold {
                    lift
                } else {
                    lift + (0.4 - lift) * smooth((s - up - hold) / down)
                };
                self.step((-v, 0.0), Act::Paddle, 0.8, (0.0, 0.0));
                s += DT;
            }
            return;
        }
        // Prone acceleration with the wave.
        let c = self.spot.celerity * w.size.sqrt();
        let acc = match self.surfer.board {
            Board::Long => self.r.range(0.8, 1.3),
            _ => self.r.range(1.0, 1.8),
        };
        let v_pop = (0.75 * c).max(sprint + 0.5);
        let mut s = 0.0;
        while s < acc {
            let v = sprint + (v_pop - sprint) * smooth(s / acc);
            self.step((-v, 0.0), Act::Paddle, 0.9, (0.0, 0.0));
            s += DT;
        }
        if self.r.chance(if w.size > 1.2 { 0.08 } else { 0.04 }) {
            self.wipe_out(v_pop);
            return;
        }
        if !self.r.chance(self.surfer.popup) {
            self.prone_ride_in(v_pop);
            return;
        }
        let end = self.ride(w, v_pop);
        self.after_ride(end);
    }

    /// Tumbling in the whitewater: under water, carried shoreward, then back on the board.
    fn wipe_out(&mut self, v0: f64) {
        let under = self.r.range(1.0, 4.5);
        self.wet_for(under + 0.4);
        let mut s = 0.0;
        while s < under + 0.6 {
            let v = if s < 0.6 {
                v0 + (1.0 - v0) * smooth(s / 0.6)
            } else {
                (1.0 - 0.7 * (s - 0.6) / under).max(0.2)
            };
            self.step((-v, 0.0), Act::Swim, 0.8, (0.0, 0.0));
            s += DT;
        }
        let climb = self.r.range(2.0, 5.0);
        let until = self.t + climb;
        while self.t < until {
            self.step((-0.2, 0.0), Act::Swim, 0.6, (0.0, 0.0));
        }
    }

    /// A beginner lying on the foam board in the whitewater: fast, straight in, not a ride.
    fn prone_ride_in(&mut self, v0: f64) {
        let secs = self.r.range(3.0, 9.0);
        let mut s = 0.0;
        while s < secs && self.off > 4.0 {
            let v = v0 * (1.0 - 0.05 * s).max(0.4);
            self.step((-v, 0.0), Act::Paddle, 0.5, (0.0, 0.0));
            s += DT;
        }
        self.after_ride(End::Shallows);
    }

    /// A beginner's ride ends: stand up in the shallows or fall, then walk the board back out.
    fn end_in_whitewater(&mut self) {
        if self.off < 12.0 {
            let until = self.t + self.r.range(3.0, 10.0);
            while self.t < until {
                self.step((0.0, 0.0), Act::Land, 0.2, (0.0, 0.0));
            }
            let (o, a) = (self.r.range(20.0, 35.0), self.along);
            let v = self.r.range(0.5, 0.8);
            self.walk_to(o, a, v, 0.45);
        }
    }

    /// The ride itself, from the pop-up to its end.
    fn ride(&mut self, w: Wave, v_pop: f64) -> End {
        let brk = self.spot.brk;
        let board = self.surfer.board;
        let r = &mut *self.r;
        let mushy = if w.mushy { r.range(0.6, 0.75) } else { 1.0 };
        let size = (w.size * self.spot.height / 1.3).sqrt().clamp(0.75, 1.25);
        let base = self.surfer.ride * size * mushy;
        let straight = board == Board::Foam || (brk == Break::Beach && r.chance(0.3));
        let (mut dur, theta_line) = match brk {
            Break::Beach => (
                r.lognormal(4.8, 0.5, 1.5, 14.0),
                r.range(45.0, 75.0).to_radians(),
            ),
            Break::Reef => (
                r.lognormal(12.0, 0.45, 3.5, 40.0),
                r.range(55.0, 80.0).to_radians(),
            ),
            Break::Point => (
                r.lognormal(28.0, 0.5, 6.0, 100.0),
                r.range(65.0, 85.0).to_radians(),
            ),
        };
        if board == Board::Long {
            dur *= 1.2;
        }
        let (theta0, turn_at) = if straight {
            (r.range(-12.0, 12.0).to_radians(), f64::MAX)
        } else if r.chance(0.6) {
            // An angled take-off.
            (r.range(15.0, 45.0).to_radians(), 0.0)
        } else {
            // Straight down, then the bottom turn.
            (r.range(0.0, 10.0).to_radians(), r.range(1.0, 2.5))
        };
        let theta_ride = if straight { theta0 } else { theta_line };
        // Manoeuvres: (centre s, half width s, speed there, heading swing).
        let mut moves: Vec<(f64, f64, f64, f64)> = Vec::new();
        let mut at = turn_at.min(dur) + r.range(1.5, 3.5);
        while at < dur - 1.0 && !straight {
            match board {
                Board::Short => {
                    let swing = if r.chance(0.5) {
                        r.range(110.0, 160.0)
                    } else {
                        r.range(60.0, 100.0)
                    };
                    moves.push((at, r.range(0.4, 0.8), r.range(1.4, 2.2), swing.to_radians()));
                    at += r.range(2.0, 5.0);
                }
                _ => {
                    // A stall, or walking the board: slower, a small heading change.
                    moves.push((
                        at,
                        r.range(0.8, 1.5),
                        base * r.range(0.55, 0.8),
                        r.range(-15.0, 15.0).to_radians(),
                    ));
                    at += r.range(4.0, 9.0);
                }
            }
        }
        let mut end = match (brk, board) {
            (_, Board::Foam) => {
                if r.chance(0.55) {
                    End::Shallows
                } else {
                    End::Fall
                }
            }
            (Break::Beach, _) => match r.f() {
                x if x < 0.5 => End::Fall,
                x if x < 0.8 => End::KickOut,
                _ => End::Shallows,
            },
            (Break::Reef, _) => {
                if r.chance(0.55) {
                    End::KickOut
                } else {
                    End::Fall
                }
            }
            (Break::Point, _) => match r.f() {
                x if x < 0.45 => End::KickOut,
                x if x < 0.8 => End::Fall,
                _ => End::Shallows,
            },
        };
        // Spray, a hand drag, the wrist under the lip: the receiver blinded for a while.
        let blind = r
            .chance(self.surfer.spray)
            .then(|| (r.range(0.0, dur.max(1.0)), r.range(1.0, 5.0)));
        let accel = r.range(0.8, 1.8);
        let wobble = r.range(0.0, 2.0 * PI);
        let start = self.t;
        let shallow_at = 10.0;
        let mut s = 0.0;
        let mut v;
        let mut stop: Option<f64> = None;
        loop {
            if let Some((b0, len)) = blind
                && s >= b0
                && s < b0 + DT
            {
                self.wet_for(len);
            }
            let mut target = if board == Board::Foam {
                base * (1.0 - 0.03 * s).max(0.55)
            } else {
                base * (1.0 + 0.07 * (2.0 * PI * s / 6.0 + wobble).sin())
            };
            let mut theta = if s < turn_at {
                theta0
            } else {
                theta0 + (theta_ride - theta0) * smooth((s - turn_at) / 1.2)
            };
            for &(c, h, v_min, swing) in &moves {
                let k = bump(s, c, h);
                target -= (target - v_min) * k;
                theta -= swing * k;
            }
            v = if s < accel {
                v_pop + (target - v_pop) * smooth(s / accel)
            } else {
                target
            };
            // Into the shallows: the whitewater slows and the surfer steps off.
            if self.off < shallow_at && stop.is_none() {
                end = if self.r.chance(0.3) {
                    End::Fall
                } else {
                    End::Shallows
                };
                stop = Some(s);
            }
            if end == End::Shallows {
                if let Some(s0) = stop {
                    let f = smooth((s - s0) / 2.0);
                    v = v * (1.0 - f) + 1.4 * f;
                    if f >= 1.0 || self.off < 1.0 {
                        break;
                    }
                } else if s >= dur - 2.0 {
                    stop = Some(s);
                }
            } else if s >= dur || stop.is_some() {
                break;
            }
            let dir = w.dir;
            self.step(
                (-v * theta.cos(), dir * v * theta.sin()),
                Act::Ride,
                0.6,
                (0.0, 0.0),
            );
            s += DT;
        }
        self.rides.push((start, self.t));
        // What follows the ride's end.
        let heading = (-(theta_ride.cos()), w.dir * theta_ride.sin());
        match end {
            End::Fall => self.wipe_out(v.max(1.5)),
            End::KickOut => {
                let k = self.r.range(0.6, 1.1);
                let mut s = 0.0;
                while s < k {
                    let f = smooth(s / k);
                    let u = v + (0.5 - v) * f;
                    // Turning over the back: the heading swings seaward.
                    let a = (heading.0 * (1.0 - 2.0 * f), heading.1 * (1.0 - f));
                    let n = a.0.hypot(a.1).max(1e-6);
                    self.step((u * a.0 / n, u * a.1 / n), Act::Paddle, 0.5, (0.0, 0.0));
                    s += DT;
                }
            }
            End::Shallows => {
                let until = self.t + self.r.range(2.0, 6.0);
                while self.t < until {
                    self.step((-0.3, 0.0), Act::Land, 0.25, (0.0, 0.0));
                }
            }
        }
        end
    }

    /// Back to the take-off spot after a ride (or in to the beach and along it).
    fn after_ride(&mut self, end: End) {
        let paddle = self.surfer.paddle;
        let lineup = self.spot.lineup_off;
        match self.spot.brk {
            Break::Beach if self.surfer.board == Board::Foam => {
                self.end_in_whitewater();
                let (o, a) = (lineup, self.home_along + self.r.normal() * 8.0);
                self.paddle_to(o, a, paddle);
            }
            Break::Beach => {
                if end == End::Shallows {
                    // Wade back out to waist depth with the board.
                    let (o, a) = (self.r.range(14.0, 22.0), self.along);
                    self.walk_to(o, a, 0.7, 0.4);
                }
                self.home_along = self.r.normal() * 15.0;
                let (o, a) = (lineup, self.home_along);
                self.paddle_to(o, a, paddle);
            }
            Break::Reef => {
                let ch = self.spot.channel_along;
                if self.along.signum() != ch.signum() {
                    // Ended on the far side: straight back to the peak.
                    self.paddle_to(lineup, 0.0, paddle);
                } else {
                    let o = self.off.max(lineup * 0.5);
                    self.paddle_to(o, ch, paddle);
                    self.paddle_to(lineup + 15.0, ch, paddle);
                    self.paddle_to(lineup, 0.0, paddle);
                }
            }
            Break::Point => {
                if end == End::Shallows || self.off < 25.0 || self.along > 250.0 {
                    // In to the beach, then walk or jog back to the point.
                    let a = self.along + 5.0;
                    self.paddle_to(2.0, a, paddle * 1.2);
                    let (o, a) = (-self.r.range(4.0, 12.0), self.along + 3.0);
                    self.walk_to(o, a, 0.9, 0.3);
                    let jog = self.r.chance(self.surfer.jog);
                    let (v, e) = if jog {
                        (self.surfer.jog_speed, 0.65)
                    } else {
                        (self.surfer.walk_speed, 0.3)
                    };
                    let mid = self.off;
                    self.walk_to(mid, self.spot.entry_along, v, e);
                    let e = self.spot.entry_along;
                    self.walk_to(1.0, e, 0.8, 0.3);
                    self.paddle_to(lineup, 0.0, paddle);
                } else {
                    // Paddle back up against the current, wide of the breaking waves.
                    let o = (lineup + 30.0).max(self.off);
                    let a = self.along * 0.5;
                    self.paddle_to(o, a, paddle);
                    self.paddle_to(lineup, 0.0, paddle);
                }
            }
        }
    }

    fn session(&mut self, water_minutes: f64) {
        let spot_entry = self.spot.entry_along;
        // From the car park to the water.
        self.off = -self.r.range(40.0, 250.0);
        self.along = spot_entry + self.r.range(-60.0, 60.0);
        let start_wait = self.r.range(20.0, 120.0);
        let until = self.t + start_wait;
        while self.t < until {
            self.step((0.0, 0.0), Act::Land, 0.1, (0.0, 0.0));
        }
        let v = self.surfer.walk_speed;
        self.walk_to(0.5, spot_entry, v, 0.25);
        self.end = self.t + water_minutes * 60.0;
        self.home_along = 0.0;
        if self.spot.brk == Break::Beach && self.surfer.board == Board::Foam {
            // A beginner waits for the whitewater on the inside.
            self.spot.lineup_off = self.r.range(35.0, 60.0);
        }
        let lineup = self.spot.lineup_off;
        if self.spot.brk == Break::Reef {
            let ch = self.spot.channel_along;
            self.paddle_to(lineup * 0.6, ch, self.surfer.paddle);
        }
        self.paddle_to(lineup, 0.0, self.surfer.paddle);
        let mut i = 0;
        while self.t < self.end {
            while i < self.waves.len() && self.waves[i].t < self.t + 3.0 {
                i += 1;
            }
            let Some(&w) = self.waves.get(i) else {
                break;
            };
            i += 1;
            // Now and then a long rest, letting the waves go.
            if self.r.chance(0.03) {
                let until = self.t + self.r.range(120.0, 300.0);
                self.sit(until);
                continue;
            }
            self.sit(w.t - 5.5);
            if self.t >= w.t - 3.0 {
                continue;
            }
            let reach = (w.peak + self.home_along - self.along).abs() < 25.0
                && (self.off - lineup).abs() < 30.0;
            if !reach || self.r.chance(self.spot.crowd) || !self.r.chance(self.surfer.picky) {
                continue;
            }
            self.go_for(w);
        }
        // In to the beach and back to the car.
        let a = self.along;
        self.paddle_to(1.0, a, self.surfer.paddle);
        let (o, a) = (
            -self.r.range(40.0, 200.0),
            spot_entry + self.r.range(-50.0, 50.0),
        );
        let v = self.surfer.walk_speed;
        self.walk_to(o, a, v, 0.25);
        let until = self.t + self.r.range(10.0, 60.0);
        while self.t < until {
            self.step((0.0, 0.0), Act::Land, 0.1, (0.0, 0.0));
        }
    }
}

/// The GNSS error of one axis: a damped oscillator driven by white noise (slow wander).
struct Wander {
    x: f64,
    v: f64,
    omega: f64,
    q: f64,
}

impl Wander {
    fn new(r: &mut Pcg, sigma: f64, period: f64) -> Wander {
        let omega = 2.0 * PI / period;
        let zeta = 0.7;
        let q = sigma * (4.0 * zeta * omega.powi(3)).sqrt();
        Wander {
            x: sigma * r.normal(),
            v: 0.0,
            omega,
            q,
        }
    }
    fn next(&mut self, r: &mut Pcg) -> f64 {
        // Two half-second sub-steps, semi-implicit Euler.
        for _ in 0..2 {
            let a = -1.4 * self.omega * self.v - self.omega * self.omega * self.x;
            self.v += a * 0.5 + self.q * 0.5f64.sqrt() * r.normal();
            self.x += self.v * 0.5;
        }
        self.x
    }
}

/// One receiver fix: seconds from the start, east and north metres from the spot's origin.
#[derive(Clone, Copy)]
struct Fix {
    s: i64,
    e: f64,
    n: f64,
    /// Whether it follows a loss of lock.
    after_loss: bool,
}

/// The watch's receiver: one fix per second from the truth, with its errors and firmware.
fn receiver(r: &mut Pcg, path: &[Truth], bearing: f64) -> Vec<Fix> {
    let sigma = r.range(3.0, 8.0) / 2f64.sqrt();
    let period = r.range(60.0, 180.0);
    let mut we = Wander::new(r, sigma, period);
    let period_n = period * r.range(0.8, 1.25);
    let mut wn = Wander::new(r, sigma, period_n);
    let white = r.range(0.25, 0.7);
    let filtered = r.chance(0.6);
    let alpha = r.range(0.45, 0.75);
    let beta = alpha * alpha / (2.0 - alpha);
    let spike_p = r.range(0.1, 0.3);
    let secs = (path.len() as f64 * DT) as i64;
    // Outages: (start, end) seconds.
    let mut outages = Vec::new();
    let mut t = r.range(60.0, 400.0);
    let every = r.range(480.0, 1200.0);
    while t < secs as f64 {
        let len = r.log_range(2.0, 30.0);
        outages.push((t, t + len));
        t += len + r.lognormal(every, 0.7, 20.0, 3000.0);
    }
    // Multipath excursions: (start, rise, hold, fall, east, north).
    let mut multipath = Vec::new();
    let mut t = r.range(100.0, 900.0);
    let mp_every = r.range(900.0, 2400.0);
    while t < secs as f64 {
        let (rise, hold, fall) = (r.range(2.0, 6.0), r.range(0.0, 8.0), r.range(4.0, 12.0));
        let (m, a) = (r.range(4.0, 15.0), r.range(0.0, 2.0 * PI));
        multipath.push((t, rise, hold, fall, m * a.cos(), m * a.sin()));
        t += r.lognormal(mp_every, 0.6, 60.0, 4000.0);
    }
    let (sb, cb) = bearing.sin_cos();
    let to_en = |p: &Truth| {
        // Offshore points along the bearing; along the shore is 90° clockwise of it.
        (p.off * sb + p.along * cb, p.off * cb - p.along * sb)
    };
    let per_s = (1.0 / DT).round() as usize;
    let mut out = Vec::new();
    let mut lost_since: Option<i64> = None;
    let mut ready_at: Option<i64> = None;
    let mut reacq: Option<(i64, f64, f64, f64)> = None;
    let mut kf: Option<(f64, f64, f64, f64, i64)> = None;
    let mut oi = 0;
    for s in 0..secs {
        let ex = we.next(r);
        let ny = wn.next(r);
        let i = (s as usize) * per_s;
        let Some(p) = path.get(i) else { break };
        let wet = p.wet || path[i.saturating_sub(2)].wet;
        while oi < outages.len() && outages[oi].1 < s as f64 {
            oi += 1;
        }
        let blind = wet || outages.get(oi).is_some_and(|o| o.0 <= s as f64);
        if blind {
            lost_since.get_or_insert(s);
            ready_at = None;
            continue;
        }
        let mut after_loss = false;
        if let Some(l) = lost_since {
            let lost = s - l;
            let wait = *ready_at.get_or_insert_with(|| {
                s + if lost <= 3 {
                    0
                } else if lost < 10 {
                    r.range(0.0, 2.5) as i64
                } else {
                    r.range(1.0, 5.0) as i64
                }
            });
            if s < wait {
                continue;
            }
            lost_since = None;
            ready_at = None;
            after_loss = lost >= 8;
            if lost >= 12 {
                let a = r.range(0.0, 2.0 * PI);
                let m = r.range(8.0, 35.0);
                reacq = Some((s, m * a.cos(), m * a.sin(), r.range(2.0, 6.0)));
            }
            if lost >= 5 {
                kf = None;
            }
        }
        let (te, tn) = to_en(p);
        let mut e = te + ex + white * r.normal();
        let mut n = tn + ny + white * r.normal();
        for &(t0, rise, hold, fall, me, mn) in &multipath {
            let d = s as f64 - t0;
            if d < 0.0 {
                break;
            }
            let k = if d < rise {
                smooth(d / rise)
            } else if d < rise + hold {
                1.0
            } else {
                1.0 - smooth((d - rise - hold) / fall)
            };
            e += me * k;
            n += mn * k;
        }
        if let Some((t0, me, mn, tau)) = reacq {
            let k = (-((s - t0) as f64) / tau).exp();
            e += me * k;
            n += mn * k;
            if k < 0.02 {
                reacq = None;
            }
        }
        if filtered {
            let (fe, fn_, ve, vn, last) = kf.unwrap_or((e, n, 0.0, 0.0, s));
            let dt = (s - last) as f64;
            let (pe, pn) = (fe + ve * dt, fn_ + vn * dt);
            let (ie, in_) = (e - pe, n - pn);
            let dt1 = dt.max(1.0);
            let st = (
                pe + alpha * ie,
                pn + alpha * in_,
                ve + beta * ie / dt1,
                vn + beta * in_ / dt1,
                s,
            );
            kf = Some(st);
            e = st.0;
            n = st.1;
        }
        if after_loss && r.chance(spike_p) {
            let a = r.range(0.0, 2.0 * PI);
            let m = r.range(20.0, 60.0);
            e += m * a.cos();
            n += m * a.sin();
        }
        out.push(Fix {
            s,
            e,
            n,
            after_loss,
        });
    }
    out
}

/// Which receiver fixes the watch writes.
fn log(r: &mut Pcg, fixes: &[Fix], sampling: Sampling) -> Vec<Fix> {
    let mut out: Vec<Fix> = Vec::new();
    let (turn, dist, every) = (
        r.range(20.0, 35.0).to_radians(),
        r.range(8.0, 20.0),
        r.range(5.0, 10.0) as i64,
    );
    let speed_change = r.range(1.2, 2.0);
    let phase = (r.f() * 2.0) as i64;
    let mut course: Option<f64> = None;
    for (k, f) in fixes.iter().enumerate() {
        let keep = match sampling {
            Sampling::Hz1 => true,
            Sampling::Hz05 => (f.s + phase) % 2 == 0,
            Sampling::Smart => match out.last() {
                None => true,
                Some(l) => {
                    let prev = if k > 0 { fixes[k - 1] } else { *f };
                    let step = (f.e - prev.e).hypot(f.n - prev.n);
                    let now = (f.e - prev.e).atan2(f.n - prev.n);
                    let turned = step > 1.0
                        && course.is_some_and(|c| {
                            let d = (now - c).rem_euclid(2.0 * PI);
                            d.min(2.0 * PI - d) > turn
                        });
                    let v =
                        |a: &Fix, b: &Fix| (a.e - b.e).hypot(a.n - b.n) / (a.s - b.s).max(1) as f64;
                    let prev_l = out.len().checked_sub(2).map_or(*l, |i| out[i]);
                    let faster = (step - v(l, &prev_l)).abs() > speed_change;
                    f.after_loss
                        || turned
                        || faster
                        || (f.e - l.e).hypot(f.n - l.n) > dist
                        || f.s - l.s >= every
                }
            },
        };
        if !keep {
            continue;
        }
        if sampling == Sampling::Smart
            && let Some(l) = out.last()
            && (f.e - l.e).hypot(f.n - l.n) > 1.0
        {
            course = Some((f.e - l.e).atan2(f.n - l.n));
        }
        // Now and then the logger skips a second, or writes one twice.
        if r.chance(0.002) {
            continue;
        }
        out.push(*f);
        if r.chance(0.002) {
            out.push(Fix {
                e: f.e + 0.3 * r.normal(),
                n: f.n + 0.3 * r.normal(),
                ..*f
            });
        }
    }
    out
}

/// Heart rate per truth step: the effort, lagged (faster up than down), with noise.
fn heart(r: &mut Pcg, path: &[Truth]) -> Vec<f64> {
    let rest = r.range(55.0, 75.0);
    let max = r.range(170.0, 195.0);
    let mut e = 0.15;
    let mut drift = 0.0;
    path.iter()
        .map(|p| {
            let tau = if p.effort > e { 18.0 } else { 45.0 };
            e += (p.effort - e) * DT / tau;
            drift += (-drift * 0.002 + 0.05 * r.normal()) * DT.sqrt();
            (rest + (max - rest) * e + drift).clamp(40.0, 210.0)
        })
        .collect()
}

/// One session of this model.
pub fn record(seed: u64, brk: Break, sampling: Sampling) -> Recorded {
    let mut r = Pcg::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xd4d4_0004);
    let spot = Spot::new(&mut r, brk);
    let surfer = Surfer::new(&mut r, brk);
    let water_minutes = r.range(45.0, 120.0);
    let waves = waves(&mut r, &spot, water_minutes * 60.0 + 900.0);
    let mut rw = Pcg::new(seed ^ 0x5eed_d00d);
    let mut w = World {
        r: &mut rw,
        spot,
        surfer,
        waves,
        t: 0.0,
        off: 0.0,
        along: 0.0,
        home_along: 0.0,
        wet_until: -1.0,
        path: Vec::with_capacity(40_000),
        rides: Vec::new(),
        end: f64::MAX,
    };
    w.session(water_minutes);
    let World { path, rides, .. } = w;

    let bearing = r.range(0.0, 2.0 * PI);
    let lat0 = r.range(-40.0, 50.0);
    let lon0 = r.range(-170.0, 170.0);
    // Dawn to afternoon, some day of 2026, whole seconds.
    let t0_s = 1_767_225_600 + (r.f() * 330.0) as i64 * 86_400 + r.range(5.0, 17.0) as i64 * 3600;
    let t0_ms = t0_s * 1000;
    let fixes = receiver(&mut r, &path, bearing);
    let logged = log(&mut r, &fixes, sampling);
    let hr = heart(&mut r, &path);
    let hr_miss = r.range(0.02, 0.06);
    let (prefix, uri) = if r.chance(0.5) {
        ("ns3", super::super::gpx::TPX_V1)
    } else {
        ("gpxtpx", super::super::gpx::TPX_V2)
    };
    let ele = r.chance(0.5);
    let split = r.chance(0.3);
    let creator =
        ["Garmin Connect", "fenix 7", "Forerunner 965", "Instinct 2"][r.next_u32() as usize % 4];

    let kx = 111_320.0 * lat0.to_radians().cos();
    let stamp = |s: i64| {
        chrono::DateTime::from_timestamp(t0_s + s, 0)
            .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
            .unwrap_or_default()
    };
    let mut gpx = String::with_capacity(logged.len() * 200 + 1024);
    let _ = write!(
        gpx,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx creator=\"{creator}\" version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:{prefix}=\"{uri}\">\n  <metadata><time>{}</time></metadata>\n  <trk><name>Surfing</name><type>surfing</type><trkseg>\n",
        stamp(0)
    );
    let per_s = (1.0 / DT).round() as usize;
    let mut last_s: Option<i64> = None;
    for f in &logged {
        if split && last_s.is_some_and(|l| f.s - l > 20) {
            gpx.push_str("  </trkseg><trkseg>\n");
        }
        last_s = Some(f.s);
        let lat = lat0 + f.n / 111_320.0;
        let lon = lon0 + f.e / kx;
        let _ = write!(gpx, "    <trkpt lat=\"{lat:.9}\" lon=\"{lon:.9}\">");
        if ele {
            let _ = write!(gpx, "<ele>{:.1}</ele>", 1.0 + 0.8 * r.normal());
        }
        let _ = write!(gpx, "<time>{}</time>", stamp(f.s));
        let i = (f.s as usize * per_s).min(hr.len() - 1);
        if !r.chance(hr_miss) {
            let bpm = (hr[i] + 1.5 * r.normal()).round() as u16;
            let _ = write!(
                gpx,
                "<extensions><{prefix}:TrackPointExtension><{prefix}:hr>{bpm}</{prefix}:hr></{prefix}:TrackPointExtension></extensions>"
            );
        }
        gpx.push_str("</trkpt>\n");
    }
    gpx.push_str("  </trkseg></trk>\n</gpx>\n");

    let ms = |s: f64| t0_ms + (s * 1000.0).round() as i64;
    let rides: Vec<(i64, i64)> = rides.iter().map(|&(a, b)| (ms(a), ms(b))).collect();
    let times: Vec<i64> = logged.iter().map(|f| t0_ms + f.s * 1000).collect();
    let rides_with_gaps = rides
        .iter()
        .filter(|&&(a, b)| {
            times
                .windows(2)
                .any(|p| p[1] - p[0] >= 4000 && p[1].min(b) - p[0].max(a) >= 2000)
        })
        .count();
    let mut acts: Vec<(i64, Act)> = Vec::new();
    for (i, p) in path.iter().enumerate() {
        if acts.last().is_none_or(|l| l.1 != p.act) {
            acts.push((ms(i as f64 * DT), p.act));
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
    use super::super::{BREAKS, FOURTH_MODEL, SAMPLINGS, by_bounds, by_iou, import, naive};
    use super::*;
    use crate::domain::wearable::accuracy::Score;
    use std::collections::BTreeMap;
    use std::sync::OnceLock;

    /// One session per break × sampling, made once for all the tests.
    fn cells() -> &'static [Recorded] {
        static CELLS: OnceLock<Vec<Recorded>> = OnceLock::new();
        CELLS.get_or_init(|| {
            let mut out = Vec::new();
            for b in BREAKS {
                for s in SAMPLINGS {
                    out.push(record(11 + out.len() as u64, b, s));
                }
            }
            out
        })
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    fn times(gpx: &str) -> Vec<i64> {
        gpx.match_indices("<time>")
            .skip(1)
            .map(|(i, _)| {
                let t = &gpx[i + 6..i + 26];
                chrono::DateTime::parse_from_rfc3339(t)
                    .unwrap()
                    .timestamp_millis()
            })
            .collect()
    }

    #[tokio::test]
    async fn every_break_and_sampling_imports_with_the_fixes_it_wrote() {
        for rec in cells() {
            let s = import(&rec.gpx).await.unwrap();
            assert_eq!(s.gps.len(), rec.fixes, "{:?} {:?}", rec.brk, rec.sampling);
            let span = (s.gps.last().unwrap().t - s.gps[0].t) as f64 / 60_000.0;
            assert!((45.0..=135.0).contains(&span), "{span} min");
            // Heart rate on nearly every fix: the optical sensor misses a few.
            assert!(
                s.hr.len() * 100 >= rec.fixes * 90,
                "{} of {}",
                s.hr.len(),
                rec.fixes
            );
            assert!(s.hr.len() < rec.fixes);
            assert!(s.gps.windows(2).all(|p| p[1].t >= p[0].t));
        }
    }

    #[test]
    fn heart_rate_comes_under_both_garmin_prefixes() {
        let ns3 = cells()
            .iter()
            .filter(|r| r.gpx.contains("<ns3:hr>"))
            .count();
        let gpxtpx = cells()
            .iter()
            .filter(|r| r.gpx.contains("<gpxtpx:hr>"))
            .count();
        assert!(ns3 > 0 && gpxtpx > 0, "{ns3} ns3, {gpxtpx} gpxtpx");
        assert_eq!(ns3 + gpxtpx, cells().len());
    }

    #[test]
    fn truth_rides_are_ordered_apart_and_as_long_as_the_break_makes_them() {
        let mut by_break: BTreeMap<Break, Vec<f64>> = BTreeMap::new();
        for rec in cells() {
            assert!(
                rec.rides.len() >= 3,
                "{:?}: {} rides",
                rec.brk,
                rec.rides.len()
            );
            assert!(rec.rides.iter().all(|r| r.1 > r.0));
            assert!(rec.rides.windows(2).all(|p| p[1].0 > p[0].1));
            let (t0, t1) = (times(&rec.gpx)[0], *times(&rec.gpx).last().unwrap());
            assert!(rec.rides.iter().all(|r| r.0 > t0 && r.1 < t1));
            // The labels agree: the middle of every ride is riding.
            for r in &rec.rides {
                let mid = (r.0 + r.1) / 2;
                let i = rec.acts.partition_point(|a| a.0 <= mid) - 1;
                assert_eq!(rec.acts[i].1, Act::Ride);
            }
            by_break
                .entry(rec.brk)
                .or_default()
                .extend(rec.rides.iter().map(|r| (r.1 - r.0) as f64 / 1000.0));
        }
        let beach = median(by_break[&Break::Beach].clone());
        let reef = median(by_break[&Break::Reef].clone());
        let point = median(by_break[&Break::Point].clone());
        assert!((2.0..=8.0).contains(&beach), "beach median {beach} s");
        assert!(point > 15.0, "point median {point} s");
        assert!(beach < reef && reef < point, "{beach} {reef} {point}");
        // Some rides of 4 s or less.
        assert!(by_break[&Break::Beach].iter().any(|&d| d <= 4.0));
    }

    #[test]
    fn some_rides_have_a_gap_of_four_seconds_or_more() {
        let rides: usize = cells().iter().map(|r| r.rides.len()).sum();
        let gapped: usize = cells().iter().map(|r| r.rides_with_gaps).sum();
        assert!(
            gapped * 10 >= rides && gapped * 10 <= rides * 8,
            "{gapped} of {rides}"
        );
    }

    #[test]
    fn sampling_intervals_are_as_intended() {
        for rec in cells() {
            let t = times(&rec.gpx);
            assert!(t.iter().all(|x| x % 1000 == 0), "whole seconds");
            let gaps: Vec<f64> = t.windows(2).map(|p| (p[1] - p[0]) as f64 / 1e3).collect();
            let m = median(gaps.clone());
            match rec.sampling {
                Sampling::Hz1 => assert_eq!(m, 1.0),
                Sampling::Hz05 => {
                    assert_eq!(m, 2.0);
                    assert!(t.iter().all(|x| (x - t[0]) % 2000 == 0));
                }
                Sampling::Smart => {
                    assert!(m >= 2.0, "median {m}");
                    let short = gaps.iter().filter(|&&g| g <= 2.0).count();
                    let long = gaps.iter().filter(|&&g| g >= 5.0).count();
                    assert!(short * 10 > gaps.len() && long * 10 > gaps.len());
                }
            }
        }
        let dup = cells()
            .iter()
            .any(|r| times(&r.gpx).windows(2).any(|p| p[0] == p[1]));
        assert!(dup, "a duplicated second somewhere");
    }

    #[test]
    fn the_same_seed_gives_the_same_gpx() {
        let a = record(7, Break::Reef, Sampling::Smart);
        let b = record(7, Break::Reef, Sampling::Smart);
        assert_eq!(a.gpx, b.gpx);
        assert_eq!(a.rides, b.rides);
        assert_ne!(a.gpx, record(8, Break::Reef, Sampling::Smart).gpx);
    }

    /// The naive baseline on [`FOURTH_MODEL`] (`cargo test -p shared
    /// naive_baseline_on_the_fourth_model -- --ignored --nocapture`): the only figures this
    /// model's author looked at. It never runs the detector.
    #[tokio::test]
    #[ignore]
    async fn naive_baseline_on_the_fourth_model() {
        let mut rows: BTreeMap<String, (usize, usize, usize, Score, Score)> = BTreeMap::new();
        for (seed, b, s) in FOURTH_MODEL.sessions() {
            let rec = record(seed, b, s);
            let smp = import(&rec.gpx).await.unwrap();
            let found = naive(&smp.gps);
            let (i, d) = (by_iou(&rec.rides, &found), by_bounds(&rec.rides, &found));
            for key in [
                "all".to_string(),
                b.name().to_string(),
                s.name().to_string(),
            ] {
                let e = rows.entry(key).or_default();
                e.0 += 1;
                e.1 += rec.rides.len();
                e.2 += rec.rides_with_gaps;
                e.3.add(i);
                e.4.add(d);
            }
        }
        println!("| sessions | rides (gap ≥ 4 s) | naive P / R, IoU ≥ 0.5 | naive P / R, ±2 s |");
        println!("|---|---|---|---|");
        for (k, (n, rides, gaps, i, d)) in rows {
            println!(
                "| {k} ({n}) | {rides} ({gaps}) | {:.3} / {:.3} | {:.3} / {:.3} |",
                i.precision(),
                i.recall(),
                d.precision(),
                d.recall()
            );
        }
    }

    /// Per-session figures while building the model.
    #[tokio::test]
    #[ignore]
    async fn sim_d_stats() {
        for (k, b) in BREAKS.into_iter().enumerate() {
            for (j, s) in SAMPLINGS.into_iter().enumerate() {
                for seed in 0..3u64 {
                    let seed = 100 + seed * 9 + k as u64 * 3 + j as u64;
                    let rec = record(seed, b, s);
                    let smp = import(&rec.gpx).await.unwrap();
                    let found = naive(&smp.gps);
                    let d: Vec<f64> = rec.rides.iter().map(|r| (r.1 - r.0) as f64 / 1e3).collect();
                    let span = (smp.gps.last().unwrap().t - smp.gps[0].t) as f64 / 60e3;
                    let i = by_iou(&rec.rides, &found);
                    let mut share: BTreeMap<String, f64> = BTreeMap::new();
                    for (k, a) in rec.acts.iter().enumerate() {
                        let end = rec.acts.get(k + 1).map_or(a.0, |n| n.0);
                        *share.entry(format!("{:?}", a.1)).or_default() +=
                            (end - a.0) as f64 / 60e3;
                    }
                    println!("  {share:.0?}");
                    println!(
                        "{b:?} {s:?} seed {seed}: {span:.0} min, {} fixes, {} rides (median {:.1} s, max {:.0} s), {} gapped, naive {}/{}/{}",
                        rec.fixes,
                        rec.rides.len(),
                        if d.is_empty() { 0.0 } else { median(d.clone()) },
                        d.iter().cloned().fold(0.0, f64::max),
                        rec.rides_with_gaps,
                        i.true_positives,
                        i.false_positives,
                        i.false_negatives
                    );
                }
            }
        }
    }
}
