//! Competition data from the providers (issue 15).

mod events;
mod heatsource;
mod imports;
mod reports;
mod search;
mod spots;
mod strategy;
mod syncs;
mod tourindex;
