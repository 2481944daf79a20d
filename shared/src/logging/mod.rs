//! The process log, one set-up for the `api` and `worker` binaries: `RUST_LOG` filters
//! ([`DEFAULT_FILTER`] otherwise), text or JSON lines (`LOG_JSON`), on stdout.
//!
//! Lines are batched: each is appended to a shared buffer, and a thread writes the buffer out
//! every [`FLUSH_EVERY`] (a logger that finds [`FLUSH_AT`] bytes waiting writes them itself,
//! which also holds back a logger that outruns stdout; nothing is dropped). Under load one
//! `write` then carries hundreds of lines; one unbuffered write per line was 5 % of a cheap
//! request's CPU. A writer thread woken for every line (tracing-appender, tried first) spent
//! most of that saving on wake-ups (20 against 17 µs per `GET /api/auth/me`). Colour codes only
//! when stdout is a terminal: in a log file or a collector they are noise (and were 4 % of
//! that request's CPU to format). Without a terminal the line is [`text`]'s, the same line
//! written for less.

mod text;

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tracing_subscriber::fmt::MakeWriter;

/// When `RUST_LOG` is unset: our own info lines, the libraries' warnings (sqlx logs every
/// statement at info; the apalis runtime each task).
pub const DEFAULT_FILTER: &str = "info,sqlx=warn,apalis=warn";

/// How long a line may wait in the buffer.
pub const FLUSH_EVERY: Duration = Duration::from_millis(20);

/// Buffered bytes past which the logger writes them out itself.
pub const FLUSH_AT: usize = 64 * 1024;

/// Writes out what is still buffered when dropped. Hold it for the life of `main`.
#[must_use = "dropping the guard stops the periodic flush"]
pub struct LogGuard(Lines);

impl Drop for LogGuard {
    fn drop(&mut self) {
        self.0.flush_now();
    }
}

/// Installs the global subscriber and starts the flushing thread.
pub fn init(json: bool) -> LogGuard {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let lines = Lines::default();
    let flusher = lines.clone();
    std::thread::Builder::new()
        .name("log-flush".into())
        .spawn(move || {
            loop {
                std::thread::sleep(FLUSH_EVERY);
                flusher.flush_now();
            }
        })
        .expect("starting the log flush thread");
    let terminal = std::io::stdout().is_terminal();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(lines.clone())
        .with_ansi(terminal);
    if json {
        builder.json().init();
    } else if terminal {
        builder.init();
    } else {
        builder
            .fmt_fields(text::TextFields)
            .event_format(text::TextLine)
            .init();
    }
    LogGuard(lines)
}

/// The shared buffer of formatted lines.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Lines {
    fn lock(&self) -> MutexGuard<'_, Vec<u8>> {
        // A logger that panicked mid-append leaves at worst a partial line.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn flush_now(&self) {
        write_out(&mut self.lock());
    }
}

/// Writes `buf` to stdout under the buffer's lock, so lines keep their order.
fn write_out(buf: &mut Vec<u8>) {
    if buf.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    // Nowhere to report a failed log write; the lines are dropped rather than kept forever.
    let _ = out.write_all(buf).and_then(|()| out.flush());
    buf.clear();
}

impl<'a> MakeWriter<'a> for Lines {
    type Writer = LineSink<'a>;

    fn make_writer(&'a self) -> LineSink<'a> {
        LineSink(self)
    }
}

/// What one event's formatter writes into (the fmt layer writes each event in one call).
pub struct LineSink<'a>(&'a Lines);

impl Write for LineSink<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut buf = self.0.lock();
        buf.extend_from_slice(bytes);
        if buf.len() >= FLUSH_AT {
            write_out(&mut buf);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_wait_in_the_buffer_until_it_passes_the_threshold() {
        let lines = Lines::default();
        let mut sink = lines.make_writer();
        sink.write_all(b"one line\n").unwrap();
        sink.write_all(b"two lines\n").unwrap();
        assert_eq!(&*lines.lock(), b"one line\ntwo lines\n");
        // Past FLUSH_AT the logger writes everything out itself.
        sink.write_all(&vec![b'x'; FLUSH_AT]).unwrap();
        assert!(lines.lock().is_empty());
        sink.write_all(b"three\n").unwrap();
        lines.flush_now();
        assert!(lines.lock().is_empty());
    }
}
