//! The text log line, written without `core::fmt` where it can be: the time from a per-second
//! prefix, integers by `itoa`, strings as they are (escaped). tracing-subscriber's own `Full`
//! format builds the same line through its styling and date types even with colours off, and
//! was a tenth of a cheap request's CPU (`GET /api/auth/me`, see the README's load section).
//!
//! A line: `2026-11-25T01:02:03.456789Z  INFO request{request_id=… method=GET path=/x}: target:
//! message key=value …`, as tracing-subscriber's `Full` format writes it. Control characters
//! in values are escaped (`\n`, `\x1b`, …), so one event is one line and a value cannot forge
//! another line or drive a terminal.

use std::cell::RefCell;
use std::fmt::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// The event format.
pub struct TextLine;

/// The field format (spans' fields are formatted once, when the span is made).
pub struct TextFields;

impl<S> FormatEvent<S, TextFields> for TextLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, TextFields>,
        mut w: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        write_time(&mut w, SystemTime::now())?;
        w.write_str(level(event.metadata().level()))?;
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                w.write_str(span.name())?;
                if let Some(f) = span.extensions().get::<FormattedFields<TextFields>>()
                    && !f.is_empty()
                {
                    w.write_char('{')?;
                    w.write_str(f)?;
                    w.write_char('}')?;
                }
                w.write_char(':')?;
            }
            w.write_char(' ')?;
        }
        w.write_str(event.metadata().target())?;
        w.write_str(": ")?;
        TextFields.format_fields(w.by_ref(), event)?;
        w.write_char('\n')
    }
}

impl<'w> FormatFields<'w> for TextFields {
    fn format_fields<R: RecordFields>(&self, w: Writer<'w>, fields: R) -> fmt::Result {
        let mut v = Fields {
            w,
            empty: true,
            result: Ok(()),
        };
        fields.record(&mut v);
        v.result
    }
}

/// Writes `name=value` pairs separated by spaces; the `message` field bare, first.
struct Fields<'w> {
    w: Writer<'w>,
    empty: bool,
    result: fmt::Result,
}

impl Fields<'_> {
    /// Starts a field: a space unless it is the first, then `name=` unless it is the message.
    fn start(&mut self, field: &Field) -> bool {
        if self.result.is_err() {
            return false;
        }
        if !self.empty {
            self.result = self.w.write_char(' ');
        }
        self.empty = false;
        if field.name() != "message" {
            self.result = self
                .result
                .and_then(|()| self.w.write_str(field.name()))
                .and_then(|()| self.w.write_char('='));
        }
        self.result.is_ok()
    }

    fn int(&mut self, field: &Field, s: &str) {
        if self.start(field) {
            self.result = self.w.write_str(s);
        }
    }
}

impl Visit for Fields<'_> {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.int(field, itoa::Buffer::new().format(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.int(field, itoa::Buffer::new().format(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.int(field, if value { "true" } else { "false" });
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if !self.start(field) {
            return;
        }
        let message = field.name() == "message";
        let mut e = Escaped(&mut self.w);
        self.result = if message {
            e.write_str(value)
        } else {
            // Quoted, as `Full` writes a string field.
            e.0.write_char('"')
                .and_then(|()| e.write_str(value))
                .and_then(|()| e.0.write_char('"'))
        };
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        if !self.start(field) {
            return;
        }
        let mut e = Escaped(&mut self.w);
        self.result = write!(e, "{value}");
        let mut source = value.source();
        while let Some(s) = source {
            self.result = self.result.and_then(|()| write!(e, ": {s}"));
            source = s.source();
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.start(field) {
            self.result = write!(Escaped(&mut self.w), "{value:?}");
        }
    }
}

/// Escapes control characters (C0 but the space, DEL, C1) as it writes.
struct Escaped<'a, 'w>(&'a mut Writer<'w>);

impl Write for Escaped<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // Fast path: nothing to escape (C1 characters start with 0xC2 in UTF-8).
        if !s.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2) {
            return self.0.write_str(s);
        }
        for ch in s.chars() {
            match ch {
                '\n' => self.0.write_str("\\n")?,
                '\r' => self.0.write_str("\\r")?,
                '\t' => self.0.write_str("\\t")?,
                c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                    write!(self.0, "\\x{:02x}", c as u32)?
                }
                c => self.0.write_char(c)?,
            }
        }
        Ok(())
    }
}

