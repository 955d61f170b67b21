//! `Sleep::reset`: before and after fire, to the past (the stored waker is
//! woken once, the next poll is Ready), to later and earlier; the
//! registration and its waker are kept; an idle timeout pushed back again
//! and again fires once, at its last deadline.
//!
//! The tests run on a paused runtime (`#[lawn_rt::test(start_paused =
//! true)]`): the clock moves only by `time::advance` (checked poll by poll,
//! with a counting waker) or by auto-advance when a reset sleep is awaited,
//! which then completes exactly at its new deadline. The last two use a
//! bare driver, paused and moved by hand, or on the real clock.

mod common;

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use common::units::ms;
use common::{
    advance_and_count, counting_waker, paused_driver, pending_timers, poll_noop, poll_with,
};
use lawn_rt::driver::Driver;
use lawn_rt::time::{sleep, Duration, Instant};

// ---------------------------------------------------------------------------
// reset
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn reset_before_fire_to_later() {
    let (counter, waker) = counting_waker();

    let start = Instant::now();
    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    sleep.as_mut().reset(start + ms(25));
    assert_eq!(sleep.deadline(), start + ms(25));
    assert_eq!(pending_timers(), 1, "reset re-files, not adds");

    // Nothing at the old deadline.
    assert_eq!(advance_and_count(ms(10)).await, 0);
    assert_eq!(counter.wakes(), 0);
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());

    assert_eq!(advance_and_count(ms(14)).await, 0);
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(1)).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));

    // Awaited: it completes exactly at the new deadline.
    let start = Instant::now();
    let mut awaited = pin!(lawn_rt::time::sleep(ms(10)));
    assert!(poll_noop(awaited.as_mut()).is_pending());
    awaited.as_mut().reset(start + ms(25));
    awaited.await;
    assert_eq!(Instant::now(), start + ms(25));
}

#[lawn_rt::test(start_paused = true)]
async fn reset_before_fire_to_earlier() {
    let (counter, waker) = counting_waker();

    let start = Instant::now();
    let mut sleep = pin!(sleep(ms(30)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    sleep.as_mut().reset(start + ms(5));
    assert_eq!(advance_and_count(ms(4)).await, 0);
    assert_eq!(advance_and_count(ms(1)).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
    // Nothing left at the old deadline.
    assert_eq!(advance_and_count(ms(30)).await, 0);
    assert_eq!(counter.wakes(), 1);

    // Awaited: it completes at the new, earlier deadline.
    let start = Instant::now();
    let mut awaited = pin!(lawn_rt::time::sleep(ms(30)));
    assert!(poll_noop(awaited.as_mut()).is_pending());
    awaited.as_mut().reset(start + ms(5));
    awaited.await;
    assert_eq!(Instant::now(), start + ms(5));
    assert_eq!(pending_timers(), 0);
}

#[lawn_rt::test(start_paused = true)]
async fn reset_later_then_earlier_then_later() {
    let (counter, waker) = counting_waker();
    let start = Instant::now();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    for at in [40, 3, 20, 15] {
        sleep.as_mut().reset(start + ms(at));
    }
    assert_eq!(pending_timers(), 1);
    assert_eq!(advance_and_count(ms(14)).await, 0);
    assert_eq!(advance_and_count(ms(1)).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));

    // Awaited: the last deadline wins, exactly.
    let start = Instant::now();
    let mut awaited = pin!(lawn_rt::time::sleep(ms(10)));
    assert!(poll_noop(awaited.as_mut()).is_pending());
    for at in [40, 3, 20, 15] {
        awaited.as_mut().reset(start + ms(at));
    }
    awaited.await;
    assert_eq!(Instant::now(), start + ms(15));
}

#[lawn_rt::test(start_paused = true)]
async fn reset_after_fire_waits_again() {
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
    assert!(sleep.is_elapsed());

    sleep.as_mut().reset(Instant::now() + ms(10));
    assert!(!sleep.is_elapsed());
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(pending_timers(), 1);
    assert_eq!(advance_and_count(ms(9)).await, 0);
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(1)).await, 1);
    assert_eq!(counter.wakes(), 2);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));

    // Awaited, completed, reset and awaited again: exactly one period each
    // time (the pattern of a periodic timer built on one `Sleep`).
    let start = Instant::now();
    let mut periodic = pin!(lawn_rt::time::sleep(ms(10)));
    for n in 1..=5 {
        periodic.as_mut().await;
        assert_eq!(Instant::now(), start + ms(10) * n);
        let next = periodic.deadline() + ms(10);
        periodic.as_mut().reset(next);
    }
}

