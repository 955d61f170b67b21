//! `lawn_rt::time::{interval, interval_at, Interval, MissedTickBehavior}`,
//! on a paused runtime (`#[lawn_rt::test(start_paused = true)]`): advance
//! the clock with `time::advance`, then `poll_tick` with a no-op waker; and
//! await ticks, which auto-advance takes to their exact instants. The
//! catch-up rules are tokio's: a tick is missed when taken more than 5 ms
//! after it was due, and then
//! - `Burst`: next = due + period,
//! - `Delay`: next = now + period,
//! - `Skip`:  next = now + period - ((now - due) % period).
//!
//! Last, an interval ticked on a thread that has not entered its driver, or
//! that entered another one, keeps to its own driver's time (on paused bare
//! drivers moved by hand, and the real clock).

mod common;

use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Instant as StdInstant;

use common::units::ms;
use common::{advance_and_count, counting_waker, paused_driver, poll_noop, poll_tick};
use futures::{Stream, StreamExt};
use lawn_rt::driver::{Driver, Handle};
use lawn_rt::time::{
    self, interval, interval_at, sleep, Duration, Instant, Interval, MissedTickBehavior,
};

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

/// Where a paused runtime's clock stood when a test (or a case) began.
struct Paused {
    t0: Instant,
}

impl Paused {
    fn now() -> Paused {
        Paused { t0: Instant::now() }
    }

    fn at(&self, n: u64) -> Instant {
        self.t0 + ms(n)
    }
}

/// Awaits the next tick, which must be due at `due`; auto-advance must
/// take the clock exactly there.
async fn await_tick_at(interval: &mut Interval, due: Instant) {
    assert_eq!(interval.tick().await, due, "awaited the wrong tick");
    assert_eq!(
        Instant::now(),
        due,
        "the tick due at {due:?} came at the wrong time"
    );
}

fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}

#[test]
fn interval_is_send_sync_unpin() {
    assert_send_sync_unpin::<Interval>();
}

#[lawn_rt::test(start_paused = true)]
async fn first_tick_is_immediate_then_every_period() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    assert_eq!(every.period(), ms(10));
    assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Burst);

    assert_tick(&mut every, p.at(0));
    assert_no_tick(&mut every);
    for n in 1..=5 {
        assert_eq!(advance_and_count(ms(9)).await, 0);
        assert_no_tick(&mut every);
        assert_eq!(advance_and_count(ms(1)).await, 1);
        assert_tick(&mut every, p.at(10 * n));
        assert_no_tick(&mut every);
    }
    // Awaited: every period exactly.
    for n in 6..=8 {
        await_tick_at(&mut every, p.at(10 * n)).await;
    }
}

#[lawn_rt::test(start_paused = true)]
async fn interval_at_starts_at_start() {
    let p = Paused::now();
    let mut every = interval_at(p.at(25), ms(10));
    assert_no_tick(&mut every);
    time::advance(ms(24)).await;
    assert_no_tick(&mut every);
    time::advance(ms(1)).await;
    assert_tick(&mut every, p.at(25));
    time::advance(ms(10)).await;
    assert_tick(&mut every, p.at(35));

    // A start in the past ticks at once, reporting that start.
    let mut past = interval_at(p.at(30), ms(10));
    assert_tick(&mut past, p.at(30));
    assert_no_tick(&mut past);
    time::advance(ms(5)).await;
    assert_tick(&mut past, p.at(40));

    // Awaited: the first tick at the start, exactly, then every period.
    let q = Paused::now();
    let mut later = interval_at(q.at(25), ms(10));
    await_tick_at(&mut later, q.at(25)).await;
    await_tick_at(&mut later, q.at(35)).await;
}

