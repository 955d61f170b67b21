//! `Sleep::reset`: before and after fire, to the past, to later and earlier;
//! the registration and its waker are kept.

mod common;

use std::pin::pin;
use std::task::Poll;

use common::{counting_waker, paused_driver, poll_noop, poll_with};
use lawn_rt::time::{sleep, Duration, Instant};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

// ---------------------------------------------------------------------------
// reset
// ---------------------------------------------------------------------------

#[test]
fn reset_before_fire_to_later() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    let start = Instant::now();
    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    sleep.as_mut().reset(start + ms(25));
    assert_eq!(sleep.deadline(), start + ms(25));
    assert_eq!(
        driver.handle().pending_timers(),
        1,
        "reset re-files, not adds"
    );

    // Nothing at the old deadline.
    assert_eq!(driver.advance(ms(10)), 0);
    assert_eq!(counter.wakes(), 0);
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());

    assert_eq!(driver.advance(ms(14)), 0);
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(driver.advance(ms(1)), 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
}

#[test]
fn reset_before_fire_to_earlier() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    let start = Instant::now();
    let mut sleep = pin!(sleep(ms(30)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    sleep.as_mut().reset(start + ms(5));
    assert_eq!(driver.advance(ms(4)), 0);
    assert_eq!(driver.advance(ms(1)), 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
    // Nothing left at the old deadline.
    assert_eq!(driver.advance(ms(30)), 0);
    assert_eq!(counter.wakes(), 1);
}

#[test]
fn reset_later_then_earlier_then_later() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();
    let start = Instant::now();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    for at in [40, 3, 20, 15] {
        sleep.as_mut().reset(start + ms(at));
    }
    assert_eq!(driver.handle().pending_timers(), 1);
    assert_eq!(driver.advance(ms(14)), 0);
    assert_eq!(driver.advance(ms(1)), 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
}

#[test]
fn reset_after_fire_waits_again() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(driver.advance(ms(10)), 1);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
    assert!(sleep.is_elapsed());

    sleep.as_mut().reset(Instant::now() + ms(10));
    assert!(!sleep.is_elapsed());
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(driver.handle().pending_timers(), 1);
    assert_eq!(driver.advance(ms(9)), 0);
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(driver.advance(ms(1)), 1);
    assert_eq!(counter.wakes(), 2);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
}

/// Fired (the waker was called) but not yet polled, then pushed back: the
/// next poll is pending and the sleep fires again at the new deadline.
#[test]
fn reset_after_fire_before_poll_waits_again() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(driver.advance(ms(10)), 1);
    assert_eq!(counter.wakes(), 1);

    sleep.as_mut().reset(Instant::now() + ms(10));
    assert!(!sleep.is_elapsed());
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(driver.advance(ms(10)), 1);
    assert_eq!(counter.wakes(), 2);
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
}

#[test]
fn reset_to_the_past_is_ready_on_the_next_poll() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    // Registered, then reset to now: ready without the clock moving.
    let mut registered = pin!(sleep(ms(10)));
    assert!(poll_with(registered.as_mut(), &waker).is_pending());
    registered.as_mut().reset(Instant::now());
    assert_eq!(poll_with(registered.as_mut(), &waker), Poll::Ready(()));
    assert_eq!(driver.handle().pending_timers(), 0);

    // Registered, then reset to well before now.
    let mut registered = pin!(sleep(ms(10)));
    assert!(poll_with(registered.as_mut(), &waker).is_pending());
    registered
        .as_mut()
        .reset(Instant::now() - Duration::from_secs(5));
    assert_eq!(poll_with(registered.as_mut(), &waker), Poll::Ready(()));
    assert_eq!(driver.handle().pending_timers(), 0);

    // Never polled, then reset to the past.
    let mut unpolled = pin!(sleep(ms(10)));
    unpolled.as_mut().reset(Instant::now() - ms(1));
    assert_eq!(poll_with(unpolled.as_mut(), &waker), Poll::Ready(()));

    // The two registered ones woke their waker when reset to the past (a
    // task awaiting them elsewhere must learn of it; tokio does the same),
    // the unpolled one had none; nothing fires later for any of them.
    assert_eq!(counter.wakes(), 2);
    assert_eq!(driver.advance(ms(20)), 0);
    assert_eq!(counter.wakes(), 2);
}

/// An unpolled sleep that is reset still registers only on its first poll.
#[test]
fn reset_of_an_unpolled_sleep_does_not_register() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut sleep = pin!(sleep(ms(10)));
    sleep.as_mut().reset(Instant::now() + ms(20));
    assert_eq!(driver.handle().pending_timers(), 0);
    assert!(poll_noop(sleep.as_mut()).is_pending());
    assert_eq!(driver.handle().pending_timers(), 1);
    assert_eq!(driver.advance(ms(10)), 0);
    assert_eq!(driver.advance(ms(10)), 1);
}

#[test]
fn waker_is_kept_across_reset() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    // Reset to later and to earlier without polling in between.
    sleep.as_mut().reset(Instant::now() + ms(50));
    sleep.as_mut().reset(Instant::now() + ms(20));
    assert_eq!(driver.advance(ms(20)), 1);
    assert_eq!(
        counter.wakes(),
        1,
        "the waker stored before reset must be woken"
    );
}
