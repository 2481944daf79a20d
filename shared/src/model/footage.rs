//! The footage area's value sets: a clip's status (its transitions are
//! `domain::footage::status::next`), a session's, a coach's verdict on a maneuver, a
//! resumable upload's status, and a clip's web media (status and what was made).

use serde::{Deserialize, Serialize};

crate::text_enum! {
    /// Where a clip is in its life (the transitions: `domain::footage::status`).
    pub enum ClipStatus {
        /// Made by a batch manifest; its file has not arrived yet.
        AwaitingUpload = "awaiting_upload",
        /// The original is in raw-uploads (or at an allow-listed external URL).
        Uploaded = "uploaded",
        /// ffprobe read its rotation, duration, codec, resolution and frame rate.
        Probed = "probed",
        /// Sent to the analysis backend, which has not started it yet.
        Submitted = "submitted",
        /// The backend is analysing it (`progress` rises).
        Processing = "processing",
        /// The backend finished; its result is recorded but not yet copied to our stores.
        Processed = "processed",
        /// The processed video and overlay are in session-videos and sidecars, stats saved.
        Stored = "stored",
        Failed = "failed",
        Cancelled = "cancelled",
    }
}

impl ClipStatus {
    /// Whether the analysis backend is working on the clip (a second analyze returns the live job).
    pub fn in_flight(self) -> bool {
        matches!(self, ClipStatus::Submitted | ClipStatus::Processing)
    }
}

crate::text_enum! {
    /// A footage session is `recording` while clips come in; `stored` once a session-level
    /// store has copied every processed clip into our stores.
    pub enum SessionStatus as FootageSessionStatus { Recording = "recording", Stored = "stored" }
}

crate::text_enum! {
    /// A coach's verdict on a maneuver: a prediction confirmed, corrected (another type or
    /// window) or rejected (not a maneuver), or a maneuver the model missed (added).
    pub enum Verdict {
        Confirmed = "confirmed",
        Corrected = "corrected",
        Rejected = "rejected",
        Added = "added",
    }
}

crate::text_enum! {
    /// Where a resumable upload stands (the life: `domain::footage::uploads`).
    pub enum UploadStatus {
        Uploading = "uploading",
        Joining = "joining",
        Complete = "complete",
        Failed = "failed",
        Expired = "expired",
    }
}

crate::text_enum! {
    /// Where a clip's web media stands (the life: `domain::footage::media`).
    pub enum MediaStatus {
        /// The render job is queued.
        Pending = "pending",
        /// ffmpeg is working on it.
        Rendering = "rendering",
        Ready = "ready",
        /// For good: the code says why (`media_truncated`, `no_video_track`, `not_video`, …).
        Failed = "failed",
    }
}

/// What the render job made for a clip (stored as `clip_media.manifest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaManifest {
    /// Which video it was made from: `original` or `processed`.
    pub source: String,
    /// The H.264/AAC MP4 (index at the front, at most 1080p, rotation applied).
    pub web: Rendition,
    /// A lighter rendition (540p) for long videos, absent for short clips.
    pub low: Option<Rendition>,
    pub strip: ScrubStrip,
    pub duration_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rendition {
    pub key: String,
    pub size_bytes: i64,
    pub width: i64,
    pub height: i64,
    /// The average bit rate, bits per second.
    pub bit_rate: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    pub key: String,
    pub width: i64,
    pub height: i64,
}

/// A sprite of thumbnails in rows of `columns`, one per `interval_ms` from the start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrubStrip {
    pub key: String,
    pub columns: i64,
    pub count: i64,
    pub interval_ms: i64,
    pub thumb_width: i64,
    pub thumb_height: i64,
}
