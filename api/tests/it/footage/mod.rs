//! Footage: clips through the analysis backend (the fake), status, tenancy, phone uploads.

mod access;
mod analysis;
mod batch;
mod e2e;
mod ingest;
mod labels;
mod links;
mod media;
mod probe;
mod sessions;
