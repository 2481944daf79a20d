//! Messaging: coach–athlete conversations, messages with private photo attachments, and
//! message reports; admin moderation of reports is in `moderation`. The handlers; the access
//! rules (module switch, the coach, athlete and guardian sides) and the operations are
//! `shared::domain::messaging`.

pub mod conversations;
pub mod messages;
pub mod moderation;

pub use shared::domain::messaging::{PERMISSION, Side};
