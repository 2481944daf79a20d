//! Competition data from the providers (issue 15).

mod heatsource;
mod syncs;
