//! Competition data from the providers (issue 15), and issue 16: strategy, season reports,
//! opponents, watchlists, achievements, identity and dedup, surf forecasts.

mod achievements;
mod dedup;
mod events;
mod forecast_access;
mod forecast_budget;
mod forecast_refresh;
mod forecasts;
mod heatsource;
mod identity;
mod imports;
mod opponents;
mod reports;
mod search;
mod spots;
pub(crate) mod strategy;
mod suggestions;
mod syncs;
mod tourindex;
mod watchlist;
