//! The training area's value sets: where an athlete stands on a session's roster, and how a
//! session was made.

crate::text_enum! {
    /// Where an athlete stands on a session's roster. All but `waitlisted` hold a place.
    pub enum ParticipantStatus {
        Registered = "registered",
        Waitlisted = "waitlisted",
        Attended = "attended",
        NoShow = "no_show",
    }
}

crate::text_enum! {
    /// How a session was made.
    pub enum SessionSource as TrainingSessionSource { Manual = "manual", Import = "import" }
}