#[lawn_rt::test(start_paused = true)]
async fn the_tick_wakes_the_task() {
    let p = Paused::now();
    let (counter, waker) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let mut every = interval(ms(10));
    assert!(every.poll_tick(&mut cx).is_ready());
    assert!(every.poll_tick(&mut cx).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert_eq!(every.poll_tick(&mut cx), Poll::Ready(p.at(10)));

    // A task awaiting its ticks is woken at each, exactly.
    let q = Paused::now();
    let ticker = lawn_rt::spawn(async {
        let mut every = interval(ms(10));
        let mut woke = Vec::new();
        for _ in 0..4 {
            every.tick().await;
            woke.push(Instant::now());
        }
        woke
    });
    assert_eq!(
        ticker.await.unwrap(),
        [q.at(0), q.at(10), q.at(20), q.at(30)]
    );
}

/// A tick taken at most 5 ms late is not missed: the schedule stays.
#[lawn_rt::test(start_paused = true)]
async fn up_to_five_ms_late_is_not_missed() {
    for behavior in [
        MissedTickBehavior::Burst,
        MissedTickBehavior::Delay,
        MissedTickBehavior::Skip,
    ] {
        let p = Paused::now();
        let mut every = interval(ms(10));
        every.set_missed_tick_behavior(behavior);
        assert_tick(&mut every, p.at(0));
        time::advance(ms(15)).await; // the tick due at 10 is taken at 15
        assert_tick(&mut every, p.at(10));
        assert_no_tick(&mut every);
        time::advance(ms(5)).await;
        assert_tick(&mut every, p.at(20));
        await_tick_at(&mut every, p.at(30)).await;
    }
}

#[lawn_rt::test(start_paused = true)]
async fn burst_catches_up_on_the_original_schedule() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    every.set_missed_tick_behavior(MissedTickBehavior::Burst);
    assert_tick(&mut every, p.at(0));

    time::advance(ms(35)).await; // now = 35
    assert_tick(&mut every, p.at(10)); // missed: next = 10 + 10
    assert_tick(&mut every, p.at(20)); // missed: next = 20 + 10
    assert_tick(&mut every, p.at(30)); // 5 ms late: not missed, next = 40
    assert_no_tick(&mut every);
    time::advance(ms(5)).await;
    assert_tick(&mut every, p.at(40));
    time::advance(ms(10)).await;
    assert_tick(&mut every, p.at(50));
    await_tick_at(&mut every, p.at(60)).await;
}

#[lawn_rt::test(start_paused = true)]
async fn delay_restarts_the_schedule_from_now() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Delay);
    assert_tick(&mut every, p.at(0));

    time::advance(ms(35)).await; // now = 35
    assert_tick(&mut every, p.at(10)); // missed: next = 35 + 10
    assert_no_tick(&mut every);
    time::advance(ms(9)).await; // 44
    assert_no_tick(&mut every);
    time::advance(ms(1)).await; // 45
    assert_tick(&mut every, p.at(45));
    time::advance(ms(10)).await;
    assert_tick(&mut every, p.at(55));

    // 6 ms late: missed, so now + period.
    time::advance(ms(16)).await; // 71; due 65
    assert_tick(&mut every, p.at(65));
    time::advance(ms(9)).await; // 80
    assert_no_tick(&mut every);
    time::advance(ms(1)).await; // 81
    assert_tick(&mut every, p.at(81));
    await_tick_at(&mut every, p.at(91)).await;
}

#[lawn_rt::test(start_paused = true)]
async fn skip_jumps_to_the_next_tick_on_the_schedule() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    every.set_missed_tick_behavior(MissedTickBehavior::Skip);
    assert_tick(&mut every, p.at(0));

    time::advance(ms(35)).await; // now = 35
                                 // missed: next = 35 + 10 - ((35 - 10) % 10) = 40
    assert_tick(&mut every, p.at(10));
    assert_no_tick(&mut every);
    time::advance(ms(4)).await; // 39
    assert_no_tick(&mut every);
    time::advance(ms(1)).await; // 40
    assert_tick(&mut every, p.at(40));

    // Late by an exact multiple of the period: 50 was due, now = 80;
    // next = 80 + 10 - (30 % 10) = 90.
    time::advance(ms(40)).await; // 80
    assert_tick(&mut every, p.at(50));
    assert_no_tick(&mut every);
    time::advance(ms(9)).await;
    assert_no_tick(&mut every);
    time::advance(ms(1)).await; // 90
    assert_tick(&mut every, p.at(90));
    await_tick_at(&mut every, p.at(100)).await;
}

