//! The driver's expiry batches: due wakers are taken out under the
//! driver's lock, 32 at a time, and called after it is released, so a
//! waker may use the driver. What that allows and what it must not break:
//! a sleep whose waker is in the batch being woken, then polled, reset or
//! dropped (on another thread, or by an earlier waker of the batch), is
//! never woken after its drop returned; a drop waits only while its own
//! waker is being called, never for the rest of the batch (no deadlock
//! with a lock a later waker needs); `advance` and `process_at` nested in a
//! waker fire nothing; a panicking waker does not stop the others of its
//! batch; a waker whose clone, wake and drop use the driver does not
//! deadlock it.
//!
//! On a paused bare driver, moved by hand. Threads are ordered with
//! channels, never with sleeps: where a test sleeps, the sleep only makes a
//! regression more likely to show, and the test passes whatever the timing
//! when the library is right. Anything that could deadlock runs on a thread
//! watched with a timeout ([`watchdog`], [`join_within`], [`recv_within`]),
//! so it fails rather than hangs.

mod common;

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::task::{Poll, RawWaker, RawWakerVTable, Waker};
use std::thread;
use std::time::Instant as StdInstant;

use common::units::ms;
use common::{
    counting_waker, fn_waker, join_within, paused_driver, poll_noop, poll_with, recv_within,
    watchdog,
};
use lawn_rt::driver::Handle;
use lawn_rt::time::{sleep, Duration, Instant, Sleep};

/// A generous bound for "did not hang": far above any expected latency.
const HANG: Duration = Duration::from_secs(5);

/// A sleep kept where a waker can reach it.
type Slot = Arc<Mutex<Option<Pin<Box<Sleep>>>>>;

// ---------------------------------------------------------------------------
// advance and process_at nested in a waker
// ---------------------------------------------------------------------------