/// Fired (the waker was called) but not yet polled, then pushed back: the
/// next poll is pending and the sleep fires again at the new deadline.
#[lawn_rt::test(start_paused = true)]
async fn reset_after_fire_before_poll_waits_again() {
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(counter.wakes(), 1);

    sleep.as_mut().reset(Instant::now() + ms(10));
    assert!(!sleep.is_elapsed());
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(counter.wakes(), 2);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));

    // The same, then awaited: it waits out the whole new deadline.
    let fired_at = Instant::now();
    let mut awaited = pin!(lawn_rt::time::sleep(ms(10)));
    assert!(poll_with(awaited.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    awaited.as_mut().reset(Instant::now() + ms(10));
    awaited.await;
    assert_eq!(Instant::now(), fired_at + ms(20));
}

#[lawn_rt::test(start_paused = true)]
async fn reset_to_the_past_is_ready_on_the_next_poll() {
    let (counter, waker) = counting_waker();
    let t0 = Instant::now();

    // Registered, then reset to now: ready without the clock moving.
    let mut registered = pin!(sleep(ms(10)));
    assert!(poll_with(registered.as_mut(), &waker).is_pending());
    registered.as_mut().reset(Instant::now());
    assert_eq!(poll_with(registered.as_mut(), &waker), Poll::Ready(()));
    assert_eq!(pending_timers(), 0);

    // Registered, then reset to well before now.
    let mut registered = pin!(sleep(ms(10)));
    assert!(poll_with(registered.as_mut(), &waker).is_pending());
    registered
        .as_mut()
        .reset(Instant::now() - Duration::from_secs(5));
    assert_eq!(poll_with(registered.as_mut(), &waker), Poll::Ready(()));
    assert_eq!(pending_timers(), 0);

    // Never polled, then reset to the past.
    let mut unpolled = pin!(sleep(ms(10)));
    unpolled.as_mut().reset(Instant::now() - ms(1));
    assert_eq!(poll_with(unpolled.as_mut(), &waker), Poll::Ready(()));

    // The two registered ones woke their waker when reset to the past (a
    // task awaiting them elsewhere must learn of it; tokio does the same),
    // the unpolled one had none; nothing fires later for any of them.
    assert_eq!(counter.wakes(), 2);
    assert_eq!(Instant::now(), t0, "the clock stood still throughout");
    assert_eq!(advance_and_count(ms(20)).await, 0);
    assert_eq!(counter.wakes(), 2);

    // Awaited after a reset to the past: completes with no time passing.
    let t1 = Instant::now();
    let mut awaited = pin!(lawn_rt::time::sleep(ms(10)));
    assert!(poll_noop(awaited.as_mut()).is_pending());
    awaited.as_mut().reset(t1 - ms(1));
    awaited.await;
    assert_eq!(Instant::now(), t1);
}

/// A reset registers a sleep that was never polled, as tokio's reset does
/// (its docs: a reset re-registers the sleep): it is filed at once, and
/// its first poll stores the task's waker in the same registration, which
/// fires at the new deadline. Unpolled, it fires all the same.
#[lawn_rt::test(start_paused = true)]
async fn a_reset_registers_an_unpolled_sleep_as_tokio_does() {
    let start = Instant::now();
    let mut sleep = pin!(sleep(ms(10)));
    sleep.as_mut().reset(Instant::now() + ms(20));
    assert_eq!(pending_timers(), 1);
    let (counter, waker) = counting_waker();
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Pending);
    assert_eq!(pending_timers(), 1);
    assert_eq!(advance_and_count(ms(10)).await, 0);
    assert_eq!(counter.wakes(), 0);
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(Instant::now(), start + ms(20));
    assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));

    // Never polled, reset, never polled again: it fires unpolled.
    let mut unpolled = pin!(lawn_rt::time::sleep(ms(10)));
    unpolled.as_mut().reset(Instant::now() + ms(5));
    assert!(!unpolled.is_elapsed());
    assert_eq!(advance_and_count(ms(5)).await, 1);
    assert!(unpolled.is_elapsed());

    // Reset before its first poll, then awaited: the new deadline, exactly.
    let start = Instant::now();
    let mut awaited = pin!(lawn_rt::time::sleep(ms(10)));
    awaited.as_mut().reset(start + ms(20));
    awaited.await;
    assert_eq!(Instant::now(), start + ms(20));
}

