//! FIT, the binary activity format of Garmin, Coros, Suunto and Wahoo watches, read as a stream.
//!
//! A small decoder of our own rather than a crate (docs/wearable.md says why): it reads the file
//! header (12 or 14 bytes, ".FIT" at byte 8, its CRC when set), definition messages (either
//! byte order, developer fields sized and skipped), data messages with normal or compressed
//! timestamp headers, chained files, and checks each file's CRC. Of the data it keeps only the
//! `record` message (global number 20): `timestamp`, `position_lat`/`position_long`
//! (semicircles), `enhanced_speed` or `speed`, `gps_accuracy` and `heart_rate`.
//!
//! Memory is a fixed read buffer, sixteen local definitions of at most 255 fields each and one
//! message body (at most 255 × 255 bytes of fields plus as many of developer fields), whatever
//! the file's size; every step consumes at least one byte, so time is linear in the file's
//! size, which the import caps. Anything malformed fails with the number of the record being
//! read (1 is the first after the file header, 0 the header) and its byte offset.

use super::samplefile::Sample;
use super::samples::{GpsFix, HeartRate, check_fix};
use tokio::io::{AsyncRead, AsyncReadExt};

/// Seconds from the Unix epoch to FIT's (1989-12-31T00:00:00Z).
const FIT_EPOCH_UNIX: i64 = 631_065_600;
/// The global message number of `record`.
const MESG_RECORD: u16 = 20;
/// Field numbers: `timestamp` (every message), then `record`'s.
const F_TIMESTAMP: u8 = 253;
const F_LAT: u8 = 0;
const F_LON: u8 = 1;
const F_HEART_RATE: u8 = 3;
const F_SPEED: u8 = 6;
const F_GPS_ACCURACY: u8 = 31;
const F_ENHANCED_SPEED: u8 = 73;
/// The largest message body a definition can declare: 255 fields and 255 developer fields of
/// 255 bytes each.
const MAX_BODY: usize = 2 * 255 * 255;
/// The read buffer: one whole message body fits.
const BUF: usize = 192 * 1024;

/// The Content-Type of a FIT file.
pub const CONTENT_TYPE: &str = "application/vnd.ant.fit";

/// True when `head` (at least the first 12 bytes) starts a FIT file: ".FIT" at byte 8.
pub fn is_fit(head: &[u8]) -> bool {
    head.get(8..12) == Some(b".FIT")
}

/// Why a file was refused: the record being read (0: the file header), its byte offset and
/// the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct FitError {
    pub record: u64,
    pub offset: u64,
    pub message: String,
}

/// FIT's CRC-16 (the ARC polynomial, reflected, initial value 0), over a table of 256.
const CRC_TABLE: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u16;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xA001
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

pub fn crc16(mut crc: u16, bytes: &[u8]) -> u16 {
    for &b in bytes {
        crc = (crc >> 8) ^ CRC_TABLE[((crc ^ b as u16) & 0xFF) as usize];
    }
    crc
}

/// The size in bytes of a base type (the low five bits of its byte), `None` for an unknown one.
fn base_size(base: u8) -> Option<usize> {
    match base & 0x1F {
        0x00..=0x02 | 0x07 | 0x0A | 0x0D => Some(1),
        0x03 | 0x04 | 0x0B => Some(2),
        0x05 | 0x06 | 0x08 | 0x0C => Some(4),
        0x09 | 0x0E..=0x10 => Some(8),
        _ => None,
    }
}

/// Where a field of interest lies in a message body.
#[derive(Clone, Copy, Debug)]
struct At {
    pos: usize,
}

/// A local message type's definition, reduced to what reading needs.
#[derive(Clone, Debug, Default)]
struct Def {
    big_endian: bool,
    global: u16,
    /// The body's size: fields and developer fields.
    size: usize,
    timestamp: Option<At>,
    lat: Option<At>,
    lon: Option<At>,
    hr: Option<At>,
    speed: Option<At>,
    enhanced_speed: Option<At>,
    accuracy: Option<At>,
}

/// A fixed buffer over the input that counts the bytes consumed and keeps the running CRC.
struct Input<R> {
    r: R,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    /// Bytes consumed since the start of the input.
    offset: u64,
    crc: u16,
}