fn level(l: &Level) -> &'static str {
    match *l {
        Level::TRACE => " TRACE ",
        Level::DEBUG => " DEBUG ",
        Level::INFO => "  INFO ",
        Level::WARN => "  WARN ",
        Level::ERROR => " ERROR ",
    }
}

thread_local! {
    /// The second last written and its `YYYY-MM-DDTHH:MM:SS.` prefix.
    static SECOND: RefCell<(u64, [u8; 20])> = const { RefCell::new((u64::MAX, [0; 20])) };
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds).
fn write_time(w: &mut Writer<'_>, now: SystemTime) -> fmt::Result {
    let d = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let mut line = [0u8; 27];
    SECOND.with(|c| {
        let mut c = c.borrow_mut();
        if c.0 != secs {
            *c = (secs, second_prefix(secs));
        }
        line[..20].copy_from_slice(&c.1);
    });
    let mut micros = d.subsec_micros();
    for i in (20..26).rev() {
        line[i] = b'0' + (micros % 10) as u8;
        micros /= 10;
    }
    line[26] = b'Z';
    w.write_str(std::str::from_utf8(&line).map_err(|_| fmt::Error)?)
}

/// The date and time of second `secs` since the epoch, to the decimal point.
fn second_prefix(secs: u64) -> [u8; 20] {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let mut out = [0u8; 20];
    let mut put = |at: usize, v: u64, width: usize| {
        let mut v = v;
        for i in (at..at + width).rev() {
            out[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, y.clamp(0, 9999) as u64, 4);
    put(5, m, 2);
    put(8, d, 2);
    put(11, rem / 3600, 2);
    put(14, rem / 60 % 60, 2);
    put(17, rem % 60, 2);
    out[4] = b'-';
    out[7] = b'-';
    out[10] = b'T';
    out[13] = b':';
    out[16] = b':';
    out[19] = b'.';
    out
}

/// Year, month, day of a day number since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u64, u64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097) as u64;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe as i64 + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    #[test]
    fn times_match_chrono_across_days_months_and_leap_years() {
        for secs in [
            0u64,
            951_782_400, // 2000-02-29
            1_709_164_799,
            1_709_164_800, // 2024-02-29
            1_798_761_599, // 2026-12-31T23:59:59
            4_102_444_800, // 2100-01-01
            253_402_300_799,
        ] {
            for micros in [0u64, 7, 999_999] {
                let t = UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_micros(micros);
                let mut s = String::new();
                write_time(&mut Writer::new(&mut s), t).unwrap();
                let want = chrono::DateTime::<chrono::Utc>::from(t)
                    .format("%Y-%m-%dT%H:%M:%S%.6fZ")
                    .to_string();
                assert_eq!(s, want);
            }
        }
    }

    /// Collects what the subscriber writes.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn capture(f: impl FnOnce()) -> String {
        let sink = Sink::default();
        let out = sink.clone();
        let sub = tracing_subscriber::fmt()
            .with_writer(move || out.clone())
            .with_ansi(false)
            .fmt_fields(TextFields)
            .event_format(TextLine)
            .finish();
        tracing::subscriber::with_default(sub, f);
        String::from_utf8(sink.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_line_carries_its_spans_fields_and_escapes_control_characters() {
        let out = capture(|| {
            let span = tracing::info_span!("request", request_id = %"r-1", method = %"GET");
            let _e = span.enter();
            let err = std::io::Error::other("disk full");
            tracing::warn!(
                status = 503u64,
                delta = -4i64,
                ok = false,
                name = "a\"b\nc\x1b[31m",
                error = &err as &dyn std::error::Error,
                "finished {}",
                "now\nforged"
            );
        });
        let line = out
            .strip_suffix('\n')
            .expect("one line, newline-terminated");
        assert!(!line.contains('\n'), "{line}");
        let (time, rest) = line.split_at(27);
        assert!(chrono::DateTime::parse_from_rfc3339(time).is_ok(), "{time}");
        assert_eq!(
            rest,
            "  WARN request{request_id=r-1 method=GET}: shared::logging::text::tests: \
             finished now\\nforged status=503 delta=-4 ok=false name=\"a\"b\\nc\\x1b[31m\" error=disk full"
        );
    }
}
