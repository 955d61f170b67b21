//! `lawn_rt::time::{timeout, timeout_at, Timeout}` and the time error
//! types.
//!
//! The timing tests run on a paused runtime (`#[lawn_rt::test(start_paused
//! = true)]`): polled by hand while `time::advance` moves the clock, then
//! awaited, when auto-advance takes the clock to the exact instant a
//! timeout decides. The error types are built on a paused bare driver; one
//! test checks the real clock through a foreign shard.

mod common;

use std::error::Error as _;
use std::future::{Future, IntoFuture};
use std::io;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use common::units::ms;
use common::{
    advance_and_count, assert_send_sync, counting_waker, paused_driver, pending_timers, poll_noop,
    poll_with,
};
use lawn_rt::time::error::{Elapsed, Error};
use lawn_rt::time::{sleep, sleep_until, timeout, timeout_at, Duration, Instant, Timeout};

/// Pending until its flag is set.
#[derive(Debug, Clone, Default)]
struct Gate {
    open: Arc<AtomicBool>,
    value: u32,
}

impl Future for Gate {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<u32> {
        if self.open.load(Ordering::SeqCst) {
            Poll::Ready(self.value)
        } else {
            Poll::Pending
        }
    }
}

/// Ready once `Instant::now()` (the entered driver's clock) reaches `at`.
fn ready_at(at: Instant) -> impl Future<Output = &'static str> {
    std::future::poll_fn(move |_cx| {
        if Instant::now() >= at {
            Poll::Ready("inner")
        } else {
            Poll::Pending
        }
    })
}

// ---------------------------------------------------------------------------
// Static properties
// ---------------------------------------------------------------------------

fn assert_error<T: std::error::Error + Send + Sync + 'static>() {}

trait AmbiguousIfUnpin<A> {
    fn some_item() {}
}
impl<T: ?Sized> AmbiguousIfUnpin<()> for T {}
impl<T: ?Sized + Unpin> AmbiguousIfUnpin<u8> for T {}

// `Timeout<F>` holds a `Sleep`, so it is `!Unpin` even for an `Unpin` `F`,
// as in tokio.
const _: fn() = || {
    let _ = <Timeout<std::future::Ready<()>> as AmbiguousIfUnpin<_>>::some_item;
};

#[test]
fn static_properties() {
    assert_send_sync::<Timeout<std::future::Ready<u8>>>();
    assert_error::<Elapsed>();
    assert_error::<Error>();
}

// ---------------------------------------------------------------------------
// Ok and Err
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn ready_inner_future_is_ok_without_registering() {
    let t0 = Instant::now();
    let mut t = pin!(timeout(ms(10), std::future::ready(5)));
    assert_eq!(poll_noop(t.as_mut()), Poll::Ready(Ok(5)));
    // The inner future is polled first: the timer never registered.
    assert_eq!(pending_timers(), 0);
    // Awaited: no time passes.
    assert_eq!(timeout(ms(10), std::future::ready(6)).await, Ok(6));
    assert_eq!(Instant::now(), t0);
}

#[lawn_rt::test(start_paused = true)]
async fn ok_when_the_inner_future_completes_in_time() {
    let (counter, waker) = counting_waker();
    let gate = Gate {
        value: 7,
        ..Gate::default()
    };

    let mut t = Box::pin(timeout(ms(10), gate.clone()));
    assert!(poll_with(t.as_mut(), &waker).is_pending());
    assert_eq!(pending_timers(), 1);
    assert_eq!(advance_and_count(ms(9)).await, 0);
    assert!(poll_with(t.as_mut(), &waker).is_pending());

    gate.open.store(true, Ordering::SeqCst);
    assert_eq!(poll_with(t.as_mut(), &waker), Poll::Ready(Ok(7)));
    drop(t);
    assert_eq!(pending_timers(), 0, "drop cancels the timer");
    assert_eq!(advance_and_count(ms(10)).await, 0);
    assert_eq!(counter.wakes(), 0);

    // Awaited, with an inner sleep a tick short of the deadline: Ok,
    // exactly when the inner sleep ends, and the timeout's timer is gone.
    let t0 = Instant::now();
    let tick = lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION;
    assert_eq!(timeout(ms(10), sleep(ms(10) - tick)).await, Ok(()));
    assert_eq!(Instant::now(), t0 + ms(10) - tick);
    assert_eq!(pending_timers(), 0);
}

