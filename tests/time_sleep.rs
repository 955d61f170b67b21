//! `lawn_rt::time::{sleep, sleep_until, Sleep, Instant}`: the timer-future
//! contract (docs/guide.md, "`lawn_rt::time`": the timer contract), through the public
//! API only.
//!
//! The timing tests run on a paused runtime (`#[lawn_rt::test(start_paused
//! = true)]`, 1 µs ticks): polled by hand while `time::advance` moves the
//! clock, then awaited, when auto-advance takes the clock to the exact
//! instant a sleep completes. The tests of the bare [`Driver`] API
//! (`next_deadline`, `process_at`, its shutdown and drop) use a paused
//! driver moved by hand; the `never_early_*` tests are about the real
//! clock (a foreign shard, a driver turned by a thread of our own).

mod common;

use std::pin::pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Poll;
use std::thread;

use common::units::ms;
use common::{
    advance_and_count, assert_panics_with, assert_send_sync, counting_waker, paused_driver,
    paused_runtime, paused_within, pending_timers, poll_noop, poll_with, Rng,
};
use lawn_rt::driver::Driver;
use lawn_rt::time::{self, sleep, sleep_until, Duration, Instant, Sleep};

const YEAR: Duration = Duration::from_secs(365 * 86_400);

// ---------------------------------------------------------------------------
// Static properties: `Sleep` is `Send + Sync` and `!Unpin`, like tokio's.
// ---------------------------------------------------------------------------

/// Resolves only if `T: !Unpin`: for an `Unpin` type both impls apply and
/// `<T as AmbiguousIfUnpin<_>>::some_item` is ambiguous (a compile error).
trait AmbiguousIfUnpin<A> {
    fn some_item() {}
}
impl<T: ?Sized> AmbiguousIfUnpin<()> for T {}
impl<T: ?Sized + Unpin> AmbiguousIfUnpin<u8> for T {}

const _: fn() = || {
    let _ = <Sleep as AmbiguousIfUnpin<_>>::some_item;
};

#[test]
fn sleep_is_send_sync_and_not_unpin() {
    assert_send_sync::<Sleep>();
    assert_send_sync::<Instant>();
    // `!Unpin` is checked at compile time by the `AmbiguousIfUnpin` const.
}

// ---------------------------------------------------------------------------
// Never early, on the real clock.
// ---------------------------------------------------------------------------

/// A few hundred sleeps of random durations in 0..3 ms, thirty at a time,
/// on a foreign shard: none completes before its duration has passed
/// (by `lawn_rt::time::Instant` and by `std::time::Instant`).
#[test]
fn never_early_real_clock_foreign_shard() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _batch in 0..10 {
        let sleeps = (0..30).map(|_| {
            let requested = Duration::from_micros(rng.below(3_000));
            async move {
                let start = Instant::now();
                let std_start = std::time::Instant::now();
                let sleep = sleep(requested);
                let deadline = sleep.deadline();
                sleep.await;
                let (elapsed, std_elapsed) = (start.elapsed(), std_start.elapsed());
                assert!(
                    elapsed >= requested,
                    "sleep({requested:?}) completed after {elapsed:?}"
                );
                assert!(
                    std_elapsed >= requested,
                    "sleep({requested:?}) completed after {std_elapsed:?} (std clock)"
                );
                assert!(Instant::now() >= deadline, "completed before its deadline");
            }
        });
        futures::executor::block_on(futures::future::join_all(sleeps));
    }
}

/// Makes sleeps of 10 ms to 30 ms on this thread for `for_how_long`, in
/// bursts with pauses between, checking each deadline against the clock
/// read before and after: never before `now + d`, never after the later
/// read plus `d`.
fn long_sleeps_made_here(rng: &mut Rng, for_how_long: Duration) {
    let start = std::time::Instant::now();
    let mut made = 0u64;
    while start.elapsed() < for_how_long {
        let requested = ms(10) + Duration::from_micros(rng.below(20_000_000));
        let before = Instant::now();
        let sleep = sleep(requested);
        let after = Instant::now();
        let deadline = sleep.deadline();
        assert!(deadline >= before + requested, "a deadline before now + d");
        assert!(
            deadline <= after + requested,
            "a deadline {:?} later than now + d",
            deadline - (after + requested)
        );
        made += 1;
        if made % 64 == 0 {
            // Let windows pass between bursts, as a server's thread does.
            thread::sleep(Duration::from_micros(rng.below(300)));
        }
    }
}