impl<R: AsyncRead + Unpin> Input<R> {
    /// Makes `n` bytes available (`n` ≤ [`BUF`]); false when the input ends first.
    async fn fill(&mut self, n: usize) -> std::io::Result<bool> {
        if self.len - self.pos >= n {
            return Ok(true);
        }
        self.buf.copy_within(self.pos..self.len, 0);
        self.len -= self.pos;
        self.pos = 0;
        while self.len < n {
            let got = self.r.read(&mut self.buf[self.len..]).await?;
            if got == 0 {
                return Ok(false);
            }
            self.len += got;
        }
        Ok(true)
    }

    /// Consumes `n` bytes made available by [`Input::fill`].
    fn take(&mut self, n: usize) -> &[u8] {
        let s = &self.buf[self.pos..self.pos + n];
        self.crc = crc16(self.crc, s);
        self.pos += n;
        self.offset += n as u64;
        s
    }
}

pub struct FitReader<R> {
    input: Input<R>,
    /// Records started so far (the current one's number).
    record: u64,
    /// Data bytes of the current file still to read; `None` between files.
    remaining: Option<u64>,
    files: u64,
    defs: [Option<Def>; 16],
    last_timestamp: Option<u32>,
    /// A heart-rate sample of the record just read, given after its fix.
    pending: Option<Sample>,
}

fn uint(b: &[u8], big_endian: bool) -> u64 {
    let mut v = 0u64;
    if big_endian {
        for &x in b {
            v = (v << 8) | x as u64;
        }
    } else {
        for &x in b.iter().rev() {
            v = (v << 8) | x as u64;
        }
    }
    v
}

impl<R: AsyncRead + Unpin> FitReader<R> {
    pub fn new(r: R) -> Self {
        FitReader {
            input: Input {
                r,
                buf: vec![0u8; BUF].into_boxed_slice(),
                pos: 0,
                len: 0,
                offset: 0,
                crc: 0,
            },
            record: 0,
            remaining: None,
            files: 0,
            defs: Default::default(),
            last_timestamp: None,
            pending: None,
        }
    }

    fn err(&self, offset: u64, message: impl Into<String>) -> FitError {
        FitError {
            record: self.record,
            offset,
            message: message.into(),
        }
    }

    fn io(&self, e: std::io::Error) -> FitError {
        self.err(self.input.offset, format!("reading the file: {e}"))
    }

    /// Makes `n` bytes of the current record available, inside the data the header declared.
    async fn need(&mut self, n: usize, at: u64) -> Result<(), FitError> {
        let left = self.remaining.unwrap_or(0);
        if n as u64 > left {
            return Err(self.err(
                at,
                format!("the record needs {n} bytes but the header's data size leaves {left}"),
            ));
        }
        if !self.input.fill(n).await.map_err(|e| self.io(e))? {
            return Err(self.err(
                at,
                format!(
                    "the file ends at byte {} inside its data",
                    self.input.offset + (self.input.len - self.input.pos) as u64
                ),
            ));
        }
        self.remaining = Some(left - n as u64);
        Ok(())
    }

    /// The next sample (a GPS fix or a heart rate), `None` at the end of the file.
    pub async fn next(&mut self) -> Result<Option<Sample>, FitError> {
        loop {
            if let Some(s) = self.pending.take() {
                return Ok(Some(s));
            }
            match self.remaining {
                None => {
                    if !self.header().await? {
                        return Ok(None);
                    }
                }
                Some(0) => self.file_crc().await?,
                Some(_) => {
                    if let Some(s) = self.message().await? {
                        return Ok(Some(s));
                    }
                }
            }
        }
    }

    /// Reads a file header; false at the end of the input after at least one file.
    async fn header(&mut self) -> Result<bool, FitError> {
        let at = self.input.offset;
        let first = self.input.fill(1).await.map_err(|e| self.io(e))?;
        if !first {
            if self.files == 0 {
                return Err(self.err(at, "the file is empty"));
            }
            return Ok(false);
        }
        let size = self.input.buf[self.input.pos] as usize;
        // Header errors are record 0 of the file; record numbers run on across chained files.
        let err = |m: String| FitError {
            record: 0,
            offset: at,
            message: m,
        };
        if size != 12 && size != 14 {
            return Err(err(format!(
                "the header is {size} bytes; a FIT header is 12 or 14"
            )));
        }
        if !self.input.fill(size).await.map_err(|e| self.io(e))? {
            return Err(err("the file ends inside its header".into()));
        }
        self.input.crc = 0;
        let h = self.input.take(size).to_vec();
        if !is_fit(&h) {
            return Err(err("the header has no \".FIT\" signature".into()));
        }
        if h[1] >> 4 > 2 {
            return Err(err(format!(
                "protocol version {}.{} is not supported",
                h[1] >> 4,
                h[1] & 0xF
            )));
        }
        if size == 14 {
            let stored = u16::from_le_bytes([h[12], h[13]]);
            if stored != 0 && stored != crc16(0, &h[..12]) {
                return Err(err("the header's CRC does not match".into()));
            }
        }
        self.remaining = Some(u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as u64);
        self.files += 1;
        self.defs = Default::default();
        self.last_timestamp = None;
        Ok(true)
    }

