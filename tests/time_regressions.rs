//! Regression tests for bugs found in review of the driver and the `time`
//! futures, one section per reproducer (t1 ... t10). Each test states the
//! behaviour the fix guarantees and fails, rather than hangs, if it breaks:
//! anything that could deadlock runs on a thread watched with a timeout.
//!
//! Threads are ordered with channels, never with sleeps: where a test
//! sleeps, the sleep only makes a regression more likely to show, and the
//! test passes whatever the timing when the library is right.

mod common;

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Wake, Waker};
use std::thread;
use std::time::Instant as StdInstant;

use common::{counting_waker, isolated, paused_driver, poll_noop, poll_with};
use lawn_rt::driver::{Driver, Handle};
use lawn_rt::time::{interval, sleep, Duration, Instant, MissedTickBehavior, Sleep};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A generous bound for "did not hang": far above any expected latency.
const HANG: Duration = Duration::from_secs(5);

/// A sleep kept where a waker can reach it.
type Slot = Arc<Mutex<Option<Pin<Box<Sleep>>>>>;

/// A waker that runs `f` each time it is woken.
fn fn_waker(f: impl Fn() + Send + Sync + 'static) -> Waker {
    struct FnWake<F>(F);
    impl<F: Fn() + Send + Sync + 'static> Wake for FnWake<F> {
        fn wake(self: Arc<Self>) {
            (self.0)();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            (self.0)();
        }
    }
    Waker::from(Arc::new(FnWake(f)))
}

/// Runs `f` on a new thread and returns its result; fails the test if it
/// has not returned within [`HANG`] (a deadlock), or panicked.
#[track_caller]
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let thread = thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(HANG) {
        Ok(value) => value,
        Err(RecvTimeoutError::Timeout) => {
            panic!("{what}: still blocked after {HANG:?} (deadlock)")
        }
        Err(RecvTimeoutError::Disconnected) => match thread.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the thread sends before it ends"),
        },
    }
}

/// Joins `thread`, failing the test if it has not ended within [`HANG`].
#[track_caller]
fn join_within<T>(what: &str, thread: thread::JoinHandle<T>) -> T {
    let start = StdInstant::now();
    while !thread.is_finished() {
        assert!(
            start.elapsed() < HANG,
            "{what}: still running after {HANG:?} (deadlock)"
        );
        thread::sleep(ms(1));
    }
    match thread.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Receives on `rx`, failing the test after [`HANG`].
#[track_caller]
fn recv<T>(rx: &mpsc::Receiver<T>, what: &str) -> T {
    rx.recv_timeout(HANG)
        .unwrap_or_else(|err| panic!("{what}: not signalled within {HANG:?} ({err})"))
}

// ---------------------------------------------------------------------------
// t1: `advance` / `process_at` called from inside a waker the driver calls
// ---------------------------------------------------------------------------

/// Batch [first, victim] fired on thread F. `first` calls `advance` (a nested
/// expiry: it must return 0 and leave the batch alone), then the victim's
/// sleep is dropped on this thread. That drop must not wait for the batch,
/// and once it has returned the victim's waker is never called.
#[test]
fn t1_nested_advance_in_a_waker_returns_zero_and_keeps_the_cancel_handshake() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let (in_first_tx, in_first_rx) = mpsc::channel();
    let (nested_tx, nested_rx) = mpsc::channel();
    let (dropped_tx, dropped_rx) = mpsc::channel::<()>();
    let dropped_rx = Mutex::new(dropped_rx);
    let saw_drop_return = Arc::new(AtomicBool::new(false));
    let first = fn_waker({
        let driver = driver.clone();
        let saw_drop_return = saw_drop_return.clone();
        move || {
            let _ = in_first_tx.send(());
            // Moves the clock to 20 ms: the third sleep is due, but not
            // fired here: the loop calling this waker owns the expiry.
            let _ = nested_tx.send(driver.advance(ms(10)));
            let returned = dropped_rx.lock().unwrap().recv_timeout(HANG).is_ok();
            saw_drop_return.store(returned, SeqCst);
        }
    });
    let (victim, victim_waker) = counting_waker();

    let mut first_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(first_sleep.as_mut(), &first).is_pending());
    let mut victim_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(victim_sleep.as_mut(), &victim_waker).is_pending());
    let mut later = Box::pin(sleep(ms(20)));
    assert!(poll_noop(later.as_mut()).is_pending());
    drop((first, victim_waker));

    let firing = thread::spawn({
        let driver = driver.clone();
        move || driver.advance(ms(10))
    });
    recv(&in_first_rx, "first waker called");
    assert_eq!(
        recv(&nested_rx, "nested advance returned"),
        0,
        "a nested advance from inside a waker fired timers"
    );
    drop(victim_sleep);
    let wakes_at_drop = victim.wakes();
    dropped_tx.send(()).unwrap();
    let fired = join_within("the firing thread", firing);

    assert!(
        saw_drop_return.load(SeqCst),
        "dropping a sleep whose waker was not being called waited for the batch"
    );
    assert_eq!(wakes_at_drop, 0);
    assert_eq!(
        victim.wakes(),
        0,
        "the victim's waker was called after its sleep's drop returned"
    );
    assert_eq!(fired, 1, "the outer advance wakes only the first sleep");
    assert_eq!(Arc::strong_count(&victim), 1, "the skipped waker leaked");
    // The timer the nested advance made due was not lost.
    assert_eq!(driver.handle().pending_timers(), 1);
    assert_eq!(driver.process(), 1);
    assert_eq!(poll_noop(later.as_mut()), Poll::Ready(()));
    assert_eq!(poll_noop(first_sleep.as_mut()), Poll::Ready(()));
}

