//! The stored form of samples: chunks of one stream, delta-encoded, then deflated.
//!
//! A chunk holds up to [`chunk_capacity`] samples of one stream (15 minutes of 1 Hz GPS or heart
//! rate, one minute of 100 Hz IMU). Its bytes: a format byte (`1`), then DEFLATE of
//! `n`, the first time, and one column after another (columnar order compresses better):
//! time deltas, then per value column the first value and the deltas, all as LEB128 varints
//! (signed values zigzagged). Values are quantised first:
//!
//! | stream | column | unit |
//! |---|---|---|
//! | all | t | ms |
//! | gps | lat, lon | 1e-7 degree (≈ 1.1 cm) |
//! | gps | speed | cm/s, +1 (0 = missing) |
//! | gps | accuracy | dm, +1 (0 = missing) |
//! | hr | bpm | 1 |
//! | imu | ax, ay, az | 0.01 m/s² |
//!
//! So a decoded sample equals the uploaded one to within half a unit.

pub use crate::model::wearable::Chunk;

use super::samples::{GpsFix, HeartRate, Imu, Samples, Stream};
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use std::io::{Read, Write};

const FORMAT: u8 = 1;

/// Samples per chunk.
pub fn chunk_capacity(stream: Stream) -> usize {
    match stream {
        Stream::Gps | Stream::Hr => 900,
        Stream::Imu => 6000,
    }
}

#[derive(Debug, thiserror::Error)]
#[error("corrupt sample chunk: {0}")]
pub struct CorruptChunk(pub String);

fn put_u(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_i(out: &mut Vec<u8>, v: i64) {
    put_u(out, ((v << 1) ^ (v >> 63)) as u64);
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn u(&mut self) -> Result<u64, CorruptChunk> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self
                .b
                .get(self.at)
                .ok_or_else(|| CorruptChunk("truncated".into()))?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CorruptChunk("varint too long".into()))
    }

    fn i(&mut self) -> Result<i64, CorruptChunk> {
        let u = self.u()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }
}

/// A column of integers: the first as is, then deltas.
fn put_column(out: &mut Vec<u8>, values: impl Iterator<Item = i64>) {
    let mut prev = 0i64;
    for v in values {
        put_i(out, v.wrapping_sub(prev));
        prev = v;
    }
}

fn get_column(c: &mut Cursor<'_>, n: usize) -> Result<Vec<i64>, CorruptChunk> {
    let mut prev = 0i64;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        prev = prev.wrapping_add(c.i()?);
        out.push(prev);
    }
    Ok(out)
}

fn deg(v: f64) -> i64 {
    (v * 1e7).round() as i64
}

fn opt(v: Option<f64>, scale: f64) -> i64 {
    v.map(|x| (x * scale).round() as i64 + 1).unwrap_or(0)
}

fn unopt(v: i64, scale: f64) -> Option<f64> {
    (v > 0).then(|| (v - 1) as f64 / scale)
}

fn centi(v: f32) -> i64 {
    (f64::from(v) * 100.0).round() as i64
}

fn finish(stream: Stream, times: &[i64], body: Vec<u8>) -> Chunk {
    let mut enc = DeflateEncoder::new(vec![FORMAT], Compression::new(6));
    enc.write_all(&body).expect("writing to a Vec");
    Chunk {
        stream,
        // The earliest and the latest: a file's samples need not be in order.
        start_ms: *times.iter().min().expect("non-empty"),
        end_ms: *times.iter().max().expect("non-empty"),
        count: times.len() as i64,
        data: enc.finish().expect("writing to a Vec"),
    }
}

fn header(times: &[i64]) -> Vec<u8> {
    let mut body = Vec::with_capacity(times.len() * 4);
    put_u(&mut body, times.len() as u64);
    put_column(&mut body, times.iter().copied());
    body
}

pub fn encode_gps(s: &[GpsFix]) -> Chunk {
    let t: Vec<i64> = s.iter().map(|f| f.t).collect();
    let mut b = header(&t);
    put_column(&mut b, s.iter().map(|f| deg(f.lat)));
    put_column(&mut b, s.iter().map(|f| deg(f.lon)));
    put_column(&mut b, s.iter().map(|f| opt(f.speed, 100.0)));
    put_column(&mut b, s.iter().map(|f| opt(f.accuracy, 10.0)));
    finish(Stream::Gps, &t, b)
}

