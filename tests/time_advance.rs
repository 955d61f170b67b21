//! `time::advance` on a paused `lawn_rt` runtime (feature `test-util`): it
//! fires what is due and lets the woken tasks run before it returns, and an
//! advance by part of a 100 µs tick moves the clock exactly but fires a
//! timer only at the tick its deadline rounds up to (never early).
//! Checked against tokio 1.x's documented semantics; where lawn_rt and
//! tokio differ, the test says so.

mod common;

use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};

use common::{counting_waker, pending_timers, poll_noop, poll_with, round_up_to_tick, Rng};
use lawn_rt::task::yield_now;
use lawn_rt::time::{self, sleep, sleep_until, Duration, Instant, Sleep};

use common::units::{ms, us};

// ---------------------------------------------------------------------------
// advance fires what is due and lets it run
// ---------------------------------------------------------------------------

/// Four tasks sleeping 10, 20, 10 and 30 ms; the clock is advanced by hand.
/// After each `advance(..).await`, the tasks whose timers it fired have run
/// (at the clock's new time, all "at the same time"), the others have not.
async fn advance_runs_the_tasks_it_wakes() {
    let t0 = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let tasks: Vec<_> = [10, 20, 10, 30]
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let log = log.clone();
            lawn_rt::spawn(async move {
                sleep(ms(n)).await;
                log.lock().unwrap().push((i, Instant::now() - t0));
            })
        })
        .collect();
    // Let them run once, which registers their sleeps.
    yield_now().await;
    assert_eq!(pending_timers(), 4);
    let woken = || {
        let mut log = log.lock().unwrap();
        log.sort();
        std::mem::take(&mut *log)
    };

    time::advance(ms(9)).await;
    assert_eq!(woken(), []);
    time::advance(ms(1)).await;
    assert_eq!(
        woken(),
        [(0, ms(10)), (2, ms(10))],
        "when `advance` returns, the tasks of the timers it fired have run"
    );
    time::advance(ms(15)).await;
    assert_eq!(woken(), [(1, ms(25))]);
    time::advance(ms(5)).await;
    assert_eq!(woken(), [(3, ms(30))]);
    for task in tasks {
        task.await.unwrap();
    }
}

/// lawn_rt's `advance` documents that the fired timers' tasks run before it
/// returns. (tokio's makes no such promise: "this method will not wait for
/// the `sleep` calls it advanced past to complete".)
#[lawn_rt::test(start_paused = true)]
async fn advance_in_block_on_runs_the_tasks_it_wakes_before_returning() {
    advance_runs_the_tasks_it_wakes().await;
}

#[lawn_rt::test(start_paused = true)]
async fn advance_in_a_task_runs_the_tasks_it_wakes_before_returning() {
    lawn_rt::spawn(advance_runs_the_tasks_it_wakes())
        .await
        .unwrap();
}

/// Timers `advance` jumps past complete together, at the new time, and
/// none of them early.
#[lawn_rt::test(start_paused = true)]
async fn advance_past_many_deadlines_completes_them_at_the_new_time() {
    let t0 = Instant::now();
    let tasks: Vec<_> = [3, 1, 2, 4, 5]
        .into_iter()
        .map(|n| {
            lawn_rt::spawn(async move {
                let nap = sleep(ms(n));
                let deadline = nap.deadline();
                nap.await;
                assert!(Instant::now() >= deadline);
                Instant::now()
            })
        })
        .collect();
    yield_now().await;
    let mut tasks = tasks.into_iter();
    let (due, last) = (tasks.by_ref().take(4).collect::<Vec<_>>(), tasks);
    time::advance(ms(4)).await;
    assert_eq!(pending_timers(), 1, "only the 5 ms sleep is left");
    // Awaiting them moves no clock: they are ready to run.
    for task in due {
        assert_eq!(task.await.unwrap(), t0 + ms(4));
    }
    time::advance(ms(96)).await;
    for task in last {
        assert_eq!(task.await.unwrap(), t0 + ms(100));
    }
}

// ---------------------------------------------------------------------------
// advance by part of a tick
// ---------------------------------------------------------------------------

/// `advance` by part of a tick moves the clock exactly, but a timer fires
/// only once the clock reaches the tick its deadline rounds up to: never
/// early, less than a tick late. (tokio does the same with 1 ms ticks.)
/// On a runtime with 100 µs ticks (the default tick is 1 µs).
#[test]
fn advance_by_part_of_a_tick_never_fires_early() {
    lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .timer_resolution(us(100))
        .build()
        .unwrap()
        .block_on(advance_by_part_of_a_100_us_tick());
}

