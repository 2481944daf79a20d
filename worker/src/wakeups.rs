//! When a queue worker has a reason to look for work.
//!
//! Our backend (`queue_backend`) claims tasks only when apalis asks for one (a concurrency slot
//! is free), its local buffer is empty, and something says there may be work: the worker just
//! started, the last claim came back full, or one of the sources below fired. Each source
//! marks the backend "dirty"; a mark that arrives while a claim is in flight is kept, and
//! another claim follows that one.
//!
//! - **Notifications** (PostgreSQL): the queue table's insert trigger NOTIFYs the queue's
//!   channel at commit. Every buffered notification is drained at each poll, and the waker stays
//!   registered: with stock apalis a stream strategy took one per poll, and with a second one
//!   buffered no waker was registered, so the worker slept until the backstop (measured: p99
//!   enqueue-to-start 800 ms with 1 s polling). The listener's first item comes once `LISTEN`
//!   is in place, so a task inserted before it is not missed until the backstop.
//! - **Polling**, the backstop for delayed tasks (a retry's backoff) and SQLite's only source
//!   (`WORKER_POLL_MS`). Each timer is polled as soon as it is created: apalis's stock interval
//!   strategy created the next timer without polling it, so only the 30 s heartbeat woke the
//!   worker (measured: 25 s stalls).
//! - **Rescues**: a heartbeat that handed a dead worker's tasks back marks the backend itself
//!   (an UPDATE wakes nobody).
//!
//! What stock apalis needed beyond this is gone with it: it recorded a finished task only when
//! the worker was next polled (so the last finishing job had to "kick" it), and a wake-up
//! arriving during its fetch was spent on that fetch (so notifications brought rechecks 2 and 6
//! ms later). Our acks are flushed by their own task, and the dirty mark survives a claim.

use futures::StreamExt;
use futures::stream::BoxStream;
use futures_timer::Delay;
use shared::job::Queue;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

pub struct Wakeups {
    notifications: Option<BoxStream<'static, ()>>,
    period: Duration,
    backstop: Delay,
}

impl Wakeups {
    /// Polling only (SQLite).
    pub fn polling(period: Duration) -> Self {
        Wakeups {
            notifications: None,
            period,
            backstop: Delay::new(period),
        }
    }

    /// Notifications with a polling backstop (PostgreSQL).
    pub fn notified(notifications: BoxStream<'static, ()>, period: Duration) -> Self {
        Wakeups {
            notifications: Some(notifications),
            period,
            backstop: Delay::new(period),
        }
    }

    /// Polls every source, leaving `cx`'s waker registered with each, and answers whether any
    /// fired since the last call.
    pub fn poll(&mut self, cx: &mut Context<'_>) -> bool {
        let mut woke = false;
        if let Some(n) = &mut self.notifications {
            loop {
                match n.poll_next_unpin(cx) {
                    Poll::Ready(Some(())) => woke = true,
                    // A closed listener leaves polling as the only wake-up.
                    Poll::Ready(None) => {
                        self.notifications = None;
                        break;
                    }
                    Poll::Pending => break,
                }
            }
        }
        if Pin::new(&mut self.backstop).poll(cx).is_ready() {
            self.backstop = Delay::new(self.period);
            let _ = Pin::new(&mut self.backstop).poll(cx);
            woke = true;
        }
        woke
    }
}

/// First wait before the listener reconnects; doubles up to [`RELISTEN_MAX`].
const RELISTEN_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between two reconnection attempts: a worker hears new jobs again within
/// about this long after its database is back.
const RELISTEN_MAX: Duration = Duration::from_millis(500);