/// Skip with a period that does not divide the lateness: 7 ms period,
/// tick due at 7 taken at 30: next = 30 + 7 - (23 % 7) = 35.
#[lawn_rt::test(start_paused = true)]
async fn skip_with_an_uneven_period() {
    let p = Paused::now();
    let mut every = interval(ms(7));
    every.set_missed_tick_behavior(MissedTickBehavior::Skip);
    assert_tick(&mut every, p.at(0));
    time::advance(ms(30)).await;
    assert_tick(&mut every, p.at(7));
    time::advance(ms(4)).await; // 34
    assert_no_tick(&mut every);
    time::advance(ms(1)).await; // 35
    assert_tick(&mut every, p.at(35));
    time::advance(ms(7)).await;
    assert_tick(&mut every, p.at(42));
    await_tick_at(&mut every, p.at(49)).await;
}

#[lawn_rt::test(start_paused = true)]
async fn behavior_can_change_between_ticks() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    assert_tick(&mut every, p.at(0));
    time::advance(ms(35)).await;
    assert_tick(&mut every, p.at(10)); // Burst: next 20
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    assert_tick(&mut every, p.at(20)); // Delay: next 35 + 10
    time::advance(ms(10)).await;
    assert_tick(&mut every, p.at(45));
    await_tick_at(&mut every, p.at(55)).await;
}

// ---------------------------------------------------------------------------
// reset*
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn reset_restarts_one_period_from_now() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    assert_tick(&mut every, p.at(0));
    time::advance(ms(3)).await;
    every.reset();
    time::advance(ms(7)).await; // 10: the old schedule's tick
    assert_no_tick(&mut every);
    time::advance(ms(2)).await; // 12
    assert_no_tick(&mut every);
    time::advance(ms(1)).await; // 13
    assert_tick(&mut every, p.at(13));
    time::advance(ms(10)).await;
    assert_tick(&mut every, p.at(23));
    await_tick_at(&mut every, p.at(33)).await;

    // A reset while a task awaits the tick moves the wake-up with it.
    every.reset(); // due 43
    await_tick_at(&mut every, p.at(43)).await;
}

#[lawn_rt::test(start_paused = true)]
async fn reset_immediately_makes_the_next_tick_due_now() {
    let p = Paused::now();
    let mut every = interval(Duration::from_secs(3600));
    assert_tick(&mut every, p.at(0));
    time::advance(ms(4)).await;
    every.reset_immediately();
    assert_tick(&mut every, p.at(4));
    assert_no_tick(&mut every);
    time::advance(Duration::from_secs(3600)).await;
    assert_tick(&mut every, p.at(4) + Duration::from_secs(3600));
    await_tick_at(&mut every, p.at(4) + Duration::from_secs(7200)).await;
}

#[lawn_rt::test(start_paused = true)]
async fn reset_after_and_reset_at() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    assert_tick(&mut every, p.at(0));

    time::advance(ms(2)).await;
    every.reset_after(ms(5)); // due 7
    time::advance(ms(4)).await;
    assert_no_tick(&mut every);
    time::advance(ms(1)).await;
    assert_tick(&mut every, p.at(7));

    every.reset_at(p.at(30));
    time::advance(ms(10)).await; // 17: the schedule's 17 is gone
    assert_no_tick(&mut every);
    time::advance(ms(13)).await; // 30
    assert_tick(&mut every, p.at(30));
    time::advance(ms(10)).await;
    assert_tick(&mut every, p.at(40));

    // reset_at a past instant: ticks at once, reporting that instant.
    every.reset_at(p.at(38));
    assert_tick(&mut every, p.at(38));
    time::advance(ms(8)).await; // 48 == 38 + 10
    assert_tick(&mut every, p.at(48));

    // reset_after(Duration::MAX) neither panics nor overflows: the tick
    // comes in the far future (about 30 years), where auto-advance goes.
    every.reset_after(Duration::MAX);
    time::advance(Duration::from_secs(365 * 86_400)).await;
    assert_no_tick(&mut every);
    await_tick_at(&mut every, p.at(48) + Duration::MAX).await;
}

#[lawn_rt::test(start_paused = true)]
async fn reset_before_the_first_tick() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    every.reset(); // the immediate first tick moves to 10
    assert_no_tick(&mut every);
    time::advance(ms(10)).await;
    assert_tick(&mut every, p.at(10));
    await_tick_at(&mut every, p.at(20)).await;
}