/// A sleep dropped on another thread while its own waker is being called
/// waits for it; a nested `advance` inside that waker must not end the wait
/// early (it is not the end of the batch).
#[test]
fn t1_nested_advance_does_not_release_a_dropper_waiting_for_its_own_waker() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let (in_own_tx, in_own_rx) = mpsc::channel();
    let (dropping_tx, dropping_rx) = mpsc::channel::<()>();
    let dropping_rx = Mutex::new(dropping_rx);
    let (nested_tx, nested_rx) = mpsc::channel();
    let own_returning = Arc::new(AtomicBool::new(false));
    let own = fn_waker({
        let driver = driver.clone();
        let own_returning = own_returning.clone();
        move || {
            let _ = in_own_tx.send(());
            let _ = dropping_rx.lock().unwrap().recv_timeout(HANG);
            // Give the dropper time to block in its drop.
            thread::sleep(ms(50));
            let _ = nested_tx.send(driver.advance(ms(10)));
            // If the nested call released the dropper, it returns now.
            thread::sleep(ms(50));
            own_returning.store(true, SeqCst);
        }
    });
    let (next, next_waker) = counting_waker();

    let mut own_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(own_sleep.as_mut(), &own).is_pending());
    let mut next_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(next_sleep.as_mut(), &next_waker).is_pending());
    drop((own, next_waker));

    let firing = thread::spawn({
        let driver = driver.clone();
        move || driver.advance(ms(10))
    });
    recv(&in_own_rx, "own waker called");
    let dropper = thread::spawn({
        let own_returning = own_returning.clone();
        move || {
            dropping_tx.send(()).unwrap();
            drop(own_sleep);
            own_returning.load(SeqCst)
        }
    });
    let waker_done_at_drop = join_within("the dropper", dropper);
    let fired = join_within("the firing thread", firing);

    assert_eq!(recv(&nested_rx, "nested advance returned"), 0);
    assert!(
        waker_done_at_drop,
        "the drop returned while its own waker was still running"
    );
    assert_eq!(fired, 2);
    assert_eq!(next.wakes(), 1, "the rest of the batch was not woken");
    assert_eq!(poll_noop(next_sleep.as_mut()), Poll::Ready(()));
}

/// `process_at` called from inside a waker returns 0 too, and the waker's
/// own batch goes on.
#[test]
fn t1_nested_process_at_in_a_waker_returns_zero() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let nested = Arc::new(AtomicUsize::new(usize::MAX));
    let first = fn_waker({
        let driver = driver.clone();
        let nested = nested.clone();
        move || {
            let far = driver.handle().now() + Duration::from_secs(3600);
            nested.store(driver.process_at(far), SeqCst);
        }
    });
    let (rest, rest_waker) = counting_waker();
    let mut sleeps = vec![Box::pin(sleep(ms(10)))];
    assert!(poll_with(sleeps[0].as_mut(), &first).is_pending());
    for _ in 0..40 {
        let mut other = Box::pin(sleep(ms(10)));
        assert!(poll_with(other.as_mut(), &rest_waker).is_pending());
        sleeps.push(other);
    }
    assert_eq!(driver.advance(ms(10)), 41);
    assert_eq!(nested.load(SeqCst), 0);
    assert_eq!(rest.wakes(), 40);
}

// ---------------------------------------------------------------------------
// t2: a sleep that saw its registration handed out, then was dropped
// ---------------------------------------------------------------------------

/// What is done to a sleep whose registration has been handed out for
/// waking (its waker is in the batch being woken, not yet called) before it
/// is dropped.
#[derive(Clone, Copy, Debug)]
enum Then {
    /// Polled (with another waker): Ready.
    PollToReady,
    /// Reset to a later deadline.
    ResetLater,
    /// Reset to a deadline in the past.
    ResetToPast,
    /// Reset to a later deadline and polled again, so registered anew:
    /// the drop then cancels the new registration, and must still keep the
    /// handed-out one's waker from being called.
    ResetLaterAndRepoll,
}

