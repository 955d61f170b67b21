//! The paused clock of a `lawn_rt` runtime (feature `test-util`):
//! `time::pause`, `time::resume`, `time::advance`, auto-advance, and
//! `start_paused` (the macro's and the builder's), checked against tokio
//! 1.x's documented semantics.
//!
//! A runtime's ticks are 100 µs ([`DEFAULT_TIMER_RESOLUTION`]) and a paused
//! clock stands on a tick boundary, so a timer made `d` ahead fires exactly
//! `d` later when `d` is a whole number of ticks; other deadlines round up
//! to the next tick (never early). Where lawn_rt and tokio differ, the test
//! that pins the difference down says so.
//!
//! Everything runs on the paused clock, except the few tests whose point is
//! real time: that it does not move a paused clock, that it moves a resumed
//! one, and that a blocking task really runs for a while. Tests whose
//! failure mode is a hang run under a watchdog
//! ([`paused_within`](common::paused_within)).

mod common;

use std::future::pending;
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::thread;

use common::{
    assert_panics_with, counting_waker, paused_runtime, paused_within, pending_timers, poll_noop,
    poll_with, Rng,
};
use lawn_rt::runtime::{Builder, DEFAULT_TIMER_RESOLUTION};
use lawn_rt::task::{spawn_blocking, yield_now};
use lawn_rt::time::{
    self, interval, sleep, sleep_until, timeout, timeout_at, Duration, Instant, MissedTickBehavior,
    Sleep,
};

const TICK: Duration = DEFAULT_TIMER_RESOLUTION;
const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

const fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// `d` rounded up to a whole number of ticks: how long a timer made on a
/// tick boundary takes to fire.
fn round_up_to_tick(d: Duration) -> Duration {
    let tick = TICK.as_nanos();
    let ticks = d.as_nanos().div_ceil(tick);
    Duration::from_nanos(u64::try_from(ticks * tick).unwrap())
}

// ---------------------------------------------------------------------------
// pause, resume, advance: the basics and their misuse
// ---------------------------------------------------------------------------

#[test]
fn the_runtime_ticks_are_100_us() {
    assert_eq!(TICK, us(100));
}

#[lawn_rt::test]
async fn pause_resume_advance_and_their_misuse() {
    // Not paused: advance and resume refuse (tokio panics the same way).
    assert_panics_with("needs a paused clock", "advance before pause", || {
        time::advance(ms(1))
    });
    assert_panics_with("not paused", "resume before pause", time::resume);

    time::pause();
    assert_panics_with("already paused", "pause twice", time::pause);
    let t0 = Instant::now();
    time::advance(ms(5)).await;
    assert_eq!(Instant::now(), t0 + ms(5));

    time::resume();
    assert_panics_with("not paused", "resume twice", time::resume);
    assert_panics_with("needs a paused clock", "advance after resume", || {
        time::advance(ms(1))
    });

    // Paused again, it works as the first time, from where time stood.
    time::pause();
    let t1 = Instant::now();
    assert!(t1 >= t0 + ms(5), "time went back across resume and pause");
    time::advance(ms(1)).await;
    assert_eq!(Instant::now(), t1 + ms(1));
}

/// tokio: "Panics if ... called from outside of a `current_thread` Tokio
/// runtime". A bare `Driver` entered is no runtime either (it has its own
/// `pause` and `advance`).
#[test]
fn pause_resume_advance_outside_a_runtime_panic() {
    const NO_RUNTIME: &str = "needs a current_thread lawn_rt runtime";
    assert_panics_with(NO_RUNTIME, "pause outside a runtime", time::pause);
    assert_panics_with(NO_RUNTIME, "resume outside a runtime", time::resume);
    assert_panics_with(NO_RUNTIME, "advance outside a runtime", || {
        time::advance(ms(1))
    });

    let driver = lawn_rt::driver::Driver::new();
    let _entered = driver.handle().enter();
    assert_panics_with(
        "a bare `Driver` has its own",
        "pause with a bare driver entered",
        time::pause,
    );
    assert!(!driver.is_paused());
}

