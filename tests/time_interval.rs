//! `lawn_rt::time::{interval, interval_at, Interval, MissedTickBehavior}`,
//! on a paused driver: advance the clock, then `poll_tick` with a no-op
//! waker. The catch-up rules are tokio's: a tick is missed when taken more
//! than 5 ms after it was due, and then
//! - `Burst`: next = due + period,
//! - `Delay`: next = now + period,
//! - `Skip`:  next = now + period - ((now - due) % period).

mod common;

use std::pin::pin;
use std::task::{Context, Poll, Waker};

use common::{counting_waker, paused_driver, poll_noop};
use futures::{Stream, StreamExt};
use lawn_rt::driver::Driver;
use lawn_rt::time::{interval, interval_at, Duration, Instant, Interval, MissedTickBehavior};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn poll_tick(interval: &mut Interval) -> Poll<Instant> {
    interval.poll_tick(&mut Context::from_waker(Waker::noop()))
}

/// Asserts the next tick is ready now and was due at `due`.
#[track_caller]
fn assert_tick(interval: &mut Interval, due: Instant) {
    assert_eq!(
        poll_tick(interval),
        Poll::Ready(due),
        "expected a tick due at {due:?}"
    );
}

#[track_caller]
fn assert_no_tick(interval: &mut Interval) {
    assert_eq!(poll_tick(interval), Poll::Pending, "expected no tick yet");
}

/// A paused, entered driver and the instant it stands at.
struct Paused {
    driver: Driver,
    t0: Instant,
}

impl Paused {
    fn at(&self, n: u64) -> Instant {
        self.t0 + ms(n)
    }
}

macro_rules! paused {
    ($p:ident) => {
        let driver = paused_driver();
        let handle = driver.handle().clone();
        let _entered = handle.enter();
        let $p = Paused {
            t0: Instant::now(),
            driver,
        };
    };
}

fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}

#[test]
fn interval_is_send_sync_unpin() {
    assert_send_sync_unpin::<Interval>();
}

#[test]
fn first_tick_is_immediate_then_every_period() {
    paused!(p);
    let mut every = interval(ms(10));
    assert_eq!(every.period(), ms(10));
    assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Burst);

    assert_tick(&mut every, p.at(0));
    assert_no_tick(&mut every);
    for n in 1..=5 {
        assert_eq!(p.driver.advance(ms(9)), 0);
        assert_no_tick(&mut every);
        assert_eq!(p.driver.advance(ms(1)), 1);
        assert_tick(&mut every, p.at(10 * n));
        assert_no_tick(&mut every);
    }
}

#[test]
fn interval_at_starts_at_start() {
    paused!(p);
    let mut every = interval_at(p.at(25), ms(10));
    assert_no_tick(&mut every);
    p.driver.advance(ms(24));
    assert_no_tick(&mut every);
    p.driver.advance(ms(1));
    assert_tick(&mut every, p.at(25));
    p.driver.advance(ms(10));
    assert_tick(&mut every, p.at(35));

    // A start in the past ticks at once, reporting that start.
    let mut past = interval_at(p.at(30), ms(10));
    assert_tick(&mut past, p.at(30));
    assert_no_tick(&mut past);
    p.driver.advance(ms(5));
    assert_tick(&mut past, p.at(40));
}

#[test]
fn the_tick_wakes_the_task() {
    paused!(p);
    let (counter, waker) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let mut every = interval(ms(10));
    assert!(every.poll_tick(&mut cx).is_ready());
    assert!(every.poll_tick(&mut cx).is_pending());
    assert_eq!(p.driver.advance(ms(10)), 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(every.poll_tick(&mut cx), Poll::Ready(p.at(10)));
}

/// A tick taken at most 5 ms late is not missed: the schedule stays.
#[test]
fn up_to_five_ms_late_is_not_missed() {
    for behavior in [
        MissedTickBehavior::Burst,
        MissedTickBehavior::Delay,
        MissedTickBehavior::Skip,
    ] {
        paused!(p);
        let mut every = interval(ms(10));
        every.set_missed_tick_behavior(behavior);
        assert_tick(&mut every, p.at(0));
        p.driver.advance(ms(15)); // the tick due at 10 is taken at 15
        assert_tick(&mut every, p.at(10));
        assert_no_tick(&mut every);
        p.driver.advance(ms(5));
        assert_tick(&mut every, p.at(20));
    }
}

#[test]
fn burst_catches_up_on_the_original_schedule() {
    paused!(p);
    let mut every = interval(ms(10));
    every.set_missed_tick_behavior(MissedTickBehavior::Burst);
    assert_tick(&mut every, p.at(0));

    p.driver.advance(ms(35)); // now = 35
    assert_tick(&mut every, p.at(10)); // missed: next = 10 + 10
    assert_tick(&mut every, p.at(20)); // missed: next = 20 + 10
    assert_tick(&mut every, p.at(30)); // 5 ms late: not missed, next = 40
    assert_no_tick(&mut every);
    p.driver.advance(ms(5));
    assert_tick(&mut every, p.at(40));
    p.driver.advance(ms(10));
    assert_tick(&mut every, p.at(50));
}

#[test]
fn delay_restarts_the_schedule_from_now() {
    paused!(p);
    let mut every = interval(ms(10));
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Delay);
    assert_tick(&mut every, p.at(0));

    p.driver.advance(ms(35)); // now = 35
    assert_tick(&mut every, p.at(10)); // missed: next = 35 + 10
    assert_no_tick(&mut every);
    p.driver.advance(ms(9)); // 44
    assert_no_tick(&mut every);
    p.driver.advance(ms(1)); // 45
    assert_tick(&mut every, p.at(45));
    p.driver.advance(ms(10));
    assert_tick(&mut every, p.at(55));

    // 6 ms late: missed, so now + period.
    p.driver.advance(ms(16)); // 71; due 65
    assert_tick(&mut every, p.at(65));
    p.driver.advance(ms(9)); // 80
    assert_no_tick(&mut every);
    p.driver.advance(ms(1)); // 81
    assert_tick(&mut every, p.at(81));
}

