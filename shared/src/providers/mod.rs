//! Outbound provider adapters. Each speaks its provider's real protocol at a configurable base
//! URL; tests point them at fakes on loopback (crate `testkit`).

pub mod analysis;
pub mod expo;
pub mod fcm;
pub mod forecast;
pub mod heatsource;
pub mod http;
pub mod model;
pub mod openmeteo;
pub mod pace;
pub mod payments;
pub mod retry;
pub mod reviewvideo;
pub mod spotsource;
pub mod tourindex;
pub mod tourindex_pages;
pub mod twilio;
pub mod webhooks;
pub mod webpush;

pub use http::ProviderError;
