//! Footage: clips through the analysis backend (the fake), status, tenancy, phone uploads.

mod access;
mod analysis;
mod batch;
mod ingest;
mod labels;
mod links;
mod probe;
