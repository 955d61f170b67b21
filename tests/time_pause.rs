//! The paused clock of a `lawn_rt` runtime (feature `test-util`):
//! `time::pause`, `time::resume` and `time::advance` and their misuse,
//! `Instant::now` under pause, `start_paused` (the macro's and the
//! builder's), where `pause` stops the clock, real time after `resume`,
//! and a sleep made outside a paused runtime and handed to its `block_on`
//! (never on the real clock), checked against tokio 1.x's documented
//! semantics. How
//! `advance` fires timers is in `time_advance.rs`, auto-advance in
//! `time_auto_advance.rs`.
//!
//! A runtime's ticks are 1 µs ([`DEFAULT_TIMER_RESOLUTION`]) and a paused
//! clock stands on a tick boundary, so a timer made `d` ahead fires exactly
//! `d` later when `d` is a whole number of ticks; other deadlines round up
//! to the next tick (never early). Where lawn_rt and tokio differ, the test
//! that pins the difference down says so.
//!
//! Everything runs on the paused clock, except the few tests whose point is
//! real time: that it does not move a paused clock and that it moves a
//! resumed one. Tests whose failure mode is a hang run under a watchdog
//! ([`paused_within`](common::paused_within)).

mod common;

use std::pin::pin;
use std::thread;

use common::{assert_panics_with, paused_runtime, paused_within, poll_noop, watchdog};
use lawn_rt::runtime::Builder;
use lawn_rt::task::{spawn_blocking, yield_now};
use lawn_rt::time::{self, sleep, Duration, Instant};

use common::units::{ms, secs, us, DAY, HOUR, TICK};

// ---------------------------------------------------------------------------
// pause, resume, advance: the basics and their misuse
// ---------------------------------------------------------------------------

#[test]
fn the_runtime_ticks_are_1_us() {
    assert_eq!(TICK, us(1));
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

/// `rt.block_on(sleep(d))`, the sleep made outside the paused runtime (the
/// argument is evaluated before `block_on` enters it): the sleep must not
/// silently bind to another clock (a foreign shard's real one, where a
/// one-hour sleep takes a real hour). Either making it there panics, as
/// tokio's does ("there is no reactor running"), or it follows the
/// runtime's paused clock and completes at once by auto-advance.
#[test]
fn block_on_of_a_sleep_made_outside_a_paused_runtime_does_not_wait_on_the_real_clock() {
    watchdog("block_on(sleep(1 h)) on a paused runtime", secs(3), || {
        let rt = paused_runtime(lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION);
        let made_outside = std::panic::catch_unwind(|| sleep(HOUR));
        if let Ok(nap) = made_outside {
            rt.block_on(nap);
        }
        std::mem::forget(rt);
    });
}
