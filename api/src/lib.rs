//! The HTTP API. `routes/` lists every route with its auth policy; `areas/` holds the
//! handlers, one module per area; `auth/` resolves callers; `http/` holds the extractors and
//! the pagination helper; `app.rs` adds the cross-cutting layers.

pub mod app;
pub mod areas;
pub mod auth;
pub mod backup;
pub mod http;
pub mod registry;
pub mod routes;
pub mod serve;
pub mod state;
