//! Footage: clips through the analysis backend (the fake), status, tenancy.

mod access;
mod analysis;
