//! Messaging: coach–athlete conversations, messages, attachments, reports and their moderation.

mod conversations;
mod guardians;
mod merge;
mod messages;
mod reports;
