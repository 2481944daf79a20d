//! A small FIT encoder for tests: activity files as watches write them (a `file_id`, the
//! developer data a Connect IQ app adds, `record` messages with position, speed and heart rate,
//! normal or compressed timestamp headers, either byte order), and the pieces to build broken
//! ones (raw definitions and data, a header of any size, a wrong CRC).
//!
//! Written from the FIT protocol description, sharing nothing with the service's decoder, so
//! that a test reading its files checks the decoder against an independent writer.

/// Seconds from the Unix epoch to FIT's (1989-12-31T00:00:00Z).
pub const FIT_EPOCH_UNIX: i64 = 631_065_600;

/// FIT's CRC-16, computed nibble by nibble as the protocol document gives it.
pub fn crc(mut crc: u16, bytes: &[u8]) -> u16 {
    const T: [u16; 16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401, 0xA001, 0x6C00, 0x7800,
        0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ];
    for &b in bytes {
        let tmp = T[(crc & 0xF) as usize];
        crc = ((crc >> 4) & 0x0FFF) ^ tmp ^ T[(b & 0xF) as usize];
        let tmp = T[(crc & 0xF) as usize];
        crc = ((crc >> 4) & 0x0FFF) ^ tmp ^ T[((b >> 4) & 0xF) as usize];
    }
    crc
}

/// Base types (the byte a field definition carries).
pub mod base {
    pub const ENUM: u8 = 0x00;
    pub const UINT8: u8 = 0x02;
    pub const UINT16: u8 = 0x84;
    pub const SINT32: u8 = 0x85;
    pub const UINT32: u8 = 0x86;
    pub const STRING: u8 = 0x07;
    pub const BYTE: u8 = 0x0D;
}

/// A field definition: number, size in bytes, base type.
pub type Field = (u8, u8, u8);

/// Builds the records of a FIT file; [`Writer::finish`] adds the header and the CRC.
#[derive(Default)]
pub struct Writer {
    data: Vec<u8>,
    /// The byte order of each local type's definition, to write its data in.
    big_endian: [bool; 16],
    /// Records written (definitions and data), the next one's number less one.
    pub records: u64,
}

impl Writer {
    /// A definition message: `fields`, then developer fields (number, size, developer index).
    pub fn define(
        &mut self,
        local: u8,
        global: u16,
        big_endian: bool,
        fields: &[Field],
        dev: &[Field],
    ) -> &mut Self {
        let mut h = 0x40 | local;
        if !dev.is_empty() {
            h |= 0x20;
        }
        self.data.push(h);
        self.data.push(0);
        self.data.push(big_endian as u8);
        if big_endian {
            self.data.extend_from_slice(&global.to_be_bytes());
        } else {
            self.data.extend_from_slice(&global.to_le_bytes());
        }
        self.data.push(fields.len() as u8);
        for &(n, s, b) in fields {
            self.data.extend_from_slice(&[n, s, b]);
        }
        if !dev.is_empty() {
            self.data.push(dev.len() as u8);
            for &(n, s, i) in dev {
                self.data.extend_from_slice(&[n, s, i]);
            }
        }
        self.big_endian[local as usize] = big_endian;
        self.records += 1;
        self
    }

    /// A data message under a normal header; `values` are already in the definition's order
    /// and byte order (see [`Writer::value`]).
    pub fn data(&mut self, local: u8, values: &[u8]) -> &mut Self {
        self.data.push(local);
        self.data.extend_from_slice(values);
        self.records += 1;
        self
    }

    /// A data message under a compressed timestamp header (local types 0–3): the low five
    /// bits of the time in seconds.
    pub fn compressed(&mut self, local: u8, fit_seconds: u32, values: &[u8]) -> &mut Self {
        assert!(local < 4);
        self.data
            .push(0x80 | (local << 5) | (fit_seconds & 0x1F) as u8);
        self.data.extend_from_slice(values);
        self.records += 1;
        self
    }

    /// Any bytes, as they are.
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.data.extend_from_slice(bytes);
        self
    }

    /// `v`'s low `size` bytes in local type `local`'s byte order.
    pub fn value(&self, local: u8, v: u64, size: usize) -> Vec<u8> {
        let le = v.to_le_bytes();
        let mut b = le[..size].to_vec();
        if self.big_endian[local as usize] {
            b.reverse();
        }
        b
    }

    /// The bytes so far (without header and CRC).
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The whole file: a 14-byte header with its CRC (or the 12-byte one), the records and
    /// the file's CRC.
    pub fn finish(&self, header14: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len() + 16);
        out.push(if header14 { 14 } else { 12 });
        out.push(0x20); // protocol 2.0
        out.extend_from_slice(&2132u16.to_le_bytes()); // profile 21.32
        out.extend_from_slice(&(self.data.len() as u32).to_le_bytes());
        out.extend_from_slice(b".FIT");
        if header14 {
            let c = crc(0, &out);
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&self.data);
        let c = crc(0, &out);
        out.extend_from_slice(&c.to_le_bytes());
        out
    }
}