    /// The CRC after a file's data: of every byte of the file from its header on.
    async fn file_crc(&mut self) -> Result<(), FitError> {
        let at = self.input.offset;
        let want = self.input.crc;
        if !self.input.fill(2).await.map_err(|e| self.io(e))? {
            return Err(self.err(at, "the file ends before its CRC"));
        }
        let b = self.input.take(2);
        let got = u16::from_le_bytes([b[0], b[1]]);
        if got != want {
            return Err(self.err(
                at,
                format!("the file's CRC is {got:#06x}, its bytes give {want:#06x}"),
            ));
        }
        self.remaining = None;
        Ok(())
    }

    /// Reads one record; a `record` message gives its fix (and keeps its heart rate pending)
    /// or its heart rate.
    async fn message(&mut self) -> Result<Option<Sample>, FitError> {
        self.record += 1;
        let at = self.input.offset;
        self.need(1, at).await?;
        let h = self.input.take(1)[0];
        if h & 0x80 != 0 {
            // Compressed timestamp header: local type in bits 5–6, seconds in bits 0–4.
            let Some(last) = self.last_timestamp else {
                return Err(self.err(at, "a compressed timestamp before any timestamp"));
            };
            let offset = (h & 0x1F) as u32;
            let mut t = (last & !0x1F) | offset;
            if offset < last & 0x1F {
                t = t.wrapping_add(0x20);
            }
            return self.data((h >> 5) & 0x3, Some(t), at).await;
        }
        if h & 0x40 != 0 {
            self.definition(h, at).await?;
            return Ok(None);
        }
        if h & 0x10 != 0 {
            return Err(self.err(at, format!("record header {h:#04x} sets a reserved bit")));
        }
        self.data(h & 0xF, None, at).await
    }

    async fn definition(&mut self, h: u8, at: u64) -> Result<(), FitError> {
        self.need(5, at).await?;
        let b: [u8; 5] = self.input.take(5).try_into().expect("five bytes");
        let big_endian = match b[1] {
            0 => false,
            1 => true,
            a => return Err(self.err(at, format!("architecture {a} is neither 0 nor 1"))),
        };
        let global = uint(&b[2..4], big_endian) as u16;
        let n = b[4] as usize;
        self.need(n * 3, at).await?;
        let fields = self.input.take(n * 3).to_vec();
        let mut def = Def {
            big_endian,
            global,
            ..Def::default()
        };
        for f in fields.chunks_exact(3) {
            let (num, size, base) = (f[0], f[1] as usize, f[2]);
            let Some(unit) = base_size(base) else {
                return Err(self.err(
                    at,
                    format!("field {num} has an unknown base type {base:#04x}"),
                ));
            };
            if size == 0 {
                return Err(self.err(at, format!("field {num} has a size of 0")));
            }
            let wanted = match (global, num) {
                (_, F_TIMESTAMP) => Some((&mut def.timestamp, 4)),
                (MESG_RECORD, F_LAT) => Some((&mut def.lat, 4)),
                (MESG_RECORD, F_LON) => Some((&mut def.lon, 4)),
                (MESG_RECORD, F_HEART_RATE) => Some((&mut def.hr, 1)),
                (MESG_RECORD, F_SPEED) => Some((&mut def.speed, 2)),
                (MESG_RECORD, F_ENHANCED_SPEED) => Some((&mut def.enhanced_speed, 4)),
                (MESG_RECORD, F_GPS_ACCURACY) => Some((&mut def.accuracy, 1)),
                _ => None,
            };
            if let Some((slot, bytes)) = wanted {
                // A field read with the wrong width would be read wrong: refuse it.
                if size != bytes || unit != bytes {
                    return Err(self.err(
                        at,
                        format!(
                            "field {num} of message {global} is {size} bytes of a {unit}-byte type; it takes one value of {bytes} bytes"
                        ),
                    ));
                }
                *slot = Some(At { pos: def.size });
            }
            def.size += size;
        }
        if h & 0x20 != 0 {
            self.need(1, at).await?;
            let n = self.input.take(1)[0] as usize;
            self.need(n * 3, at).await?;
            let dev = self.input.take(n * 3);
            def.size += dev.chunks_exact(3).map(|f| f[1] as usize).sum::<usize>();
        }
        debug_assert!(def.size <= MAX_BODY);
        self.defs[(h & 0xF) as usize] = Some(def);
        Ok(())
    }