/// A batch [first, victim] is being woken on another thread; `first`
/// calls `advance` from inside (a nested expiry): that returns 0, fires
/// nothing (the timer it makes due is fired later, not lost) and leaves the
/// batch alone. Meanwhile the victim's sleep is dropped on this thread: the
/// drop does not wait for the batch, and once it has returned the victim's
/// waker is never called (and is released).
#[test]
fn an_advance_nested_in_a_waker_fires_nothing_and_a_sleep_dropped_meanwhile_is_never_woken() {
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
    recv_within(&in_first_rx, HANG, "first waker called");
    assert_eq!(
        recv_within(&nested_rx, HANG, "nested advance returned"),
        0,
        "a nested advance from inside a waker fired timers"
    );
    drop(victim_sleep);
    let wakes_at_drop = victim.wakes();
    dropped_tx.send(()).unwrap();
    let fired = join_within("the firing thread", HANG, firing);

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
/// waits for that waker to return; an `advance` nested inside that waker
/// does not end the wait early (it is not the end of the batch), and the
/// rest of the batch is still woken.
#[test]
fn an_advance_nested_in_a_waker_does_not_release_a_drop_waiting_for_that_waker() {
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
    recv_within(&in_own_rx, HANG, "own waker called");
    let dropper = thread::spawn({
        let own_returning = own_returning.clone();
        move || {
            dropping_tx.send(()).unwrap();
            drop(own_sleep);
            own_returning.load(SeqCst)
        }
    });
    let waker_done_at_drop = join_within("the dropper", HANG, dropper);
    let fired = join_within("the firing thread", HANG, firing);

    assert_eq!(recv_within(&nested_rx, HANG, "nested advance returned"), 0);
    assert!(
        waker_done_at_drop,
        "the drop returned while its own waker was still running"
    );
    assert_eq!(fired, 2);
    assert_eq!(next.wakes(), 1, "the rest of the batch was not woken");
    assert_eq!(poll_noop(next_sleep.as_mut()), Poll::Ready(()));
}

/// `process_at` called from inside a waker (even an hour ahead) returns 0,
/// and the waker's own batch (41 timers, more than one batch) goes on: all
/// are woken.
#[test]
fn process_at_nested_in_a_waker_fires_nothing_and_the_batch_goes_on() {
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
// a sleep whose waker is in the batch being woken, then dropped
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

/// Batch [first, victim] being woken on another thread; `first` blocks
/// until told. This thread meanwhile does `then` to the victim's sleep
/// (whose waker is in the batch, not yet called) and drops it: its waker
/// is never called afterwards, and is released.
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
    recv_within(&in_first_rx, HANG, "first waker called");
    then.apply(victim_sleep.as_mut());
    drop(victim_sleep);
    let wakes_at_drop = victim.wakes();
    go_tx.send(()).unwrap();
    join_within("the firing thread", HANG, firing);

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
fn a_sleep_being_woken_polled_ready_then_dropped_on_another_thread_is_never_woken_after() {
    handed_out_then_dropped_on_another_thread(Then::PollToReady);
}

#[test]
fn a_sleep_being_woken_reset_later_then_dropped_on_another_thread_is_never_woken_after() {
    handed_out_then_dropped_on_another_thread(Then::ResetLater);
}

#[test]
fn a_sleep_being_woken_reset_to_the_past_then_dropped_on_another_thread_is_never_woken_after() {
    handed_out_then_dropped_on_another_thread(Then::ResetToPast);
}

#[test]
fn a_sleep_being_woken_reset_later_and_repolled_then_dropped_on_another_thread_is_never_woken_after(
) {
    handed_out_then_dropped_on_another_thread(Then::ResetLaterAndRepoll);
}

/// The same on one thread: waker `first`, called first in the batch, does
/// `then` to the victim's sleep (fired in the same batch, not yet woken) and
/// drops it: the victim's waker is never called, and is released.
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
fn a_sleep_being_woken_polled_ready_then_dropped_by_an_earlier_waker_is_never_woken_after() {
    handed_out_then_dropped_by_an_earlier_waker(Then::PollToReady);
}

#[test]
fn a_sleep_being_woken_reset_later_then_dropped_by_an_earlier_waker_is_never_woken_after() {
    handed_out_then_dropped_by_an_earlier_waker(Then::ResetLater);
}

#[test]
fn a_sleep_being_woken_reset_to_the_past_then_dropped_by_an_earlier_waker_is_never_woken_after() {
    handed_out_then_dropped_by_an_earlier_waker(Then::ResetToPast);
}

#[test]
fn a_sleep_being_woken_reset_later_and_repolled_then_dropped_by_an_earlier_waker_is_never_woken_after(
) {
    handed_out_then_dropped_by_an_earlier_waker(Then::ResetLaterAndRepoll);
}

// ---------------------------------------------------------------------------
// what a dropped sleep waits for
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
/// dropping the *victim's* sleep holds. That drop does not wait for `first`
/// (nor for the batch), so there is no deadlock: it returns, and the
/// victim's waker is never called.
#[test]
fn dropping_a_sleep_whose_waker_is_not_being_called_does_not_wait_for_its_batch() {
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
    recv_within(&holding_rx, HANG, "the dropper holds the user lock");
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
    join_within("the dropper", HANG, dropper);
    assert_eq!(join_within("the firing thread", HANG, firing), 1);
    assert!(first_got_lock.load(SeqCst));
    assert_eq!(wakes_at_drop, 0);
    assert_eq!(victim.wakes(), 0, "woken after its sleep's drop returned");
}

/// Batch [own, later]: the sleep of `own` is dropped on another thread while
/// `own` is being called, so the drop waits. It waits only while its own
/// waker is being called: once `own` returns, the drop returns, even though
/// `later` (the rest of the batch) blocks on a user lock the dropping thread
/// holds (waiting for the whole batch would deadlock here).
#[test]
fn dropping_a_sleep_whose_waker_is_being_called_waits_only_for_that_waker() {
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
    recv_within(&in_own_rx, HANG, "own waker called");
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
    join_within("the dropper", HANG, dropper);
    assert_eq!(join_within("the firing thread", HANG, firing), 2);
    assert!(later_got_lock.load(SeqCst));
    assert_eq!(poll_noop(later_sleep.as_mut()), Poll::Ready(()));
}

/// Dropping a sleep from inside its own waker (on the firing thread) does
/// not wait, and nor does dropping a later sleep of the batch from there:
/// the later sleep's waker is never called.
#[test]
fn a_waker_drops_its_own_and_a_later_sleep_of_its_batch_without_waiting() {
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

    let fired = watchdog("a waker dropping sleeps of its own batch", HANG, {
        let driver = driver.clone();
        move || driver.advance(ms(10))
    });
    assert_eq!(fired, 1);
    assert!(own_slot.lock().unwrap().is_none() && later_slot.lock().unwrap().is_none());
    assert_eq!(later.wakes(), 0);
}

// ---------------------------------------------------------------------------
// a waker that panics
// ---------------------------------------------------------------------------

/// 40 timers due together (more than one batch); the first and the sixth
/// wakers panic. `advance` resumes the first panic, every other waker of the
/// batch is still woken, and the driver goes on working (timers beyond the
/// batch fire on the next call at the latest).
#[test]
fn a_panicking_waker_does_not_stop_the_others_of_its_batch() {
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
    assert_eq!(common::panic_message(&*payload), "first waker panics");
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
    watchdog("dropping a sleep after the panic", HANG, move || {
        drop(dropped)
    });
    assert_eq!(driver.advance(ms(5)), 1);
    assert_eq!(poll_noop(after.as_mut()), Poll::Ready(()));
}

// ---------------------------------------------------------------------------
// a waker whose clone, wake and drop use the driver
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

/// A sleep polled with a waker whose clone, wake and drop call into the
/// driver (its clones lock it): no deadlock on the sleep's first
/// registration, when the waker is replaced (by another task's, and back),
/// when it fires, when it is reset to the past and when it is dropped; the
/// right waker is woken, and both are released at the end.
#[test]
fn a_waker_whose_clone_wake_and_drop_use_the_driver_does_not_deadlock_it() {
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