#[test]
fn pause_in_a_runtime_without_time_panics() {
    let runtime = Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        assert_panics_with(
            "built without it",
            "pause without the time driver",
            time::pause,
        );
    });
}

/// lawn_rt checks the clock when `advance` is called (at the caller's
/// line) and again when the future is first polled: resumed in between, it
/// panics then. (tokio's `advance` is an `async fn`: it checks only when
/// polled.)
#[lawn_rt::test(start_paused = true)]
async fn advance_first_polled_after_a_resume_panics() {
    let mut step = pin!(time::advance(ms(1)));
    time::resume();
    assert_panics_with("it was resumed", "advance polled after resume", || {
        poll_noop(step.as_mut())
    });
}

// ---------------------------------------------------------------------------
// Instant::now under pause
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn instant_now_is_frozen_and_moves_exactly_by_advance() {
    let t0 = Instant::now();
    assert_eq!(t0.into_std(), lawn_rt::driver::Handle::current().now());
    // Real time passes (the point of this test); the paused clock does not.
    thread::sleep(ms(2));
    yield_now().await;
    assert_eq!(Instant::now(), t0);
    time::advance(Duration::ZERO).await;
    assert_eq!(Instant::now(), t0);

    // `advance` moves the clock by exactly what it is given, ticks or not.
    let mut expected = t0;
    for step in [
        ms(1),
        HOUR,
        Duration::from_nanos(1),
        Duration::from_nanos(123_456_789),
        TICK / 3,
        30 * DAY,
    ] {
        time::advance(step).await;
        expected += step;
        assert_eq!(Instant::now(), expected, "after advance({step:?})");
        assert_eq!(t0.elapsed(), expected - t0);
    }

    // A thread with no runtime entered reads the real clock.
    let elsewhere = thread::spawn(Instant::now).join().unwrap();
    assert!(elsewhere < t0 + DAY);
}

/// tokio panics when `advance` would overflow its `Instant`; lawn_rt clamps
/// the jump to its far future (30 years), as `Instant + Duration::MAX`
/// does.
#[lawn_rt::test(start_paused = true)]
async fn advance_by_duration_max_clamps_to_the_far_future() {
    let t0 = Instant::now();
    time::advance(Duration::MAX).await;
    assert_eq!(Instant::now(), t0 + Duration::MAX);
    assert_eq!(Instant::now() - t0, 30 * 365 * DAY);
}

#[lawn_rt::test(start_paused = true)]
async fn spawned_and_blocking_tasks_read_the_paused_clock() {
    let t0 = Instant::now();
    assert_eq!(lawn_rt::spawn(async { Instant::now() }).await.unwrap(), t0);
    time::advance(secs(5)).await;
    assert_eq!(
        lawn_rt::spawn(async { Instant::now() }).await.unwrap(),
        t0 + secs(5)
    );
    // A task that sleeps sees the clock at its deadline when it wakes.
    let woke = lawn_rt::spawn(async {
        sleep(secs(7)).await;
        Instant::now()
    });
    assert_eq!(woke.await.unwrap(), t0 + secs(12));
    // The blocking pool's threads enter the runtime (as tokio's do), so
    // they read its paused clock too.
    assert_eq!(spawn_blocking(Instant::now).await.unwrap(), t0 + secs(12));
    // A plain thread does not.
    time::advance(DAY).await;
    let elsewhere = thread::spawn(Instant::now).join().unwrap();
    assert!(elsewhere < t0 + DAY);
}

// ---------------------------------------------------------------------------
// start_paused, and where pause stops the clock
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn start_paused_by_the_macro() {
    assert_panics_with("already paused", "pause under start_paused", time::pause);
    let t0 = Instant::now();
    thread::sleep(ms(1)); // real time, which a paused clock ignores
    assert_eq!(Instant::now(), t0);

    // On a tick boundary: a timer one tick ahead fires after one tick.
    let mut nap = pin!(sleep(TICK));
    assert!(poll_noop(nap.as_mut()).is_pending());
    time::advance(TICK - Duration::from_nanos(1)).await;
    assert!(poll_noop(nap.as_mut()).is_pending());
    time::advance(Duration::from_nanos(1)).await;
    assert!(poll_noop(nap.as_mut()).is_ready());
    assert_eq!(Instant::now(), t0 + TICK);
}