#[test]
fn skip_jumps_to_the_next_tick_on_the_schedule() {
    paused!(p);
    let mut every = interval(ms(10));
    every.set_missed_tick_behavior(MissedTickBehavior::Skip);
    assert_tick(&mut every, p.at(0));

    p.driver.advance(ms(35)); // now = 35
                              // missed: next = 35 + 10 - ((35 - 10) % 10) = 40
    assert_tick(&mut every, p.at(10));
    assert_no_tick(&mut every);
    p.driver.advance(ms(4)); // 39
    assert_no_tick(&mut every);
    p.driver.advance(ms(1)); // 40
    assert_tick(&mut every, p.at(40));

    // Late by an exact multiple of the period: 50 was due, now = 80;
    // next = 80 + 10 - (30 % 10) = 90.
    p.driver.advance(ms(40)); // 80
    assert_tick(&mut every, p.at(50));
    assert_no_tick(&mut every);
    p.driver.advance(ms(9));
    assert_no_tick(&mut every);
    p.driver.advance(ms(1)); // 90
    assert_tick(&mut every, p.at(90));
}

/// Skip with a period that does not divide the lateness: 7 ms period,
/// tick due at 7 taken at 30: next = 30 + 7 - (23 % 7) = 35.
#[test]
fn skip_with_an_uneven_period() {
    paused!(p);
    let mut every = interval(ms(7));
    every.set_missed_tick_behavior(MissedTickBehavior::Skip);
    assert_tick(&mut every, p.at(0));
    p.driver.advance(ms(30));
    assert_tick(&mut every, p.at(7));
    p.driver.advance(ms(4)); // 34
    assert_no_tick(&mut every);
    p.driver.advance(ms(1)); // 35
    assert_tick(&mut every, p.at(35));
    p.driver.advance(ms(7));
    assert_tick(&mut every, p.at(42));
}

#[test]
fn behavior_can_change_between_ticks() {
    paused!(p);
    let mut every = interval(ms(10));
    assert_tick(&mut every, p.at(0));
    p.driver.advance(ms(35));
    assert_tick(&mut every, p.at(10)); // Burst: next 20
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    assert_tick(&mut every, p.at(20)); // Delay: next 35 + 10
    p.driver.advance(ms(10));
    assert_tick(&mut every, p.at(45));
}

// ---------------------------------------------------------------------------
// reset*
// ---------------------------------------------------------------------------

#[test]
fn reset_restarts_one_period_from_now() {
    paused!(p);
    let mut every = interval(ms(10));
    assert_tick(&mut every, p.at(0));
    p.driver.advance(ms(3));
    every.reset();
    p.driver.advance(ms(7)); // 10: the old schedule's tick
    assert_no_tick(&mut every);
    p.driver.advance(ms(2)); // 12
    assert_no_tick(&mut every);
    p.driver.advance(ms(1)); // 13
    assert_tick(&mut every, p.at(13));
    p.driver.advance(ms(10));
    assert_tick(&mut every, p.at(23));
}

#[test]
fn reset_immediately_makes_the_next_tick_due_now() {
    paused!(p);
    let mut every = interval(Duration::from_secs(3600));
    assert_tick(&mut every, p.at(0));
    p.driver.advance(ms(4));
    every.reset_immediately();
    assert_tick(&mut every, p.at(4));
    assert_no_tick(&mut every);
    p.driver.advance(Duration::from_secs(3600));
    assert_tick(&mut every, p.at(4) + Duration::from_secs(3600));
}