pub fn encode_hr(s: &[HeartRate]) -> Chunk {
    let t: Vec<i64> = s.iter().map(|h| h.t).collect();
    let mut b = header(&t);
    put_column(&mut b, s.iter().map(|h| i64::from(h.bpm)));
    finish(Stream::Hr, &t, b)
}

pub fn encode_imu(s: &[Imu]) -> Chunk {
    let t: Vec<i64> = s.iter().map(|m| m.t).collect();
    let mut b = header(&t);
    put_column(&mut b, s.iter().map(|m| centi(m.ax)));
    put_column(&mut b, s.iter().map(|m| centi(m.ay)));
    put_column(&mut b, s.iter().map(|m| centi(m.az)));
    finish(Stream::Imu, &t, b)
}

/// Every stream of `s` as chunks of at most [`chunk_capacity`] samples (empty input: none).
pub fn encode_all(s: &Samples) -> Vec<Chunk> {
    let mut out = Vec::new();
    out.extend(s.gps.chunks(chunk_capacity(Stream::Gps)).map(encode_gps));
    out.extend(s.hr.chunks(chunk_capacity(Stream::Hr)).map(encode_hr));
    out.extend(s.imu.chunks(chunk_capacity(Stream::Imu)).map(encode_imu));
    out
}

/// The most a chunk may inflate to: a full chunk of the widest stream is far smaller.
const MAX_INFLATED: u64 = 16 * 1024 * 1024;

fn open(data: &[u8]) -> Result<(Vec<u8>, usize, Vec<i64>), CorruptChunk> {
    let (&format, rest) = data
        .split_first()
        .ok_or_else(|| CorruptChunk("empty".into()))?;
    if format != FORMAT {
        return Err(CorruptChunk(format!("unknown format {format}")));
    }
    // Inflated with a bound, whatever the chunk claims: no chunk of ours is larger.
    let mut body = Vec::new();
    DeflateDecoder::new(rest)
        .take(MAX_INFLATED + 1)
        .read_to_end(&mut body)
        .map_err(|e| CorruptChunk(e.to_string()))?;
    if body.len() as u64 > MAX_INFLATED {
        return Err(CorruptChunk("inflates past its bound".into()));
    }
    let mut c = Cursor { b: &body, at: 0 };
    let n = c.u()? as usize;
    if n > 1_000_000 {
        return Err(CorruptChunk("too many samples".into()));
    }
    let t = get_column(&mut c, n)?;
    let at = c.at;
    Ok((body, at, t))
}

/// Decodes a chunk's samples into `into` (appending to its stream).
pub fn decode(stream: Stream, data: &[u8], into: &mut Samples) -> Result<(), CorruptChunk> {
    let (body, at, t) = open(data)?;
    let n = t.len();
    let mut c = Cursor { b: &body, at };
    match stream {
        Stream::Gps => {
            let lat = get_column(&mut c, n)?;
            let lon = get_column(&mut c, n)?;
            let speed = get_column(&mut c, n)?;
            let acc = get_column(&mut c, n)?;
            into.gps.extend((0..n).map(|i| GpsFix {
                t: t[i],
                lat: lat[i] as f64 / 1e7,
                lon: lon[i] as f64 / 1e7,
                speed: unopt(speed[i], 100.0),
                accuracy: unopt(acc[i], 10.0),
            }));
        }
        Stream::Hr => {
            let bpm = get_column(&mut c, n)?;
            into.hr.extend((0..n).map(|i| HeartRate {
                t: t[i],
                bpm: bpm[i].clamp(0, i64::from(u16::MAX)) as u16,
            }));
        }
        Stream::Imu => {
            let ax = get_column(&mut c, n)?;
            let ay = get_column(&mut c, n)?;
            let az = get_column(&mut c, n)?;
            into.imu.extend((0..n).map(|i| Imu {
                t: t[i],
                ax: ax[i] as f32 / 100.0,
                ay: ay[i] as f32 / 100.0,
                az: az[i] as f32 / 100.0,
            }));
        }
    }
    Ok(())
}

/// Accumulates samples in time order and hands out full chunks; [`ChunkWriter::finish`] gives
/// the partial ones. Memory: one chunk per stream.
#[derive(Default)]
pub struct ChunkWriter {
    gps: Vec<GpsFix>,
    hr: Vec<HeartRate>,
    imu: Vec<Imu>,
    pub counts: [i64; 3],
}

