//! The job core through the api: enqueueing, the worker, progress, retries, cancelling, and
//! scheduled tasks.

mod enqueue;
mod running;
mod schedule;
