//! [`HyperTimer`] and [`HyperSleep`]: `lawn_rt`'s timers behind hyper 1.x's
//! `rt::Timer` (feature `hyper`), for hyper's header-read timeouts,
//! keep-alive and HTTP/2 keep-alive pings. Plug it in with
//! `http1::Builder::new().timer(HyperTimer::new()).header_read_timeout(..)`;
//! hyper's resets re-file its sleep in place. The module is private (its
//! items are re-exported from [`crate::time`]), so the full story, with
//! examples, is on [`HyperTimer`].

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::rt::{Sleep as HyperSleepTrait, Timer};

use crate::time::{sleep, sleep_until, Instant, Sleep};

/// hyper 1.x's [`Timer`](hyper::rt::Timer) on `lawn_rt`'s timers (feature
/// `hyper`).
///
/// hyper keeps no clock of its own: each timeout it enforces is a sleep it
/// asks its timer for. On a server that is the HTTP/1 header-read timeout
/// (`header_read_timeout`: a client that opens a connection and stalls or
/// dribbles its request head is cut off) and the HTTP/2 keep-alive pings
/// and their timeouts; on a client, the HTTP/2 pings and, in hyper-util's
/// pooled client (`pool_timer`), the expiry of idle connections. With a
/// `HyperTimer` each of those is a [`Sleep`] filed in `lawn_rt`'s Lawn,
/// O(1) to start and to cancel: a server pays that on every request, since
/// hyper starts a header-read timer before each request head and drops it
/// once the head is in.
///
/// # Plugging it in
///
/// Give it to the connection builder, with the timeouts it enables:
///
/// ```
/// use std::time::Duration;
///
/// use hyper::server::conn::http1;
/// use lawn_rt::time::HyperTimer;
///
/// let mut builder = http1::Builder::new();
/// builder
///     .timer(HyperTimer::new())
///     .header_read_timeout(Duration::from_secs(5))
///     .keep_alive(true);
/// // Then, for each accepted connection (through hyper-util's `TokioIo`:
/// // lawn_rt's `TcpStream` implements tokio's I/O traits with `tokio-io`):
/// // builder.serve_connection(TokioIo::new(stream), service)
/// ```
///
/// `examples/hyper_server.rs` is a whole server on `lawn_rt`'s runtime.
///
/// # Behaviour
///
/// - Its sleeps are [`HyperSleep`]s, one [`Sleep`] each, filed on the
///   driver of the thread that polls them first, as every `lawn_rt` timer
///   (see [`sleep`]): a `lawn_rt` runtime's, or elsewhere that thread's
///   foreign shard (served by the `lawn-rt-timer` thread). It holds nothing itself: copies are interchangeable.
/// - [`Timer::reset`] moves hyper's sleep **in place**: the same
///   allocation, re-filed in O(1) by [`Sleep::reset`]. Only a sleep some
///   other timer made is replaced by a new one.
/// - [`Timer::now`] reads `lawn_rt`'s clock ([`Instant::now`]): under a
///   paused clock (`time::pause`, feature `test-util`) hyper's deadlines
///   are paused time too, so a test can `time::advance` a server past its
///   timeouts without waiting.
/// - A duration too long for the clock is clamped (about 30 years), not a
///   panic.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// use hyper::rt::Timer;
/// use lawn_rt::time::HyperTimer;
///
/// let timer = HyperTimer::new();
/// futures::executor::block_on(async {
///     let start = timer.now();
///     timer.sleep(Duration::from_millis(5)).await;
///     assert!(timer.now() - start >= Duration::from_millis(5));
/// });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct HyperTimer {
    // Keeps the door open for settings without a breaking change.
    _private: (),
}

impl HyperTimer {
    /// A timer for hyper's `timer(..)` builder methods.
    ///
    /// # Examples
    ///
    /// ```
    /// use hyper::server::conn::http1;
    /// use lawn_rt::time::HyperTimer;
    ///
    /// let mut builder = http1::Builder::new();
    /// builder.timer(HyperTimer::new());
    /// ```
    pub fn new() -> HyperTimer {
        HyperTimer { _private: () }
    }
}

impl Timer for HyperTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn HyperSleepTrait>> {
        Box::pin(HyperSleep::from(sleep(duration)))
    }

    fn sleep_until(&self, deadline: std::time::Instant) -> Pin<Box<dyn HyperSleepTrait>> {
        Box::pin(HyperSleep::from(sleep_until(Instant::from_std(deadline))))
    }

    fn now(&self) -> std::time::Instant {
        Instant::now().into_std()
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn HyperSleepTrait>>, new_deadline: std::time::Instant) {
        match sleep.as_mut().downcast_mut_pin::<HyperSleep>() {
            Some(ours) => ours.reset(Instant::from_std(new_deadline)),
            // Another timer's sleep: we cannot move its deadline, so it
            // is replaced (what hyper's default `reset` does).
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}

pin_project_lite::pin_project! {
    /// The sleep [`HyperTimer`] hands hyper: a [`Sleep`] that implements
    /// [`hyper::rt::Sleep`]. `Send + Sync`, `!Unpin`.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration, HyperSleep, Instant};
    ///
    /// futures::executor::block_on(async {
    ///     let nap = HyperSleep::from(sleep(Duration::from_millis(2)));
    ///     let deadline = nap.deadline();
    ///     nap.await;
    ///     assert!(Instant::now() >= deadline);
    /// });
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    #[derive(Debug)]
    pub struct HyperSleep {
        #[pin]
        inner: Sleep,
    }
}

impl HyperSleep {
    /// The instant at which this sleep completes.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep_until, Duration, HyperSleep, Instant};
    ///
    /// let deadline = Instant::now() + Duration::from_secs(1);
    /// assert_eq!(HyperSleep::from(sleep_until(deadline)).deadline(), deadline);
    /// ```
    pub fn deadline(&self) -> Instant {
        self.inner.deadline()
    }

    /// Moves the deadline, re-filing the timer in place: O(1), no
    /// allocation ([`Sleep::reset`]). A deadline already past completes it
    /// on its next poll.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration, HyperSleep, Instant};
    ///
    /// futures::executor::block_on(async {
    ///     let mut nap = Box::pin(HyperSleep::from(sleep(Duration::from_secs(3600))));
    ///     let soon = Instant::now() + Duration::from_millis(2);
    ///     nap.as_mut().reset(soon);
    ///     assert_eq!(nap.deadline(), soon);
    ///     nap.await;
    /// });
    /// ```
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        self.project().inner.reset(deadline);
    }
}

