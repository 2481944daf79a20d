//! One module per area of the interface. Each handler validates, does its work through
//! `shared::repo` queries (in one transaction when it writes more than one row) and returns a
//! typed JSON response.

pub mod accounts;
pub mod achievements;
pub mod activity;
pub mod admin;
pub mod athlete_search;
pub mod athletes;
pub mod batch;
pub mod billing;
pub mod circuits;
pub mod coaches;
pub mod coaching;
pub mod competition_jobs;
pub mod cron;
pub mod desk;
pub mod footage;
pub mod heatsource;
pub mod identity;
pub mod imports;
pub mod ingest;
pub mod invites;
pub mod jobs;
pub mod media;
pub mod members;
pub mod messaging;
pub mod notifications;
pub mod opponents;
pub mod orgs;
pub mod pages;
pub mod reports;
pub mod reviews;
pub mod reviewvideo;
pub mod roles;
pub mod storage;
pub mod strategy;
pub mod surf;
pub mod system;
pub mod tourindex;
pub mod training;
pub mod tv;
pub mod video;
pub mod watchlist;
pub mod wearable;
