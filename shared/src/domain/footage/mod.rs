//! Footage: footage sessions and their clips, the clip state machine ([`status`]), the
//! analysis backend's jobs ([`analysis`]), copying results into our stores, coach-corrected
//! maneuver labels ([`labels`]), the web renditions, poster and scrub strip ([`media`]), resumable phone uploads ([`uploads`]) and the background work
//! they need ([`jobs`]).
//!
//! Every clip and session is read through its workspace (`org_id` in each query), so another
//! workspace's clip is a 404. Status changes go through [`status::next`] and are written
//! compare-and-set, so a webhook and a poll that race apply once.

pub mod analysis;
pub mod batch;
pub mod clips;
pub mod jobs;
pub mod labels;
pub mod media;
pub mod sessions;
pub mod status;
pub mod uploads;

pub use crate::model::footage::{SessionStatus, Verdict};
pub use status::{ClipEvent, ClipStatus};

use crate::db::Id;

/// Where a clip's objects live. Keys are fixed per clip, so a re-run of an upload or a store
/// overwrites the one copy instead of making a second.
pub mod keys {
    use crate::db::Id;

    /// The uploaded original in raw-uploads.
    pub fn original(org: Id, session: Id, clip: Id) -> String {
        format!("orgs/{org}/sessions/{session}/clips/{clip}/original")
    }

    /// The processed video in session-videos.
    pub fn video(org: Id, clip: Id) -> String {
        format!("orgs/{org}/clips/{clip}/video.mp4")
    }

    /// The overlay sidecar in sidecars.
    pub fn overlay(org: Id, clip: Id) -> String {
        format!("orgs/{org}/clips/{clip}/overlay.json")
    }

    /// The clip's web media (`media`): renditions in session-videos, images in sidecars.
    pub fn media_prefix(org: Id, clip: Id) -> String {
        format!("orgs/{org}/clips/{clip}/media/")
    }

    /// The parts of a resumable upload in raw-uploads (joined into `original` when complete).
    pub fn upload_parts(org: Id, upload: Id) -> String {
        format!("orgs/{org}/uploads/{upload}/")
    }
}

/// The client request token of a clip's analysis generation: the same token makes the backend
/// return the same job, so a retried submit never starts a second analysis.
pub fn request_token(clip: Id, generation: i64) -> String {
    format!("{clip}:{generation}")
}
