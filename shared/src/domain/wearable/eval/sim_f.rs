//! The sixth session simulator: a mixed population of surfers in changing conditions, recorded
//! by four watch pipelines, one of them a phone in an arm pouch.
//!
//! Written without reading the detector (`detect/`), its training (`train.rs`), the bodies of
//! the other five simulators (`sim`, `sim_b` … `sim_e`) or the docs describing them. From
//! `sim.rs` only the public types were used (`Pcg` through its signatures and doc comments,
//! `Break`, `Sampling`, `Act`, `Recorded`); its module doc comment and the private `State`
//! struct next to `Recorded` were seen in passing, nothing else of it.
//!
//! # The water
//! A shore frame: `x` metres seaward of the waterline (the sand is `x < 0`), `y` metres along
//! the shore, rotated onto a real spot's coast (Hossegor, Bondi, Uluwatu, Mundaka, Jeffreys
//! Bay, Rincon, Raglan; the seaward bearing is the spot's). A session lasts 45–150 minutes,
//! walks from and to the car included. Each draws its **conditions**: offshore and clean, or
//! onshore and messy (more closeouts, shorter rides, more missed waves, more wipe-outs and
//! wrist dunks); a wave face of 0.6–2.6 m (the whitewater bore runs at `0.85·√(g·1.3·H)`); a
//! **rip current** at beach and reef breaks, a channel about 50 m wide carrying a surfer
//! seaward at 1–2 km/h; an along-shore current (0.7–1.8 km/h down the point at points); the
//! **tide** moving the take-off zone in or out over the session (10–45 m for every 150 m it
//! lies from the beach); the **crowd**, which stretches the waits; swell orbits (a sitting
//! surfer sways 0.15–1.2 m to and fro with a 9–15 s period).
//!
//! # The surfers (a mixed population per break)
//! - **Beginners on soft-tops** (beach breaks only, a third of them): they stand waist-deep in
//!   the whitewater, jump prone on the board as a bore arrives, are pushed in prone at the bore's
//!   speed (8–14 km/h) and try to pop up; many fall at the pop-up or stay prone to the sand
//!   (not rides), some stand for 3–15 s. They **wade back out on foot** at 2–4 km/h, pushed back
//!   by each bore.
//! - **Longboarders**: trimming rides at 10–20 km/h with slow weaves and cross-step surges,
//!   more waves caught, no duck-dives (turtle rolls push them back further).
//! - **Shortboarders**: 16–35 km/h depending on the wave size, turning every 2–3.5 s (the
//!   heading swings ±30–50°, the speed ±12 %).
//!
//! Skill sets the pop-up success; **fatigue** slows paddling and lengthens waits as the
//! session goes on. Waves that are missed lift the surfer to 10–15 km/h for 1–2 s. On small
//! onshore days (face < 1.3 m) 45 % of the waves are mushy and ridden below 12 km/h.
//!
//! # What counts as a ride
//! A ride is the time the surfer **stands on the board riding a wave**: from the moment the
//! pop-up is complete (feet planted; the prone slide before it is not part of it) to the moment
//! the surfer stops standing: loses the board (a fall), drops to sitting or prone after a kick-out
//! over the back (the kick-out turn itself, still standing, is part of the ride), goes prone in
//! the whitewater (straightening out), or steps off into the shallows. Being pushed shoreward
//! prone by whitewater, while holding the board after a fall or without ever standing, is not a
//! ride, whatever its speed.
//!
//! # Hard ride endings
//! Rides at beach breaks and points may run into the shallows, slow as the bore dies and end
//! with a step off into knee-deep water (the surfer keeps walking shoreward); after a fall the
//! surfer is often pushed in prone by the whitewater at 5–12 km/h for 3–10 s; a kick-out can be
//! followed at once by paddling for the next wave of the set (two rides seconds apart).
//!
//! # The watches (four pipelines)
//! The receiver computes a solution once a second (the Apple-like one at its own irregular
//! rate). Its error is a Gauss–Markov wander (2–4.5 m per axis, correlation time 20–90 s), with
//! multipath episodes (a 3–12 m bias for 3–25 s, coming and going over ~6 s; more often at
//! reefs and points, near cliffs) and no solution at all while the wrist is under water
//! (duck-dives, wipe-outs, dunks while paddling, 2–30 s dropouts at random, more in onshore
//! chop). When the fix returns after 2 s or more, the solution starts off by 2–6 m plus 0.7 m
//! per second lost (at most 30 m) and converges in 2–5 s, and with a chance of 2 % per second
//! lost (at most 30 %) the first point is a spike 40–150 m away.
//! - *Garmin-like*: whole-second times, positions Doppler-smoothed (a blend of the dead-reckoned
//!   and measured position), full-precision coordinates, an `ele`.
//! - *Suunto-like*: millisecond times with jitter, an alpha-beta (Kalman-like) filter with lag.
//! - *Apple-like*: an irregular rate (intervals drawn log-normally), raw positions, six decimals,
//!   `hdop` written, times in the spot's local offset.
//! - *Phone in a waterproof pouch on the arm*: 1 Hz fused positions whose heading follows the
//!   true one with a 1–2.5 s lag (so turns are cut), positions quantised to five decimals, the
//!   speed and `hdop` written, local times; through a dropout of up to 4–8 s it keeps writing
//!   dead-reckoned points at the held speed and heading, then jumps when the fix returns.
//!
//! Sampling: `Hz1` writes every solution, `Hz05` every second one (the Apple-like one runs at
//! ~0.5 Hz), `Smart` writes when the position has moved 6–12 m from the last written point,
//! or after 6–10 s without one, and always the first after a gap (a distance rule, not a
//! course rule). Heart rate follows the effort (sitting, paddling, riding, walking, jogging)
//! with a first-order lag and is written on every point, in Garmin's TrackPointExtension v1
//! under `ns3:` or `gpxtpx:` (by seed).
//!
//! # Chosen from the brief's list
//! All four: the mixed population, conditions by session (with the rip), the phone pipeline
//! and distance-rule smart recording, and the hard ride endings.
//!
//! # Not modelled
//! Board-less bodysurfing, SUPs, tow-ins; wave-by-wave swell groups (waits are drawn, not
//! simulated); the surfer's body orientation; altitude; clock drift; GPX laps or pauses.

use super::sim::{Act, Break, Pcg, Recorded, Sampling};
use chrono::{DateTime, FixedOffset};
use std::f64::consts::PI;
use std::fmt::Write as _;

/// The true path's time step (s).
const DT: f64 = 0.1;
/// Steps per second.
const HZ: usize = 10;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Board {
    SoftTop,
    Long,
    Short,
}

#[derive(Debug)]
struct Rider {
    board: Board,
    /// Fresh paddling speed, m/s.
    paddle: f64,
    /// 0 (first weeks) to 1 (expert).
    skill: f64,
    /// Fraction of paddling speed lost by the end of the session.
    fatigue: f64,
    /// Resting heart rate.
    rest_hr: f64,
}

struct Conditions {
    offshore: bool,
    /// Wave face height, m.
    face: f64,
    /// The rip channel's along-shore position and its speed (m/s seaward).
    rip: Option<(f64, f64)>,
    /// Along-shore current, m/s (+y).
    along: f64,
    /// How far the take-off zone moves seaward over the session (negative: shoreward).
    tide_dx: f64,
    /// Wait multiplier.
    crowd: f64,
    orbit_amp: f64,
    orbit_period: f64,
}

#[derive(Clone, Copy, Debug)]
struct State {
    x: f64,
    y: f64,
    act: Act,
    /// The wrist is under water: no GPS solution.
    under: bool,
}

/// How a ride ends.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ending {
    Fall,
    KickOut,
    /// Kick out and paddle at once for the next wave of the set.
    KickOutNext,
    /// Ride in to the shallows and step off.
    Shallows,
    /// Straighten out and go prone in the whitewater.
    Prone,
}

/// The surfer's true path being built.
struct Surf<'a> {
    rng: &'a mut Pcg,
    brk: Break,
    c: Conditions,
    r: Rider,
    st: Vec<State>,
    x: f64,
    y: f64,
    /// Planned time in the water and on the beach, s.
    length_s: f64,
    /// The take-off zone at the start of the session.
    lineup0: (f64, f64),
    /// The whitewater bore's speed, m/s.
    bore: f64,
    /// The last ride's along-shore speed when it ended (signed), for the glide after it.
    last_v: f64,
}

