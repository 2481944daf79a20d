//! Notifications: the internal send and deliver routes, fan-out jobs, email with one-click
//! unsubscribe, push through Expo, announcements, and the admins' list.

mod admin;
mod email;
mod push;
