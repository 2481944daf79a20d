//! The bulk sample file a watch sends through a signed upload URL (`format: csv`): one sample
//! per line, read as a stream.
//!
//! ```text
//! # lines starting with # are comments
//! gps,<unix ms>,<lat>,<lon>,<speed m/s or empty>,<accuracy m or empty>
//! hr,<unix ms>,<bpm>
//! imu,<unix ms>,<ax>,<ay>,<az>
//! ```
//!
//! Any bad line fails the whole file with its line number; nothing of it is kept.

use super::samples::{GpsFix, HeartRate, Imu, check_fix, check_imu};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sample {
    Gps(GpsFix),
    Hr(HeartRate),
    Imu(Imu),
}

/// The longest line accepted.
const MAX_LINE: usize = 256;

pub struct SampleFileReader<R> {
    r: R,
    line: u64,
    buf: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin> SampleFileReader<R> {
    pub fn new(r: R) -> Self {
        SampleFileReader {
            r,
            line: 0,
            buf: Vec::with_capacity(MAX_LINE),
        }
    }

    /// The next sample, or `(line, reason)`.
    pub async fn next(&mut self) -> Result<Option<Sample>, (u64, String)> {
        loop {
            self.buf.clear();
            self.line += 1;
            let n = (&mut self.r)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.buf)
                .await
                .map_err(|e| (self.line, format!("reading the file: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            if n > MAX_LINE && self.buf.last() != Some(&b'\n') {
                return Err((self.line, format!("line longer than {MAX_LINE} bytes")));
            }
            let text = std::str::from_utf8(&self.buf)
                .map_err(|_| (self.line, "not UTF-8 text".to_string()))?
                .trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            return parse(text).map(Some).map_err(|m| (self.line, m));
        }
    }
}

fn parse(text: &str) -> Result<Sample, String> {
    let f: Vec<&str> = text.split(',').map(str::trim).collect();
    let num = |i: usize, name: &str| -> Result<f64, String> {
        f.get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{name} is not a number"))
    };
    let opt = |i: usize, name: &str| -> Result<Option<f64>, String> {
        match f.get(i).copied() {
            None | Some("") => Ok(None),
            Some(v) => v
                .parse::<f64>()
                .map(Some)
                .map_err(|_| format!("{name} is not a number")),
        }
    };
    let t = || -> Result<i64, String> {
        f.get(1)
            .and_then(|v| v.parse::<i64>().ok())
            .ok_or_else(|| "the time is not a whole number of Unix milliseconds".to_string())
    };
    let arity = |n: usize| -> Result<(), String> {
        if f.len() == n {
            Ok(())
        } else {
            Err(format!(
                "{} lines have {n} fields, this one has {}",
                f[0],
                f.len()
            ))
        }
    };
    match f[0] {
        "gps" => {
            arity(6)?;
            let fix = GpsFix {
                t: t()?,
                lat: num(2, "lat")?,
                lon: num(3, "lon")?,
                speed: opt(4, "speed")?,
                accuracy: opt(5, "accuracy")?,
            };
            match check_fix(&fix) {
                Some(m) => Err(m.to_string()),
                None => Ok(Sample::Gps(fix)),
            }
        }
        "hr" => {
            arity(3)?;
            let t = t()?;
            let bpm = f[2]
                .parse::<u16>()
                .ok()
                .filter(|b| (20..=250).contains(b))
                .ok_or("bpm must be a whole number from 20 to 250")?;
            let s = HeartRate { t, bpm };
            if check_fix(&GpsFix {
                t,
                lat: 0.0,
                lon: 0.0,
                speed: None,
                accuracy: None,
            })
            .is_some()
            {
                return Err("the time is out of range".into());
            }
            Ok(Sample::Hr(s))
        }
        "imu" => {
            arity(5)?;
            let s = Imu {
                t: t()?,
                ax: num(2, "ax")? as f32,
                ay: num(3, "ay")? as f32,
                az: num(4, "az")? as f32,
            };
            match check_imu(&s) {
                Some(m) => Err(m.to_string()),
                None => Ok(Sample::Imu(s)),
            }
        }
        other => Err(format!("unknown sample kind {other:?} (gps, hr or imu)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_read_and_a_bad_one_is_named() {
        let doc = "# watch\ngps,1767247200000,-33.9,151.2,3.5,\nhr,1767247200000,120\n\nimu,1767247200010,0.1,0.2,9.8\n";
        let mut r = SampleFileReader::new(doc.as_bytes());
        let mut n = 0;
        while r.next().await.unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 3);
        let mut r = SampleFileReader::new(
            "gps,1767247200000,-33.9,151.2,,\ngps,1767247201000,-93,151.2,,\n".as_bytes(),
        );
        assert!(r.next().await.unwrap().is_some());
        let (line, msg) = r.next().await.err().unwrap();
        assert_eq!(line, 2, "{msg}");
    }
}