/// One track point of an activity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Unix milliseconds; FIT keeps whole seconds.
    pub t_ms: i64,
    /// Degrees; `None` writes FIT's invalid value (no fix yet).
    pub position: Option<(f64, f64)>,
    /// Metres per second.
    pub speed: Option<f64>,
    pub hr: Option<u8>,
}

/// How to write an activity.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// Definitions in big-endian order (Garmin's own files are little-endian).
    pub big_endian: bool,
    /// Times within 31 s of the last full timestamp in compressed headers.
    pub compressed_timestamps: bool,
    /// A developer field (a Connect IQ app's "board_pitch") in every record.
    pub developer_field: bool,
    /// The 14-byte header with its CRC rather than the 12-byte one.
    pub header14: bool,
}

/// Degrees to FIT's semicircles.
pub fn semicircles(deg: f64) -> i32 {
    (deg * (2_147_483_648.0 / 180.0)).round() as i32
}

/// An activity file of `points` written in `style`.
pub fn activity(points: &[Point], style: Style) -> Vec<u8> {
    let be = style.big_endian;
    let mut w = Writer::default();
    let fit_s = |ms: i64| (ms / 1000 - FIT_EPOCH_UNIX) as u32;
    let first = points.first().map_or(0, |p| fit_s(p.t_ms));
    // file_id: type activity, manufacturer development, time created.
    w.define(
        0,
        0,
        be,
        &[
            (0, 1, base::ENUM),
            (1, 2, base::UINT16),
            (4, 4, base::UINT32),
        ],
        &[],
    );
    let mut v = vec![4u8];
    v.extend(w.value(0, 255, 2));
    v.extend(w.value(0, first as u64, 4));
    w.data(0, &v);
    let dev: &[Field] = if style.developer_field {
        // developer_data_id (index 0) and the field's description, as an app writes them.
        w.define(0, 207, be, &[(1, 16, base::BYTE), (3, 1, base::UINT8)], &[]);
        let mut v = vec![0x5Au8; 16];
        v.push(0);
        w.data(0, &v);
        w.define(
            0,
            206,
            be,
            &[
                (0, 1, base::UINT8),
                (1, 1, base::UINT8),
                (2, 1, base::UINT8),
                (3, 16, base::STRING),
            ],
            &[],
        );
        let mut v = vec![0u8, 0, base::UINT8];
        let mut name = b"board_pitch".to_vec();
        name.resize(16, 0);
        v.extend(name);
        w.data(0, &v);
        &[(0, 1, 0)]
    } else {
        &[]
    };
    // record, local type 1 with its timestamp, local type 2 without (compressed headers).
    let fields = |ts: bool| {
        let mut f: Vec<Field> = Vec::new();
        if ts {
            f.push((253, 4, base::UINT32));
        }
        f.extend([
            (0, 4, base::SINT32),
            (1, 4, base::SINT32),
            (3, 1, base::UINT8),
            (73, 4, base::UINT32),
        ]);
        f
    };
    w.define(1, 20, be, &fields(true), dev);
    if style.compressed_timestamps {
        w.define(2, 20, be, &fields(false), dev);
    }
    // The decoder resolves a compressed time against the last time it read, full or not.
    let mut last: Option<u32> = None;
    for (i, p) in points.iter().enumerate() {
        let t = fit_s(p.t_ms);
        let (lat, lon) = p.position.map_or((i32::MAX, i32::MAX), |(a, b)| {
            (semicircles(a), semicircles(b))
        });
        let compress = style.compressed_timestamps
            && last.is_some_and(|l| t >= l && t - l < 32)
            // Every tenth point in full, as a watch does after pauses.
            && i % 10 != 0;
        let local = if compress { 2 } else { 1 };
        let mut v = Vec::new();
        if !compress {
            v.extend(w.value(local, t as u64, 4));
        }
        last = Some(t);
        v.extend(w.value(local, lat as u32 as u64, 4));
        v.extend(w.value(local, lon as u32 as u64, 4));
        v.push(p.hr.unwrap_or(0xFF));
        let speed = p.speed.map_or(0xFFFF_FFFF, |s| (s * 1000.0).round() as u64);
        v.extend(w.value(local, speed, 4));
        if style.developer_field {
            v.push((i % 30) as u8);
        }
        if compress {
            w.compressed(local, t, &v);
        } else {
            w.data(local, &v);
        }
    }
    w.finish(style.header14)
}
