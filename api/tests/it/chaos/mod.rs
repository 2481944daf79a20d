//! Chaos: the api and the workers when the database is exhausted or goes away. The worker
//! kill run (50 SIGKILLs during 10,000 jobs) is `worker/tests/chaos.rs`.

mod multihost;
mod pool;
mod restart;