#[test]
fn start_paused_by_the_builder() {
    let runtime = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let t0 = runtime.block_on(async {
        assert_panics_with("already paused", "pause under start_paused", time::pause);
        let t0 = Instant::now();
        sleep(HOUR).await;
        assert_eq!(Instant::now(), t0 + HOUR);
        t0
    });
    // Real time between two `block_on`s does not move it either.
    thread::sleep(ms(1));
    runtime.block_on(async move { assert_eq!(Instant::now(), t0 + HOUR) });

    // With other ticks: still on a tick boundary, deadlines round up to it.
    let runtime = paused_runtime(ms(1));
    runtime.block_on(async {
        let t0 = Instant::now();
        sleep(ms(3)).await;
        assert_eq!(Instant::now(), t0 + ms(3));
        sleep(us(1_500)).await;
        assert_eq!(Instant::now(), t0 + ms(5));
    });

    // Paused time needs the time driver.
    let err = Builder::new_current_thread()
        .start_paused(true)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("start_paused"), "{err}");
}

/// `pause` stops the clock on a tick boundary (rounding up: less than a
/// tick ahead of real time), wherever real time stands when it is called;
/// so a timer made `k` whole ticks ahead fires after advancing exactly `k`
/// ticks. (tokio pauses at the very instant and has 1 ms ticks.)
#[lawn_rt::test]
async fn pause_stops_the_clock_on_a_tick_boundary() {
    for round in 0..20u32 {
        let before = Instant::now();
        time::pause();
        let paused_at = Instant::now();
        assert!(paused_at >= before, "pause moved the clock back");

        let ticks = 1 + round % 7;
        let mut nap = pin!(sleep(TICK * ticks));
        assert!(poll_noop(nap.as_mut()).is_pending());
        time::advance(TICK * ticks - Duration::from_nanos(1)).await;
        assert!(
            poll_noop(nap.as_mut()).is_pending(),
            "round {round}: fired early"
        );
        time::advance(Duration::from_nanos(1)).await;
        assert!(
            poll_noop(nap.as_mut()).is_ready(),
            "round {round}: the clock was paused off a tick boundary"
        );

        time::resume();
        // Shift the real clock's phase against the tick before the next
        // pause (real time is the point here).
        thread::sleep(us(u64::from(37 * round % 100)));
    }
}

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
// auto-advance
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn sleep_an_hour_completes_at_once_with_elapsed_exactly_an_hour() {
    let start = Instant::now();
    sleep(HOUR).await;
    assert_eq!(start.elapsed(), HOUR);
    sleep_until(start + HOUR + DAY).await;
    assert_eq!(Instant::now(), start + HOUR + DAY);
    sleep(Duration::ZERO).await;
    assert_eq!(Instant::now(), start + HOUR + DAY);
}