impl Then {
    fn apply(self, mut sleep: Pin<&mut Sleep>) {
        let deadline = sleep.deadline();
        match self {
            Then::PollToReady => assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(())),
            Then::ResetLater => sleep.as_mut().reset(deadline + Duration::from_secs(1)),
            Then::ResetToPast => sleep.as_mut().reset(deadline - ms(5)),
            Then::ResetLaterAndRepoll => {
                sleep.as_mut().reset(deadline + Duration::from_secs(1));
                assert!(poll_noop(sleep.as_mut()).is_pending());
            }
        }
    }
}

/// Batch [first, victim] fired on thread F; `first` blocks until told. This
/// thread meanwhile does `then` to the victim's sleep and drops it: its
/// waker must not be called afterwards.
fn handed_out_then_dropped_on_another_thread(then: Then) {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let (in_first_tx, in_first_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    let first = fn_waker(move || {
        let _ = in_first_tx.send(());
        let _ = go_rx.lock().unwrap().recv_timeout(HANG);
    });
    let (victim, victim_waker) = counting_waker();

    let mut first_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(first_sleep.as_mut(), &first).is_pending());
    let mut victim_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(victim_sleep.as_mut(), &victim_waker).is_pending());
    drop((first, victim_waker));

    let firing = thread::spawn({
        let driver = driver.clone();
        move || driver.advance(ms(10))
    });
    recv(&in_first_rx, "first waker called");
    then.apply(victim_sleep.as_mut());
    drop(victim_sleep);
    let wakes_at_drop = victim.wakes();
    go_tx.send(()).unwrap();
    join_within("the firing thread", firing);

    assert_eq!(wakes_at_drop, 0);
    assert_eq!(
        victim.wakes(),
        0,
        "{then:?}: the waker of a handed-out sleep was called after the sleep's drop returned"
    );
    assert_eq!(driver.handle().pending_timers(), 0);
    assert_eq!(Arc::strong_count(&victim), 1, "{then:?}: waker leaked");
}

#[test]
fn t2_polled_ready_then_dropped_on_another_thread() {
    handed_out_then_dropped_on_another_thread(Then::PollToReady);
}

#[test]
fn t2_reset_later_then_dropped_on_another_thread() {
    handed_out_then_dropped_on_another_thread(Then::ResetLater);
}

#[test]
fn t2_reset_to_past_then_dropped_on_another_thread() {
    handed_out_then_dropped_on_another_thread(Then::ResetToPast);
}

#[test]
fn t2_reset_later_repolled_then_dropped_on_another_thread() {
    handed_out_then_dropped_on_another_thread(Then::ResetLaterAndRepoll);
}

/// The same on one thread: waker `first`, called first in the batch, does
/// `then` to the victim's sleep (fired in the same batch, not yet woken) and
/// drops it.
fn handed_out_then_dropped_by_an_earlier_waker(then: Then) {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let slot: Slot = Arc::default();
    let wakes_at_drop = Arc::new(AtomicUsize::new(usize::MAX));
    let (victim, victim_waker) = counting_waker();
    let first = fn_waker({
        let slot = slot.clone();
        let wakes_at_drop = wakes_at_drop.clone();
        let victim = victim.clone();
        move || {
            let Some(mut sleep) = slot.lock().unwrap().take() else {
                return;
            };
            then.apply(sleep.as_mut());
            drop(sleep);
            wakes_at_drop.store(victim.wakes(), SeqCst);
        }
    });

    let mut first_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(first_sleep.as_mut(), &first).is_pending());
    let mut victim_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(victim_sleep.as_mut(), &victim_waker).is_pending());
    *slot.lock().unwrap() = Some(victim_sleep);
    drop((first, victim_waker));

    assert_eq!(driver.advance(ms(10)), 1, "{then:?}: only `first` is woken");
    assert_eq!(
        wakes_at_drop.load(SeqCst),
        0,
        "{then:?}: `first` did not run"
    );
    assert_eq!(
        victim.wakes(),
        0,
        "{then:?}: the waker of a handed-out sleep was called after the sleep's drop returned"
    );
    assert_eq!(driver.handle().pending_timers(), 0);
    assert_eq!(Arc::strong_count(&victim), 1, "{then:?}: waker leaked");
}

#[test]
fn t2_polled_ready_then_dropped_by_an_earlier_waker() {
    handed_out_then_dropped_by_an_earlier_waker(Then::PollToReady);
}