/// A `sleep(d)`'s deadline is `now + d` for a clock read between the
/// reads before and after it, on two threads over 200 ms of windows.
#[test]
fn a_sleeps_deadline_lies_between_the_clock_reads_around_it() {
    let threads: Vec<_> = (0..2)
        .map(|t| {
            thread::spawn(move || {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 + t);
                long_sleeps_made_here(&mut rng, ms(200));
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a bound did not hold");
    }
}

/// Awaits `sleep(requested)`, checking it completes neither before
/// `requested` has passed nor before its deadline.
async fn sleep_never_early(requested: Duration) {
    let start = std::time::Instant::now();
    let sleep = sleep(requested);
    let deadline = sleep.deadline();
    sleep.await;
    assert!(
        start.elapsed() >= requested,
        "sleep({requested:?}) completed early"
    );
    assert!(Instant::now() >= deadline, "completed before its deadline");
}

/// Long sleeps registered on a thread's foreign shard (1 µs ticks)
/// between short ones: the long ones' registrations never make a short
/// one complete early (the tick a registration files from is a reached
/// one), and the long ones themselves, awaited, never complete early.
#[test]
fn never_early_next_to_and_as_long_sleeps() {
    let mut rng = Rng(0xA076_1D64_78BD_642F);
    long_sleeps_made_here(&mut rng, ms(5));
    futures::executor::block_on(async {
        for i in 0..400 {
            // A long sleep, filed on its first poll, then dropped.
            let mut long = pin!(sleep(ms(10) + Duration::from_micros(i)));
            assert!(poll_noop(long.as_mut()).is_pending());
            sleep_never_early(Duration::from_micros(rng.below(50))).await;
        }
        let sleeps = (0..20).map(|i| sleep_never_early(ms(10) + Duration::from_micros(i * 700)));
        futures::future::join_all(sleeps).await;
    });
}

/// The same with `sleep_until` of random instants up to 3 ms ahead.
#[test]
fn never_early_real_clock_sleep_until() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for _batch in 0..5 {
        let sleeps = (0..30).map(|_| {
            let deadline = Instant::now() + Duration::from_micros(rng.below(3_000));
            async move {
                sleep_until(deadline).await;
                let now = Instant::now();
                assert!(now >= deadline, "woke at {now:?}, before {deadline:?}");
            }
        });
        futures::executor::block_on(futures::future::join_all(sleeps));
    }
}

/// A driver with sub-millisecond ticks, turned by a thread of our own with
/// `park` + `process` (the "your own event loop" use): never early either.
#[test]
fn never_early_real_clock_own_event_loop_100us_ticks() {
    let driver = Arc::new(Driver::with_resolution(Duration::from_micros(100)).unwrap());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let turner = {
        let (driver, stop) = (driver.clone(), stop.clone());
        thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                driver.park(Some(ms(1)));
                driver.process();
            }
        })
    };
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _batch in 0..5 {
        let _entered = driver.handle().enter();
        let sleeps: Vec<_> = (0..30)
            .map(|_| {
                let requested = Duration::from_micros(rng.below(3_000));
                (Instant::now(), requested, sleep(requested))
            })
            .collect();
        let checks = sleeps
            .into_iter()
            .map(|(start, requested, sleep)| async move {
                sleep.await;
                let elapsed = start.elapsed();
                assert!(
                    elapsed >= requested,
                    "sleep({requested:?}) after {elapsed:?}"
                );
            });
        futures::executor::block_on(futures::future::join_all(checks));
    }
    stop.store(true, Ordering::SeqCst);
    driver.unpark();
    turner.join().unwrap();
    assert_eq!(driver.handle().pending_timers(), 0);
}