// ---------------------------------------------------------------------------
// tick(), Stream, bad input, far future
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn tick_future_is_cancel_safe() {
    let p = Paused::now();
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
    time::advance(ms(10)).await;
    {
        let mut second = pin!(every.tick());
        assert_eq!(poll_noop(second.as_mut()), Poll::Ready(p.at(10)));
    }

    // Awaited and given up by a timeout half a period in: the tick is not
    // lost, it comes at its time.
    let gave_up = time::timeout(ms(5), every.tick()).await;
    assert!(gave_up.is_err());
    assert_eq!(Instant::now(), p.at(15));
    await_tick_at(&mut every, p.at(20)).await;
}

#[lawn_rt::test(start_paused = true)]
async fn interval_is_a_stream_of_ticks() {
    let p = Paused::now();
    let mut every = interval(ms(10));
    let mut cx = Context::from_waker(Waker::noop());
    assert_eq!(every.poll_next_unpin(&mut cx), Poll::Ready(Some(p.at(0))));
    assert_eq!(every.poll_next_unpin(&mut cx), Poll::Pending);
    time::advance(ms(10)).await;
    assert_eq!(every.poll_next_unpin(&mut cx), Poll::Ready(Some(p.at(10))));
    assert_eq!(every.size_hint(), (0, None));

    // Stream combinators: three ticks with the clock moved in between.
    let mut taken = pin!(every.by_ref().take(2).collect::<Vec<_>>());
    assert!(poll_noop(taken.as_mut()).is_pending());
    time::advance(ms(10)).await;
    assert!(poll_noop(taken.as_mut()).is_pending());
    time::advance(ms(10)).await;
    assert_eq!(
        poll_noop(taken.as_mut()),
        Poll::Ready(vec![p.at(20), p.at(30)])
    );

    // Awaited through the stream: exact instants.
    assert_eq!(every.next().await, Some(p.at(40)));
    assert_eq!(Instant::now(), p.at(40));
    let ticks: Vec<_> = every.by_ref().take(3).collect().await;
    assert_eq!(ticks, [p.at(50), p.at(60), p.at(70)]);
    assert_eq!(Instant::now(), p.at(70));
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

#[lawn_rt::test(start_paused = true)]
async fn interval_with_a_huge_period() {
    let p = Paused::now();
    let mut every = interval(Duration::MAX);
    assert_tick(&mut every, p.at(0));
    assert_no_tick(&mut every);
    time::advance(Duration::from_secs(10 * 365 * 86_400)).await;
    assert_no_tick(&mut every);
    // Its second tick is the far future (about 30 years), exactly.
    await_tick_at(&mut every, p.at(0) + Duration::MAX).await;
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

/// The paused twin of the test below: each tick is reported, and taken,
/// exactly one period after the last.
#[lawn_rt::test(start_paused = true)]
async fn paused_clock_ticks_are_exact() {
    let start = Instant::now();
    let mut every = interval(ms(2));
    let first = every.tick().await;
    assert_eq!(first, start);
    for n in 1..=3u32 {
        let due = every.tick().await;
        assert_eq!(due - first, ms(2) * n);
        assert_eq!(Instant::now(), due);
    }
    assert_eq!(start.elapsed(), ms(6));
}

/// On the real clock, through a foreign shard: ticks come no sooner
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

// ---------------------------------------------------------------------------
// ticked where another driver (or none) is entered
// ---------------------------------------------------------------------------

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
/// paused clock: the interval re-files from its own driver's time, not from
/// the polling thread's, and the driver's time has not moved.
#[test]
fn an_interval_ticked_on_a_thread_that_has_not_entered_its_driver_keeps_to_its_drivers_time() {
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
/// neither driver's time moves, the other driver gets no timer, and both
/// still time sleeps right.
#[test]
fn an_interval_ticked_under_another_entered_paused_driver_moves_neither_drivers_time() {
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

/// An interval made where no driver is entered (served by the real clock)
/// ticked on a thread where a paused driver an hour ahead is entered: it
/// does not take that hour for its own time (which would make later real
/// sleeps complete early), and it files nothing with the paused driver.
#[test]
fn an_interval_without_a_driver_ticked_under_an_entered_paused_driver_does_not_take_its_time() {
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
            "a foreign-shard sleep({wait:?}) completed early, after {took:?}"
        );
    }
    assert!(poll_tick(&mut every).is_pending());
}
