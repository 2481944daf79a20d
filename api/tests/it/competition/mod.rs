//! Competition data from the providers (issue 15), identity and dedup (issue 16).

mod dedup;
mod events;
mod heatsource;
mod identity;
mod imports;
mod search;
mod spots;
mod syncs;
mod tourindex;
