//! A session's samples in time order, decoded a chunk at a time, so that reading a session of
//! any length holds about one chunk per stream (more only where chunks overlap in time, as a
//! live session's resent batches do).

use super::codec::{CorruptChunk, decode};
use super::samples::{GpsFix, HeartRate, Imu, Samples, Stream};
use crate::model::wearable::Chunk;
use std::collections::VecDeque;

/// A stream's slot in [`Stream::ALL`]'s order (GPS, heart rate, IMU), used for per-stream
/// arrays.
pub fn slot(s: Stream) -> usize {
    Stream::ALL
        .iter()
        .position(|&x| x == s)
        .expect("every stream is in ALL")
}

/// One sample of any stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sample {
    Gps(GpsFix),
    Hr(HeartRate),
    Imu(Imu),
}

/// What to do next: add chunk `i` of the index (decoded), take a sample, or stop.
#[derive(Debug, PartialEq)]
pub enum Step {
    Open(usize),
    Give(Sample),
    Done,
}

/// Chunks, opened in the order of their earliest sample only when the next sample could be in
/// them, merged into one time-ordered stream; a time repeated within a stream is given once.
pub struct Replay {
    starts: Vec<i64>,
    next: usize,
    gps: VecDeque<GpsFix>,
    hr: VecDeque<HeartRate>,
    imu: VecDeque<Imu>,
    /// The last time given, per stream ([`slot`]).
    last: [Option<i64>; 3],
}

trait Timed: Copy {
    fn t(&self) -> i64;
}
impl Timed for GpsFix {
    fn t(&self) -> i64 {
        self.t
    }
}
impl Timed for HeartRate {
    fn t(&self) -> i64 {
        self.t
    }
}
impl Timed for Imu {
    fn t(&self) -> i64 {
        self.t
    }
}

/// Merges the sorted `more` into the sorted queue `q`.
fn merge_into<T: Timed>(q: &mut VecDeque<T>, more: Vec<T>) {
    if q.back()
        .is_none_or(|b| more.first().is_none_or(|m| b.t() <= m.t()))
    {
        q.extend(more);
        return;
    }
    let old = std::mem::take(q);
    let (mut a, mut b) = (old.into_iter().peekable(), more.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        let take_a = x.t() <= y.t();
        q.push_back(if take_a { a.next() } else { b.next() }.expect("peeked"));
    }
    q.extend(a);
    q.extend(b);
}

impl Replay {
    /// `starts`: each chunk's earliest sample time, ascending (the index's order).
    pub fn new(starts: Vec<i64>) -> Replay {
        debug_assert!(starts.is_sorted());
        Replay {
            starts,
            next: 0,
            gps: VecDeque::new(),
            hr: VecDeque::new(),
            imu: VecDeque::new(),
            last: [None; 3],
        }
    }

    pub fn step(&mut self) -> Step {
        if let Some(&start) = self.starts.get(self.next)
            && self.next_t().is_none_or(|t| start <= t)
        {
            self.next += 1;
            return Step::Open(self.next - 1);
        }
        self.pop().map_or(Step::Done, Step::Give)
    }

    /// The time of the next sample, if any is waiting.
    fn next_t(&self) -> Option<i64> {
        [
            self.gps.front().map(|s| s.t),
            self.hr.front().map(|s| s.t),
            self.imu.front().map(|s| s.t),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The samples of the chunk [`Step::Open`] asked for.
    pub fn add(&mut self, mut s: Samples) {
        s.normalise();
        merge_into(&mut self.gps, s.gps);
        merge_into(&mut self.hr, s.hr);
        merge_into(&mut self.imu, s.imu);
    }

    /// The next sample in time order (GPS before heart rate before IMU at equal times).
    fn pop(&mut self) -> Option<Sample> {
        loop {
            let t = self.next_t()?;
            let (i, s) = if self.gps.front().is_some_and(|s| s.t == t) {
                (0, self.gps.pop_front().map(Sample::Gps))
            } else if self.hr.front().is_some_and(|s| s.t == t) {
                (1, self.hr.pop_front().map(Sample::Hr))
            } else {
                (2, self.imu.pop_front().map(Sample::Imu))
            };
            if self.last[i].is_some_and(|l| l >= t) {
                continue;
            }
            self.last[i] = Some(t);
            return s;
        }
    }
}

/// Every sample of chunks held in memory, in time order (the benchmark's and the tests' form of
/// what the derive job does with chunks read from the database).
pub fn each(chunks: &[Chunk], mut f: impl FnMut(Sample)) -> Result<(), CorruptChunk> {
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    order.sort_by_key(|&i| chunks[i].start_ms);
    let mut r = Replay::new(order.iter().map(|&i| chunks[i].start_ms).collect());
    loop {
        match r.step() {
            Step::Open(k) => {
                let c = &chunks[order[k]];
                let mut one = Samples::default();
                decode(c.stream, &c.data, &mut one)?;
                r.add(one);
            }
            Step::Give(x) => f(x),
            Step::Done => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gps(t: i64) -> GpsFix {
        GpsFix {
            t,
            lat: 0.0,
            lon: 0.0,
            speed: None,
            accuracy: None,
        }
    }

    /// Feeds `chunks` (each a list of GPS times and heart-rate times) as the derive job does,
    /// and returns the samples given.
    fn replay(mut chunks: Vec<(Vec<i64>, Vec<i64>)>) -> Vec<(char, i64)> {
        let start = |c: &(Vec<i64>, Vec<i64>)| c.0.iter().chain(&c.1).copied().min().unwrap();
        chunks.sort_by_key(start);
        let mut r = Replay::new(chunks.iter().map(start).collect());
        let mut out = Vec::new();
        let mut most_open = 0;
        loop {
            match r.step() {
                Step::Open(i) => {
                    let (g, h) = &chunks[i];
                    r.add(Samples {
                        gps: g.iter().map(|&t| gps(t)).collect(),
                        hr: h.iter().map(|&t| HeartRate { t, bpm: 60 }).collect(),
                        imu: Vec::new(),
                    });
                }
                Step::Give(Sample::Gps(f)) => out.push(('g', f.t)),
                Step::Give(Sample::Hr(h)) => out.push(('h', h.t)),
                Step::Give(Sample::Imu(i)) => out.push(('i', i.t)),
                Step::Done => break,
            }
            most_open = most_open.max(r.gps.len() + r.hr.len());
        }
        out.push(('#', most_open as i64));
        out
    }

    #[test]
    fn overlapping_unsorted_and_repeated_chunks_come_out_in_time_order_once() {
        let out = replay(vec![
            (vec![30, 10, 20], vec![]),
            (vec![], vec![5, 25]),
            // A resent batch and one that arrived late.
            (vec![20, 30], vec![]),
            (vec![15, 40], vec![]),
        ]);
        assert_eq!(
            out,
            vec![
                ('h', 5),
                ('g', 10),
                ('g', 15),
                ('g', 20),
                ('h', 25),
                ('g', 30),
                ('g', 40),
                ('#', 6),
            ]
        );
    }

    #[test]
    fn a_chunk_is_opened_only_when_its_samples_are_next() {
        let chunks = (0..50)
            .map(|k| ((k * 100..k * 100 + 100).collect(), vec![]))
            .collect();
        let out = replay(chunks);
        assert_eq!(out.len(), 5001);
        assert!(out[..5000].windows(2).all(|w| w[0].1 < w[1].1));
        // Never more than one chunk's samples waiting.
        assert_eq!(out[5000], ('#', 100));
    }
}
