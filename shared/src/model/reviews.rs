//! The reviews area's value sets: a review's status (its transitions are
//! `domain::reviews::status`), keypoints' origin, voice notes' transcripts, replies and coaching
//! feedback.

crate::text_enum! {
    /// Where a review is in its life (the transitions: `domain::reviews::status::next`).
    pub enum ReviewStatus {
        /// Being written: keypoints, voice notes, suggestions.
        Draft = "draft",
        /// The build job is assembling it (voice notes transcribed, best-effort).
        Building = "building",
        /// Built; the coach may publish it.
        Ready = "ready",
        /// The athlete (and a minor's guardians) can read it.
        Published = "published",
    }
}

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

crate::text_enum! {
    /// What a feedback row is about.
    pub enum FeedbackKind {
        /// One clip (`subject` = `clip:{clipId}`).
        Clip = "clip",
        /// Several clips of one session together (`subject` = `batch:{sessionId}`).
        Batch = "batch",
        /// An athlete across sessions (`subject` = `progress:{athleteId}`).
        Progress = "progress",
    }
}

crate::text_enum! {
    /// How feedback is asked for: one per clip, or one for all the clips.
    pub enum CoachingMode { PerClip = "per_clip", Batch = "batch" }
}
