//! Competition data from the providers (issue 15), and opponents, watchlists and
//! achievements (issue 16).

mod achievements;
mod events;
mod heatsource;
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
