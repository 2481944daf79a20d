//! Messaging: coach–athlete conversations. The value sets the messaging API exposes live here.

crate::text_enum! {
    /// Which side of a conversation the caller is on (the API's `myRole`). A guardian of the
    /// athlete reads only.
    pub enum Side { Coach = "coach", Athlete = "athlete", Guardian = "guardian" }
}
