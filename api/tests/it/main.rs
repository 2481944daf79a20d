//! Integration tests of the api, in one binary (one link step).

mod accounts;
mod jobs;
mod orgs;
mod registry;
mod reviewvideo;
mod support;