// ---------------------------------------------------------------------------
// Registration: on first poll, not on creation; drop deregisters.
// ---------------------------------------------------------------------------

#[test]
fn registers_on_first_poll_not_on_creation() {
    let driver = paused_driver();
    let handle = driver.handle();
    let _entered = handle.enter();

    let unpolled = sleep(ms(10));
    assert_eq!(handle.pending_timers(), 0);
    assert!(!unpolled.is_elapsed());
    assert_eq!(driver.next_deadline(), None);
    drop(unpolled);
    assert_eq!(handle.pending_timers(), 0);

    let mut sleep = pin!(sleep(ms(10)));
    assert_eq!(handle.pending_timers(), 0);
    assert!(poll_noop(sleep.as_mut()).is_pending());
    assert_eq!(handle.pending_timers(), 1);
    // Polling again does not register twice.
    assert!(poll_noop(sleep.as_mut()).is_pending());
    assert_eq!(handle.pending_timers(), 1);
    assert!(!sleep.is_elapsed());
}

#[lawn_rt::test(start_paused = true)]
async fn unpolled_sleep_never_fires() {
    let sleep = sleep(ms(5));
    assert_eq!(advance_and_count(ms(50)).await, 0);
    // Not polled, so not elapsed, even though its deadline has passed.
    assert!(!sleep.is_elapsed());
    let mut sleep = pin!(sleep);
    assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
    assert!(sleep.is_elapsed());
    assert_eq!(pending_timers(), 0);

    // Awaited after its deadline: done at once, the clock does not move.
    let late = lawn_rt::time::sleep(ms(5));
    time::advance(ms(5)).await;
    let t = Instant::now();
    late.await;
    assert_eq!(Instant::now(), t);
}

#[test]
fn drop_before_fire_deregisters_and_never_wakes() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    let mut sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert_eq!(driver.handle().pending_timers(), 1);
    drop(sleep);
    assert_eq!(driver.handle().pending_timers(), 0);
    assert_eq!(driver.next_deadline(), None);

    assert_eq!(driver.advance(ms(20)), 0);
    assert_eq!(counter.wakes(), 0);
    drop(waker);
    assert_eq!(
        Arc::strong_count(&counter),
        1,
        "the driver leaked the waker"
    );
}

