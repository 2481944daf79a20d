//! Integration tests of the api, in one binary (one link step).

mod accounts;
mod admin;
mod athletes;
mod coaches;
mod embedded;
mod jobs;
mod messaging;
mod notifications;
mod orgs;
mod registry;
mod reviewvideo;
mod sms;
mod storage;
mod support;
mod training;
mod tv;
mod workspaces;
