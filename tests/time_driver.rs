//! The bare `Driver` run by code of its own (an event loop, or a test moving
//! a paused clock by hand), and the thread context it is entered in:
//! `process_at` with an instant ahead of the clock fires nothing early;
//! `unpark` before or during `park` ends it; and timers used from a
//! thread-local's destructor at thread exit, while the driver context may
//! already be gone, neither panic nor abort.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::task::Poll;
use std::thread;
use std::time::Instant as StdInstant;

use common::units::ms;
use common::{isolated, join_within, paused_driver, poll_noop, recv_within};
use lawn_rt::driver::{Driver, Handle};
use lawn_rt::time::{sleep, Duration, Instant};

/// A generous bound for "did not hang": far above any expected latency.
const HANG: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------------------
// process_at ahead of the clock
// ---------------------------------------------------------------------------

/// `process_at` with an instant an hour ahead of a paused driver's clock
/// fires nothing early and does not move the driver's time: pending sleeps
/// and a sleep made afterwards fire exactly at their deadlines as the clock
/// is advanced.
#[test]
fn process_at_ahead_of_a_paused_clock_fires_nothing_early_and_does_not_move_it() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut ten = Box::pin(sleep(ms(10)));
    let mut twenty = Box::pin(sleep(ms(20)));
    assert!(poll_noop(ten.as_mut()).is_pending());
    assert!(poll_noop(twenty.as_mut()).is_pending());

    let far = driver.handle().now() + Duration::from_secs(3600);
    assert_eq!(driver.process_at(far), 0, "fired ahead of the clock");
    assert!(poll_noop(ten.as_mut()).is_pending());
    // Nor did it move the driver's time: a new sleep waits its full length.
    let mut fifty = Box::pin(sleep(ms(50)));
    assert!(poll_noop(fifty.as_mut()).is_pending());

    assert_eq!(driver.advance(ms(9)), 0);
    assert_eq!(driver.process_at(far), 0);
    assert_eq!(driver.advance(ms(1)), 1);
    assert_eq!(poll_noop(ten.as_mut()), Poll::Ready(()));
    assert!(poll_noop(twenty.as_mut()).is_pending());
    assert_eq!(driver.advance(ms(10)), 1);
    assert_eq!(driver.advance(ms(29)), 0);
    assert_eq!(driver.advance(ms(1)), 1);
    assert_eq!(poll_noop(fifty.as_mut()), Poll::Ready(()));
}

/// `process_at` with an instant an hour ahead of a real-clock driver fires
/// nothing early and keeps the pending timer; a sleep made afterwards is
/// still pending on its first poll (as long as its time has not really
/// passed).
#[test]
fn process_at_ahead_of_the_real_clock_fires_nothing_early() {
    let driver = Driver::new();
    let _entered = driver.handle().enter();
    let mut long = Box::pin(sleep(Duration::from_secs(60)));
    assert!(poll_noop(long.as_mut()).is_pending());

    let far = StdInstant::now() + Duration::from_secs(3600);
    assert_eq!(driver.process_at(far), 0, "fired ahead of the clock");
    assert!(poll_noop(long.as_mut()).is_pending());
    assert_eq!(driver.handle().pending_timers(), 1);

    // As in the rustdoc: process_at first, then a new sleep.
    let start = StdInstant::now();
    let mut half = Box::pin(sleep(ms(500)));
    let first_poll = poll_noop(half.as_mut());
    if start.elapsed() < ms(500) {
        assert!(
            first_poll.is_pending(),
            "sleep(500ms) was ready on its first poll after process_at(now + 1h)"
        );
    }
}

// ---------------------------------------------------------------------------
// park and unpark
// ---------------------------------------------------------------------------

/// An `unpark` before `park` is not lost: the next `park` returns at once
/// (well before its 500 ms).
#[test]
fn an_unpark_before_park_makes_the_park_return_at_once() {
    let driver = Driver::new();
    driver.unpark();
    let start = StdInstant::now();
    driver.park(Some(ms(500)));
    let took = start.elapsed();
    assert!(
        took < ms(250),
        "park(500ms) after unpark() took {took:?}: the unpark was lost"
    );
}

/// An `unpark` from another thread ends a `park(30 s)` in progress (or
/// about to start).
#[test]
fn unpark_wakes_a_parked_driver() {
    let driver = Arc::new(Driver::new());
    let (parking_tx, parking_rx) = mpsc::channel();
    let parked = thread::spawn({
        let driver = driver.clone();
        move || {
            parking_tx.send(()).unwrap();
            let start = StdInstant::now();
            driver.park(Some(Duration::from_secs(30)));
            start.elapsed()
        }
    });
    recv_within(&parking_rx, HANG, "about to park");
    // Whether it is parked yet or not, the unpark must end this park.
    thread::sleep(ms(20));
    driver.unpark();
    let took = join_within("park(30s) after unpark()", HANG, parked);
    assert!(took < HANG, "park returned after {took:?}");
}

// ---------------------------------------------------------------------------
// timers in thread-local destructors
// ---------------------------------------------------------------------------

/// How many thread-local destructors got through their use of timers.
static TLS_DROPS_DONE: AtomicUsize = AtomicUsize::new(0);

/// Uses the timer API when its thread-local is destroyed.
struct UsesTimersOnDrop;

impl Drop for UsesTimersOnDrop {
    fn drop(&mut self) {
        let before = Instant::now();
        let unpolled = sleep(ms(1));
        drop(unpolled);
        let mut polled = Box::pin(sleep(Duration::from_secs(60)));
        assert!(poll_noop(polled.as_mut()).is_pending());
        drop(polled);
        assert!(Instant::now() >= before);
        TLS_DROPS_DONE.fetch_add(1, SeqCst);
    }
}

thread_local! {
    static USES_TIMERS_ON_DROP: UsesTimersOnDrop = const { UsesTimersOnDrop };
}

/// Timers made, polled and dropped (and `Instant::now`) in a thread-local's
/// destructor at thread exit work, whether a driver was entered and left
/// before, the thread's driver context is destroyed before that
/// thread-local, or a driver is still entered (a guard kept in a
/// thread-local): no panic, so no abort. Runs in a child process, since a
/// failure aborts.
#[test]
fn timers_used_in_a_thread_local_destructor_at_thread_exit_do_not_abort() {
    if !isolated("timers_used_in_a_thread_local_destructor_at_thread_exit_do_not_abort") {
        return;
    }
    // The driver context is set up first (its destructor runs last).
    thread::spawn(|| {
        let driver = Driver::new();
        drop(driver.handle().enter());
        USES_TIMERS_ON_DROP.with(|_| {});
    })
    .join()
    .expect("thread 1 panicked");
    // Our thread-local first: the driver context may be gone when it runs.
    thread::spawn(|| {
        USES_TIMERS_ON_DROP.with(|_| {});
        let _ = Instant::now();
        let _ = Handle::try_entered();
    })
    .join()
    .expect("thread 2 panicked");
    // And with a driver entered for good (a guard in a thread-local too).
    thread::spawn(|| {
        thread_local! {
            static GUARD: std::cell::RefCell<Option<lawn_rt::driver::EnterGuard<'static>>> =
                const { std::cell::RefCell::new(None) };
        }
        let driver: &'static Driver = Box::leak(Box::new(paused_driver()));
        GUARD.with(|guard| *guard.borrow_mut() = Some(driver.handle().enter()));
        // Registered last, so destroyed first: the driver is still entered.
        USES_TIMERS_ON_DROP.with(|_| {});
    })
    .join()
    .expect("thread 3 panicked");
    assert_eq!(TLS_DROPS_DONE.load(SeqCst), 3);
}
