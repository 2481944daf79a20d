//! Wearable (watch) data: sessions with their samples, the ride detector, ground-truth labels
//! and the detector's accuracy, clip-to-watch alignment and highlights, GPX and FIT import,
//! GPX export.
//! The flows and decisions: `docs/wearable.md`.
//!
//! - [`samples`], [`codec`]: the samples and their stored form (compressed chunks);
//! - [`detect`]: the ride detector; [`synth`]: the seeded generator of labelled sessions the
//!   tests and the benchmark share; [`accuracy`]: IoU matching, precision, recall, F1;
//! - [`eval`]: the detector's independent evaluation (issue 40): a simulator of its own that
//!   writes GPX, a naive baseline, development and held-out seeds;
//! - [`access`]: who may send a wearer's data; [`sessions`]: uploads, live sessions, reads,
//!   deletes; [`replay`]: a session's samples in time order, a chunk at a time; [`derive`]: what the jobs do (read a sample file, run the detector, end a live
//!   session that went quiet); [`labels`]: ground truth and accuracy; [`sync`]: clip
//!   alignment and highlights; [`people`]: the wearer's day, the coach's roster, who is live;
//!   [`gpx`], [`fit`], [`samplefile`]: the file formats.

pub mod access;
pub mod accuracy;
pub mod codec;
pub mod derive;
pub mod detect;
pub mod eval;
pub mod fit;
pub mod gpx;
pub mod jobs;
pub mod labels;
pub mod people;
pub mod replay;
pub mod samplefile;
pub mod samples;
pub mod sessions;
pub mod sync;
pub mod synth;

pub use crate::model::wearable::{SessionSource, SessionStatus, SyncMethod};

use crate::db::Id;

pub use jobs::{DeriveSession, ExpireSession, IngestFile};

/// A live session that has not reported for this long has ended.
pub const LIVE_TIMEOUT_SECS: i64 = 120;
/// A signed upload URL's life, and how long a session waits for its file.
pub const UPLOAD_URL_SECS: u64 = 3600;
pub const UPLOAD_WAIT_HOURS: i64 = 24;
/// The largest bulk sample file, GPX document or FIT file.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// Samples one session may hold (a day of 100 Hz IMU is 8.6 M).
pub const MAX_SAMPLES: i64 = 20_000_000;

/// Where a session's bulk sample file waits in raw-uploads.
pub fn upload_key(org: Id, session: Id) -> String {
    format!("orgs/{org}/wearable/{session}/samples")
}
