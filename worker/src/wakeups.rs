//! When an apalis worker looks for work.
//!
//! apalis fetches whenever the worker task is polled and its buffer is empty; a strategy's only
//! job is to wake the task. Three sources do, and every poll re-registers all three:
//!
//! - **Notifications** (PostgreSQL): apalis's insert trigger NOTIFYs the queue. Every buffered
//!   notification is drained: apalis's stream strategy takes one per poll, and with a second
//!   one buffered no waker is registered, so the worker slept until the backstop (measured in
//!   the benchmark: p99 enqueue-to-start 800 ms with 1 s polling).
//! - **Rechecks** after a notification or a kick: a notification that arrives while a fetch is in flight
//!   is consumed, but that fetch began before the insert committed and comes back empty; the
//!   worker then parked until some unrelated wake (measured: p90 9 ms with jobs 10 ms apart).
//!   So a notification also schedules wakes 2 and 6 ms later, dropped as soon as the worker
//!   yields a task (its next fetch starts after the notification and sees the job).
//! - **Kicks** from finished jobs: apalis records a finished task (its ack) only when the
//!   worker is next polled, and nothing wakes it for that; the ack then ran when the next
//!   job's notification arrived, in front of that job's fetch (measured: 9 ms of a 12 ms
//!   enqueue-to-start). The last running job of a worker kicks it as it finishes, so the ack
//!   runs at once; a kick also brings the rechecks, because apalis drains acks only between
//!   fetches and a kick during a fetch is otherwise spent. (A busy worker is polled often
//!   anyway, and acks its tasks in batches.)
//! - **Polling**, the backstop for delayed tasks and SQLite's only source (`WORKER_POLL_MS`).
//!   Each timer is polled as soon as it is created: apalis's stock interval strategy creates
//!   the next timer without polling it, so only the 30 s heartbeat woke the worker (measured:
//!   25 s stalls).

use apalis::prelude::{PollSnapshot, PollStrategy};
use futures::task::AtomicWaker;
use futures::{Stream, StreamExt};
use futures_timer::Delay;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

/// Delays of the rechecks after a notification, each from the previous one.
const RECHECKS: [Duration; 2] = [Duration::from_millis(2), Duration::from_millis(4)];

/// Wakes one queue worker from the jobs it runs, when the last running one finishes.
#[derive(Default)]
pub struct Kick {
    running: AtomicUsize,
    pending: AtomicBool,
    waker: AtomicWaker,
}

impl Kick {
    pub fn started(&self) {
        self.running.fetch_add(1, Ordering::SeqCst);
    }

    /// Jobs of this worker running now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    pub fn finished(&self) {
        if self.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.pending.store(true, Ordering::Release);
            self.waker.wake();
        }
    }
}

pub struct Wakeups<S> {
    kick: Arc<Kick>,
    notifications: Option<S>,
    /// The pending recheck and the index of the next one in [`RECHECKS`].
    recheck: Option<(Delay, usize)>,
    period: Duration,
    backstop: Delay,
}

impl Wakeups<futures::stream::Empty<()>> {
    /// Polling only (SQLite).
    pub fn polling(period: Duration, kick: Arc<Kick>) -> Self {
        Wakeups {
            kick,
            notifications: None,
            recheck: None,
            period,
            backstop: Delay::new(period),
        }
    }
}

impl<S> Wakeups<S> {
    /// Notifications with a polling backstop (PostgreSQL).
    pub fn notified(notifications: S, period: Duration, kick: Arc<Kick>) -> Self {
        Wakeups {
            kick,
            notifications: Some(notifications),
            recheck: None,
            period,
            backstop: Delay::new(period),
        }
    }
}

/// Polls `delay`; when it has fired, replaces it with `next` and polls that one (so its
/// waker is registered) and answers true.
fn fired(delay: &mut Delay, cx: &mut Context<'_>, next: Duration) -> bool {
    if Pin::new(&mut *delay).poll(cx).is_pending() {
        return false;
    }
    *delay = Delay::new(next);
    let _ = Pin::new(&mut *delay).poll(cx);
    true
}

impl<S: Stream + Unpin + Send + Sync> PollStrategy for Wakeups<S> {
    fn poll_drive(&mut self, cx: &mut Context<'_>, _: &PollSnapshot) -> Poll<Option<()>> {
        self.kick.waker.register(cx.waker());
        let kicked = self.kick.pending.swap(false, Ordering::AcqRel);
        let mut woke = kicked;
        let mut arm_rechecks = kicked;
        if let Some(n) = &mut self.notifications {
            let mut notified = false;
            loop {
                match n.poll_next_unpin(cx) {
                    Poll::Ready(Some(_)) => notified = true,
                    // A closed listener leaves polling as the only wake-up.
                    Poll::Ready(None) => {
                        self.notifications = None;
                        break;
                    }
                    Poll::Pending => break,
                }
            }
            if notified {
                woke = true;
                arm_rechecks = true;
            }
        }
        if arm_rechecks {
            let mut first = Delay::new(RECHECKS[0]);
            let _ = Pin::new(&mut first).poll(cx);
            self.recheck = Some((first, 1));
        }
        if let Some((delay, next)) = &mut self.recheck
            && Pin::new(&mut *delay).poll(cx).is_ready()
        {
            woke = true;
            match RECHECKS.get(*next) {
                Some(&after) => {
                    *delay = Delay::new(after);
                    let _ = Pin::new(&mut *delay).poll(cx);
                    *next += 1;
                }
                None => self.recheck = None,
            }
        }
        if fired(&mut self.backstop, cx, self.period) {
            woke = true;
        }
        if woke {
            Poll::Ready(Some(()))
        } else {
            Poll::Pending
        }
    }