#[test]
fn t2_reset_later_then_dropped_by_an_earlier_waker() {
    handed_out_then_dropped_by_an_earlier_waker(Then::ResetLater);
}

#[test]
fn t2_reset_to_past_then_dropped_by_an_earlier_waker() {
    handed_out_then_dropped_by_an_earlier_waker(Then::ResetToPast);
}

#[test]
fn t2_reset_later_repolled_then_dropped_by_an_earlier_waker() {
    handed_out_then_dropped_by_an_earlier_waker(Then::ResetLaterAndRepoll);
}

// ---------------------------------------------------------------------------
// t3: an Interval polled where its driver is not the entered one
// ---------------------------------------------------------------------------

fn poll_tick(interval: &mut lawn_rt::time::Interval) -> Poll<Instant> {
    interval.poll_tick(&mut Context::from_waker(Waker::noop()))
}

/// Checks that `driver` (paused, entered here) is intact after an interval
/// bound to it took its first tick elsewhere: its time has not moved, a
/// 50 ms sleep waits 50 ms, and the interval's next tick is one period
/// (1 s) after `start`.
fn assert_driver_intact(
    driver: &Driver,
    start: Instant,
    every: &mut lawn_rt::time::Interval,
    where_: &str,
) {
    assert_eq!(Instant::now(), start, "{where_}: the paused clock moved");
    let mut short = Box::pin(sleep(ms(50)));
    assert!(
        poll_noop(short.as_mut()).is_pending(),
        "{where_}: sleep(50ms) on the interval's driver was ready on its first poll"
    );
    assert_eq!(driver.advance(ms(49)), 0, "{where_}");
    assert_eq!(driver.advance(ms(1)), 1, "{where_}");
    assert_eq!(poll_noop(short.as_mut()), Poll::Ready(()));
    assert!(poll_tick(every).is_pending(), "{where_}");
    assert_eq!(driver.advance(ms(949)), 0, "{where_}: the tick came early");
    assert_eq!(driver.advance(ms(1)), 1, "{where_}");
    assert_eq!(
        poll_tick(every),
        Poll::Ready(start + Duration::from_secs(1)),
        "{where_}"
    );
}

/// An interval on a paused driver takes its first tick on a thread that has
/// not entered that driver, once real time has run 100 ms ahead of the
/// paused clock: the interval must re-file from its own driver's time, not
/// from the polling thread's.
#[test]
fn t3_interval_ticked_on_a_thread_that_has_not_entered_its_driver() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let start = Instant::now();
    let mut every = interval(Duration::from_secs(1));
    let mut every = thread::scope(|scope| {
        scope
            .spawn(move || {
                assert!(Handle::try_entered().is_none());
                // Real time, which this thread sees, runs ahead of the
                // paused clock.
                thread::sleep(ms(100));
                assert_eq!(poll_tick(&mut every), Poll::Ready(start));
                assert!(poll_tick(&mut every).is_pending());
                every
            })
            .join()
            .unwrap()
    });
    assert_driver_intact(&driver, start, &mut every, "not entered");
}

/// The same on a thread that entered another paused driver, an hour ahead:
/// neither driver's time moves.
#[test]
fn t3_interval_ticked_on_a_thread_that_entered_another_paused_driver() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let start = Instant::now();
    let mut every = interval(Duration::from_secs(1));
    let other = paused_driver();
    other.advance(Duration::from_secs(3600));
    let other_now = other.handle().now();
    let mut every = thread::scope(|scope| {
        scope
            .spawn(|| {
                let _entered = other.handle().enter();
                assert_eq!(poll_tick(&mut every), Poll::Ready(start));
                assert!(poll_tick(&mut every).is_pending());
                every
            })
            .join()
            .unwrap()
    });
    assert_eq!(other.handle().now(), other_now, "the other clock moved");
    assert_eq!(other.handle().pending_timers(), 0);
    assert_driver_intact(&driver, start, &mut every, "another driver entered");

    let _other_entered = other.handle().enter();
    let mut there = Box::pin(sleep(ms(50)));
    assert!(
        poll_noop(there.as_mut()).is_pending(),
        "sleep(50ms) on the other driver was ready on its first poll"
    );
    assert_eq!(other.advance(ms(49)), 0);
    assert_eq!(other.advance(ms(1)), 1);
}