async fn advance_by_part_of_a_100_us_tick() {
    let t0 = Instant::now();
    let (counter, waker) = counting_waker();
    let mut nap = pin!(sleep(us(150))); // due at 150 µs, fires at 200 µs
    assert!(poll_with(nap.as_mut(), &waker).is_pending());

    time::advance(us(150)).await;
    assert_eq!(Instant::now(), nap.deadline());
    assert_eq!(counter.wakes(), 0, "fired before its tick");
    assert!(!nap.is_elapsed());
    assert!(poll_with(nap.as_mut(), &waker).is_pending());
    time::advance(us(49)).await; // 199 µs
    assert_eq!(counter.wakes(), 0);
    assert!(poll_with(nap.as_mut(), &waker).is_pending());
    time::advance(us(1)).await; // 200 µs: its tick
    assert_eq!(counter.wakes(), 1);
    assert!(poll_with(nap.as_mut(), &waker).is_ready());

    // Made off the grid (at 250 µs) for 100 µs: due at 350 µs, so it fires
    // at 400 µs, where auto-advance takes the clock.
    time::advance(us(50)).await;
    let made = Instant::now();
    assert_eq!(made, t0 + us(250));
    sleep(us(100)).await;
    assert_eq!(Instant::now(), t0 + us(400));
}

/// Random sleeps made at random times, random advances (in nanoseconds,
/// mostly off the tick grid, some long enough to reach timers the Lawn
/// files coarsely): after every step a sleep has completed exactly when the
/// clock has reached its deadline rounded up to the next tick.
#[lawn_rt::test(start_paused = true)]
async fn random_advances_fire_each_sleep_at_the_tick_after_its_deadline() {
    let t0 = Instant::now();
    let fires_at = |sleep: &Sleep| t0 + round_up_to_tick(sleep.deadline() - t0);
    let mut rng = Rng(0xA076_1D64_78BD_642F);
    let mut sleeps: Vec<Pin<Box<Sleep>>> = Vec::new();
    let mut fired = 0;
    for step in 0..400 {
        for _ in 0..rng.below(4) {
            let nanos = match rng.below(10) {
                0 => 1 + rng.below(100_000_000_000), // up to 100 s
                _ => 1 + rng.below(2_000_000),       // up to 2 ms
            };
            let mut nap = Box::pin(sleep(Duration::from_nanos(nanos)));
            assert!(poll_noop(nap.as_mut()).is_pending());
            sleeps.push(nap);
        }
        let by = match rng.below(20) {
            0 => rng.below(20_000_000_000),
            _ => rng.below(300_000),
        };
        time::advance(Duration::from_nanos(by)).await;
        let now = Instant::now();
        let mut i = 0;
        while i < sleeps.len() {
            let due = fires_at(&sleeps[i]);
            let ready = poll_noop(sleeps[i].as_mut()).is_ready();
            assert_eq!(
                ready,
                now >= due,
                "step {step}: sleep due {:?} (fires at {:?}) at {:?}: ready = {ready}",
                sleeps[i].deadline() - t0,
                due - t0,
                now - t0,
            );
            if ready {
                assert!(now >= sleeps[i].deadline(), "completed early");
                drop(sleeps.swap_remove(i));
                fired += 1;
            } else {
                i += 1;
            }
        }
        // A fresh budget for the polls of the next step.
        yield_now().await;
    }
    assert!(
        fired > 300,
        "only {fired} sleeps fired: the test lost its point"
    );
}

// ---------------------------------------------------------------------------
// deadlines beyond the clock's last tick
// ---------------------------------------------------------------------------

/// A deadline after the last tick the driver can count (a paused clock
/// moved centuries ahead; 584 years at a 1 ns tick) is never filed for
/// that last tick, which would fire it early: the sleep stays pending
/// while the clock is short of its deadline, however far past the last
/// tick, and completes on the first poll once the clock has passed it.
#[test]
fn a_deadline_beyond_the_clocks_last_tick_never_fires_early() {
    let year = Duration::from_secs(365 * 86_400);
    for (resolution, far) in [
        (us(1), Duration::from_secs(u64::MAX / 4)),
        (Duration::from_nanos(1), 600 * year),
    ] {
        lawn_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .timer_resolution(resolution)
            .build()
            .unwrap()
            .block_on(async move {
                let start = Instant::now();
                let mut far_off = pin!(sleep_until(start + far));
                assert!(poll_noop(far_off.as_mut()).is_pending());
                time::advance(far - Duration::from_secs(1)).await;
                assert!(
                    poll_noop(far_off.as_mut()).is_pending(),
                    "fired {:?} before its deadline (tick {resolution:?})",
                    far_off.deadline() - Instant::now()
                );
                assert!(!far_off.is_elapsed());
                time::advance(Duration::from_secs(1)).await;
                assert_eq!(Instant::now(), far_off.deadline());
                assert!(poll_noop(far_off.as_mut()).is_ready());
                // Reset to a deadline a quarter as far again (still an
                // `Instant`; further ones clamp to ~30 years, as tokio's
                // far future): pending until then, not early.
                let again = far / 4;
                far_off.as_mut().reset(Instant::now() + again);
                assert!(poll_noop(far_off.as_mut()).is_pending());
                time::advance(again - Duration::from_secs(1)).await;
                assert!(
                    poll_noop(far_off.as_mut()).is_pending(),
                    "early after a reset"
                );
                time::advance(Duration::from_secs(1)).await;
                assert!(poll_noop(far_off.as_mut()).is_ready());
            });
    }
}
