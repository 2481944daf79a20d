//! The model layer: the value types that the queries (`crate::repo`) and the operations
//! (`crate::domain`) share: closed value sets stored as TEXT (`text_enum!`) and the few small
//! records a query stores as given (a sample chunk, a detected ride). Like crates.io's
//! database crate owning its models, they sit below both, so the layers point one way:
//!
//! ```text
//! domain ──▶ repo ──▶ model ──▶ db
//!    └───────────────────▲
//! ```
//!
//! A type moves here when a query needs it; its area's domain module re-exports it, so
//! `shared::domain::<area>::X` keeps working. Rules about the values (state machines,
//! validation) stay in the domain. `tests/layers.rs` checks the direction.

pub mod athletes;
pub mod competition;
pub mod footage;
pub mod reviews;
pub mod training;
pub mod wearable;
