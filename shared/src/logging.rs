//! The process log, one set-up for the `api` and `worker` binaries: `RUST_LOG` filters
//! ([`DEFAULT_FILTER`] otherwise), text or JSON lines (`LOG_JSON`), on stdout.
//!
//! Lines are formatted on the thread that logs them and written by a thread of their own
//! (tracing-appender's non-blocking writer), which writes whatever has queued since its last
//! write in one go: under load one `write` carries many lines instead of one each (the access
//! log was 5 % of a cheap request's CPU as one unbuffered write per line). The queue is
//! bounded and does not drop: a logger that outruns stdout waits, as it did before. Colour
//! codes only when stdout is a terminal: in a log file or a collector they are noise (and cost
//! 4 % of that request's CPU to format).

use std::io::IsTerminal;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};

/// Keeps the writer thread alive; dropping it writes out what is still queued. Hold it for the
/// life of `main`.
#[must_use = "dropping the guard stops the log writer"]
pub struct LogGuard(#[allow(dead_code)] WorkerGuard);

/// When `RUST_LOG` is unset: our own info lines, the libraries' warnings (sqlx logs every
/// statement at info; the apalis runtime each task).
pub const DEFAULT_FILTER: &str = "info,sqlx=warn,apalis=warn";

/// Installs the global subscriber.
pub fn init(json: bool) -> LogGuard {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("log-writer")
        // `Stdout` alone writes at every newline; the thread flushes whenever its queue runs dry.
        .finish(std::io::BufWriter::with_capacity(
            64 * 1024,
            std::io::stdout(),
        ));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(std::io::stdout().is_terminal());
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
    LogGuard(guard)
}