/// A fallback interval ticked on a thread where a paused driver an hour
/// ahead is entered: the fallback driver must not take that hour for its own
/// time (which would make its later sleeps complete early).
#[test]
fn t3_fallback_interval_polled_under_another_entered_driver() {
    assert!(Handle::try_entered().is_none());
    let mut every = interval(Duration::from_secs(10));
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let other = paused_driver();
    other.advance(Duration::from_secs(3600));
    {
        let _entered = other.handle().enter();
        assert!(poll_tick(&mut every).is_ready());
        assert!(
            poll_tick(&mut every).is_pending(),
            "the second tick of a 10 s interval was ready at once"
        );
        assert_eq!(other.handle().pending_timers(), 0);
    }

    for wait in [ms(100), ms(200)] {
        let start = StdInstant::now();
        futures::executor::block_on(sleep(wait));
        let took = start.elapsed();
        assert!(
            took >= wait,
            "a fallback sleep({wait:?}) completed early, after {took:?}"
        );
    }
    assert!(poll_tick(&mut every).is_pending());
}

// ---------------------------------------------------------------------------
// t4: process_at with an instant ahead of the clock
// ---------------------------------------------------------------------------

#[test]
fn t4_process_at_ahead_of_a_paused_clock_fires_nothing_early() {
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

#[test]
fn t4_process_at_ahead_of_the_real_clock_fires_nothing_early() {
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
// t5: a waker that panics
// ---------------------------------------------------------------------------

/// The first panic's message, if it is a string.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("<non-string panic payload>")
}

/// 40 timers due together (more than one batch); the first and the sixth
/// wakers panic. `advance` resumes the first panic, every other waker of the
/// batch is still woken, and the driver goes on working (timers beyond the
/// batch fire on the next call at the latest).
#[test]
fn t5_a_panicking_waker_does_not_stop_the_others_of_its_batch() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut sleeps = Vec::new();
    let mut counters = Vec::new();
    for i in 0..40 {
        let mut sleep = Box::pin(sleep(ms(10)));
        let waker = match i {
            0 => fn_waker(|| panic!("first waker panics")),
            5 => fn_waker(|| panic!("sixth waker panics")),
            _ => {
                let (counter, waker) = counting_waker();
                counters.push((i, counter));
                waker
            }
        };
        assert!(poll_with(sleep.as_mut(), &waker).is_pending());
        sleeps.push(sleep);
    }

    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| driver.advance(ms(10))));
    let payload = result.expect_err("advance did not re-panic");
    assert_eq!(panic_message(&*payload), "first waker panics");
    for (i, counter) in &counters {
        if *i < 32 {
            assert_eq!(counter.wakes(), 1, "waker {i} of the panicking batch");
        }
    }

    // The batch has ended: the driver fires the rest and new timers.
    driver.process();
    for (i, counter) in &counters {
        assert_eq!(counter.wakes(), 1, "waker {i}");
    }
    for sleep in &mut sleeps {
        assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
    }
    assert_eq!(driver.handle().pending_timers(), 0);
    let mut after = Box::pin(sleep(ms(5)));
    assert!(poll_noop(after.as_mut()).is_pending());
    let mut dropped = Box::pin(sleep(ms(5)));
    assert!(poll_noop(dropped.as_mut()).is_pending());
    within("dropping a sleep after the panic", move || drop(dropped));
    assert_eq!(driver.advance(ms(5)), 1);
    assert_eq!(poll_noop(after.as_mut()), Poll::Ready(()));
}

/// On the fallback driver (as in the reproducer): the other wakers are
/// woken, and the fallback thread survives to serve later timers.
#[test]
fn t5_a_panicking_waker_on_the_fallback_driver() {
    assert!(Handle::try_entered().is_none());
    let woken = Arc::new(AtomicUsize::new(0));
    let mut sleeps = Vec::new();
    for i in 0..5 {
        let mut sleep = Box::pin(sleep(ms(20)));
        let waker = if i == 0 {
            fn_waker(|| panic!("fallback waker panics"))
        } else {
            let woken = woken.clone();
            fn_waker(move || {
                woken.fetch_add(1, SeqCst);
            })
        };
        assert!(poll_with(sleep.as_mut(), &waker).is_pending());
        sleeps.push(sleep);
    }
    let start = StdInstant::now();
    while woken.load(SeqCst) < 4 && start.elapsed() < HANG {
        thread::sleep(ms(5));
    }
    assert_eq!(woken.load(SeqCst), 4, "non-panicking wakers woken");
    for sleep in sleeps.iter_mut().skip(1) {
        assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
    }
    within("a fallback sleep after the panic", || {
        futures::executor::block_on(sleep(ms(5)))
    });
}

// ---------------------------------------------------------------------------
// t6: a waker whose clone touches the driver
// ---------------------------------------------------------------------------

/// A waker's data: it reads the driver's timer count whenever the waker is
/// cloned, woken or dropped (a metrics hook, say).
struct Meter {
    handle: Handle,
    clones: AtomicUsize,
    wakes: AtomicUsize,
}

static METER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(meter_clone, meter_wake, meter_wake_by_ref, meter_drop);

