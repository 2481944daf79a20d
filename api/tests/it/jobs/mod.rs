//! The job core through the api: enqueueing, the worker, progress, retries, cancelling, and
//! scheduled tasks.

mod admin;
mod enqueue;
mod queue;
mod running;
mod schedule;
