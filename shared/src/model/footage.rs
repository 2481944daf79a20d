//! The footage area's value sets: a clip's status (its transitions are
//! `domain::footage::status::next`), a session's, a coach's verdict on a maneuver and a
//! resumable upload's status.

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
