//! Notifications: created by an internal call (`send`), by a new message (`fanout`) or by a
//! platform announcement (`admin`), then delivered per channel by `notify` jobs (the worker's
//! `handlers::notify`). Also app push registration and one-click email unsubscribe.

pub mod admin;
pub mod fanout;
pub mod push;
pub mod send;
pub mod unsubscribe;
