//! The benchmarks, kept out of the product crates: each binary in `src/bin/` is run by a
//! `scripts/bench*` script (which builds it in release and prepares its servers), and its
//! method and history are in `docs/benchmarks/`. The job-queue benchmark's peers
//! (`graphile.mjs`, `pgboss.mjs`, pinned by `package-lock.json`) live beside this crate.
//!
//! | binary | script | measures |
//! |---|---|---|
//! | `bench` | `scripts/bench` | job throughput and enqueue→start latency, against graphile-worker and pg-boss |
//! | `bench_load` | `scripts/bench-load` | requests/s and latency of a real `api`, against a bare hyper server |
//! | `bench_manifest` | `scripts/bench-manifest` | a 1,000-row footage manifest, against the training CSV import |
//! | `bench_media` | `scripts/bench-media` | the clip render: its ffmpeg runner against ffmpeg alone, upload to playable, memory |
//! | `bench_video` | `scripts/bench-video` | the video stream proxy's throughput and memory, against direct reads and nginx |
//! | `bench_webhook` | `scripts/bench-webhook` | the payment webhook's acknowledgement latency |
//! | `bench_wearable` | `scripts/bench-wearable` | the ride detector's accuracy and the samples' stored size |
//!
//! What more than one of them needs is here, once: environment knobs ([`env`]), `/proc`
//! readers ([`proc`]), child processes and their readiness ([`process`]), throwaway PostgreSQL
//! databases ([`pg`]), the real router driven in this process ([`app`]) and percentiles
//! ([`stats`]).

pub mod app;
pub mod env;
pub mod pg;
pub mod proc;
pub mod process;
pub mod stats;

use std::sync::OnceLock;

/// A progress line on stderr, prefixed with this binary's name (`bench_load: …`); stdout is
/// kept for the Markdown results.
pub fn say(msg: impl std::fmt::Display) {
    static NAME: OnceLock<String> = OnceLock::new();
    let name = NAME.get_or_init(|| {
        std::env::args_os()
            .next()
            .as_deref()
            .map(std::path::Path::new)
            .and_then(|p| p.file_name())
            .map_or_else(|| "bench".into(), |n| n.to_string_lossy().into_owned())
    });
    eprintln!("{name}: {msg}");
}
