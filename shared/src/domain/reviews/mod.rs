//! Reviews: a coach's review of a footage session for its athlete. Keypoints are timed notes
//! on the session's clips, written by the coach or suggested from the clips' measured ride
//! windows and maneuvers ([`keypoints::suggest`], no model call). The review's life is
//! [`status`], its operations [`lifecycle`] (create, edit, build, publish, delete); every review
//! is read through its workspace, so another workspace's is a 404.

pub mod coaching;
pub mod keypoints;
pub mod lifecycle;
pub mod progress;
pub mod reading;
pub mod report;
pub mod status;
pub mod work;

pub use status::{ReviewEvent, ReviewStatus};

crate::text_enum! {
    /// Who wrote a keypoint: suggested from the measurements, or the coach's (a suggestion the
    /// coach edits becomes the coach's, and suggesting again never overwrites it).
    pub enum KeypointOrigin { Suggested = "suggested", Coach = "coach" }
}
