//! Integration tests of the api, in one binary (one link step). `support` holds the harness
//! and the fixtures every area uses; an area with more than a few tests is a folder of small
//! files grouped by behaviour.

mod accounts;
mod admin;
mod athletes;
mod billing;
mod chaos;
mod coaches;
mod competition;
mod desk;
mod embedded;
mod error_codes;
mod footage;
mod health;
mod jobs;
mod messaging;
mod notifications;
mod openapi;
mod orgs;
mod pages;
mod prometheus;
mod registry;
mod reliability;
mod reviews;
mod reviewvideo;
mod serve;
mod sms;
mod storage;
mod support;
mod training;
mod tv;
mod video;
mod wearable;
mod workspaces;