fn meter_waker(meter: &Arc<Meter>) -> Waker {
    let data = Arc::into_raw(meter.clone()).cast::<()>();
    // SAFETY: `data` comes from `Arc::into_raw` and the waker owns that
    // count; the vtable's functions keep the count balanced.
    unsafe { Waker::from_raw(RawWaker::new(data, &METER_VTABLE)) }
}

unsafe fn meter_clone(data: *const ()) -> RawWaker {
    // SAFETY: `data` is a live `Arc<Meter>` (the waker being cloned owns a
    // count).
    let meter = unsafe { &*data.cast::<Meter>() };
    meter.clones.fetch_add(1, SeqCst);
    let _ = meter.handle.pending_timers();
    // SAFETY: as above; the new waker owns the new count.
    unsafe { Arc::increment_strong_count(data.cast::<Meter>()) };
    RawWaker::new(data, &METER_VTABLE)
}

unsafe fn meter_wake(data: *const ()) {
    // SAFETY: the waker being consumed owns a count of a live `Arc<Meter>`.
    unsafe {
        meter_wake_by_ref(data);
        meter_drop(data);
    }
}

unsafe fn meter_wake_by_ref(data: *const ()) {
    // SAFETY: `data` is a live `Arc<Meter>`.
    let meter = unsafe { &*data.cast::<Meter>() };
    meter.wakes.fetch_add(1, SeqCst);
    let _ = meter.handle.pending_timers();
}

unsafe fn meter_drop(data: *const ()) {
    // SAFETY: `data` is a live `Arc<Meter>` until the count is released.
    let meter = unsafe { &*data.cast::<Meter>() };
    let _ = meter.handle.pending_timers();
    // SAFETY: releases the count the dropped waker owned.
    unsafe { Arc::decrement_strong_count(data.cast::<Meter>()) };
}

