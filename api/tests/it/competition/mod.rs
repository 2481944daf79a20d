//! Competition data from the providers (issue 15).

mod heatsource;
mod imports;
mod search;
mod spots;
mod syncs;
mod tourindex;
