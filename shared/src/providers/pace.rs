//! Outbound pacing: at most `per_sec` requests a second to one provider from this process.
//!
//! Why: the syncs and bulk imports fan out over hundreds of items, and a provider that rations
//! calls (or a site being read page by page) should see a steady trickle, not a burst that
//! earns a 429. Each call takes the next free slot on a schedule spaced `1/per_sec` apart
//! (a burst of one); callers wait for their slot without holding a lock while they sleep.
//! The limit is per process: N api and worker processes may together send N times as many,
//! which the configured rate must allow for (documented with the variables).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

#[derive(Clone, Debug)]
pub struct Pace {
    gap: Duration,
    next: Arc<Mutex<Option<Instant>>>,
}

impl Pace {
    pub fn per_sec(per_sec: u32) -> Self {
        Pace {
            gap: Duration::from_secs(1) / per_sec.max(1),
            next: Arc::default(),
        }
    }

    /// Waits until this call's slot comes.
    pub async fn wait(&self) {
        let at = {
            let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            let at = next.map_or(now, |n| n.max(now));
            *next = Some(at + self.gap);
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lower bounds only: sleeping guarantees them, a busy machine can only add to them.
    #[tokio::test]
    async fn calls_are_spaced_by_the_rate() {
        let pace = Pace::per_sec(20); // 50 ms apart
        let start = Instant::now();
        let mut handles = Vec::new();
        for _ in 0..5 {
            let p = pace.clone();
            handles.push(tokio::spawn(async move {
                p.wait().await;
                Instant::now() - start
            }));
        }
        let mut times = Vec::new();
        for h in handles {
            times.push(h.await.unwrap());
        }
        times.sort();
        // Each call wakes at its slot or later, so the k-th to wake waited k gaps at least.
        for (k, t) in times.iter().enumerate() {
            assert!(*t >= Duration::from_millis(50 * k as u64), "{k}: {times:?}");
        }
    }
}
