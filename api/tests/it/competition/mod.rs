//! Competition data from the providers (issue 15) and surf forecasts (issue 16).

mod events;
mod forecast_access;
mod forecast_budget;
mod forecast_refresh;
mod forecasts;
mod heatsource;
mod imports;
mod search;
mod spots;
mod syncs;
mod tourindex;