impl ChunkWriter {
    pub fn gps(&mut self, f: GpsFix) -> Option<Chunk> {
        self.counts[0] += 1;
        self.gps.push(f);
        (self.gps.len() >= chunk_capacity(Stream::Gps))
            .then(|| encode_gps(&std::mem::take(&mut self.gps)))
    }

    pub fn hr(&mut self, h: HeartRate) -> Option<Chunk> {
        self.counts[1] += 1;
        self.hr.push(h);
        (self.hr.len() >= chunk_capacity(Stream::Hr))
            .then(|| encode_hr(&std::mem::take(&mut self.hr)))
    }

    pub fn imu(&mut self, m: Imu) -> Option<Chunk> {
        self.counts[2] += 1;
        self.imu.push(m);
        (self.imu.len() >= chunk_capacity(Stream::Imu))
            .then(|| encode_imu(&std::mem::take(&mut self.imu)))
    }

    pub fn finish(&mut self) -> Vec<Chunk> {
        let mut out = Vec::new();
        if !self.gps.is_empty() {
            let mut v = std::mem::take(&mut self.gps);
            v.sort_by_key(|f| f.t);
            out.push(encode_gps(&v));
        }
        if !self.hr.is_empty() {
            let mut v = std::mem::take(&mut self.hr);
            v.sort_by_key(|f| f.t);
            out.push(encode_hr(&v));
        }
        if !self.imu.is_empty() {
            let mut v = std::mem::take(&mut self.imu);
            v.sort_by_key(|f| f.t);
            out.push(encode_imu(&v));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_round_trip_within_half_a_unit() {
        let gps: Vec<GpsFix> = (0..1000)
            .map(|i| GpsFix {
                t: 1_700_000_000_000 + i * 1000 + (i % 3),
                lat: -33.89 + i as f64 * 1e-6,
                lon: 151.27 - i as f64 * 2e-6,
                speed: (i % 7 != 0).then_some(i as f64 * 0.01),
                accuracy: (i % 5 != 0).then_some(4.25),
            })
            .collect();
        let hr: Vec<HeartRate> = (0..10)
            .map(|i| HeartRate {
                t: 1_700_000_000_000 + i * 1000,
                bpm: 100 + i as u16,
            })
            .collect();
        let imu: Vec<Imu> = (0..7000)
            .map(|i| Imu {
                t: 1_700_000_000_000 + i * 10,
                ax: (i as f32 * 0.1).sin() * 5.0,
                ay: -9.81,
                az: 0.333,
            })
            .collect();
        let s = Samples { gps, hr, imu };
        let chunks = encode_all(&s);
        assert_eq!(chunks.len(), 2 + 1 + 2);
        let mut back = Samples::default();
        for c in &chunks {
            decode(c.stream, &c.data, &mut back).unwrap();
        }
        assert_eq!(back.gps.len(), 1000);
        assert_eq!(back.imu.len(), 7000);
        assert_eq!(back.hr, s.hr);
        for (a, b) in s.gps.iter().zip(&back.gps) {
            assert_eq!(a.t, b.t);
            assert!((a.lat - b.lat).abs() <= 0.6e-7 && (a.lon - b.lon).abs() <= 0.6e-7);
            assert_eq!(a.speed.is_some(), b.speed.is_some());
            assert!((a.speed.unwrap_or(0.0) - b.speed.unwrap_or(0.0)).abs() <= 0.0051);
            assert!((a.accuracy.unwrap_or(0.0) - b.accuracy.unwrap_or(0.0)).abs() <= 0.051);
        }
        for (a, b) in s.imu.iter().zip(&back.imu) {
            assert!((a.ax - b.ax).abs() <= 0.0051 && (a.ay - b.ay).abs() <= 0.0051);
        }
    }

    #[test]
    fn a_corrupt_chunk_is_an_error_not_a_panic() {
        let mut s = Samples::default();
        assert!(decode(Stream::Gps, &[], &mut s).is_err());
        assert!(decode(Stream::Gps, &[1, 2, 3], &mut s).is_err());
        assert!(decode(Stream::Gps, &[9], &mut s).is_err());
    }
}