#[lawn_rt::test(start_paused = true)]
async fn waker_is_kept_across_reset() {
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    // Reset to later and to earlier without polling in between.
    sleep.as_mut().reset(Instant::now() + ms(50));
    sleep.as_mut().reset(Instant::now() + ms(20));
    assert_eq!(advance_and_count(ms(20)).await, 1);
    assert_eq!(
        counter.wakes(),
        1,
        "the waker stored before reset must be woken"
    );

    // A task awaiting a sleep that another task resets is woken at the new
    // deadline: the reset keeps the awaiting task's waker.
    let start = Instant::now();
    let shared = std::sync::Arc::new(std::sync::Mutex::new(Box::pin(lawn_rt::time::sleep(ms(
        10,
    )))));
    let waiter = lawn_rt::spawn({
        let shared = shared.clone();
        async move {
            std::future::poll_fn(|cx| shared.lock().unwrap().as_mut().poll(cx)).await;
            Instant::now()
        }
    });
    lawn_rt::task::yield_now().await; // the waiter registers
    shared.lock().unwrap().as_mut().reset(start + ms(50));
    shared.lock().unwrap().as_mut().reset(start + ms(20));
    assert_eq!(waiter.await.unwrap(), start + ms(20));
}

// ---------------------------------------------------------------------------
// to the past, on a bare driver
// ---------------------------------------------------------------------------

/// A registered sleep reset to now or to the past (on a paused bare
/// driver), as in tokio: the stored waker is woken at once (once), the
/// sleep is elapsed, the next poll is Ready, the registration is gone,
/// nothing fires later and the waker is released.
#[test]
fn a_reset_to_the_past_wakes_the_stored_waker_once_and_completes_on_the_next_poll() {
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

/// The same on a bare driver on the real clock: a reset to now wakes the
/// stored waker once, the next poll is Ready, and nothing fires later.
#[test]
fn a_reset_to_now_on_the_real_clock_wakes_the_stored_waker_once() {
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

/// An idle timeout pushed back on every read: most resets extend the filed
/// timer where it stands, one every ~25 ms moves it (its old place would be
/// less than half the TTL ahead; the Lawn's "Resets"), and the driver
/// files it again when an old place comes due, without waking the task.
#[lawn_rt::test(start_paused = true)]
async fn an_idle_timeout_pushed_back_often_fires_once_at_its_last_deadline() {
    let (counter, waker) = counting_waker();
    let start = Instant::now();
    let mut idle = pin!(sleep(ms(50)));
    assert!(poll_with(idle.as_mut(), &waker).is_pending());
    // A read every millisecond for 40 ms, each pushing the deadline back.
    for _ in 0..40 {
        assert_eq!(advance_and_count(ms(1)).await, 0);
        idle.as_mut().reset(Instant::now() + ms(50));
        assert!(poll_with(idle.as_mut(), &waker).is_pending());
    }
    assert_eq!(idle.deadline(), start + ms(90));
    assert_eq!(pending_timers(), 1);
    // Past every earlier deadline, the first at 50 ms: nothing fires, and
    // the task is not woken.
    assert_eq!(advance_and_count(ms(10)).await, 0);
    assert_eq!(counter.wakes(), 0);
    assert_eq!(advance_and_count(ms(39)).await, 0);
    assert_eq!(counter.wakes(), 0);
    assert!(poll_with(idle.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(1)).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(idle.as_mut(), &waker), Poll::Ready(()));
}
