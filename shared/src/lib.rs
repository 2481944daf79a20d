//! Code shared by the `api` and `worker` binaries: configuration, the database layer and its
//! queries, the error type, auth primitives, mail and provider adapters.

pub mod authz;
pub mod config;
pub mod crypto;
pub mod db;
pub mod domain;
pub mod error;
pub mod html;
pub mod import;
pub mod job;
pub mod logging;
pub mod mail;
pub mod minors;
pub mod model;
#[cfg(test)]
mod proptests;
pub mod providers;
pub mod repo;
pub mod storage;
pub mod times;
pub mod unsubscribe;
pub mod video;

pub use error::{Error, ErrorKind, Result};