#[lawn_rt::test(start_paused = true)]
async fn drop_after_fire() {
    let (counter, waker) = counting_waker();

    // Fired but not polled again, then dropped.
    let mut fired = Box::pin(sleep(ms(10)));
    assert!(poll_with(fired.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert!(fired.is_elapsed());
    assert_eq!(pending_timers(), 0);
    drop(fired);

    // Fired, completed, then dropped.
    let mut done = Box::pin(sleep(ms(10)));
    assert!(poll_with(done.as_mut(), &waker).is_pending());
    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!(poll_with(done.as_mut(), &waker), Poll::Ready(()));
    // Completed futures stay completed.
    assert_eq!(poll_with(done.as_mut(), &waker), Poll::Ready(()));
    drop(done);

    assert_eq!(counter.wakes(), 2);
    assert_eq!(pending_timers(), 0);
    drop(waker);
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[lawn_rt::test(start_paused = true)]
async fn fires_at_its_deadline_and_not_a_tick_before() {
    let (counter, waker) = counting_waker();
    let tick = lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION;

    let start = Instant::now();
    let mut sleep = pin!(sleep(ms(10)));
    assert_eq!(sleep.deadline(), start + ms(10));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());

    assert_eq!(advance_and_count(ms(10) - tick).await, 0);
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    assert!(!sleep.is_elapsed());
    assert_eq!(counter.wakes(), 0);

    assert_eq!(advance_and_count(tick).await, 1);
    assert_eq!(counter.wakes(), 1);
    assert!(sleep.is_elapsed());
    assert_eq!(poll_with(sleep.as_mut(), &waker), Poll::Ready(()));
    assert_eq!(Instant::now(), sleep.deadline());
    assert_eq!(pending_timers(), 0);

    // Awaited: the runtime wakes exactly at the deadline (which the bare
    // driver's test could only bound by `next_deadline() <= deadline`).
    let start = Instant::now();
    let awaited = lawn_rt::time::sleep(ms(10));
    let deadline = awaited.deadline();
    awaited.await;
    assert_eq!(Instant::now(), deadline);
    assert_eq!(deadline, start + ms(10));
}

/// `process_at` fires what is due at the instant given, but never ahead of
/// the driver's own clock: a timer cannot complete before `Instant::now()`
/// has reached its deadline, whatever instant a caller passes.
#[test]
fn process_at_fires_at_the_deadline_never_ahead_of_the_clock() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut sleep = pin!(sleep(ms(7)));
    assert!(poll_noop(sleep.as_mut()).is_pending());
    let deadline = sleep.deadline().into_std();
    assert_eq!(driver.process_at(deadline), 0, "fired ahead of the clock");
    assert_eq!(driver.advance(ms(6)), 0);
    assert_eq!(driver.process_at(deadline - Duration::from_nanos(1)), 0);
    assert_eq!(driver.process(), 0);
    assert_eq!(driver.advance(ms(1)), 1);
    assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
}

/// Deadlines are rounded up to a whole tick: with 10 ms ticks a 1 ms sleep
/// fires on the next tick boundary, never before 1 ms has passed.
#[test]
fn deadline_rounds_up_to_the_tick() {
    paused_runtime(ms(10)).block_on(async {
        let start = Instant::now();
        let mut short = pin!(sleep(ms(1)));
        assert!(poll_noop(short.as_mut()).is_pending());
        assert_eq!(advance_and_count(ms(1)).await, 0);
        assert!(poll_noop(short.as_mut()).is_pending());
        assert_eq!(advance_and_count(ms(8)).await, 0);
        assert!(poll_noop(short.as_mut()).is_pending());
        assert_eq!(advance_and_count(ms(1)).await, 1);
        assert_eq!(poll_noop(short.as_mut()), Poll::Ready(()));
        assert_eq!(Instant::now(), start + ms(10));

        // Awaited: the next 10 ms tick, exactly.
        sleep(ms(1)).await;
        assert_eq!(Instant::now(), start + ms(20));
    });

    // A deadline between two 1 ms ticks waits for the later tick.
    paused_runtime(ms(1)).block_on(async {
        let start = Instant::now();
        let mut between = pin!(sleep(Duration::from_micros(1_500)));
        assert!(poll_noop(between.as_mut()).is_pending());
        assert_eq!(advance_and_count(ms(1)).await, 0);
        assert!(poll_noop(between.as_mut()).is_pending());
        assert_eq!(advance_and_count(ms(1)).await, 1);
        assert_eq!(poll_noop(between.as_mut()), Poll::Ready(()));

        // Awaited: the later tick, exactly.
        sleep(Duration::from_micros(1_500)).await;
        assert_eq!(Instant::now(), start + ms(4));
    });
}

#[lawn_rt::test(start_paused = true)]
async fn zero_and_past_deadlines_complete_on_first_poll() {
    let mut zero = pin!(sleep(Duration::ZERO));
    assert_eq!(poll_noop(zero.as_mut()), Poll::Ready(()));
    assert!(zero.is_elapsed());

    let mut now = pin!(sleep_until(Instant::now()));
    assert_eq!(poll_noop(now.as_mut()), Poll::Ready(()));

    let mut past = pin!(sleep_until(Instant::now() - Duration::from_secs(1)));
    assert_eq!(poll_noop(past.as_mut()), Poll::Ready(()));

    // Made 5 ms ahead, first polled 5 ms later: due at once.
    let late = sleep(ms(5));
    time::advance(ms(5)).await;
    let mut late = pin!(late);
    assert_eq!(poll_noop(late.as_mut()), Poll::Ready(()));

    assert_eq!(pending_timers(), 0);

    // Awaited: all done with no time passing.
    let t = Instant::now();
    sleep(Duration::ZERO).await;
    sleep_until(t).await;
    sleep_until(t - Duration::from_secs(1)).await;
    assert_eq!(Instant::now(), t);
}

#[lawn_rt::test(start_paused = true)]
async fn many_sleeps_fire_in_deadline_order() {
    let mut sleeps: Vec<_> = [30, 10, 20, 10, 50, 40]
        .into_iter()
        .map(|n| (n, Box::pin(sleep(ms(n)))))
        .collect();
    for (_, sleep) in &mut sleeps {
        assert!(poll_noop(sleep.as_mut()).is_pending());
    }
    assert_eq!(pending_timers(), 6);
    for (step, expected) in [(10, 2), (10, 1), (10, 1), (10, 1), (10, 1)] {
        assert_eq!(advance_and_count(ms(step)).await, expected);
    }
    for (_, sleep) in &mut sleeps {
        assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
    }

    // Awaited by tasks: they wake in deadline order, each exactly at its
    // deadline.
    let start = Instant::now();
    let woke = Arc::new(std::sync::Mutex::new(Vec::new()));
    let tasks: Vec<_> = [30, 10, 20, 15, 50, 40]
        .into_iter()
        .map(|n| {
            let woke = woke.clone();
            lawn_rt::spawn(async move {
                sleep(ms(n)).await;
                woke.lock().unwrap().push((n, start.elapsed()));
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let expected: Vec<_> = [10, 15, 20, 30, 40, 50].map(|n| (n, ms(n))).into();
    assert_eq!(*woke.lock().unwrap(), expected);
}

// ---------------------------------------------------------------------------
// Far future
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn sleep_duration_max_is_about_thirty_years() {
    let (counter, waker) = counting_waker();

    let now = Instant::now();
    let mut forever = pin!(sleep(Duration::MAX));
    let ahead = forever.deadline() - now;
    assert!(
        ahead >= 29 * YEAR && ahead <= 31 * YEAR,
        "sleep(Duration::MAX) deadline is {ahead:?} ahead"
    );
    assert!(poll_with(forever.as_mut(), &waker).is_pending());
    assert_eq!(pending_timers(), 1);

    assert_eq!(advance_and_count(Duration::from_secs(86_400)).await, 0);
    assert_eq!(advance_and_count(20 * YEAR).await, 0);
    assert!(poll_with(forever.as_mut(), &waker).is_pending());
    assert_eq!(counter.wakes(), 0);

    // It does come, and nothing overflowed on the way.
    time::advance(11 * YEAR).await;
    assert_eq!(counter.wakes(), 1);
    assert_eq!(poll_with(forever.as_mut(), &waker), Poll::Ready(()));

    // Awaited: auto-advance reaches it exactly.
    let now = Instant::now();
    let forever = sleep(Duration::MAX);
    let deadline = forever.deadline();
    forever.await;
    assert_eq!(Instant::now(), deadline);
    assert_eq!(deadline, now + Duration::MAX);
}

/// A reset files the sleep with the driver, as tokio's does, when it is
/// not filed: after it completed, or before its first poll. It then fires
/// at the new deadline unpolled (`is_elapsed` says so) and the next poll
/// is ready. The same steps on tokio's paused clock agree.
#[test]
fn a_reset_files_a_sleep_that_is_not_filed_as_tokio_does() {
    fn steps() -> [bool; 4] {
        [false; 4]
    }
    let lawn = paused_runtime(lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION).block_on(async {
        let mut seen = steps();
        let mut done = pin!(sleep(ms(1)));
        done.as_mut().await;
        done.as_mut().reset(Instant::now() + ms(5));
        seen[0] = done.is_elapsed();
        time::advance(ms(10)).await;
        seen[1] = done.is_elapsed();
        let mut fresh = pin!(sleep(ms(100)));
        fresh.as_mut().reset(Instant::now() + ms(5));
        time::advance(ms(10)).await;
        seen[2] = fresh.is_elapsed();
        seen[3] = poll_noop(fresh.as_mut()).is_ready();
        seen
    });
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
        .block_on(async {
            let mut seen = steps();
            let mut done = pin!(tokio::time::sleep(ms(1)));
            done.as_mut().await;
            done.as_mut().reset(tokio::time::Instant::now() + ms(5));
            seen[0] = done.is_elapsed();
            tokio::time::advance(ms(10)).await;
            seen[1] = done.is_elapsed();
            let mut fresh = pin!(tokio::time::sleep(ms(100)));
            fresh.as_mut().reset(tokio::time::Instant::now() + ms(5));
            tokio::time::advance(ms(10)).await;
            seen[2] = fresh.is_elapsed();
            seen[3] = poll_noop(fresh.as_mut()).is_ready();
            seen
        });
    assert_eq!(
        tokio,
        [false, true, true, true],
        "tokio's behaviour changed"
    );
    assert_eq!(lawn, tokio);
}

/// A sleep longer than 30 years, though the clock could represent its
/// deadline, is capped at 30 years as tokio caps it: on a paused clock it
/// completes then (it used to be filed past the driver's last tick and
/// never fire, so auto-advance hung), and its deadline says so.
#[lawn_rt::test(start_paused = true)]
async fn sleeps_over_thirty_years_are_capped_at_thirty_years() {
    let thirty_years = Duration::from_secs(86_400 * 365 * 30);
    for long in [
        Duration::from_millis(u64::MAX),
        Duration::from_secs(1 << 44),
        100 * YEAR,
        thirty_years + Duration::from_nanos(1),
    ] {
        let start = Instant::now();
        let nap = sleep(long);
        assert_eq!(nap.deadline(), start + thirty_years, "sleep({long:?})");
        nap.await;
        assert_eq!(Instant::now(), start + thirty_years, "sleep({long:?})");
    }
    // At the cap itself and under it, nothing changes.
    let start = Instant::now();
    sleep(thirty_years).await;
    assert_eq!(Instant::now(), start + thirty_years);
    let start = Instant::now();
    sleep(29 * YEAR).await;
    assert_eq!(Instant::now(), start + 29 * YEAR);
}

#[test]
fn instant_plus_duration_max_does_not_panic() {
    let now = Instant::now();
    let far = now + Duration::MAX;
    let ahead = far - now;
    assert!(ahead >= 29 * YEAR && ahead <= 31 * YEAR, "{ahead:?}");

    let mut sum = now;
    sum += Duration::MAX;
    assert_eq!(sum, far);
    assert_eq!(now.checked_add(Duration::MAX), None);

    // Reset to "forever" is fine too, and awaited, it comes then exactly.
    paused_runtime(lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION).block_on(async {
        let start = Instant::now();
        let mut sleep = pin!(sleep(ms(1)));
        assert!(poll_noop(sleep.as_mut()).is_pending());
        sleep.as_mut().reset(Instant::now() + Duration::MAX);
        assert_eq!(advance_and_count(YEAR).await, 0);
        assert!(poll_noop(sleep.as_mut()).is_pending());
        sleep.await;
        assert_eq!(Instant::now(), start + Duration::MAX);
    });
}

#[lawn_rt::test(start_paused = true)]
async fn sleep_until_a_far_instant() {
    let (counter, waker) = counting_waker();
    let now = Instant::now();

    // A century ahead: registers and waits.
    let mut century = pin!(sleep_until(now + 100 * YEAR));
    assert!(poll_with(century.as_mut(), &waker).is_pending());
    assert_eq!(pending_timers(), 1);

    // Further than the driver's clock can count in nanoseconds (~584
    // years), if the platform can represent it: still never early.
    let mut millennium = now
        .checked_add(1_000 * YEAR)
        .map(|far| Box::pin(sleep_until(far)));
    if let Some(sleep) = millennium.as_mut() {
        assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    }

    assert_eq!(advance_and_count(99 * YEAR).await, 0);
    assert!(poll_with(century.as_mut(), &waker).is_pending());
    time::advance(YEAR).await;
    assert_eq!(poll_with(century.as_mut(), &waker), Poll::Ready(()));
    assert_eq!(counter.wakes(), 1);
    assert_eq!(Instant::now(), century.deadline());

    if let Some(mut sleep) = millennium {
        time::advance(600 * YEAR).await;
        assert!(Instant::now() < sleep.deadline());
        assert!(
            poll_with(sleep.as_mut(), &waker).is_pending(),
            "a sleep 1000 years ahead completed after 700 years"
        );
        assert!(!sleep.is_elapsed());
    }
}

/// Awaited on a paused runtime, a sleep until a far instant completes when
/// auto-advance reaches it: a century, and (where the platform can
/// represent it) a millennium ahead, beyond the ~584 years of nanoseconds
/// the driver's clock counts; never early. (tokio, whose ticks are
/// milliseconds, completes both.) Under a watchdog: the failure mode is a
/// runtime spinning in auto-advance.
#[test]
fn awaited_sleep_until_a_far_instant_completes_never_early() {
    paused_within(
        Duration::from_secs(10),
        "sleep_until a century and a millennium ahead",
        || async {
            let now = Instant::now();
            sleep_until(now + 100 * YEAR).await;
            assert_eq!(Instant::now(), now + 100 * YEAR);

            let now = Instant::now();
            if let Some(far) = now.checked_add(1_000 * YEAR) {
                sleep_until(far).await;
                assert!(Instant::now() >= far, "completed early");
            }
        },
    );
}

// ---------------------------------------------------------------------------
// Shutdown
// ---------------------------------------------------------------------------

#[test]
fn shutdown_drops_wakers_and_a_later_poll_panics() {
    let driver = paused_driver();
    let handle = driver.handle().clone();
    let _entered = handle.enter();
    let (counter, waker) = counting_waker();

    let mut sleep = Box::pin(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    drop(waker);
    assert_eq!(Arc::strong_count(&counter), 2);

    driver.shutdown();
    assert!(handle.is_shutdown());
    // Woken (so a task awaiting it polls and learns of the shutdown, as
    // with tokio), and so dropped.
    assert_eq!(Arc::strong_count(&counter), 1, "shutdown kept the waker");
    assert_eq!(counter.wakes(), 1);
    driver.shutdown(); // idempotent
    assert_eq!(counter.wakes(), 1);

    assert_panics_with("shut down", "poll after shutdown", || {
        poll_noop(sleep.as_mut())
    });
    // It will never fire now; asking does not panic (tokio's rule).
    assert!(sleep.is_elapsed());
    // Dropping it afterwards neither hangs nor panics.
    drop(sleep);
}

#[test]
fn dropping_the_driver_shuts_it_down() {
    let driver = paused_driver();
    let handle = driver.handle().clone();
    let (counter, waker) = counting_waker();

    let mut sleep = {
        let _entered = handle.enter();
        Box::pin(sleep(ms(10)))
    };
    assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    drop(waker);
    drop(driver);
    assert!(handle.is_shutdown());
    assert_eq!(
        Arc::strong_count(&counter),
        1,
        "dropping the driver kept the waker"
    );
    assert_panics_with("shut down", "poll after the driver dropped", || {
        poll_noop(sleep.as_mut())
    });
    // A reset does not panic (tokio's rule); the poll after it does.
    sleep.as_mut().reset(Instant::now() + ms(5));
    assert_panics_with("shut down", "poll after a reset after the drop", || {
        poll_noop(sleep.as_mut())
    });
    drop(sleep);
}

#[test]
fn sleep_made_before_shutdown_and_first_polled_after_panics() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut unpolled = Box::pin(sleep(ms(10)));
    driver.shutdown();
    assert_panics_with("shut down", "first poll after shutdown", || {
        poll_noop(unpolled.as_mut())
    });
    drop(unpolled);

    // A sleep made on a thread where the shut-down driver is still entered.
    let mut late = Box::pin(sleep(ms(10)));
    assert_panics_with("shut down", "sleep made after shutdown", || {
        poll_noop(late.as_mut())
    });
}

/// tokio panics on every poll of a timer whose driver has shut down, even
/// one already due, and so does ours: a later poll of a `Sleep` bound to it
/// fails loudly.
#[test]
fn due_sleep_first_polled_after_shutdown_panics() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let mut due = Box::pin(sleep_until(Instant::now()));
    driver.shutdown();
    assert_panics_with("shut down", "poll of a due sleep after shutdown", || {
        poll_noop(due.as_mut())
    });
}