#[test]
fn reset_after_and_reset_at() {
    paused!(p);
    let mut every = interval(ms(10));
    assert_tick(&mut every, p.at(0));

    p.driver.advance(ms(2));
    every.reset_after(ms(5)); // due 7
    p.driver.advance(ms(4));
    assert_no_tick(&mut every);
    p.driver.advance(ms(1));
    assert_tick(&mut every, p.at(7));

    every.reset_at(p.at(30));
    p.driver.advance(ms(10)); // 17: the schedule's 17 is gone
    assert_no_tick(&mut every);
    p.driver.advance(ms(13)); // 30
    assert_tick(&mut every, p.at(30));
    p.driver.advance(ms(10));
    assert_tick(&mut every, p.at(40));

    // reset_at a past instant: ticks at once, reporting that instant.
    every.reset_at(p.at(38));
    assert_tick(&mut every, p.at(38));
    p.driver.advance(ms(8)); // 48 == 38 + 10
    assert_tick(&mut every, p.at(48));

    // reset_after(Duration::MAX) neither panics nor overflows.
    every.reset_after(Duration::MAX);
    p.driver.advance(Duration::from_secs(365 * 86_400));
    assert_no_tick(&mut every);
}

#[test]
fn reset_before_the_first_tick() {
    paused!(p);
    let mut every = interval(ms(10));
    every.reset(); // the immediate first tick moves to 10
    assert_no_tick(&mut every);
    p.driver.advance(ms(10));
    assert_tick(&mut every, p.at(10));
}

// ---------------------------------------------------------------------------
// tick(), Stream, bad input, far future
// ---------------------------------------------------------------------------

#[test]
fn tick_future_is_cancel_safe() {
    paused!(p);
    let mut every = interval(ms(10));
    {
        let mut first = pin!(every.tick());
        assert_eq!(poll_noop(first.as_mut()), Poll::Ready(p.at(0)));
    }
    {
        // Dropped while pending: no tick is consumed.
        let mut second = pin!(every.tick());
        assert!(poll_noop(second.as_mut()).is_pending());
    }
    p.driver.advance(ms(10));
    let mut second = pin!(every.tick());
    assert_eq!(poll_noop(second.as_mut()), Poll::Ready(p.at(10)));
}

#[test]
fn interval_is_a_stream_of_ticks() {
    paused!(p);
    let mut every = interval(ms(10));
    let mut cx = Context::from_waker(Waker::noop());
    assert_eq!(every.poll_next_unpin(&mut cx), Poll::Ready(Some(p.at(0))));
    assert_eq!(every.poll_next_unpin(&mut cx), Poll::Pending);
    p.driver.advance(ms(10));
    assert_eq!(every.poll_next_unpin(&mut cx), Poll::Ready(Some(p.at(10))));
    assert_eq!(every.size_hint(), (0, None));

    // Stream combinators: three ticks with the clock moved in between.
    let mut taken = pin!(every.by_ref().take(2).collect::<Vec<_>>());
    assert!(poll_noop(taken.as_mut()).is_pending());
    p.driver.advance(ms(10));
    assert!(poll_noop(taken.as_mut()).is_pending());
    p.driver.advance(ms(10));
    assert_eq!(
        poll_noop(taken.as_mut()),
        Poll::Ready(vec![p.at(20), p.at(30)])
    );
}

#[test]
#[should_panic(expected = "`period` must be non-zero")]
fn interval_zero_period_panics() {
    let _ = interval(Duration::ZERO);
}

#[test]
#[should_panic(expected = "`period` must be non-zero")]
fn interval_at_zero_period_panics() {
    let _ = interval_at(Instant::now(), Duration::ZERO);
}

#[test]
fn interval_with_a_huge_period() {
    paused!(p);
    let mut every = interval(Duration::MAX);
    assert_tick(&mut every, p.at(0));
    assert_no_tick(&mut every);
    p.driver.advance(Duration::from_secs(10 * 365 * 86_400));
    assert_no_tick(&mut every);
}

#[test]
fn missed_tick_behavior_default_is_burst() {
    assert_eq!(MissedTickBehavior::default(), MissedTickBehavior::Burst);
    let mut every = interval(ms(1));
    for behavior in [
        MissedTickBehavior::Skip,
        MissedTickBehavior::Delay,
        MissedTickBehavior::Burst,
    ] {
        every.set_missed_tick_behavior(behavior);
        assert_eq!(every.missed_tick_behavior(), behavior);
    }
    assert!(format!("{every:?}").contains("Interval"));
}

/// On the real clock, through the fallback driver: ticks come no sooner
/// than the period apart.
#[test]
fn real_clock_ticks_are_never_early() {
    futures::executor::block_on(async {
        let start = Instant::now();
        let mut every = interval(ms(2));
        let first = every.tick().await;
        for n in 1..=3u32 {
            let due = every.tick().await;
            assert_eq!(due - first, ms(2) * n);
            assert!(Instant::now() >= due);
        }
        assert!(start.elapsed() >= ms(6));
    });
}