impl Surf<'_> {
    fn now(&self) -> f64 {
        self.st.len() as f64 * DT
    }

    fn frac(&self) -> f64 {
        (self.now() / self.length_s).min(1.2)
    }

    /// 1 when fresh, less as the surfer tires.
    fn fresh(&self) -> f64 {
        1.0 - self.r.fatigue * self.frac()
    }

    /// Where the take-off zone is now (the tide moves it).
    fn lineup(&self) -> (f64, f64) {
        // The tide moves the zone in proportion to its distance out (a gently sloping bottom).
        let dx = self.c.tide_dx * self.lineup0.0 / 150.0 * self.frac();
        (self.lineup0.0 + dx, self.lineup0.1)
    }

    /// The water's velocity at the surfer: along-shore current and the rip.
    fn current(&self) -> (f64, f64) {
        if self.x <= 2.0 {
            return (0.0, 0.0);
        }
        let mut v = (0.0, self.c.along * (self.x / 60.0).min(1.0));
        if let Some((ry, speed)) = self.c.rip {
            let d = (self.y - ry).abs();
            if d < 25.0 && self.x < self.lineup().0 + 30.0 {
                v.0 += speed * (1.0 - (d / 25.0).powi(2));
            }
        }
        v
    }

    /// The swell's orbital velocity (shoreward-seaward) on a floating surfer.
    fn orbit(&self) -> f64 {
        let w = 2.0 * PI / self.c.orbit_period;
        self.c.orbit_amp * w * (w * self.now()).cos()
    }

    fn push(&mut self, vx: f64, vy: f64, act: Act, under: bool) {
        self.x += vx * DT;
        self.y += vy * DT;
        self.st.push(State {
            x: self.x,
            y: self.y,
            act,
            under,
        });
    }

    /// Float in the water, drifting with the current and the swell.
    fn sit(&mut self, secs: f64) {
        let n = (secs * HZ as f64) as usize;
        let (mut jx, mut jy) = (0.0, 0.0);
        for _ in 0..n {
            // Small sculling corrections: a slow random walk of the surfer's own velocity.
            jx = 0.98 * jx + 0.02 * self.rng.normal();
            jy = 0.98 * jy + 0.02 * self.rng.normal();
            let (cx, cy) = self.current();
            let o = self.orbit();
            self.push(cx + o + jx, cy + jy, Act::Sit, false);
        }
    }

    /// Paddle prone towards a target; `duck` adds duck-dives in the impact zone.
    fn paddle_to(&mut self, tx: f64, ty: f64, duck: bool) {
        let base = self.r.paddle * self.fresh();
        let stroke = self.rng.range(0.9, 1.3);
        let mut next_white = self.white_gap();
        let limit = self.now() + 900.0;
        let mut since = 0.0;
        while self.now() < limit {
            let (dx, dy) = (tx - self.x, ty - self.y);
            let d = dx.hypot(dy);
            if d < 3.0 {
                break;
            }
            since += DT;
            let inside = self.x > 10.0 && self.x < self.lineup().0 - 10.0;
            if duck && inside && since > next_white {
                self.duck_dive();
                since = 0.0;
                next_white = self.white_gap();
                continue;
            }
            let s = base * (1.0 + 0.22 * (2.0 * PI * self.now() / stroke).sin());
            let (cx, cy) = self.current();
            // Close to the target the surfer slows down.
            let s = s * (d / 6.0).clamp(0.3, 1.0);
            let dunk = self.rng.chance(0.004);
            self.push(s * dx / d + cx, s * dy / d + cy, Act::Paddle, dunk);
        }
    }

    /// Seconds until the next whitewater meets a surfer paddling out.
    fn white_gap(&mut self) -> f64 {
        let mean = if self.c.offshore { 20.0 } else { 11.0 };
        -mean * (1.0 - self.rng.f()).ln() + 3.0
    }

    /// Under a broken wave: the board is pushed back shoreward, the wrist goes under.
    fn duck_dive(&mut self) {
        let (dur, back) = match self.r.board {
            Board::Short => (self.rng.range(1.3, 2.4), self.rng.range(0.3, 0.9)),
            _ => (self.rng.range(2.0, 3.5), self.rng.range(0.8, 1.8)),
        };
        for i in 0..(dur * HZ as f64) as usize {
            let under = i as f64 * DT < dur - 0.4;
            self.push(-back, 0.0, Act::Paddle, under);
        }
    }

    /// Walk or jog on the sand or wade in shallow water, on foot.
    fn foot_to(&mut self, tx: f64, ty: f64, speed: f64) {
        let mut next_white = self.white_gap();
        let mut since = 0.0;
        let limit = self.now() + 1800.0;
        let sway = self.rng.range(0.0, 2.0 * PI);
        while self.now() < limit {
            let (dx, dy) = (tx - self.x, ty - self.y);
            let d = dx.hypot(dy);
            if d < 2.0 {
                break;
            }
            // In the water a person walks slower the deeper it is (waist-deep: 2–4 km/h).
            let depth_slow = if self.x > 0.0 {
                (1.0 - self.x / 80.0).clamp(0.45, 1.0)
            } else {
                1.0
            };
            since += DT;
            if self.x > 5.0 && since > next_white {
                // A bore hits: pushed back a metre or two, feet planted.
                for _ in 0..self.rng.range(10.0, 20.0) as usize {
                    self.push(-1.0, 0.0, Act::Land, false);
                }
                since = 0.0;
                next_white = self.white_gap();
                continue;
            }
            let s = speed * depth_slow * (1.0 + 0.08 * (self.now() * 3.6 + sway).sin());
            self.push(s * dx / d, s * dy / d, Act::Land, false);
        }
    }

    fn sit_for(&mut self, lo: f64, hi: f64) {
        let secs = self.rng.range(lo, hi);
        self.sit(secs);
    }

    fn stand_for(&mut self, lo: f64, hi: f64) {
        let secs = self.rng.range(lo, hi);
        self.stand(secs);
    }

    /// Stand still on foot (putting on the leash, looking at the waves).
    fn stand(&mut self, secs: f64) {
        for _ in 0..(secs * HZ as f64) as usize {
            self.push(0.0, 0.0, Act::Land, false);
        }
    }

    /// The time waited for a wave in the line-up (s).
    fn wait(&mut self) -> f64 {
        let mean = match self.brk {
            Break::Beach => 55.0,
            Break::Reef => 90.0,
            Break::Point => 110.0,
        } * self.c.crowd
            / self.fresh();
        8.0 - mean * (1.0 - self.rng.f()).ln()
    }

    /// A ride's planned length (s): short close to shore at beach breaks, long at points.
    fn ride_length(&mut self) -> f64 {
        let (median, lo, hi) = match (self.brk, self.r.board) {
            (_, Board::SoftTop) => (6.0, 3.0, 15.0),
            (Break::Beach, Board::Short) => (5.5, 2.0, 20.0),
            (Break::Beach, Board::Long) => (8.0, 3.0, 25.0),
            (Break::Reef, Board::Short) => (12.0, 4.0, 35.0),
            (Break::Reef, Board::Long) => (15.0, 5.0, 40.0),
            (Break::Point, Board::Short) => (42.0, 12.0, 120.0),
            (Break::Point, Board::Long) => (50.0, 15.0, 130.0),
        };
        let mut f = if self.c.offshore { 1.0 } else { 0.7 };
        if self.c.face > 1.8 && self.brk != Break::Beach {
            f *= 1.15;
        }
        self.rng.lognormal(median * f, 0.5, lo, hi)
    }

    /// The speed the rider carries on this wave (m/s).
    fn ride_speed(&mut self) -> f64 {
        let h = self.c.face;
        let v = match self.r.board {
            Board::Short => (5.0 + 1.4 * h + self.rng.range(-0.8, 0.8)).clamp(4.5, 9.7),
            Board::Long => (2.8 + 0.9 * h + self.rng.range(-0.5, 0.5)).clamp(2.8, 5.6),
            Board::SoftTop => self.bore * self.rng.range(0.95, 1.1),
        };
        // Fat, mushy waves in small onshore surf barely move a board (< 12 km/h).
        let mushy = !self.c.offshore && h < 1.3 && self.rng.chance(0.45);
        if mushy && self.r.board != Board::SoftTop {
            v.min(self.rng.range(2.4, 3.3))
        } else {
            v
        }
    }

    /// How this ride will end, by break and wind.
    fn ending(&mut self) -> Ending {
        use Ending::*;
        const ENDS: [Ending; 5] = [KickOut, Fall, KickOutNext, Shallows, Prone];
        // Onshore beach breaks close out: falls and straightening out; reefs end in the channel.
        let w = match (self.brk, self.c.offshore) {
            (Break::Beach, true) => [0.4, 0.25, 0.15, 0.12, 0.08],
            (Break::Beach, false) => [0.2, 0.35, 0.05, 0.1, 0.3],
            (Break::Reef, _) => [0.55, 0.3, 0.1, 0.0, 0.05],
            (Break::Point, _) => [0.45, 0.25, 0.0, 0.3, 0.0],
        };
        let mut u = self.rng.f() * w.iter().sum::<f64>();
        for (e, p) in ENDS.into_iter().zip(w) {
            if u < p {
                return e;
            }
            u -= p;
        }
        KickOut
    }

    /// Paddle for a wave; caught or missed, stood up or not. `chain` limits back-to-back waves.
    fn go_for_wave(&mut self, chain: u32) {
        // Turn to shore and sprint: 2–4 s building to 1.4× cruising speed.
        let sprint = self.rng.range(2.0, 4.0);
        let top = self.r.paddle * 1.4 * self.fresh();
        for i in 0..(sprint * HZ as f64) as usize {
            let s = top * (0.4 + 0.6 * i as f64 * DT / sprint);
            self.push(-s, 0.0, Act::Paddle, false);
        }
        let catch = match self.r.board {
            Board::Long => 0.75,
            _ => 0.55,
        } + 0.2 * self.r.skill;
        let catch = catch * self.fresh() * if self.c.offshore { 1.0 } else { 0.85 };
        if !self.rng.chance(catch) {
            self.missed_wave(top);
            return;
        }
        // Caught: the board slides down the face, prone, picking up speed before the pop-up.
        let slide = self.rng.range(0.7, 1.5);
        let v0 = self.bore * 0.85;
        for i in 0..(slide * HZ as f64) as usize {
            let s = top + (v0 - top) * i as f64 * DT / slide;
            self.push(-s, 0.0, Act::Paddle, false);
        }
        let fail = (1.0 - self.r.skill) * 0.25 + if self.c.offshore { 0.03 } else { 0.12 };
        if self.rng.chance(fail) {
            self.fall(v0);
            return;
        }
        let ending = self.ending();
        let ending = self.ride(v0, ending);
        self.end_ride(ending, chain);
    }

    /// The wave passes under: a 1–2 s lift to 10–15 km/h, then back to paddling speed.
    fn missed_wave(&mut self, from: f64) {
        let peak = self.rng.range(2.8, 4.2);
        let lift = self.rng.range(1.0, 2.0);
        let n = ((lift + 1.5) * HZ as f64) as usize;
        for i in 0..n {
            let t = i as f64 * DT;
            let s = if t < 0.4 {
                from + (peak - from) * t / 0.4
            } else if t < lift {
                peak
            } else {
                peak + (from * 0.4 - peak) * ((t - lift) / 1.5)
            };
            self.push(-s, 0.0, Act::Paddle, false);
        }
        self.sit_for(2.0, 8.0);
    }

    /// Standing on the wave from the pop-up; returns how it ended (the shallows can force it).
    fn ride(&mut self, v0: f64, planned: Ending) -> Ending {
        let dur = self.ride_length();
        let vp = self.ride_speed();
        let dir = match self.brk {
            Break::Point => 1.0,
            _ if self.rng.chance(0.5) => 1.0,
            _ => -1.0,
        };
        // The heading's angle shoreward of along-shore, and the turns' swing and period.
        let psi0 = match (self.r.board, self.brk) {
            (Board::SoftTop, _) => self.rng.range(1.3, 1.55),
            (_, Break::Point) => self.rng.range(0.1, 0.25),
            (Board::Long, _) => self.rng.range(0.35, 0.7),
            (Board::Short, _) => self.rng.range(0.35, 0.75),
        };
        let (amp, period) = match self.r.board {
            Board::SoftTop => (0.05, 7.0),
            Board::Long => (0.15, self.rng.range(5.0, 8.0)),
            Board::Short => (self.rng.range(0.5, 0.85), self.rng.range(2.2, 3.5)),
        };
        // Beach closeouts in onshore wind: the rider goes straight in.
        let psi0 = if self.brk == Break::Beach && !self.c.offshore && self.rng.chance(0.4) {
            1.3
        } else {
            psi0
        };
        let shallow = self.rng.range(8.0, 15.0);
        let phase0 = self.rng.range(0.0, 2.0 * PI);
        let section = self.rng.range(12.0, 20.0);
        let mut t = 0.0;
        let mut v = v0;
        while t < dur {
            let build = (t / 1.5).min(1.0);
            v = match self.r.board {
                // The bore weakens as it runs into shallower water.
                Board::SoftTop => vp * (1.0 - 0.25 * t / dur),
                Board::Long => {
                    let surge = 1.0 + 0.07 * (2.0 * PI * t / 4.0).sin();
                    (v0 + (vp - v0) * build) * surge
                }
                Board::Short => {
                    let turn = 1.0 + 0.12 * (2.0 * PI * t / period + phase0 + 1.2).sin();
                    (v0 + (vp - v0) * build) * turn
                }
            };
            if self.brk == Break::Point {
                // Long point waves have faster and slower sections.
                v *= 1.0 + 0.15 * (2.0 * PI * t / section + phase0).sin();
            }
            let psi = psi0 + amp * (2.0 * PI * t / period + phase0).sin();
            self.push(-v * psi.sin(), dir * v * psi.cos(), Act::Ride, false);
            t += DT;
            if self.x < shallow {
                return self.ride_into_shallows(v, dir, psi);
            }
        }
        if planned == Ending::Shallows {
            // Straight in to the beach, standing, until the water is too shallow.
            let psi: f64 = 1.2;
            while self.x > shallow && self.now() < self.length_s * 1.3 {
                let vv = v.min(self.bore * 1.1);
                self.push(-vv * psi.sin(), dir * vv * psi.cos(), Act::Ride, false);
            }
            return self.ride_into_shallows(v.min(self.bore * 1.1), dir, psi);
        }
        if matches!(planned, Ending::KickOut | Ending::KickOutNext) {
            // The kick-out turn over the back, still standing: the board turns seaward and slows.
            let turn = self.rng.range(0.5, 0.9);
            for i in 0..(turn * HZ as f64) as usize {
                let f = i as f64 * DT / turn;
                let psi = -f * 1.4;
                let s = v * (1.0 - 0.5 * f);
                self.push(-s * psi.sin(), dir * s * psi.cos(), Act::Ride, false);
            }
        }
        self.last_v = v * dir;
        planned
    }

    /// The bore dies in the shallows: standing, slowing to walking pace, then a step off.
    fn ride_into_shallows(&mut self, v: f64, dir: f64, psi: f64) -> Ending {
        let slow = self.rng.range(1.5, 3.0);
        let end = self.rng.range(1.5, 2.3);
        for i in 0..(slow * HZ as f64) as usize {
            let f = i as f64 * DT / slow;
            let s = v + (end - v) * f;
            let p = psi + (1.3 - psi) * f;
            self.push(-s * p.sin(), dir * s * p.cos(), Act::Ride, false);
        }
        self.last_v = 0.0;
        Ending::Shallows
    }

    fn end_ride(&mut self, e: Ending, chain: u32) {
        let v = self.last_v.abs().max(1.5);
        match e {
            Ending::Fall => self.fall(v),
            Ending::KickOut => {
                self.settle(Act::Sit, 2.0);
                self.sit_for(2.0, 10.0);
            }
            Ending::KickOutNext => {
                self.settle(Act::Paddle, 1.2);
                // Paddle seaward to meet the next wave, then turn for it.
                let go = self.rng.range(2.0, 5.0);
                for _ in 0..(go * HZ as f64) as usize {
                    let s = self.r.paddle * self.fresh();
                    self.push(s, 0.0, Act::Paddle, false);
                }
                if chain < 2 && self.x > 25.0 {
                    self.go_for_wave(chain + 1);
                }
            }
            Ending::Shallows => {
                // Off the board in knee-deep water: a few steps shoreward, board under the arm.
                let to = self.x - self.rng.range(2.0, 8.0);
                let y = self.y;
                let speed = self.rng.range(0.8, 1.2);
                self.foot_to(to, y, speed);
                self.stand_for(2.0, 6.0);
            }
            Ending::Prone => {
                let r = self.rng.range(0.7, 0.95);
                self.whitewater_push(self.bore * r, 3.0, 8.0)
            }
        }
    }

    /// The board's glide dies away after the rider stops standing.
    fn settle(&mut self, act: Act, secs: f64) {
        let v = self.last_v;
        for i in 0..(secs * HZ as f64) as usize {
            let f = 1.0 - i as f64 * DT / secs;
            self.push(0.3 * f, v * 0.35 * f * f, act, false);
        }
    }

    /// A wipe-out: held under, then often pushed in prone by the whitewater holding the board.
    fn fall(&mut self, v: f64) {
        let under = self.rng.range(1.5, 5.0);
        for i in 0..(under * HZ as f64) as usize {
            let s = v * (-(i as f64) * DT / 0.3).exp() + 0.3;
            self.push(-s, 0.0, Act::Swim, true);
        }
        let p = match self.brk {
            Break::Beach => 0.55,
            _ => 0.3,
        } + if self.c.offshore { 0.0 } else { 0.15 };
        if self.x > 15.0 && self.rng.chance(p) {
            let r = self.rng.range(0.55, 0.9);
            self.whitewater_push(self.bore * r, 3.0, 10.0);
        } else {
            self.sit_for(2.0, 6.0);
        }
    }

    /// Prone on the board, pushed shoreward by a bore that slowly loses its strength.
    fn whitewater_push(&mut self, v: f64, lo: f64, hi: f64) {
        let dur = self.rng.range(lo, hi);
        let tau = self.rng.range(2.5, 5.0);
        let drift = self.rng.range(-0.3, 0.3);
        for i in 0..(dur * HZ as f64) as usize {
            if self.x < 5.0 {
                break;
            }
            let s = v * (-(i as f64) * DT / tau).exp();
            self.push(-s, drift, Act::Paddle, false);
        }
    }

    /// From wherever the last wave left the surfer back to the take-off zone.
    fn back_out(&mut self) {
        let (lx, ly) = self.lineup();
        match self.brk {
            Break::Point => {
                let far = self.y - ly;
                if far > 180.0 && self.rng.chance(0.75) {
                    self.walk_back_up_the_point();
                } else {
                    // Up the point on the inside, against the current, then out.
                    self.paddle_to(lx - 25.0, ly + 20.0, true);
                    let r = self.rng.range(-10.0, 10.0);
                    self.paddle_to(lx, ly + r, true);
                }
            }
            _ => {
                let ty = match self.brk {
                    Break::Reef => ly + self.rng.range(-8.0, 8.0),
                    _ => (self.y + self.rng.range(-40.0, 40.0)).clamp(ly - 150.0, ly + 150.0),
                };
                if let Some((ry, _)) = self.c.rip
                    && self.x < lx - 30.0
                    && (self.y - ry).abs() < 120.0
                {
                    // Across to the channel, then out with the rip, barely paddling.
                    let x = self.x;
                    self.paddle_to(x, ry, false);
                    self.ride_the_rip(lx - 15.0);
                }
                let r = self.rng.range(-8.0, 8.0);
                self.paddle_to(lx + r, ty, true);
            }
        }
    }

    /// Carried seaward by the rip (1–2 km/h), lying on the board with an occasional stroke.
    fn ride_the_rip(&mut self, to_x: f64) {
        let limit = self.now() + 600.0;
        while self.x < to_x && self.now() < limit {
            let (cx, cy) = self.current();
            let stroke = if self.rng.chance(0.3) { 0.25 } else { 0.05 };
            self.push(cx + stroke, cy * 0.2, Act::Paddle, false);
        }
    }

    /// Out of the water at the bottom of the point, along the sand, back in above the take-off.
    fn walk_back_up_the_point(&mut self) {
        let y = self.y;
        self.paddle_to(4.0, y - 10.0, false);
        self.foot_to(-8.0, y - 14.0, 1.1);
        let jog = self.rng.chance(0.35);
        let speed = if jog {
            self.rng.range(2.3, 3.1)
        } else {
            self.rng.range(1.2, 1.5)
        };
        let (lx, ly) = self.lineup();
        self.foot_to(-10.0, ly - 40.0, speed);
        self.stand_for(3.0, 20.0);
        self.foot_to(6.0, ly - 40.0, 0.9);
        let r = self.rng.range(-10.0, 10.0);
        self.paddle_to(lx, ly + r, true);
    }

    /// A beginner's go: prone on a bore, a pop-up try, then wading back out.
    fn beginner_try(&mut self) {
        let v = self.bore * self.rng.range(0.85, 1.05);
        let prone = self.rng.range(1.0, 3.0);
        for i in 0..(prone * HZ as f64) as usize {
            let s = v * (i as f64 * DT / 0.6).min(1.0);
            self.push(-s, 0.0, Act::Paddle, false);
        }
        let u = self.rng.f();
        let stands = 0.3 + 0.4 * self.r.skill;
        if u < stands {
            let e = match self.rng.f() {
                f if f < 0.5 => Ending::Fall,
                f if f < 0.85 => Ending::Shallows,
                _ => Ending::Prone,
            };
            let e = self.ride(v, e);
            self.end_ride(e, 2);
        } else if u < stands + (1.0 - stands) * 0.5 {
            // Falls at the pop-up.
            self.fall(v);
        } else {
            // Stays prone all the way in: fast, but not a ride.
            self.whitewater_push(v, 3.0, 8.0);
        }
        self.stand_for(3.0, 12.0);
        let (lx, ly) = self.lineup();
        let speed = self.rng.range(0.6, 1.1);
        let ty = ly + self.rng.range(-15.0, 15.0);
        self.foot_to(lx, ty, speed / 0.6);
    }
}

