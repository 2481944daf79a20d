//! Notifications: created by an internal call (`send`), by a new message (`fanout`) or by a
//! platform announcement (`admin`), then delivered per channel by `notify` jobs (the worker's
//! `handlers::notify`). Also app push registration, one-click email unsubscribe, and SMS (phone
//! verification and the inbound webhook with STOP/START).

pub mod admin;
pub mod push;
pub mod send;
pub mod sms;
pub mod unsubscribe;
