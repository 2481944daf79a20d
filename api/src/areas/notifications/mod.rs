//! Notifications: the internal `send` route, platform announcements (`admin`), push devices
//! (phone tokens, browsers' Web Push subscriptions and the VAPID key), each person's
//! preferences, one-click email unsubscribe, and SMS (phone verification and the inbound
//! webhook with STOP/START). The handlers; the operations are
//! `shared::domain::notifications`, delivery is the worker's `handlers::notify`.

pub mod admin;
pub mod preferences;
pub mod push;
pub mod send;
pub mod sent;
pub mod sms;
pub mod unsubscribe;