/// Tasks sleeping different durations wake in deadline order, each at its
/// own deadline exactly, while the main task waits for them.
#[lawn_rt::test(start_paused = true)]
async fn sleeping_tasks_wake_in_deadline_order_at_exact_times() {
    const NAPS: [Duration; 8] = [
        HOUR,
        ms(10),
        us(300),
        DAY,
        Duration::from_micros(10_100),
        secs(90),
        us(100),
        ms(2_500),
    ];
    let start = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let tasks: Vec<_> = NAPS
        .iter()
        .enumerate()
        .map(|(i, &nap)| {
            let log = log.clone();
            lawn_rt::spawn(async move {
                sleep(nap).await;
                log.lock().unwrap().push((i, start.elapsed()));
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let mut expected: Vec<_> = NAPS.iter().copied().enumerate().collect();
    expected.sort_by_key(|&(_, nap)| nap);
    assert_eq!(*log.lock().unwrap(), expected);
    assert_eq!(Instant::now(), start + DAY);
}

/// The same with 300 tasks of random whole-tick durations up to 10 s (ties
/// included): each wakes exactly at its deadline, in deadline order.
#[lawn_rt::test(start_paused = true)]
async fn many_random_sleepers_wake_exactly_in_order() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_5EED);
    let start = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let naps: Vec<Duration> = (0..300).map(|_| TICK * rng.below(100_000) as u32).collect();
    let tasks: Vec<_> = naps
        .iter()
        .enumerate()
        .map(|(i, &nap)| {
            let log = log.clone();
            lawn_rt::spawn(async move {
                sleep(nap).await;
                log.lock().unwrap().push((i, start.elapsed()));
            })
        })
        .collect();
    futures::future::join_all(tasks).await;
    let log = log.lock().unwrap();
    assert_eq!(log.len(), naps.len());
    for &(i, elapsed) in log.iter() {
        assert_eq!(elapsed, naps[i], "task {i} woke at the wrong time");
    }
    assert!(
        log.windows(2).all(|w| w[0].1 <= w[1].1),
        "tasks woke out of deadline order"
    );
    assert_eq!(Instant::now(), start + *naps.iter().max().unwrap());
}

/// A thousand 7 ms sleeps in a row add up to exactly 7 s: no drift.
#[lawn_rt::test(start_paused = true)]
async fn sleeps_in_a_loop_add_up_exactly() {
    let start = Instant::now();
    for n in 1..=1_000u32 {
        sleep(ms(7)).await;
        assert_eq!(start.elapsed(), ms(7) * n);
    }
}

/// Durations that are not whole ticks round up to the next tick: never
/// early, and less than a tick late. (tokio rounds up to its 1 ms tick.)
#[lawn_rt::test(start_paused = true)]
async fn odd_durations_round_up_to_the_tick() {
    for nap in [
        Duration::from_nanos(1),
        us(1),
        us(99),
        us(100),
        us(101),
        us(150),
        us(12_345),
        HOUR + Duration::from_nanos(1),
    ] {
        // After every auto-advance the clock stands on a tick boundary.
        let start = Instant::now();
        sleep(nap).await;
        let elapsed = start.elapsed();
        assert_eq!(elapsed, round_up_to_tick(nap), "sleep({nap:?})");
        assert!(elapsed >= nap && elapsed - nap < TICK);
    }
}

/// A task that keeps yielding is work to do: while it runs, the clock does
/// not auto-advance (tokio: the same).
#[lawn_rt::test(start_paused = true)]
async fn no_auto_advance_while_a_task_is_ready() {
    let t0 = Instant::now();
    let busy = lawn_rt::spawn(async {
        for _ in 0..1_000 {
            yield_now().await;
        }
        Instant::now()
    });
    sleep(ms(1)).await;
    assert_eq!(Instant::now(), t0 + ms(1));
    assert_eq!(busy.await.unwrap(), t0, "the clock moved while a task ran");
}

// ---------------------------------------------------------------------------
// auto-advance and spawn_blocking
// ---------------------------------------------------------------------------

/// tokio: "When a blocking task is running, the clock's auto-advance is
/// temporarily inhibited", even with a timer pending. The blocking task
/// reads the paused clock before and after doing its (real-time) work.
#[lawn_rt::test(start_paused = true)]
async fn no_auto_advance_while_a_blocking_task_runs() {
    let t0 = Instant::now();
    let sleeper = lawn_rt::spawn(async {
        sleep(HOUR).await;
        (Instant::now(), std::time::Instant::now())
    });
    yield_now().await; // the sleeper registers its timer
    let blocking = spawn_blocking(|| {
        let before = Instant::now();
        thread::sleep(ms(20)); // blocking work: real time is the point
        (before, Instant::now(), std::time::Instant::now())
    });
    let (before, after, blocking_done) = blocking.await.unwrap();
    assert_eq!(
        (before, after),
        (t0, t0),
        "the clock moved while a blocking task ran"
    );
    // Once it is done, auto-advance goes on.
    let (woke, woke_real) = sleeper.await.unwrap();
    assert_eq!(woke, t0 + HOUR);
    assert!(
        woke_real >= blocking_done,
        "the sleeper woke before the blocking task had finished"
    );
}

/// tokio's example for the above, as written: awaiting the blocking task
/// leaves the clock where it stood.
#[lawn_rt::test(start_paused = true)]
async fn awaiting_a_blocking_task_leaves_the_clock_where_it_stood() {
    let start = Instant::now();
    let result = spawn_blocking(|| {
        thread::sleep(ms(10));
        42
    })
    .await
    .unwrap();
    assert_eq!(result, 42);
    assert_eq!(start.elapsed(), Duration::ZERO);
}

/// The same with a timer pending elsewhere (a watchdog task, say). In
/// tokio a blocking task holds auto-advance back until its `JoinHandle`
/// has the result, so the code awaiting it still sees the clock where it
/// stood (checked: 0 of 2,000 rounds moved it). It must not matter which
/// of the two the runtime thread happens to notice first.
#[lawn_rt::test(start_paused = true)]
async fn a_blocking_task_holds_the_clock_until_its_result_is_delivered() {
    let watchdog = lawn_rt::spawn(sleep(HOUR));
    yield_now().await;
    for round in 0..300 {
        let t0 = Instant::now();
        spawn_blocking(|| ()).await.unwrap();
        assert_eq!(
            Instant::now(),
            t0,
            "round {round}: the clock auto-advanced before the blocking task's result reached \
             the task awaiting it"
        );
    }
    watchdog.abort();
}

/// When the last blocking task ends, a paused runtime with nothing else to
/// do must go back to auto-advancing, even if nobody awaits that task. A
/// stress test: each round ends a blocking task at a slightly different
/// moment of the runtime's way into its park (the busy-wait shifts it), so
/// a wake-up lost in between shows as a hang, which the watchdog reports.
#[test]
fn auto_advance_resumes_when_a_detached_blocking_task_ends() {
    let rounds = paused_within(secs(10), "sleeps after detached blocking tasks", || async {
        let mut rounds = 0u32;
        for i in 0..30_000u32 {
            drop(spawn_blocking(|| ()));
            let spin = Duration::from_nanos(u64::from(i % 600) * 100);
            let real = std::time::Instant::now();
            while real.elapsed() < spin {}
            let before = Instant::now();
            sleep(TICK).await;
            assert_eq!(before.elapsed(), TICK);
            rounds += 1;
        }
        rounds
    });
    assert_eq!(rounds, 30_000);
}

// ---------------------------------------------------------------------------
// advance by part of a tick
// ---------------------------------------------------------------------------

/// `advance` by part of a tick moves the clock exactly, but a timer fires
/// only once the clock reaches the tick its deadline rounds up to: never
/// early, less than a tick late. (tokio does the same with 1 ms ticks.)
#[lawn_rt::test(start_paused = true)]
async fn advance_by_part_of_a_tick_never_fires_early() {
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
// interval and timeout under pause
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn interval_ticks_at_exact_multiples_of_its_period() {
    let t0 = Instant::now();
    let mut every = interval(secs(1));
    for n in 0..100u32 {
        let due = every.tick().await;
        assert_eq!(due, t0 + secs(1) * n);
        assert_eq!(Instant::now(), due);
    }

    // A period of two and a half ticks: the ticks report exact multiples;
    // each wakes at the tick its instant rounds up to.
    let t1 = Instant::now();
    let mut odd = interval(us(250));
    for n in 0..40u32 {
        let due = odd.tick().await;
        assert_eq!(due, t1 + us(250) * n);
        let now = Instant::now();
        assert!(now >= due && now - due < TICK, "tick {n} at {now:?}");
    }
}

/// A consumer that falls behind by `advance(35 ms)` on a 10 ms interval:
/// `Burst` catches up at once on the old schedule, `Delay` restarts from
/// now, `Skip` goes on at the next multiple of the period; then
/// auto-advance ticks exactly on the new schedule. Pairs are (the instant
/// the tick reports, when it was taken), in ms from the start.
#[lawn_rt::test(start_paused = true)]
async fn missed_ticks_after_advance_follow_the_behavior() {
    let cases = [
        (
            MissedTickBehavior::Burst,
            [(10, 35), (20, 35), (30, 35), (40, 40), (50, 50)],
        ),
        (
            MissedTickBehavior::Delay,
            [(10, 35), (45, 45), (55, 55), (65, 65), (75, 75)],
        ),
        (
            MissedTickBehavior::Skip,
            [(10, 35), (40, 40), (50, 50), (60, 60), (70, 70)],
        ),
    ];
    for (behavior, expected) in cases {
        let t0 = Instant::now();
        let mut every = interval(ms(10));
        every.set_missed_tick_behavior(behavior);
        assert_eq!(every.tick().await, t0);
        time::advance(ms(35)).await;
        let mut taken = Vec::new();
        for _ in 0..expected.len() {
            let due = every.tick().await;
            taken.push((due - t0, Instant::now() - t0));
        }
        let expected: Vec<_> = expected.iter().map(|&(d, n)| (ms(d), ms(n))).collect();
        assert_eq!(taken, expected, "{behavior:?}");
    }
}

#[lawn_rt::test(start_paused = true)]
async fn timeout_fires_at_the_exact_deadline() {
    let t0 = Instant::now();
    assert!(timeout(HOUR, pending::<()>()).await.is_err());
    assert_eq!(Instant::now(), t0 + HOUR);

    // The inner future finishes first: Ok, at its own time.
    let t1 = Instant::now();
    let inner = async {
        sleep(ms(30)).await;
        7
    };
    assert_eq!(timeout(HOUR, inner).await, Ok(7));
    assert_eq!(Instant::now(), t1 + ms(30));

    // Both due at the same instant: the inner future is polled first and
    // wins (tokio's rule).
    let t2 = Instant::now();
    assert_eq!(
        timeout_at(t2 + secs(5), sleep_until(t2 + secs(5))).await,
        Ok(())
    );
    assert_eq!(Instant::now(), t2 + secs(5));

    // The inner one a tick later: Err, at the deadline exactly.
    let t3 = Instant::now();
    assert!(timeout(secs(5), sleep(secs(5) + TICK)).await.is_err());
    assert_eq!(Instant::now(), t3 + secs(5));

    // A timeout around a task's JoinHandle, the task sleeping too long.
    let t4 = Instant::now();
    let slow = lawn_rt::spawn(sleep(DAY));
    assert!(timeout(HOUR, slow).await.is_err());
    assert_eq!(Instant::now(), t4 + HOUR);
}

// ---------------------------------------------------------------------------
// resume
// ---------------------------------------------------------------------------

/// After `resume` time runs again from where it stood: real time moves
/// `Instant::now()` once more, and a sleep takes its duration of real time
/// however far the clock was advanced while paused. (tokio: the 10 ms sleep
/// below takes about 11 ms.)
#[test]
fn after_resume_real_time_passes_again() {
    let real_sleep = paused_within(
        secs(10),
        "sleep(10 ms) after advance(1 h) and resume",
        || async {
            let t0 = Instant::now();
            time::advance(HOUR).await;
            time::resume();
            let resumed = Instant::now();
            assert!(resumed >= t0 + HOUR);
            thread::sleep(ms(2)); // real time passing is the point
            assert!(
                Instant::now() >= resumed + ms(2),
                "a resumed clock follows real time"
            );

            let real = std::time::Instant::now();
            let before = Instant::now();
            sleep(ms(10)).await;
            assert!(before.elapsed() >= ms(10), "completed early");
            real.elapsed()
        },
    );
    assert!(real_sleep >= ms(10));
}

/// A timer made while paused and awaited after `resume` fires once the
/// time it still had to go has passed in real time (here 1 ms, where the
/// clock was advanced 59 min 59.999 s of its hour while paused).
#[test]
fn a_timer_made_while_paused_fires_after_resume() {
    paused_within(
        secs(10),
        "sleep(1 h) made paused, advanced all but 1 ms, resumed",
        || async {
            let t0 = Instant::now();
            let mut nap = Box::pin(sleep(HOUR));
            assert!(poll_noop(nap.as_mut()).is_pending());
            time::advance(HOUR - ms(1)).await;
            time::resume();
            nap.await;
            assert!(Instant::now() >= t0 + HOUR, "completed early");
        },
    );
}