impl From<Sleep> for HyperSleep {
    /// Wraps a `lawn_rt` [`Sleep`] for hyper.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration, HyperSleep};
    ///
    /// let nap: HyperSleep = sleep(Duration::from_secs(1)).into();
    /// # drop(nap);
    /// ```
    fn from(inner: Sleep) -> HyperSleep {
        HyperSleep { inner }
    }
}

impl Future for HyperSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.project().inner.poll(cx)
    }
}

impl HyperSleepTrait for HyperSleep {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn the_types_are_what_hyper_needs() {
        assert_send_sync::<HyperSleep>();
        assert_send_sync::<HyperTimer>();
        // `Copy`, and hyper keeps its timer behind an `Arc<dyn Timer + Send + Sync>`.
        let timer = HyperTimer::new();
        let _copy: (HyperTimer, HyperTimer) = (timer, timer);
        let _shared: std::sync::Arc<dyn Timer + Send + Sync> = std::sync::Arc::new(timer);
    }

    /// The address of the sleep inside hyper's box.
    fn address(sleep: &Pin<Box<dyn HyperSleepTrait>>) -> *const () {
        let sleep: &dyn HyperSleepTrait = &**sleep;
        sleep as *const dyn HyperSleepTrait as *const ()
    }

    #[test]
    fn reset_keeps_the_same_allocation() {
        let timer = HyperTimer::new();
        let mut nap = timer.sleep(Duration::from_secs(3600));
        // Polled once, so it is filed with a driver: the reset re-files it.
        let polled = nap
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()));
        assert!(polled.is_pending());
        let before = address(&nap);
        let soon = std::time::Instant::now() + Duration::from_millis(3);
        timer.reset(&mut nap, soon);
        assert_eq!(address(&nap), before, "reset allocated a new sleep");
        let ours = nap.as_mut().downcast_mut_pin::<HyperSleep>().unwrap();
        assert_eq!(ours.deadline().into_std(), soon);
        futures::executor::block_on(nap);
        assert!(std::time::Instant::now() >= soon);
    }

    /// A `hyper::rt::Sleep` that is not ours.
    struct Foreign;

    impl Future for Foreign {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            Poll::Pending
        }
    }

    impl HyperSleepTrait for Foreign {}

    #[test]
    fn reset_replaces_a_sleep_that_is_not_ours() {
        let timer = HyperTimer::new();
        let mut nap: Pin<Box<dyn HyperSleepTrait>> = Box::pin(Foreign);
        let soon = std::time::Instant::now() + Duration::from_millis(2);
        timer.reset(&mut nap, soon);
        assert!(nap.is::<HyperSleep>());
        futures::executor::block_on(nap);
        assert!(std::time::Instant::now() >= soon);
    }

    #[test]
    fn sleeps_complete_under_block_on_never_early() {
        let timer = HyperTimer::new();
        let start = std::time::Instant::now();
        futures::executor::block_on(timer.sleep(Duration::from_millis(10)));
        assert!(start.elapsed() >= Duration::from_millis(10));
        let deadline = std::time::Instant::now() + Duration::from_millis(5);
        futures::executor::block_on(timer.sleep_until(deadline));
        assert!(std::time::Instant::now() >= deadline);
    }

    #[test]
    fn sleeps_complete_in_a_lawn_rt_runtime() {
        let rt = crate::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let timer = HyperTimer::new();
            let start = timer.now();
            timer.sleep(Duration::from_millis(5)).await;
            assert!(timer.now() - start >= Duration::from_millis(5));
        });
    }

    #[test]
    fn a_huge_duration_does_not_panic() {
        let timer = HyperTimer::new();
        let mut nap = timer.sleep(Duration::MAX);
        let polled = nap
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()));
        assert!(polled.is_pending());
    }

    #[test]
    fn now_follows_the_paused_clock() {
        let rt = crate::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            crate::time::pause();
            let timer = HyperTimer::new();
            let start = timer.now();
            assert_eq!(start, Instant::now().into_std());
            crate::time::advance(Duration::from_secs(90)).await;
            assert_eq!(timer.now() - start, Duration::from_secs(90));
            // hyper's deadlines are paused time too: an hour passes at once.
            timer.sleep(Duration::from_secs(3600)).await;
            assert_eq!(timer.now() - start, Duration::from_secs(90 + 3600));
        });
    }
}