/// A sleep polled with a waker whose clone locks the driver: on its first
/// registration, when the waker is replaced (by another task's, and back),
/// when it fires, is reset to the past, and is dropped.
#[test]
fn t6_a_waker_whose_clone_touches_the_driver_does_not_deadlock() {
    let (step_tx, step_rx) = mpsc::channel::<&'static str>();
    let scenario = thread::spawn(move || {
        let driver = paused_driver();
        let _entered = driver.handle().enter();
        let meter = |handle: &Handle| {
            Arc::new(Meter {
                handle: handle.clone(),
                clones: AtomicUsize::new(0),
                wakes: AtomicUsize::new(0),
            })
        };
        let a = meter(driver.handle());
        let b = meter(driver.handle());
        let (waker_a, waker_b) = (meter_waker(&a), meter_waker(&b));

        let mut sleep_ = Box::pin(sleep(Duration::from_secs(5)));
        assert!(poll_with(sleep_.as_mut(), &waker_a).is_pending());
        step_tx.send("first registration").unwrap();
        assert!(poll_noop(sleep_.as_mut()).is_pending());
        assert!(poll_with(sleep_.as_mut(), &waker_a).is_pending());
        step_tx.send("replacing a no-op waker").unwrap();
        assert!(poll_with(sleep_.as_mut(), &waker_b).is_pending());
        step_tx.send("replacing another metered waker").unwrap();
        assert!(a.clones.load(SeqCst) >= 2 && b.clones.load(SeqCst) >= 1);
        assert_eq!(driver.advance(Duration::from_secs(5)), 1);
        assert_eq!((a.wakes.load(SeqCst), b.wakes.load(SeqCst)), (0, 1));
        assert_eq!(poll_with(sleep_.as_mut(), &waker_b), Poll::Ready(()));
        step_tx.send("firing").unwrap();

        let mut reset = Box::pin(sleep(Duration::from_secs(5)));
        assert!(poll_with(reset.as_mut(), &waker_a).is_pending());
        reset.as_mut().reset(Instant::now());
        assert_eq!(a.wakes.load(SeqCst), 1);
        assert_eq!(poll_with(reset.as_mut(), &waker_a), Poll::Ready(()));
        step_tx.send("reset to the past").unwrap();

        let mut dropped = Box::pin(sleep(Duration::from_secs(5)));
        assert!(poll_with(dropped.as_mut(), &waker_a).is_pending());
        drop(dropped);
        assert_eq!(driver.handle().pending_timers(), 0);
        step_tx.send("drop").unwrap();
        drop((waker_a, waker_b, sleep_, reset));
        assert_eq!((Arc::strong_count(&a), Arc::strong_count(&b)), (1, 1));
        step_tx.send("done").unwrap();
    });

    let mut last = "start";
    while last != "done" {
        match step_rx.recv_timeout(HANG) {
            Ok(step) => last = step,
            Err(RecvTimeoutError::Timeout) => {
                panic!("deadlocked after step {last:?} (a waker clone locked the driver)")
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    if let Err(panic) = scenario.join() {
        std::panic::resume_unwind(panic);
    }
    assert_eq!(last, "done");
}

// ---------------------------------------------------------------------------
// t7: reset of a registered sleep to the past
// ---------------------------------------------------------------------------

/// Like tokio: the stored waker is woken (once), the next poll is Ready, and
/// nothing fires later.
#[test]
fn t7_reset_to_the_past_wakes_the_stored_waker_once() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    for past in [ms(0), ms(3), Duration::from_secs(1)] {
        let (counter, waker) = counting_waker();
        let mut sleep = Box::pin(sleep(Duration::from_secs(30)));
        assert!(poll_with(sleep.as_mut(), &waker).is_pending());
        let now = Instant::now();
        sleep.as_mut().reset(now.checked_sub(past).unwrap_or(now));
        assert_eq!(counter.wakes(), 1, "reset to now - {past:?}");
        assert!(sleep.is_elapsed());
        assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
        assert_eq!(driver.handle().pending_timers(), 0);
        assert_eq!(driver.advance(Duration::from_secs(30)), 0);
        assert_eq!(counter.wakes(), 1, "woken again after the reset");
        drop(sleep);
        drop(waker);
        assert_eq!(Arc::strong_count(&counter), 1);
    }
}

/// The same on the real clock, as in the reproducer.
#[test]
fn t7_reset_to_now_on_the_real_clock_wakes_once() {
    let driver = Driver::new();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();
    let mut sleep = Box::pin(sleep(Duration::from_secs(30)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    sleep.as_mut().reset(Instant::now());
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
    assert_eq!(driver.process(), 0);
    assert_eq!(counter.wakes(), 1);
}

// ---------------------------------------------------------------------------
// t8: unpark before park
// ---------------------------------------------------------------------------

#[test]
fn t8_unpark_before_park_makes_the_park_return_at_once() {
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

#[test]
fn t8_unpark_wakes_a_parked_driver() {
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
    recv(&parking_rx, "about to park");
    // Whether it is parked yet or not, the unpark must end this park.
    thread::sleep(ms(20));
    driver.unpark();
    let took = join_within("park(30s) after unpark()", parked);
    assert!(took < HANG, "park returned after {took:?}");
}

// ---------------------------------------------------------------------------
// t9: timers used from a thread-local destructor
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

#[test]
fn t9_timers_in_a_thread_local_destructor_do_not_abort() {
    if !isolated("t9_timers_in_a_thread_local_destructor_do_not_abort") {
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

// ---------------------------------------------------------------------------
// t10: what a dropped sleep waits for
// ---------------------------------------------------------------------------

/// Takes `lock`, giving up after twice [`HANG`] (so that a deadlock the test
/// reports still unwinds); returns whether it got it.
fn lock_patiently(lock: &Mutex<()>) -> bool {
    let start = StdInstant::now();
    while start.elapsed() < 2 * HANG {
        if lock.try_lock().is_ok() {
            return true;
        }
        thread::sleep(ms(1));
    }
    false
}

/// Batch [first, victim]: `first` blocks on a user lock that the thread
/// dropping the *victim's* sleep holds. That drop must not wait for `first`
/// (nor for the batch): it returns, and the victim's waker is never called.
#[test]
fn t10_dropping_another_sleep_of_the_batch_does_not_wait_for_it() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let user_lock = Arc::new(Mutex::new(()));
    let (in_first_tx, in_first_rx) = mpsc::channel();
    let first_got_lock = Arc::new(AtomicBool::new(false));
    let first = fn_waker({
        let user_lock = user_lock.clone();
        let first_got_lock = first_got_lock.clone();
        move || {
            let _ = in_first_tx.send(());
            first_got_lock.store(lock_patiently(&user_lock), SeqCst);
        }
    });
    let (victim, victim_waker) = counting_waker();
    let mut first_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(first_sleep.as_mut(), &first).is_pending());
    let mut victim_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(victim_sleep.as_mut(), &victim_waker).is_pending());
    drop((first, victim_waker));

    let (holding_tx, holding_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel();
    let dropper = thread::spawn({
        let user_lock = user_lock.clone();
        let victim = victim.clone();
        move || {
            let held = user_lock.lock().unwrap();
            holding_tx.send(()).unwrap();
            in_first_rx.recv_timeout(HANG).expect("first waker called");
            drop(victim_sleep); // `first` is blocked on `held` meanwhile
            let _ = done_tx.send(victim.wakes());
            drop(held);
        }
    });
    recv(&holding_rx, "the dropper holds the user lock");
    let firing = thread::spawn({
        let driver = driver.clone();
        move || driver.advance(ms(10))
    });
    let wakes_at_drop = match done_rx.recv_timeout(HANG) {
        Ok(wakes) => wakes,
        Err(_) => panic!(
            "dropping a sleep whose waker is not being called blocked on another waker \
             of its batch (deadlock with a user lock)"
        ),
    };
    join_within("the dropper", dropper);
    assert_eq!(join_within("the firing thread", firing), 1);
    assert!(first_got_lock.load(SeqCst));
    assert_eq!(wakes_at_drop, 0);
    assert_eq!(victim.wakes(), 0, "woken after its sleep's drop returned");
}

/// Batch [own, later]: the sleep of `own` is dropped on another thread while
/// `own` is being called, so the drop waits. It must wait only while its own
/// waker is being called: once `own` returns, the drop returns, even though
/// `later` (the rest of the batch) blocks on a user lock the dropping thread
/// holds.
///
/// Stricter than what `src/driver/batch.rs` documents today ("it waits for
/// the batch to end"): waiting past its own waker is what deadlocks here.
#[test]
fn t10_a_dropper_waits_only_while_its_own_waker_is_called() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let user_lock = Arc::new(Mutex::new(()));
    let (in_own_tx, in_own_rx) = mpsc::channel();
    let (dropping_tx, dropping_rx) = mpsc::channel::<()>();
    let dropping_rx = Mutex::new(dropping_rx);
    let own_returning = Arc::new(AtomicBool::new(false));
    let own = fn_waker({
        let own_returning = own_returning.clone();
        move || {
            let _ = in_own_tx.send(());
            let _ = dropping_rx.lock().unwrap().recv_timeout(HANG);
            // Give the dropper time to block in its drop.
            thread::sleep(ms(50));
            own_returning.store(true, SeqCst);
        }
    });
    let later_got_lock = Arc::new(AtomicBool::new(false));
    let later = fn_waker({
        let user_lock = user_lock.clone();
        let later_got_lock = later_got_lock.clone();
        move || later_got_lock.store(lock_patiently(&user_lock), SeqCst)
    });
    let mut own_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(own_sleep.as_mut(), &own).is_pending());
    let mut later_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(later_sleep.as_mut(), &later).is_pending());
    drop((own, later));

    let firing = thread::spawn({
        let driver = driver.clone();
        move || driver.advance(ms(10))
    });
    recv(&in_own_rx, "own waker called");
    let (done_tx, done_rx) = mpsc::channel();
    let dropper = thread::spawn({
        let user_lock = user_lock.clone();
        let own_returning = own_returning.clone();
        move || {
            let held = user_lock.lock().unwrap();
            dropping_tx.send(()).unwrap();
            drop(own_sleep);
            let _ = done_tx.send(own_returning.load(SeqCst));
            drop(held);
        }
    });
    let own_done_at_drop = match done_rx.recv_timeout(HANG) {
        Ok(done) => done,
        Err(_) => panic!(
            "the drop still waited {HANG:?} after its own waker returned: it waits for the \
             whole batch, and a later waker of the batch needs a lock the dropper holds"
        ),
    };
    assert!(
        own_done_at_drop,
        "the drop returned while its own waker was still running"
    );
    join_within("the dropper", dropper);
    assert_eq!(join_within("the firing thread", firing), 2);
    assert!(later_got_lock.load(SeqCst));
    assert_eq!(poll_noop(later_sleep.as_mut()), Poll::Ready(()));
}

/// Dropping a sleep from inside its own waker (on the firing thread) does
/// not wait, and nor does dropping a later sleep of the batch from there.
#[test]
fn t10_a_waker_drops_its_own_and_a_later_sleep_without_waiting() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let own_slot: Slot = Arc::default();
    let later_slot: Slot = Arc::default();
    let (later, later_waker) = counting_waker();
    let own = fn_waker({
        let own_slot = own_slot.clone();
        let later_slot = later_slot.clone();
        move || {
            drop(own_slot.lock().unwrap().take());
            drop(later_slot.lock().unwrap().take());
        }
    });
    let mut own_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(own_sleep.as_mut(), &own).is_pending());
    let mut later_sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(later_sleep.as_mut(), &later_waker).is_pending());
    *own_slot.lock().unwrap() = Some(own_sleep);
    *later_slot.lock().unwrap() = Some(later_sleep);
    drop((own, later_waker));

    let fired = within("a waker dropping sleeps of its own batch", {
        let driver = driver.clone();
        move || driver.advance(ms(10))
    });
    assert_eq!(fired, 1);
    assert!(own_slot.lock().unwrap().is_none() && later_slot.lock().unwrap().is_none());
    assert_eq!(later.wakes(), 0);
}