/// A spot: where on Earth, which way the sea lies, the local time offset.
struct Spot {
    name: &'static str,
    lat: f64,
    lon: f64,
    /// Bearing of the seaward direction, degrees clockwise from north.
    seaward: f64,
    tz_min: i32,
}

/// (break, name, latitude, longitude, seaward bearing, UTC offset in minutes).
type SpotRow = (Break, &'static str, f64, f64, f64, i32);
const SPOTS: [SpotRow; 7] = [
    (Break::Beach, "Hossegor", 43.6652, -1.4441, 272.0, 60),
    (Break::Beach, "Bondi", -33.8908, 151.2775, 112.0, 660),
    (Break::Reef, "Uluwatu", -8.8149, 115.0868, 250.0, 480),
    (Break::Reef, "Mundaka", 43.4074, -2.6978, 20.0, 120),
    (Break::Point, "Jeffreys Bay", -34.0316, 24.9310, 150.0, 120),
    (Break::Point, "Rincon", 34.3733, -119.4766, 205.0, -480),
    (Break::Point, "Raglan", -37.7836, 174.8540, 305.0, 780),
];

fn pick_spot(rng: &mut Pcg, brk: Break) -> Spot {
    let here: Vec<&SpotRow> = SPOTS.iter().filter(|s| s.0 == brk).collect();
    let &(_, name, lat, lon, seaward, tz_min) =
        here[(rng.f() * here.len() as f64) as usize % here.len()];
    Spot {
        name,
        lat,
        lon,
        seaward,
        tz_min,
    }
}

fn pick_rider(rng: &mut Pcg, brk: Break) -> Rider {
    let u = rng.f();
    let board = match brk {
        Break::Beach if u < 0.33 => Board::SoftTop,
        Break::Beach if u < 0.55 => Board::Long,
        Break::Reef if u < 0.3 => Board::Long,
        Break::Point if u < 0.45 => Board::Long,
        _ => Board::Short,
    };
    let (paddle, skill) = match board {
        Board::SoftTop => (rng.range(0.7, 0.9), rng.range(0.0, 0.5)),
        Board::Long => (rng.range(1.1, 1.45), rng.range(0.3, 1.0)),
        Board::Short => (rng.range(0.95, 1.3), rng.range(0.35, 1.0)),
    };
    Rider {
        board,
        paddle,
        skill,
        fatigue: rng.range(0.05, 0.25),
        rest_hr: rng.range(52.0, 72.0),
    }
}

fn pick_conditions(rng: &mut Pcg, brk: Break, board: Board) -> Conditions {
    let face = if board == Board::SoftTop {
        rng.log_range(0.6, 1.4)
    } else {
        rng.log_range(0.6, 2.6)
    };
    let side = if rng.chance(0.5) { 1.0 } else { -1.0 };
    let rip = match brk {
        Break::Beach if rng.chance(0.6) => {
            Some((side * rng.range(40.0, 200.0), rng.range(0.28, 0.55)))
        }
        Break::Reef => Some((side * rng.range(60.0, 100.0), rng.range(0.28, 0.55))),
        _ => None,
    };
    Conditions {
        offshore: rng.chance(0.55),
        face,
        rip,
        along: match brk {
            Break::Point => rng.range(0.2, 0.5),
            _ => rng.range(-0.12, 0.12),
        },
        tide_dx: rng.range(10.0, 45.0) * if rng.chance(0.5) { 1.0 } else { -1.0 },
        crowd: rng.log_range(0.6, 2.0),
        orbit_amp: face * rng.range(0.25, 0.45),
        orbit_period: rng.range(9.0, 15.0),
    }
}

/// The surfer's whole session: the walk down, the water, the walk back.
fn surf_session(rng: &mut Pcg, brk: Break) -> (Vec<State>, Rider, Conditions) {
    let r = pick_rider(rng, brk);
    let c = pick_conditions(rng, brk, r.board);
    let total = rng.range(45.0, 150.0) * 60.0;
    let bore = 0.85 * (9.81 * 1.3 * c.face).sqrt();
    let lineup0 = match (brk, r.board) {
        (_, Board::SoftTop) => (25.0 + 12.0 * c.face, 0.0),
        (Break::Beach, _) => (55.0 + 35.0 * c.face, 0.0),
        (Break::Reef, _) => (170.0 + 40.0 * c.face, 0.0),
        (Break::Point, _) => (70.0 + 30.0 * c.face, 0.0),
    };
    let entry_y = match brk {
        Break::Beach => rng.range(-30.0, 30.0),
        Break::Reef => c.rip.map_or(60.0, |r| r.0),
        Break::Point => -40.0,
    };
    let car = (-rng.range(40.0, 120.0), entry_y + rng.range(-80.0, 80.0));
    let mut s = Surf {
        rng,
        brk,
        c,
        r,
        st: Vec::with_capacity((total * 1.2) as usize * HZ),
        x: car.0,
        y: car.1,
        length_s: total - 6.0 * 60.0,
        lineup0,
        bore,
        last_v: 0.0,
    };
    s.stand_for(20.0, 90.0);
    let walk = s.rng.range(1.2, 1.5);
    s.foot_to(-2.0, entry_y, walk);
    s.stand_for(10.0, 40.0);
    if s.r.board == Board::SoftTop {
        s.foot_to(lineup0.0, entry_y, 1.6);
        while s.now() < s.length_s {
            // Standing waist-deep, watching for a bore worth taking.
            let w = s.rng.range(5.0, 40.0) * s.c.crowd / s.fresh();
            s.stand(w);
            s.beginner_try();
        }
    } else {
        s.foot_to(8.0, entry_y, 0.9);
        if let Some((ry, _)) = s.c.rip {
            let x = s.x;
            s.paddle_to(x + 10.0, ry, false);
            s.ride_the_rip(lineup0.0 - 15.0);
        }
        let (lx, ly) = s.lineup();
        s.paddle_to(lx, ly, true);
        while s.now() < s.length_s {
            let (lx, ly) = s.lineup();
            if (s.x - lx).hypot(s.y - ly) > 30.0 {
                let r = s.rng.range(-10.0, 10.0);
                s.paddle_to(lx, ly + r, false);
            }
            let w = s.wait();
            s.sit(w);
            s.go_for_wave(0);
            s.back_out();
        }
        // In to the beach: paddle, the last bore pushes the board, wade out.
        let y = s.y;
        s.paddle_to(12.0, y, false);
    }
    let y = s.y;
    s.foot_to(-6.0, y, 0.9);
    s.stand_for(10.0, 60.0);
    let walk = s.rng.range(1.1, 1.4);
    s.foot_to(car.0, car.1, walk);
    s.stand_for(10.0, 40.0);
    let Surf { st, r, c, .. } = s;
    (st, r, c)
}

/// The heart rate (bpm) at each true state: the effort's target, reached with a lag.
fn heart_rate(st: &[State], r: &Rider) -> Vec<f64> {
    let mut hr = r.rest_hr + 20.0;
    let n = st.len().max(1) as f64;
    st.iter()
        .enumerate()
        .map(|(i, s)| {
            let speed = i
                .checked_sub(HZ)
                .map_or(0.0, |j| (s.x - st[j].x).hypot(s.y - st[j].y));
            let target = r.rest_hr
                + 12.0 * i as f64 / n
                + match s.act {
                    Act::Sit => 38.0,
                    Act::Paddle => 78.0,
                    Act::Ride => 95.0,
                    Act::Swim => 88.0,
                    Act::Land if speed > 1.9 => 88.0,
                    Act::Land if speed > 0.5 => 45.0,
                    Act::Land => 28.0,
                };
            let tau = if target > hr { 12.0 } else { 35.0 };
            hr += (target - hr) * DT / tau;
            hr
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The watch.

#[derive(Clone, Copy, PartialEq, Debug)]
enum Make {
    /// Whole-second times, Doppler-smoothed positions.
    Garmin,
    /// Millisecond times with jitter, an alpha-beta filter with lag.
    Suunto,
    /// An irregular rate, raw positions, `hdop`.
    AppleLike,
    /// A phone in an arm pouch: fused positions, held speed through short dropouts.
    Phone,
}

struct Watch {
    make: Make,
    /// Gauss–Markov error per axis (m) and its correlation time (s).
    sigma: f64,
    tau: f64,
    /// Random dropouts per hour in the water.
    dropouts_h: f64,
    /// Multipath episodes per hour.
    multipath_h: f64,
    /// Chance per solution that a paddling stroke dunks the wrist.
    dunk: f64,
    /// Smoothing: Garmin's blend weight, Suunto's alpha, the phone's gain.
    alpha: f64,
    beta: f64,
    /// The phone's heading lag (s) and how long it dead-reckons through a loss (s).
    heading_tau: f64,
    hold_s: f64,
    /// Smart recording: distance threshold (m) and longest interval (s).
    smart_m: f64,
    smart_max: f64,
    ms_offset: f64,
}

fn pick_watch(rng: &mut Pcg, c: &Conditions, brk: Break) -> Watch {
    let make = match rng.f() {
        u if u < 0.35 => Make::Garmin,
        u if u < 0.55 => Make::Suunto,
        u if u < 0.75 => Make::AppleLike,
        _ => Make::Phone,
    };
    let chop = if c.offshore { 1.0 } else { 1.6 };
    Watch {
        make,
        sigma: rng.range(2.0, 4.5),
        tau: rng.range(20.0, 90.0),
        dropouts_h: rng.range(4.0, 14.0) * chop,
        // Cliffs behind reefs and points reflect the signal.
        multipath_h: match brk {
            Break::Beach => rng.range(2.0, 8.0),
            _ => rng.range(6.0, 16.0),
        },
        dunk: rng.range(0.02, 0.06) * chop,
        alpha: match make {
            Make::Garmin => rng.range(0.55, 0.75),
            Make::Suunto => rng.range(0.4, 0.65),
            Make::AppleLike => 1.0,
            Make::Phone => rng.range(0.3, 0.5),
        },
        beta: rng.range(0.08, 0.2),
        heading_tau: rng.range(1.0, 2.5),
        hold_s: rng.range(4.0, 8.0),
        smart_m: rng.range(6.0, 12.0),
        smart_max: rng.range(6.0, 10.0),
        ms_offset: rng.range(0.05, 0.95),
    }
}

/// A written track point.
struct Fix {
    t_ms: i64,
    /// Shore frame, m.
    x: f64,
    y: f64,
    speed: Option<f64>,
    hdop: Option<f64>,
    hr: u16,
}

/// The true position at time `t` (s), linearly between states, and the true velocity.
fn truth_at(st: &[State], t: f64) -> ((f64, f64), (f64, f64), State) {
    let f = (t / DT).max(0.0);
    let i = (f as usize).min(st.len() - 2);
    let a = (f - i as f64).clamp(0.0, 1.0);
    let (p, q) = (st[i], st[i + 1]);
    let pos = (p.x + (q.x - p.x) * a, p.y + (q.y - p.y) * a);
    let j = i.saturating_sub(5);
    let k = (i + 5).min(st.len() - 1);
    let span = (k - j).max(1) as f64 * DT;
    let vel = ((st[k].x - st[j].x) / span, (st[k].y - st[j].y) / span);
    (pos, vel, p)
}

/// The receiver's solution times (s from the start).
fn epochs(rng: &mut Pcg, w: &Watch, sampling: Sampling, total: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(total as usize + 1);
    let mut t = 0.0;
    if w.make == Make::AppleLike {
        let median = if sampling == Sampling::Hz05 { 2.0 } else { 1.0 };
        while t < total {
            out.push(t);
            t += rng.lognormal(median, 0.25, median * 0.5, median * 3.0);
        }
        return out;
    }
    let mut k = 0.0;
    while k < total - 1.0 {
        t = match w.make {
            Make::Garmin => k,
            Make::Suunto => k + w.ms_offset + 0.04 * rng.normal().clamp(-3.0, 3.0),
            _ => k + w.ms_offset + 0.01 * rng.normal().clamp(-3.0, 3.0),
        };
        out.push(t);
        k += 1.0;
    }
    out
}

/// Windows (start, end, s) when something happens at random with a rate per hour.
fn windows(rng: &mut Pcg, per_h: f64, lo: f64, hi: f64, total: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut t = 0.0;
    loop {
        t += -3600.0 / per_h * (1.0 - rng.f()).ln();
        if t >= total {
            return out;
        }
        let d = rng.log_range(lo, hi);
        out.push((t, t + d));
        t += d;
    }
}

fn inside(w: &[(f64, f64)], t: f64) -> bool {
    w.iter().any(|&(a, b)| t >= a && t < b)
}

fn wrap(a: f64) -> f64 {
    (a + PI).rem_euclid(2.0 * PI) - PI
}

/// The firmware's position filter between solutions.
struct Firmware {
    /// Filtered position (NaN until the first fix after a loss) and velocity.
    p: (f64, f64),
    v: (f64, f64),
    /// The phone's fused heading.
    heading: f64,
}

impl Firmware {
    /// One solution in: `raw` position, `dopp` Doppler velocity.
    fn fuse(&mut self, w: &Watch, raw: (f64, f64), dopp: (f64, f64), dt: f64) {
        let blend = |pred: (f64, f64), g: f64| {
            (pred.0 + g * (raw.0 - pred.0), pred.1 + g * (raw.1 - pred.1))
        };
        let p = self.p;
        if p.0.is_nan() {
            // A fresh start takes the solution as it is: the jump after a loss.
            (self.p, self.v, self.heading) = (raw, dopp, dopp.1.atan2(dopp.0));
            return;
        }
        match w.make {
            // Dead-reckoned on the Doppler velocity, pulled towards the measurement.
            Make::Garmin => self.p = blend((p.0 + dopp.0 * dt, p.1 + dopp.1 * dt), 1.0 - w.alpha),
            Make::Suunto => {
                let pred = (p.0 + self.v.0 * dt, p.1 + self.v.1 * dt);
                let r = (raw.0 - pred.0, raw.1 - pred.1);
                self.p = blend(pred, w.alpha);
                self.v = (self.v.0 + w.beta * r.0 / dt, self.v.1 + w.beta * r.1 / dt);
            }
            Make::AppleLike => self.p = raw,
            Make::Phone => {
                // The fused heading trails the true one: turns are cut short.
                let speed = dopp.0.hypot(dopp.1);
                if speed > 0.4 {
                    let th = dopp.1.atan2(dopp.0);
                    self.heading += wrap(th - self.heading) * (1.0 - (-dt / w.heading_tau).exp());
                }
                self.v = (speed * self.heading.cos(), speed * self.heading.sin());
                self.p = blend((p.0 + self.v.0 * dt, p.1 + self.v.1 * dt), w.alpha);
            }
        }
    }

    /// The phone keeps writing through a short loss at the held speed and heading.
    fn dead_reckon(&mut self, dt: f64) -> (f64, f64) {
        self.p = (self.p.0 + self.v.0 * dt, self.p.1 + self.v.1 * dt);
        self.p
    }
}

/// A multipath bias at `t`: it comes and goes with the satellites' geometry, over seconds.
fn multipath_at(mp: &[(f64, f64, f64, f64)], t: f64) -> (f64, f64) {
    mp.iter()
        .find(|m| t >= m.0 && t < m.1)
        .map_or((0.0, 0.0), |&(a, b, bx, by)| {
            let ramp = ((t - a).min(b - t) / 6.0).min(1.0);
            (bx * ramp, by * ramp)
        })
}

/// Whether the watch writes this solution (`k`: its index; `fresh`: the first after a gap).
fn writes(
    w: &Watch,
    sampling: Sampling,
    k: usize,
    fresh: bool,
    q: (f64, f64),
    t_ms: i64,
    last: Option<&Fix>,
) -> bool {
    match (sampling, last) {
        (Sampling::Hz1, _) | (Sampling::Smart, None) => true,
        (Sampling::Hz05, _) => w.make == Make::AppleLike || k.is_multiple_of(2),
        // A distance rule: moved far enough from the last point, or too long without one.
        (Sampling::Smart, Some(l)) => {
            fresh
                || t_ms - l.t_ms >= (w.smart_max * 1000.0) as i64
                || (q.0 - l.x).hypot(q.1 - l.y) >= w.smart_m
        }
    }
}

/// A random horizontal offset of `m` metres.
fn offset(rng: &mut Pcg, m: f64) -> (f64, f64) {
    let d = rng.range(0.0, 2.0 * PI);
    (m * d.cos(), m * d.sin())
}

/// The watch's written points from the true path.
fn record_watch(
    rng: &mut Pcg,
    w: &Watch,
    sampling: Sampling,
    st: &[State],
    hr: &[f64],
    t0_ms: i64,
) -> Vec<Fix> {
    let total = st.len() as f64 * DT;
    let ts = epochs(rng, w, sampling, total - 0.2);
    let drop = windows(rng, w.dropouts_h, 2.0, 30.0, total);
    let multipath: Vec<(f64, f64, f64, f64)> = windows(rng, w.multipath_h, 3.0, 25.0, total)
        .into_iter()
        .map(|(a, b)| {
            let m = rng.range(3.0, 12.0);
            let o = offset(rng, m);
            (a, b, o.0, o.1)
        })
        .collect();
    let mut err = (w.sigma * rng.normal(), w.sigma * rng.normal());
    let mut out: Vec<Fix> = Vec::with_capacity(ts.len());
    let mut fw = Firmware {
        p: (f64::NAN, f64::NAN),
        v: (0.0, 0.0),
        heading: 0.0,
    };
    let (mut prev_t, mut lost, mut had_candidate) = (0.0, None::<f64>, false);
    // Re-acquisition: (when, offset x, offset y, time constant).
    let mut reacq = (0.0, 0.0, 0.0, 1.0);
    for (k, &t) in ts.iter().enumerate() {
        let dt = (t - prev_t).max(0.05);
        prev_t = t;
        let a = (-dt / w.tau).exp();
        let kick = w.sigma * (1.0 - a * a).sqrt();
        err = (
            a * err.0 + kick * rng.normal(),
            a * err.1 + kick * rng.normal(),
        );
        let (pos, vel, s) = truth_at(st, t);
        let wet = !matches!(s.act, Act::Land) || s.x > 0.0;
        let dunked = match s.act {
            Act::Paddle => rng.chance(w.dunk),
            Act::Ride => rng.chance(w.dunk * 0.1),
            _ => false,
        };
        let dropped = wet && inside(&drop, t);
        let avail = !(s.under || dunked || dropped);
        let mut spike = (0.0, 0.0);
        let cand = if avail {
            if let Some(l) = lost.take()
                && t - l >= 2.0
            {
                // The first solutions are off and converge; the longer the loss, the fewer
                // satellites are tracked at once and the worse the first fix.
                let m = (rng.range(2.0, 6.0) + 0.7 * (t - l)).min(30.0);
                let o = offset(rng, m);
                reacq = (t, o.0, o.1, rng.range(2.0, 5.0));
                fw.p = (f64::NAN, f64::NAN);
                if rng.chance((0.02 * (t - l)).min(0.3)) {
                    let m = rng.range(40.0, 150.0);
                    spike = offset(rng, m);
                }
            }
            let decay = (-(t - reacq.0) / reacq.3).exp();
            let mp = multipath_at(&multipath, t);
            let raw = (
                pos.0 + err.0 + reacq.1 * decay + mp.0,
                pos.1 + err.1 + reacq.2 * decay + mp.1,
            );
            let dopp = (vel.0 + 0.15 * rng.normal(), vel.1 + 0.15 * rng.normal());
            fw.fuse(w, raw, dopp, dt);
            Some((fw.p, (w.make == Make::Phone).then(|| fw.v.0.hypot(fw.v.1))))
        } else {
            let since = t - *lost.get_or_insert(t);
            (w.make == Make::Phone && !fw.p.0.is_nan() && since <= w.hold_s)
                .then(|| (fw.dead_reckon(dt), Some(fw.v.0.hypot(fw.v.1))))
        };
        let Some((q, speed)) = cand else {
            had_candidate = false;
            continue;
        };
        let t_ms = t0_ms + (t * 1000.0).round() as i64;
        let write = writes(w, sampling, k, !had_candidate, q, t_ms, out.last());
        had_candidate = true;
        if !write {
            continue;
        }
        let accuracy = w.sigma * 1.4 + reacq.1.hypot(reacq.2) * (-(t - reacq.0) / reacq.3).exp();
        let i = ((t / DT) as usize).min(hr.len() - 1);
        out.push(Fix {
            t_ms,
            x: q.0 + spike.0,
            y: q.1 + spike.1,
            speed,
            hdop: matches!(w.make, Make::AppleLike | Make::Phone).then_some(accuracy / 5.0),
            hr: (hr[i] + 1.5 * rng.normal()).round().clamp(40.0, 210.0) as u16,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The GPX export.

const TPX_V1: &str = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1";
const TPX_V2: &str = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2";

fn time_text(ms: i64, make: Make, tz_min: i32) -> String {
    let t = DateTime::from_timestamp_millis(ms).expect("a time in range");
    match make {
        Make::Garmin => t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        Make::Suunto => t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        _ => {
            let off = FixedOffset::east_opt(tz_min * 60).expect("a valid offset");
            t.with_timezone(&off)
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
        }
    }
}

/// Shore-frame metres to latitude and longitude at the spot.
fn to_lat_lon(spot: &Spot, x: f64, y: f64) -> (f64, f64) {
    let b = spot.seaward.to_radians();
    let east = x * b.sin() + y * b.cos();
    let north = x * b.cos() - y * b.sin();
    let lat = spot.lat + north / 111_320.0;
    let lon = spot.lon + east / (111_320.0 * spot.lat.to_radians().cos());
    (lat, lon)
}

fn write_gpx(spot: &Spot, make: Make, prefix: &str, fixes: &[Fix], t0_ms: i64) -> String {
    let mut g = String::with_capacity(fixes.len() * 260 + 1024);
    let creator = match make {
        Make::Garmin => "Garmin Connect",
        Make::Suunto => "Suunto app",
        Make::AppleLike => "WorkOutDoors",
        Make::Phone => "Surf Tracker for Android",
    };
    let _ = write!(
        g,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx creator=\"{creator}\" version=\"1.1\" \
         xmlns=\"http://www.topografix.com/GPX/1/1\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\" \
         xmlns:{prefix}=\"{TPX_V1}\""
    );
    if make == Make::Phone {
        let _ = write!(g, " xmlns:tpx2=\"{TPX_V2}\"");
    }
    let _ = write!(
        g,
        ">\n  <metadata>\n    <time>{}</time>\n  </metadata>\n  <trk>\n    <name>{} surf</name>\n    <type>surfing</type>\n    <trkseg>\n",
        time_text(t0_ms, make, spot.tz_min),
        spot.name
    );
    for f in fixes {
        let (lat, lon) = to_lat_lon(spot, f.x, f.y);
        let _ = match make {
            Make::Garmin => write!(g, "      <trkpt lat=\"{lat}\" lon=\"{lon}\">"),
            Make::Suunto => write!(g, "      <trkpt lat=\"{lat:.7}\" lon=\"{lon:.7}\">"),
            Make::AppleLike => write!(g, "      <trkpt lat=\"{lat:.6}\" lon=\"{lon:.6}\">"),
            // Quantised to five decimals (about a metre).
            Make::Phone => write!(g, "      <trkpt lat=\"{lat:.5}\" lon=\"{lon:.5}\">"),
        };
        if make == Make::Garmin {
            let _ = write!(g, "<ele>{:.1}</ele>", 1.0 + 0.02 * (f.t_ms % 97) as f64);
        }
        let _ = write!(g, "<time>{}</time>", time_text(f.t_ms, make, spot.tz_min));
        if let Some(h) = f.hdop {
            let _ = write!(g, "<hdop>{h:.1}</hdop>");
        }
        let _ = write!(
            g,
            "<extensions><{prefix}:TrackPointExtension><{prefix}:hr>{}</{prefix}:hr></{prefix}:TrackPointExtension>",
            f.hr
        );
        if let Some(v) = f.speed {
            let _ = write!(
                g,
                "<tpx2:TrackPointExtension><tpx2:speed>{v:.2}</tpx2:speed></tpx2:TrackPointExtension>"
            );
        }
        g.push_str("</extensions></trkpt>\n");
    }
    g.push_str("    </trkseg>\n  </trk>\n</gpx>\n");
    g
}

/// The true rides (ms) from the states: runs of standing.
fn rides_of(st: &[State], t0_ms: i64) -> Vec<(i64, i64)> {
    let ms = |i: usize| t0_ms + (i as f64 * DT * 1000.0).round() as i64;
    let mut out = Vec::new();
    let mut start = None;
    for (i, s) in st.iter().enumerate() {
        match (s.act == Act::Ride, start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                out.push((ms(a), ms(i)));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        out.push((ms(a), ms(st.len())));
    }
    out
}

fn acts_of(st: &[State], t0_ms: i64) -> Vec<(i64, Act)> {
    let mut out: Vec<(i64, Act)> = Vec::new();
    for (i, s) in st.iter().enumerate() {
        if out.last().is_none_or(|l| l.1 != s.act) {
            out.push((t0_ms + (i as f64 * DT * 1000.0).round() as i64, s.act));
        }
    }
    out
}

/// Rides with two written fixes 4 s or more apart that leave 2 s or more of the ride uncovered.
fn count_rides_with_gaps(rides: &[(i64, i64)], fixes: &[Fix]) -> usize {
    rides
        .iter()
        .filter(|&&(a, b)| {
            fixes.windows(2).any(|p| {
                let (u, v) = (p[0].t_ms, p[1].t_ms);
                v - u >= 4000 && v.min(b) - u.max(a) >= 2000
            })
        })
        .count()
}

/// One simulated session, deterministic by seed.
pub fn record(seed: u64, brk: Break, sampling: Sampling) -> Recorded {
    let mut rng = Pcg::new(seed ^ 0x51F6_0000_5EED_0006);
    let spot = pick_spot(&mut rng, brk);
    let (st, rider, cond) = surf_session(&mut rng, brk);
    let watch = pick_watch(&mut rng, &cond, brk);
    let prefix = if rng.chance(0.5) { "ns3" } else { "gpxtpx" };
    // A morning or afternoon between 2024 and 2026, on a whole second.
    let day = (rng.f() * 1000.0) as i64;
    let hour = rng.range(6.0, 17.0);
    let t0_ms = 1_704_067_200_000 + day * 86_400_000 + (hour * 3600.0) as i64 * 1000
        - spot.tz_min as i64 * 60_000;
    let hr = heart_rate(&st, &rider);
    let fixes = record_watch(&mut rng, &watch, sampling, &st, &hr, t0_ms);
    let rides = rides_of(&st, t0_ms);
    Recorded {
        gpx: write_gpx(&spot, watch.make, prefix, &fixes, t0_ms),
        rides_with_gaps: count_rides_with_gaps(&rides, &fixes),
        rides,
        brk,
        sampling,
        fixes: fixes.len(),
        acts: acts_of(&st, t0_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BREAKS, SAMPLINGS, SIXTH_MODEL, by_bounds, by_iou, import, naive};
    use super::*;

    /// Seeds of the tests' own sessions, away from every set's.
    const SEED: u64 = 424_242;

    #[tokio::test]
    async fn every_break_and_sampling_imports_with_heart_rate() {
        let mut prefixes = std::collections::HashSet::new();
        let mut seed = SEED;
        for b in BREAKS {
            for s in SAMPLINGS {
                seed += 1;
                let r = record(seed, b, s);
                prefixes.insert(r.gpx.contains("<ns3:hr>"));
                let got = import(&r.gpx).await.expect("the GPX imports");
                assert_eq!(got.gps.len(), r.fixes, "{b:?} {s:?}");
                assert_eq!(got.hr.len(), r.fixes, "{b:?} {s:?}");
                assert!(!r.rides.is_empty(), "{b:?} {s:?}");
                assert!(got.hr.iter().all(|h| (40..=210).contains(&h.bpm)));
                assert!(got.gps.windows(2).all(|w| w[0].t < w[1].t));
            }
        }
        assert_eq!(prefixes.len(), 2, "both extension prefixes appear");
    }

    #[test]
    fn deterministic_by_seed_and_different_across_seeds() {
        let a = record(SEED, Break::Reef, Sampling::Smart);
        let b = record(SEED, Break::Reef, Sampling::Smart);
        assert_eq!(a.gpx, b.gpx);
        assert_eq!(a.rides, b.rides);
        assert_eq!(a.acts, b.acts);
        let c = record(SEED + 1, Break::Reef, Sampling::Smart);
        assert_ne!(a.gpx, c.gpx);
        assert_ne!(a.rides, c.rides);
    }

    #[test]
    fn the_sampling_changes_the_watch_not_the_surfer() {
        let a = record(SEED + 7, Break::Beach, Sampling::Hz1);
        let b = record(SEED + 7, Break::Beach, Sampling::Smart);
        assert_eq!(a.rides, b.rides);
        assert!(b.fixes < a.fixes, "smart writes fewer points");
    }

    #[test]
    fn rides_and_acts_are_ordered_inside_the_session() {
        for seed in SEED..SEED + 9 {
            let b = BREAKS[seed as usize % 3];
            let r = record(seed, b, SAMPLINGS[(seed / 3) as usize % 3]);
            let (first, last) = (r.acts[0].0, r.acts.last().unwrap().0);
            let minutes = (last - first) as f64 / 60_000.0;
            assert!((44.0..=160.0).contains(&minutes), "{minutes} min");
            assert!(
                r.acts
                    .windows(2)
                    .all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1)
            );
            assert!(r.rides.iter().all(|&(a, e)| first < a && a < e && e < last));
            assert!(r.rides.windows(2).all(|w| w[0].1 < w[1].0));
            assert!(r.rides_with_gaps <= r.rides.len());
            // Every ride is an act of riding.
            for &(a, _) in &r.rides {
                assert!(r.acts.iter().any(|&(t, act)| t == a && act == Act::Ride));
            }
        }
    }

    /// Per ride: duration (s), mean and top speed (km/h) from the true path.
    fn ride_stats(st: &[State]) -> Vec<(f64, f64, f64)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < st.len() {
            if st[i].act != Act::Ride {
                i += 1;
                continue;
            }
            let a = i;
            while i < st.len() && st[i].act == Act::Ride {
                i += 1;
            }
            let steps: Vec<f64> = (a.max(1)..i)
                .map(|k| (st[k].x - st[k - 1].x).hypot(st[k].y - st[k - 1].y) / DT * 3.6)
                .collect();
            let mean = steps.iter().sum::<f64>() / steps.len().max(1) as f64;
            let top = steps.iter().copied().fold(0.0, f64::max);
            out.push(((i - a) as f64 * DT, mean, top));
        }
        out
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    #[test]
    fn rides_are_physically_plausible_per_break() {
        let mut durations = Vec::new();
        for b in BREAKS {
            let mut d = Vec::new();
            let (mut slow, mut fast, mut fast_not_riding) = (0, 0, 0);
            for k in 0..5 {
                let mut rng = Pcg::new(SEED + 100 + k);
                let (st, rider, _) = surf_session(&mut rng, b);
                for (dur, mean, top) in ride_stats(&st) {
                    assert!(dur >= 1.0, "{b:?} a {dur} s ride");
                    assert!(top < 42.0, "{b:?} {rider:?} top {top} km/h");
                    assert!(mean > 4.0, "{b:?} {rider:?} mean {mean} km/h");
                    slow += usize::from(mean < 12.0);
                    fast += usize::from(mean > 22.0);
                    d.push(dur);
                }
                // Hard negatives: fast movement without standing (bursts, prone whitewater).
                fast_not_riding += st
                    .windows(HZ + 1)
                    .filter(|w| w[0].act != Act::Ride && w[HZ].act != Act::Ride)
                    .filter(|w| (w[HZ].x - w[0].x).hypot(w[HZ].y - w[0].y) * 3.6 > 10.0)
                    .count();
            }
            assert!(slow > 0 && fast > 0, "{b:?} slow {slow} fast {fast}");
            assert!(fast_not_riding > 0, "{b:?}");
            durations.push(median(d));
        }
        assert!(
            durations[0] < durations[1] && durations[1] < durations[2],
            "{durations:?}"
        );
        assert!(durations[0] <= 9.0 && durations[2] >= 30.0, "{durations:?}");
    }

    #[tokio::test]
    async fn watches_lose_fixes_and_some_rides_have_gaps() {
        let (mut rides, mut gapped, mut gaps) = (0, 0, 0);
        for seed in SEED + 200..SEED + 206 {
            let r = record(seed, BREAKS[seed as usize % 3], Sampling::Hz1);
            rides += r.rides.len();
            gapped += r.rides_with_gaps;
            let g = import(&r.gpx).await.unwrap().gps;
            gaps += g.windows(2).filter(|w| w[1].t - w[0].t >= 2500).count();
        }
        assert!(gaps > 12, "{gaps} gaps");
        assert!(gapped > 0 && gapped * 4 < rides, "{gapped} of {rides}");
    }

    /// The naive baseline on [`SIXTH_MODEL`], the one score its author looked at
    /// (`cargo test -p shared --lib naive_baseline_on_the_sixth_model -- --ignored --nocapture`).
    #[tokio::test]
    #[ignore]
    async fn naive_baseline_on_the_sixth_model() {
        use super::super::super::accuracy::Score;
        let mut cells: Vec<(String, usize, Score, Score)> = Vec::new();
        let mut all = (0, Score::default(), Score::default());
        for b in BREAKS {
            for s in SAMPLINGS {
                let mut c = (0, Score::default(), Score::default());
                for (seed, bb, ss) in SIXTH_MODEL.sessions() {
                    if bb != b || ss != s {
                        continue;
                    }
                    let r = record(seed, b, s);
                    let got = import(&r.gpx).await.unwrap();
                    let found = naive(&got.gps);
                    c.0 += r.rides.len();
                    c.1.add(by_iou(&r.rides, &found));
                    c.2.add(by_bounds(&r.rides, &found));
                }
                all.0 += c.0;
                all.1.add(c.1);
                all.2.add(c.2);
                cells.push((format!("{} / {}", b.name(), s.name()), c.0, c.1, c.2));
            }
        }
        cells.push(("all".into(), all.0, all.1, all.2));
        println!("| break / sampling | rides | naive P / R, IoU ≥ 0.5 | naive P / R, ±2 s |");
        println!("|---|---|---|---|");
        for (name, n, i, bo) in cells {
            println!(
                "| {name} | {n} | {:.3} / {:.3} | {:.3} / {:.3} |",
                i.precision(),
                i.recall(),
                bo.precision(),
                bo.recall()
            );
        }
    }
}
