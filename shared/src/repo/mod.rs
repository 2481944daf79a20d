//! Queries, one module per table family. Each function takes `&mut impl Executor`, so the
//! caller chooses a pooled connection or a transaction; the SQL is written once for both
//! databases (see `db`).

pub mod achievements;
pub mod activity;
pub mod athletes;
pub mod audit;
pub mod auth_tokens;
pub mod batches;
pub mod billing;
pub mod clip_media;
pub mod coaches;
pub mod coaching;
pub mod competition;
pub mod footage;
pub mod forecasts;
pub mod heatsource;
pub mod housekeeping;
pub mod identity;
pub mod impersonation;
pub mod import_uploads;
pub mod invites;
pub mod messaging;
pub mod notification_sends;
pub mod notifications;
pub mod oauth;
pub mod opponents;
pub mod orgs;
pub mod platform;
pub mod provider_cache;
pub mod ratelimit;
pub mod reports;
pub mod review_audio;
pub mod reviews;
pub mod roles;
pub mod settings;
pub mod signup_invites;
pub mod sms;
pub mod spots;
pub mod strategy;
pub mod subscriptions;
pub mod training;
pub mod tv;
pub mod uploads;
pub mod users;
pub mod waitlist;
pub mod wearable;
