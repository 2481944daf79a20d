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

pub use status::{ReviewEvent, ReviewStatus};

crate::text_enum! {
    /// Who wrote a keypoint: suggested from the measurements, or the coach's (a suggestion the
    /// coach edits becomes the coach's, and suggesting again never overwrites it).
    pub enum KeypointOrigin { Suggested = "suggested", Coach = "coach" }
}

crate::text_enum! {
    /// Where a voice note's transcript stands. `skipped`: no model configured; `failed`: the
    /// model refused it or kept failing. Either way the note stays playable, and a rebuild asks
    /// again; a `done` note is never transcribed twice.
    pub enum TranscriptStatus {
        Pending = "pending",
        Done = "done",
        Skipped = "skipped",
        Failed = "failed",
    }
}

crate::text_enum! {
    /// An athlete's reply to a review: written, or recorded.
    pub enum ReplyKind { Text = "text", Voice = "voice" }
}
