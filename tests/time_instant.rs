//! `lawn_rt::time::Instant`: the std-like API, saturating arithmetic, and
//! the clock of an entered (paused) bare driver. The paused clock of a
//! runtime is `time_pause.rs`'s subject; the one test here about awaiting
//! runs on it.

mod common;

use std::pin::pin;
use std::task::Poll;
use std::thread;

use common::units::ms;
use common::{paused_driver, poll_noop};
use lawn_rt::time;
use lawn_rt::time::{sleep, Duration, Instant};

// ---------------------------------------------------------------------------
// Instant
// ---------------------------------------------------------------------------

#[test]
fn instant_conversions() {
    let std_now = std::time::Instant::now();
    let now = Instant::from_std(std_now);
    assert_eq!(now.into_std(), std_now);
    assert_eq!(Instant::from(std_now), now);
    assert_eq!(std::time::Instant::from(now), std_now);
    assert_eq!(format!("{now:?}"), format!("{std_now:?}"));
}

#[test]
fn instant_arithmetic() {
    let a = Instant::now();
    let b = a + Duration::from_secs(2);

    assert_eq!(b.duration_since(a), Duration::from_secs(2));
    assert_eq!(
        a.duration_since(b),
        Duration::ZERO,
        "duration_since saturates"
    );
    assert_eq!(b.checked_duration_since(a), Some(Duration::from_secs(2)));
    assert_eq!(a.checked_duration_since(b), None);
    assert_eq!(b.saturating_duration_since(a), Duration::from_secs(2));
    assert_eq!(a.saturating_duration_since(b), Duration::ZERO);

    assert_eq!(b - a, Duration::from_secs(2));
    assert_eq!(a - b, Duration::ZERO, "Instant - Instant saturates");

    assert_eq!(a.checked_add(Duration::from_secs(2)), Some(b));
    assert_eq!(b.checked_sub(Duration::from_secs(2)), Some(a));
    assert_eq!(a.checked_sub(Duration::MAX), None);
    assert_eq!(b - Duration::from_secs(2), a);

    let mut c = a;
    c += Duration::from_secs(2);
    assert_eq!(c, b);
    c -= Duration::from_secs(2);
    assert_eq!(c, a);
}

#[test]
#[should_panic(expected = "checked_sub")]
fn instant_minus_too_much_panics_with_a_hint() {
    let _ = Instant::now() - Duration::MAX;
}

#[test]
fn instant_ord_and_hash() {
    use std::collections::{BTreeSet, HashSet};

    let a = Instant::now();
    let b = a + ms(1);
    let c = b + ms(1);
    assert!(a < b && b < c && c > a);
    assert_eq!(a.max(c), c);
    assert_eq!(a.cmp(&a), std::cmp::Ordering::Equal);

    let set: HashSet<Instant> = [a, b, a, c, b].into_iter().collect();
    assert_eq!(set.len(), 3);
    let sorted: Vec<_> = [c, a, b]
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(sorted, vec![a, b, c]);
}

#[test]
fn instant_now_is_monotonic_and_elapsed_grows() {
    let a = Instant::now();
    let b = Instant::now();
    assert!(b >= a);
    assert!(a.elapsed() >= b - a);
    assert_eq!((a + Duration::from_secs(3600)).elapsed(), Duration::ZERO);
}

#[test]
fn instant_now_follows_a_paused_entered_driver() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();

    let t0 = Instant::now();
    assert_eq!(t0.into_std(), driver.handle().now());
    assert_eq!(Instant::now(), t0, "a paused clock stands still");
    driver.advance(Duration::from_secs(3600));
    assert_eq!(Instant::now() - t0, Duration::from_secs(3600));
    assert_eq!(t0.elapsed(), Duration::from_secs(3600));

    // Other threads, with no driver entered, read the real clock.
    let elsewhere = thread::spawn(Instant::now).join().unwrap();
    assert!(elsewhere < Instant::now());

    // Leaving the driver gives the real clock back; nesting restores.
    let other = paused_driver();
    {
        let _inner = other.handle().enter();
        other.advance(Duration::from_secs(7200));
        assert!(Instant::now() - t0 >= Duration::from_secs(7000));
    }
    assert_eq!(Instant::now() - t0, Duration::from_secs(3600));
}

#[test]
fn sleep_binds_to_the_driver_entered_at_creation() {
    let a = paused_driver();
    let b = paused_driver();
    let mut sleep = {
        let _entered = a.handle().enter();
        Box::pin(sleep(ms(5)))
    };
    // Polled while another driver is entered: still registers with `a`.
    let _entered = b.handle().enter();
    assert!(poll_noop(sleep.as_mut()).is_pending());
    assert_eq!(a.handle().pending_timers(), 1);
    assert_eq!(b.handle().pending_timers(), 0);
    assert_eq!(b.advance(ms(5)), 0);
    assert_eq!(a.advance(ms(5)), 1);
    assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
}

#[lawn_rt::test(start_paused = true)]
async fn pinned_sleep_can_be_awaited_by_mutable_reference_and_reused() {
    let t0 = Instant::now();
    let mut sleep = Box::pin(sleep(ms(3)));
    {
        // `Pin<&mut Sleep>` is itself a future: poll it, then drop it.
        let by_ref = sleep.as_mut();
        let mut by_ref = pin!(by_ref);
        assert!(poll_noop(by_ref.as_mut()).is_pending());
    }
    time::advance(ms(3)).await;
    assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
    sleep.as_mut().reset(Instant::now() + ms(3));
    assert!(poll_noop(sleep.as_mut()).is_pending());
    time::advance(ms(3)).await;
    assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
    assert!(format!("{sleep:?}").contains("Sleep"));

    // Awaited by reference, reset, awaited again: each time exactly at its
    // deadline, and the sleep is still there to look at afterwards.
    sleep.as_mut().reset(Instant::now() + ms(3));
    sleep.as_mut().await;
    assert_eq!(Instant::now(), t0 + ms(9));
    assert!(sleep.is_elapsed());
    sleep.as_mut().reset(Instant::now() + ms(4));
    (&mut sleep).await;
    assert_eq!(Instant::now(), t0 + ms(13));
    assert_eq!(sleep.deadline(), t0 + ms(13));
}
