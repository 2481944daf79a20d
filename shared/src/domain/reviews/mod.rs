//! Reviews: a coach's review of a footage session for its athlete. Keypoints are timed notes
//! on the session's clips, written by the coach or suggested from the clips' measured ride
//! windows and maneuvers ([`keypoints::suggest`], no model call). The review's life is
//! [`status`], its operations [`lifecycle`] (create, edit, build, publish, delete); every review
//! is read through its workspace, so another workspace's is a 404. [`voice_notes`] are the
//! coach's recordings, transcribed best-effort while the review builds; the athlete reads a
//! published review on the phone ([`reading`]) and answers it ([`replies`]).

pub mod coaching;
pub mod jobs;
pub mod keypoints;
pub mod lifecycle;
pub mod progress;
pub mod reading;
pub mod replies;
pub mod report;
pub mod status;
pub mod voice_notes;

pub use crate::model::reviews::{KeypointOrigin, ReplyKind, TranscriptStatus};
pub use status::{ReviewEvent, ReviewStatus};