    fn on_poll(&mut self, snapshot: &PollSnapshot) {
        if snapshot.consecutive_ready > 0 {
            // A task was just yielded: apalis's next fetch starts now, after the notification.
            self.recheck = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::task::{ArcWake, waker};

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
        let (tx, rx) = futures::channel::mpsc::unbounded::<u32>();
        let mut w = Wakeups::notified(rx, Duration::from_secs(600), Arc::default());
        let (count, waker) = counting();
        let mut cx = Context::from_waker(&waker);
        let snap = PollSnapshot::default();

        assert!(w.poll_drive(&mut cx, &snap).is_pending());
        tx.unbounded_send(1).unwrap();
        tx.unbounded_send(2).unwrap();
        assert!(
            count.0.load(Ordering::SeqCst) >= 1,
            "first notification wakes"
        );
        assert!(w.poll_drive(&mut cx, &snap).is_ready());

        let before = count.0.load(Ordering::SeqCst);
        tx.unbounded_send(3).unwrap();
        assert!(
            count.0.load(Ordering::SeqCst) > before,
            "a notification after a ready poll must wake the worker"
        );
    }

    /// A notification brings two more wakes shortly after (for the fetch that was already in
    /// flight), unless the worker yields a task first.
    #[tokio::test]
    async fn a_notification_schedules_rechecks_until_a_task_is_yielded() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<u32>();
        let mut w = Wakeups::notified(rx, Duration::from_secs(600), Arc::default());
        let (count, waker) = counting();
        let mut cx = Context::from_waker(&waker);
        let snap = PollSnapshot::default();

        tx.unbounded_send(1).unwrap();
        assert!(w.poll_drive(&mut cx, &snap).is_ready());
        let mut wakes = 0;
        for _ in 0..2 {
            let before = count.0.load(Ordering::SeqCst);
            let deadline = std::time::Instant::now() + Duration::from_secs(2);
            while count.0.load(Ordering::SeqCst) == before {
                assert!(std::time::Instant::now() < deadline, "no recheck wake");
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            assert!(w.poll_drive(&mut cx, &snap).is_ready());
            wakes += 1;
        }
        assert_eq!(wakes, 2);
        assert!(
            w.poll_drive(&mut cx, &snap).is_pending(),
            "only two rechecks"
        );

        // A yielded task cancels the rechecks.
        tx.unbounded_send(2).unwrap();
        assert!(w.poll_drive(&mut cx, &snap).is_ready());
        w.on_poll(&PollSnapshot {
            consecutive_ready: 1,
            ..Default::default()
        });
        let before = count.0.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(
            count.0.load(Ordering::SeqCst),
            before,
            "rechecks were dropped"
        );
        assert!(w.poll_drive(&mut cx, &snap).is_pending());
    }

    /// The backstop fires every period and stays armed.
    #[tokio::test]
    async fn polling_wakes_every_period() {
        let mut w = Wakeups::polling(Duration::from_millis(5), Arc::default());
        let (count, waker) = counting();
        let mut cx = Context::from_waker(&waker);
        let snap = PollSnapshot::default();
        for _ in 0..3 {
            let _ = w.poll_drive(&mut cx, &snap);
            let before = count.0.load(Ordering::SeqCst);
            let deadline = std::time::Instant::now() + Duration::from_secs(2);
            while count.0.load(Ordering::SeqCst) == before {
                assert!(std::time::Instant::now() < deadline, "backstop never fired");
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            assert!(w.poll_drive(&mut cx, &snap).is_ready());
        }
    }

    #[test]
    fn the_last_running_job_kicks_the_worker_once() {
        struct Flag(AtomicBool);
        impl ArcWake for Flag {
            fn wake_by_ref(me: &Arc<Self>) {
                me.0.store(true, Ordering::SeqCst);
            }
        }
        let kick = Arc::new(Kick::default());
        let mut w = Wakeups::polling(Duration::from_secs(600), kick.clone());
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let wk = waker(flag.clone());
        let mut cx = Context::from_waker(&wk);
        let snap = PollSnapshot::default();
        assert!(w.poll_drive(&mut cx, &snap).is_pending());
        kick.started();
        kick.started();
        kick.finished();
        assert!(!flag.0.load(Ordering::SeqCst), "a job still runs: no kick");
        kick.finished();
        assert!(flag.0.load(Ordering::SeqCst), "the last one kicked");
        assert!(w.poll_drive(&mut cx, &snap).is_ready());
        assert!(
            w.poll_drive(&mut cx, &snap).is_pending(),
            "the kick is spent (only its rechecks follow)"
        );
    }
}
