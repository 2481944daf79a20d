//! Notifications: the internal send and deliver routes, fan-out jobs, email with one-click
//! unsubscribe, push to every device (Expo, FCM, Web Push), SMS, each person's preferences,
//! each provider's failure modes, announcements, and the admins' list.

mod admin;
mod devices;
mod email;
mod failures;
mod preferences;
mod push;
mod sent;
mod takeover;
