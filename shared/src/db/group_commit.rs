//! Group commit: many concurrent callers, one statement (or one transaction) per batch.
//!
//! A [`GroupCommit`] takes requests from any number of tasks and hands them to its flush
//! function in batches: whatever queued up while the previous flush ran, up to `max`. An idle
//! system pays no extra latency (a lone request is flushed at once); a busy one writes many rows
//! per round trip, transaction and (on SQLite) write-gate turn. Each caller still awaits its own
//! answer, so nothing is acknowledged before its write is committed.
//!
//! Two users:
//! - the job queue's acks (`worker/src/queue_backend.rs`): finished tasks deleted in batches,
//!   each success recorded in its progress row by the same statement, submitted without
//!   waiting ([`GroupCommit::submit`]), so a job's slot is free at once (the worker's progress
//!   writes were group-committed and awaited on their own before issue 14 folded the claim
//!   into the queue's claim and the success into the ack);
//! - the payment webhook's acknowledgements (`domain::billing::events::EventStore`): each
//!   delivery's event row and job, a batch in one transaction, so concurrent deliveries on
//!   SQLite stop queueing one by one for the single writer (on PostgreSQL, where transactions
//!   run side by side, the api does not use it for them: one flushing task was slower).
//!
//! The flush answers per request (its output type may itself be a per-item `Result`), so one
//! bad request need not fail its neighbours; a flush that fails as a whole (or panics) fails
//! every caller of that batch, and the next batch is flushed as usual.

use futures::FutureExt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

type Reply<O> = oneshot::Sender<Result<O, Arc<sqlx::Error>>>;

pub struct GroupCommit<I, O> {
    tx: mpsc::UnboundedSender<(I, Reply<O>)>,
}

impl<I, O> Clone for GroupCommit<I, O> {
    fn clone(&self) -> Self {
        GroupCommit {
            tx: self.tx.clone(),
        }
    }
}

impl<I: Send + 'static, O: Send + 'static> GroupCommit<I, O> {
    /// Starts the flushing task (on the current tokio runtime). `flush` gets a batch of requests
    /// and returns one answer per request, in order. The task ends when the last handle is
    /// dropped.
    pub fn spawn<F, Fut>(max: usize, flush: F) -> Self
    where
        F: Fn(Vec<I>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Vec<O>, sqlx::Error>> + Send,
    {
        let (tx, mut rx) = mpsc::unbounded_channel::<(I, Reply<O>)>();
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(max);
            while rx.recv_many(&mut batch, max.max(1)).await > 0 {
                let (items, replies): (Vec<I>, Vec<Reply<O>>) = batch.drain(..).unzip();
                let n = items.len();
                let panicked = || sqlx::Error::Protocol("group commit: the flush panicked".into());
                let flushed = match std::panic::catch_unwind(AssertUnwindSafe(|| flush(items))) {
                    Ok(fut) => AssertUnwindSafe(fut)
                        .catch_unwind()
                        .await
                        .unwrap_or_else(|_| Err(panicked())),
                    Err(_) => Err(panicked()),
                };
                match flushed {
                    Ok(answers) if answers.len() == n => {
                        for (reply, answer) in replies.into_iter().zip(answers) {
                            let _ = reply.send(Ok(answer));
                        }
                    }
                    Ok(answers) => {
                        let e = Arc::new(sqlx::Error::Protocol(format!(
                            "group commit: {n} requests, {} answers",
                            answers.len()
                        )));
                        for reply in replies {
                            let _ = reply.send(Err(e.clone()));
                        }
                    }
                    Err(e) => {
                        let e = Arc::new(e);
                        for reply in replies {
                            let _ = reply.send(Err(e.clone()));
                        }
                    }
                }
            }
        });
        GroupCommit { tx }
    }

    /// Queues `item` for the next batch without waiting for its answer: the flush function is
    /// then the only one to see how it went (the job queue's acks, `worker::queue_backend`).
    pub fn submit(&self, item: I) -> Result<(), sqlx::Error> {
        let (reply, _) = oneshot::channel();
        self.tx
            .send((item, reply))
            .map_err(|_| sqlx::Error::PoolClosed)
    }

    /// Queues `item` for the next batch and waits for its answer.
    pub async fn call(&self, item: I) -> Result<O, sqlx::Error> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send((item, reply))
            .map_err(|_| sqlx::Error::PoolClosed)?;
        match answer.await {
            Ok(Ok(o)) => Ok(o),
            Ok(Err(e)) => Err(sqlx::Error::Protocol(format!("batched write failed: {e}"))),
            Err(_) => Err(sqlx::Error::PoolClosed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn concurrent_calls_share_flushes_and_get_their_own_answers() {
        let flushes = Arc::new(AtomicUsize::new(0));
        let f = flushes.clone();
        let gc = GroupCommit::spawn(64, move |items: Vec<u32>| {
            let f = f.clone();
            async move {
                f.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                Ok(items.into_iter().map(|i| i * 2).collect())
            }
        });
        let calls: Vec<_> = (0..200u32)
            .map(|i| {
                let gc = gc.clone();
                tokio::spawn(async move { (i, gc.call(i).await.unwrap()) })
            })
            .collect();
        for c in calls {
            let (i, doubled) = c.await.unwrap();
            assert_eq!(doubled, i * 2);
        }
        let n = flushes.load(Ordering::SeqCst);
        assert!(n < 200, "200 concurrent calls took {n} flushes");
        assert!(n >= 200 / 64, "a batch never exceeds max: {n} flushes");
    }

    #[tokio::test]
    async fn a_failed_flush_fails_every_caller_of_that_batch() {
        let gc = GroupCommit::spawn(8, |_items: Vec<u32>| async {
            Err::<Vec<u32>, _>(sqlx::Error::PoolTimedOut)
        });
        let e = gc.call(1).await.unwrap_err();
        assert!(e.to_string().contains("batched write failed"), "{e}");
    }

    #[tokio::test]
    async fn a_panicking_flush_fails_its_batch_and_the_next_batch_is_flushed() {
        let gc = GroupCommit::spawn(8, |items: Vec<u32>| async move {
            assert!(!items.contains(&13), "unlucky");
            Ok(items)
        });
        let e = gc.call(13).await.unwrap_err();
        assert!(e.to_string().contains("panicked"), "{e}");
        assert_eq!(gc.call(7).await.unwrap(), 7);
    }

    #[tokio::test]
    async fn answers_need_not_be_clone_and_may_differ_per_item() {
        struct Answer(Result<u32, String>);
        let gc = GroupCommit::spawn(8, |items: Vec<u32>| async move {
            Ok(items
                .into_iter()
                .map(|i| {
                    Answer(if i % 2 == 0 {
                        Ok(i)
                    } else {
                        Err(format!("odd {i}"))
                    })
                })
                .collect())
        });
        let (a, b) = tokio::join!(gc.call(2), gc.call(3));
        assert_eq!(a.unwrap().0, Ok(2));
        assert_eq!(b.unwrap().0, Err("odd 3".into()));
    }
}