#[lawn_rt::test(start_paused = true)]
async fn err_elapsed_when_the_deadline_passes() {
    let (counter, waker) = counting_waker();

    let mut t = pin!(timeout(ms(10), std::future::pending::<()>()));
    assert!(poll_with(t.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(9)).await, 0);
    assert!(poll_with(t.as_mut(), &waker).is_pending());
    assert_eq!(counter.wakes(), 0);
    assert_eq!(advance_and_count(ms(1)).await, 1);
    assert_eq!(counter.wakes(), 1, "the timeout wakes its task");
    assert!(poll_with(t.as_mut(), &waker).is_ready_and_err());
    assert_eq!(pending_timers(), 0);

    // Awaited: Err exactly at the deadline.
    let t0 = Instant::now();
    assert!(timeout(ms(10), std::future::pending::<()>()).await.is_err());
    assert_eq!(Instant::now(), t0 + ms(10));
}

/// The inner future is polled first: one that becomes ready exactly at the
/// deadline wins over the timeout.
#[lawn_rt::test(start_paused = true)]
async fn inner_future_ready_at_the_deadline_wins() {
    let deadline = Instant::now() + ms(10);

    let mut t = pin!(timeout_at(deadline, ready_at(deadline)));
    assert!(poll_noop(t.as_mut()).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(poll_noop(t.as_mut()), Poll::Ready(Ok("inner")));

    // Same with a timer as the inner future, due at the same deadline.
    let deadline = Instant::now() + ms(10);
    let mut t = pin!(timeout_at(deadline, sleep_until(deadline)));
    assert!(poll_noop(t.as_mut()).is_pending());
    assert_eq!(pending_timers(), 2);
    assert_eq!(advance_and_count(ms(10)).await, 2);
    assert_eq!(poll_noop(t.as_mut()), Poll::Ready(Ok(())));

    // And with both long past when first polled.
    let deadline = Instant::now() + ms(10);
    let mut t = pin!(timeout_at(deadline, ready_at(deadline)));
    lawn_rt::time::advance(ms(50)).await;
    assert_eq!(poll_noop(t.as_mut()), Poll::Ready(Ok("inner")));

    // Awaited: auto-advance takes the clock to the deadline, where the
    // inner future, polled first, is ready.
    let deadline = Instant::now() + ms(10);
    assert_eq!(timeout_at(deadline, ready_at(deadline)).await, Ok("inner"));
    assert_eq!(Instant::now(), deadline);
    let deadline = Instant::now() + ms(10);
    assert_eq!(timeout_at(deadline, sleep_until(deadline)).await, Ok(()));
    assert_eq!(Instant::now(), deadline);
}

#[lawn_rt::test(start_paused = true)]
async fn zero_timeout() {
    let t0 = Instant::now();
    let mut ready = pin!(timeout(Duration::ZERO, std::future::ready(1)));
    assert_eq!(poll_noop(ready.as_mut()), Poll::Ready(Ok(1)));
    let mut pending = pin!(timeout(Duration::ZERO, std::future::pending::<()>()));
    assert!(poll_noop(pending.as_mut()).is_ready_and_err());
    assert_eq!(pending_timers(), 0);
    // Awaited: decided at once, with no time passing.
    let zero = timeout(Duration::ZERO, std::future::pending::<()>()).await;
    assert!(zero.is_err());
    assert_eq!(Instant::now(), t0);
}

#[lawn_rt::test(start_paused = true)]
async fn timeout_at_deadlines() {
    let now = Instant::now();

    // In the past: Err at once unless the inner future is ready.
    let mut past = pin!(timeout_at(now - ms(1), std::future::pending::<()>()));
    assert!(poll_noop(past.as_mut()).is_ready_and_err());
    let mut past_ok = pin!(timeout_at(now - ms(1), std::future::ready('x')));
    assert_eq!(poll_noop(past_ok.as_mut()), Poll::Ready(Ok('x')));

    // In the future: Err exactly at the deadline.
    let mut later = pin!(timeout_at(now + ms(20), std::future::pending::<()>()));
    assert!(poll_noop(later.as_mut()).is_pending());
    lawn_rt::time::advance(ms(19)).await;
    assert!(poll_noop(later.as_mut()).is_pending());
    lawn_rt::time::advance(ms(1)).await;
    assert!(poll_noop(later.as_mut()).is_ready_and_err());
    assert_eq!(Instant::now(), now + ms(20));

    // Awaited: a past deadline decides at once, a future one exactly then.
    let now = Instant::now();
    let past = timeout_at(now - ms(1), std::future::pending::<()>()).await;
    assert!(past.is_err());
    assert_eq!(Instant::now(), now);
    let later = timeout_at(now + ms(20), std::future::pending::<()>()).await;
    assert!(later.is_err());
    assert_eq!(Instant::now(), now + ms(20));
}

#[lawn_rt::test(start_paused = true)]
async fn timeout_duration_max_waits() {
    let mut forever = pin!(timeout(Duration::MAX, std::future::pending::<()>()));
    assert!(poll_noop(forever.as_mut()).is_pending());
    assert_eq!(pending_timers(), 1);
    assert_eq!(
        advance_and_count(Duration::from_secs(10 * 365 * 86_400)).await,
        0
    );
    assert!(poll_noop(forever.as_mut()).is_pending());
    let mut fine = pin!(timeout(Duration::MAX, std::future::ready(())));
    assert_eq!(poll_noop(fine.as_mut()), Poll::Ready(Ok(())));

    // Awaited: "forever" is the far future (about 30 years), reached by
    // auto-advance exactly, with nothing overflowing on the way.
    let t0 = Instant::now();
    let forever = timeout(Duration::MAX, std::future::pending::<()>()).await;
    assert!(forever.is_err());
    assert_eq!(Instant::now(), t0 + Duration::MAX);
}

#[lawn_rt::test(start_paused = true)]
async fn dropping_a_pending_timeout_cancels_it() {
    let (counter, waker) = counting_waker();
    let mut t = Box::pin(timeout(ms(5), std::future::pending::<()>()));
    assert!(poll_with(t.as_mut(), &waker).is_pending());
    assert_eq!(pending_timers(), 1);
    drop(t);
    assert_eq!(pending_timers(), 0);
    assert_eq!(advance_and_count(ms(5)).await, 0);
    assert_eq!(counter.wakes(), 0);
    drop(waker);
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[lawn_rt::test(start_paused = true)]
async fn timeout_accepts_into_future() {
    struct Later(u8);
    impl IntoFuture for Later {
        type Output = u8;
        type IntoFuture = std::future::Ready<u8>;
        fn into_future(self) -> Self::IntoFuture {
            std::future::ready(self.0)
        }
    }
    let mut t = pin!(timeout(ms(1), Later(9)));
    assert_eq!(poll_noop(t.as_mut()), Poll::Ready(Ok(9)));
    let mut t = pin!(timeout_at(Instant::now() + ms(1), Later(8)));
    assert_eq!(poll_noop(t.as_mut()), Poll::Ready(Ok(8)));
    assert_eq!(timeout(ms(1), Later(7)).await, Ok(7));
    assert_eq!(pending_timers(), 0);
}

// ---------------------------------------------------------------------------
// Accessors
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn get_ref_get_mut_into_inner() {
    let gate = Gate {
        value: 1,
        ..Gate::default()
    };
    let mut t = timeout(ms(10), gate.clone());
    assert_eq!(t.get_ref().value, 1);
    t.get_mut().value = 2;
    assert_eq!(t.get_ref().value, 2);

    // Taken apart: the inner future is handed back, no timer is left.
    let mut inner = t.into_inner();
    assert_eq!(inner.value, 2);
    gate.open.store(true, Ordering::SeqCst);
    assert_eq!(poll_noop(Pin::new(&mut inner)), Poll::Ready(2));
    assert_eq!(pending_timers(), 0);
    assert!(format!("{:?}", timeout(ms(1), gate)).contains("Timeout"));
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// An `Elapsed` from a real timeout (the type has no public constructor).
fn elapsed() -> Elapsed {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut t = pin!(timeout(Duration::ZERO, std::future::pending::<()>()));
    match poll_noop(t.as_mut()) {
        Poll::Ready(Err(elapsed)) => elapsed,
        other => panic!("expected Err(Elapsed), got {other:?}"),
    }
}

trait PollExt {
    fn is_ready_and_err(&self) -> bool;
}
impl<T> PollExt for Poll<Result<T, Elapsed>> {
    fn is_ready_and_err(&self) -> bool {
        matches!(self, Poll::Ready(Err(_)))
    }
}

#[test]
fn elapsed_display_debug_and_error() {
    let err = elapsed();
    assert_eq!(err.to_string(), "deadline has elapsed");
    assert!(format!("{err:?}").contains("Elapsed"));
    assert!(err.source().is_none());
    let copy = err; // Copy
    assert_eq!(copy, err);
    assert_eq!(elapsed(), elapsed());
}

#[test]
fn elapsed_into_io_error_is_timed_out() {
    let io_err: io::Error = elapsed().into();
    assert_eq!(io_err.kind(), io::ErrorKind::TimedOut);
    // A bare TimedOut, as tokio's conversion gives.
    assert_eq!(io_err.to_string(), "timed out");
    assert!(io_err.get_ref().is_none());

    // `?` converts it in an io::Result function.
    fn request() -> io::Result<()> {
        Err(elapsed())?;
        Ok(())
    }
    assert_eq!(request().unwrap_err().kind(), io::ErrorKind::TimedOut);
}

#[test]
fn time_error_kinds() {
    let shutdown = Error::shutdown();
    assert!(shutdown.is_shutdown() && !shutdown.is_at_capacity() && !shutdown.is_invalid());
    assert!(shutdown.to_string().contains("shut down"));
    let full = Error::at_capacity();
    assert!(full.is_at_capacity() && !full.is_shutdown() && !full.is_invalid());
    let invalid = Error::invalid();
    assert!(invalid.is_invalid() && !invalid.is_shutdown() && !invalid.is_at_capacity());
    for err in [shutdown, full, invalid] {
        assert!(!err.to_string().is_empty());
        assert!(format!("{err:?}").starts_with("Error("));
        let copy = err; // Copy
        assert_eq!(copy, err);
    }
    assert_ne!(shutdown, full);
}

#[test]
fn timeout_whose_driver_shut_down_panics() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut t = Box::pin(timeout(ms(10), std::future::pending::<()>()));
    assert!(poll_noop(t.as_mut()).is_pending());
    driver.shutdown();
    common::assert_panics_with("shut down", "timeout polled after shutdown", || {
        poll_noop(t.as_mut())
    });
    drop(t);
}

// ---------------------------------------------------------------------------
// Real clock
// ---------------------------------------------------------------------------

/// The paused twin of the test below: each timeout decides exactly at its
/// deadline.
#[lawn_rt::test(start_paused = true)]
async fn paused_clock_timeout_is_exact() {
    for n in [1, 2, 3] {
        let start = Instant::now();
        let result = timeout(ms(n), std::future::pending::<()>()).await;
        assert!(result.is_err());
        assert_eq!(start.elapsed(), ms(n));
    }
    let start = Instant::now();
    assert_eq!(timeout(ms(50), async { 3 }).await, Ok(3));
    assert_eq!(start.elapsed(), Duration::ZERO);
}

/// The timeout is never early on the real clock (a foreign shard).
#[test]
fn real_clock_timeout_is_never_early() {
    futures::executor::block_on(async {
        for n in [1, 2, 3] {
            let start = Instant::now();
            let result = timeout(ms(n), std::future::pending::<()>()).await;
            assert!(result.is_err());
            assert!(start.elapsed() >= ms(n));
        }
        assert_eq!(timeout(ms(50), async { 3 }).await, Ok(3));
    });
}