    async fn data(
        &mut self,
        local: u8,
        compressed: Option<u32>,
        at: u64,
    ) -> Result<Option<Sample>, FitError> {
        let Some(def) = self.defs[local as usize].take() else {
            return Err(self.err(
                at,
                format!("a data message of local type {local}, which has no definition"),
            ));
        };
        let r = self.data_with(&def, compressed, at).await;
        self.defs[local as usize] = Some(def);
        r
    }

    async fn data_with(
        &mut self,
        def: &Def,
        compressed: Option<u32>,
        at: u64,
    ) -> Result<Option<Sample>, FitError> {
        self.need(def.size, at).await?;
        let body = self.input.take(def.size);
        let be = def.big_endian;
        let get = |a: Option<At>, n: usize| a.map(|a| uint(&body[a.pos..a.pos + n], be));
        let field_ts = get(def.timestamp, 4)
            .filter(|&v| v != 0xFFFF_FFFF)
            .map(|v| v as u32);
        let ts = compressed.or(field_ts);
        if ts.is_some() {
            self.last_timestamp = ts;
        }
        if def.global != MESG_RECORD {
            return Ok(None);
        }
        let lat = get(def.lat, 4).map(|v| v as u32 as i32);
        let lon = get(def.lon, 4).map(|v| v as u32 as i32);
        let hr = get(def.hr, 1).filter(|&v| v != 0xFF);
        let enhanced = get(def.enhanced_speed, 4).filter(|&v| v != 0xFFFF_FFFF);
        let speed = enhanced.or(get(def.speed, 2).filter(|&v| v != 0xFFFF));
        let accuracy = get(def.accuracy, 1).filter(|&v| v != 0xFF);
        let Some(ts) = ts else {
            return Err(self.err(at, "a record message has no timestamp"));
        };
        let t = (ts as i64 + FIT_EPOCH_UNIX) * 1000;
        let hr = hr
            .filter(|b| (20..=250).contains(b))
            .map(|bpm| Sample::Hr(HeartRate { t, bpm: bpm as u16 }));
        let (Some(lat), Some(lon)) = (lat, lon) else {
            return Ok(hr);
        };
        if lat == i32::MAX || lon == i32::MAX {
            return Ok(hr);
        }
        const DEG: f64 = 180.0 / 2_147_483_648.0;
        let fix = GpsFix {
            t,
            lat: lat as f64 * DEG,
            lon: lon as f64 * DEG,
            speed: speed.map(|v| v as f64 / 1000.0),
            accuracy: accuracy.map(|v| v as f64),
        };
        if let Some(m) = check_fix(&fix) {
            return Err(self.err(at, m));
        }
        self.pending = hr;
        Ok(Some(Sample::Gps(fix)))
    }
}

/// Reads `r` to its end, for tests and tools: every sample, or the first fault.
pub async fn read_all(r: impl AsyncRead + Unpin) -> Result<Vec<Sample>, FitError> {
    let mut f = FitReader::new(r);
    let mut out = Vec::new();
    while let Some(s) = f.next().await? {
        out.push(s);
    }
    Ok(out)
}

/// The first bytes of `r` (up to 12, fewer only at its end), enough for [`is_fit`].
pub async fn head(r: &mut (impl AsyncRead + Unpin)) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(12);
    let mut b = [0u8; 12];
    while head.len() < 12 {
        let n = r.read(&mut b[..12 - head.len()]).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&b[..n]);
    }
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crc_is_fits() {
        // CRC-16/ARC's check value, and a header the FIT SDK documents.
        assert_eq!(crc16(0, b"123456789"), 0xBB3D);
    }
}
