//! Fake provider servers and sinks on loopback ports, shared by every area's integration tests.
//!
//! Integration tests build the app in-process and point its provider adapters at these fakes
//! instead of the real services, so the tests run offline, deterministically and in parallel
//! (every fake binds `127.0.0.1:0` and so gets its own port). Each fake records what it received
//! so that a test can assert on the exact traffic the app produced.
//!
//! - [`smtp::SmtpSink`]: an SMTP server that accepts and stores every message (outgoing mail).
//! - [`reviewvideo::FakeReviewVideo`]: an OAuth 2.0 authorization server in the style of the
//!   video-review provider (authorize + token endpoints, PKCE, HTTP Basic client auth).
//! - [`expo::FakeExpo`]: the Expo push send endpoint (tickets, `DeviceNotRegistered`, forced
//!   failures).
//! - [`twilio::FakeTwilio`]: Twilio Verify (send and check codes, its error codes) and a
//!   webhook signer.
//! - [`fanout`]: not a fake but a scenario over them: a notification to many recipients on
//!   every channel, seeded, created and counted at the fakes (`bench_notify`, the worker's
//!   process test that kills a worker mid-fan-out).
//! - [`analysis::FakeAnalysis`]: the AI analysis backend of `docs/providers/analysis-backend.md`
//!   (jobs that fetch their source and advance over time, result files, signed completion
//!   webhooks, injected failures), and [`analysis::FakeSource`], a source video server.
//! - [`model::FakeModel`]: the OpenAI-compatible generative model (transcriptions, JSON-schema
//!   completions, injected failures).
//! - [`heatsource::FakeHeatsource`]: the competition provider's GraphQL endpoint and OAuth
//!   client-credentials token endpoint, serving saved fixtures, with injected failures.
//! - [`spotsource::FakeSpotsource`]: the surf-spot provider's spot search, spots and primary
//!   forecast, with injected failures and call counts.
//! - [`openmeteo::FakeOpenMeteo`]: the fallback forecast provider in the Open-Meteo protocol
//!   (marine and weather APIs; nulls for points on land; injected failures; call counts).
//! - [`tourindex::FakeTourindex`]: the tour index's JSON search and HTML pages rendered from a
//!   saved fixture, with page overrides (malformed, partial) and injected failures.
//! - [`payments::FakePayments`]: the payment processor in the Stripe protocol (customers,
//!   Checkout, portal, prices, subscriptions, Connect accounts; idempotency keys replayed;
//!   state changes and the signed events they send).
//! - [`fit::activity`]: a FIT encoder for the import's tests (compressed timestamps, developer
//!   fields, either byte order) and [`fit::Writer`] to build broken files.

pub mod analysis;
pub mod db;
pub mod expo;
pub mod fanout;
pub mod fcm;
pub mod fit;
pub mod heatsource;
pub mod media;
pub mod model;
pub mod netns;
pub mod openmeteo;
pub mod payments;
pub mod pg_server;
pub mod prometheus;
pub mod reviewvideo;
pub mod smtp;
pub mod spotsource;
pub mod tourindex;
pub mod twilio;
pub mod webpush;

/// Whether this process runs as root (network namespaces need it; PostgreSQL refuses it).
pub fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A TCP port free on 127.0.0.1 now (for a server a test starts as a child process).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}
