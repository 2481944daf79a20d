//! Competition data from the providers (issue 15), and issue 16: strategy, season reports,
//! opponents, watchlists, achievements, identity and dedup.

mod achievements;
mod dedup;
mod events;
mod heatsource;
mod identity;
mod imports;
mod opponents;
mod reports;
mod search;
mod spots;
mod strategy;
mod suggestions;
mod syncs;
mod tourindex;
mod watchlist;