/// `queue`'s notifications on PostgreSQL, on a connection of its own: one item each time
/// listening starts (so a task inserted while it was down is claimed at once), then one per
/// notification. After any loss (a server restart, a network cut, the server ending the
/// session) it reconnects and listens again, retrying every 0.1 to 0.5 s, and logs once when
/// it goes down and once when it is back; meanwhile polling finds the tasks. The stream ends
/// only with its pool.
pub fn pg_notifications(pool: sqlx::PgPool, queue: Queue) -> BoxStream<'static, ()> {
    let state = Listening {
        pool,
        channel: jobs::queue::channel(queue),
        queue,
        listener: None,
        down: false,
        retry: RELISTEN_FIRST,
    };
    futures::stream::unfold(state, |mut st| async move {
        loop {
            if st.pool.is_closed() {
                return None;
            }
            let Some(listener) = st.listener.as_mut() else {
                match listen(&st.pool, &st.channel).await {
                    Ok(l) => {
                        if st.down {
                            tracing::info!(queue = st.queue.as_str(), "listening for queue notifications again");
                        }
                        (st.listener, st.down, st.retry) = (Some(l), false, RELISTEN_FIRST);
                        return Some(((), st));
                    }
                    Err(e) => {
                        if !st.down {
                            tracing::warn!(queue = st.queue.as_str(), error = %e, "queue notifications down; polling until they are back");
                            st.down = true;
                        }
                        tokio::time::sleep(st.retry).await;
                        st.retry = (st.retry * 2).min(RELISTEN_MAX);
                        continue;
                    }
                }
            };
            match listener.try_recv().await {
                Ok(Some(_)) => return Some(((), st)),
                // `None`: the connection was lost. We listen again ourselves, on a new one.
                Ok(None) => {
                    tracing::warn!(queue = st.queue.as_str(), "queue notifications lost their connection; listening again");
                    (st.listener, st.down) = (None, true);
                }
                Err(e) => {
                    tracing::warn!(queue = st.queue.as_str(), error = %e, "queue notifications failed; listening again");
                    (st.listener, st.down) = (None, true);
                }
            }
        }
    })
    .boxed()
}

struct Listening {
    pool: sqlx::PgPool,
    channel: String,
    queue: Queue,
    listener: Option<sqlx::postgres::PgListener>,
    /// Whether "down" was logged and "back" is owed.
    down: bool,
    retry: Duration,
}

async fn listen(
    pool: &sqlx::PgPool,
    channel: &str,
) -> Result<sqlx::postgres::PgListener, sqlx::Error> {
    let mut listener = sqlx::postgres::PgListener::connect_with(pool).await?;
    listener.listen(channel).await?;
    Ok(listener)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::task::{ArcWake, waker};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct CountingWaker(AtomicUsize);
    impl ArcWake for CountingWaker {
        fn wake_by_ref(me: &Arc<Self>) {
            me.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counting() -> (Arc<CountingWaker>, std::task::Waker) {
        let c = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let w = waker(c.clone());
        (c, w)
    }

    /// After any poll a new notification wakes the worker, even when several were buffered.
    #[test]
    fn every_poll_leaves_the_notification_waker_registered() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<()>();
        let mut w = Wakeups::notified(rx.boxed(), Duration::from_secs(600));
        let (count, waker) = counting();
        let mut cx = Context::from_waker(&waker);

        assert!(!w.poll(&mut cx));
        tx.unbounded_send(()).unwrap();
        tx.unbounded_send(()).unwrap();
        assert!(
            count.0.load(Ordering::SeqCst) >= 1,
            "first notification wakes"
        );
        assert!(w.poll(&mut cx));
        assert!(!w.poll(&mut cx), "both were drained by one poll");

        let before = count.0.load(Ordering::SeqCst);
        tx.unbounded_send(()).unwrap();
        assert!(
            count.0.load(Ordering::SeqCst) > before,
            "a notification after a ready poll must wake the worker"
        );
    }

    /// The backstop fires every period and stays armed.
    #[tokio::test]
    async fn polling_wakes_every_period() {
        let mut w = Wakeups::polling(Duration::from_millis(5));
        let (count, waker) = counting();
        let mut cx = Context::from_waker(&waker);
        for _ in 0..3 {
            let _ = w.poll(&mut cx);
            let before = count.0.load(Ordering::SeqCst);
            let deadline = std::time::Instant::now() + Duration::from_secs(2);
            while count.0.load(Ordering::SeqCst) == before {
                assert!(std::time::Instant::now() < deadline, "backstop never fired");
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            assert!(w.poll(&mut cx));
        }
    }

    /// A listener that ends leaves the backstop working.
    #[tokio::test]
    async fn a_closed_listener_leaves_polling() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<()>();
        drop(tx);
        let mut w = Wakeups::notified(rx.boxed(), Duration::from_millis(5));
        let (_, waker) = counting();
        let mut cx = Context::from_waker(&waker);
        assert!(!w.poll(&mut cx));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(w.poll(&mut cx), "the backstop still fires");
    }
}
