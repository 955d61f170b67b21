//! Auto-advance of a paused `lawn_rt` runtime (feature `test-util`): with
//! nothing to run, the clock jumps to the next timer, so sleeps complete at
//! once at exact times, in deadline order, rounded up to the runtime's tick (1 µs).
//! It holds back while a task is ready or a blocking task runs, and comes
//! back when the blocking task ends (also one whose output panics on
//! drop). It sees a timer registered from another thread (or a second
//! `block_on`) while the runtime heads to park. Also `interval` and
//! `timeout` under pause. Checked against tokio 1.x's documented semantics.
//!
//! Everything runs on the paused clock, except that a blocking task really
//! runs for a while and that the other-thread tests spin on real time;
//! tests whose failure mode is a hang run under a watchdog
//! ([`paused_within`](common::paused_within), [`watchdog`]).

mod common;

use std::future::pending;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Poll, Waker};
use std::thread;

use common::{
    counting_waker, paused_within, poll_noop, poll_with, round_up_to_tick, watchdog, PanicOnDrop,
    Rng,
};
use lawn_rt::runtime::Builder;
use lawn_rt::task::{spawn_blocking, yield_now};
use lawn_rt::time::{
    self, interval, sleep, sleep_until, timeout, timeout_at, Duration, Instant, MissedTickBehavior,
};

use common::units::{ms, secs, us, DAY, HOUR, TICK};

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
    let log = sleep_in_tasks(&NAPS, start).await;
    let mut expected: Vec<_> = NAPS.iter().copied().enumerate().collect();
    expected.sort_by_key(|&(_, nap)| nap);
    assert_eq!(log, expected);
    assert_eq!(Instant::now(), start + DAY);
}

/// The same with 300 tasks of random whole-tick durations up to 10 s (ties
/// included): each wakes exactly at its deadline, in deadline order.
#[lawn_rt::test(start_paused = true)]
async fn many_random_sleepers_wake_exactly_in_order() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_5EED);
    let start = Instant::now();
    let naps: Vec<Duration> = (0..300).map(|_| TICK * rng.below(100_000) as u32).collect();
    let log = sleep_in_tasks(&naps, start).await;
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

/// A detached blocking task whose output panics when dropped (on its pool
/// thread): the blocking task still counts as ended, so the paused clock
/// goes back to auto-advancing and a one-second sleep completes at once
/// (rather than never).
#[test]
fn a_detached_blocking_task_whose_output_panics_on_drop_does_not_freeze_the_paused_clock() {
    watchdog("a paused sleep after the blocking task", secs(5), || {
        let rt = Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        rt.block_on(async {
            let (go_tx, go_rx) = mpsc::channel::<()>();
            drop(spawn_blocking(move || {
                go_rx.recv().unwrap();
                PanicOnDrop
            }));
            go_tx.send(()).unwrap();
            thread::sleep(ms(100));
            sleep(secs(1)).await;
        });
        // Not waiting for the runtime's drop: its pool thread saw a panic.
        std::mem::forget(rt);
    });
}

// ---------------------------------------------------------------------------
// timers registered from other threads
// ---------------------------------------------------------------------------

/// The waker of the thread driving the paused runtime in
/// [`a_timer_registered_from_another_thread_while_the_runtime_heads_to_park_fires`].
static STASHED: Mutex<Option<Waker>> = Mutex::new(None);

fn stash(waker: &Waker) {
    *STASHED.lock().unwrap() = Some(waker.clone());
}

fn wake_stashed() {
    if let Some(waker) = STASHED.lock().unwrap().take() {
        waker.wake();
    }
}

/// A timer registered from another thread (one that entered the runtime,
/// as a second `block_on` caller may) while the thread driving the paused
/// runtime, idle with no timer of its own, is on its way to park: the
/// driving thread must see it, so the paused clock auto-advances to it and
/// it fires. 500,000 one-millisecond sleeps, each spun on (not parked on)
/// so that the next registration lands while the driver heads back to
/// park, at a varying point of its way there; a sleep not fired within 2 s
/// of real time fails the test, saying whether a later registration (the
/// driver parked by then) unstuck it, which shows a lost wake-up rather
/// than a dead driver.
#[test]
fn a_timer_registered_from_another_thread_while_the_runtime_heads_to_park_fires() {
    const ROUNDS: usize = 500_000;
    let outcome = watchdog("timers from another thread", secs(60), || {
        let rt = Arc::new(
            Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap(),
        );
        let done = Arc::new(AtomicBool::new(false));
        // The driving thread: waits (no timer of its own) until told.
        let driver = {
            let (rt, done) = (rt.clone(), done.clone());
            thread::spawn(move || {
                rt.block_on(std::future::poll_fn(|cx| {
                    if done.load(SeqCst) {
                        Poll::Ready(())
                    } else {
                        stash(cx.waker());
                        Poll::Pending
                    }
                }))
            })
        };
        thread::sleep(ms(50));
        // This thread: sleeps over and over on the runtime's (paused)
        // driver, waking up by spinning rather than parking.
        {
            let _entered = rt.enter();
            let mut jitter = 0u32;
            for round in 0..ROUNDS {
                // Vary where in the driver's loop the registration lands.
                jitter = (jitter + 7) % 64;
                for _ in 0..jitter {
                    std::hint::spin_loop();
                }
                let (counter, waker) = counting_waker();
                let mut nap = Box::pin(sleep(ms(1)));
                if poll_with(nap.as_mut(), &waker).is_ready() {
                    continue;
                }
                let started = std::time::Instant::now();
                while counter.wakes() == 0 {
                    if started.elapsed() > secs(2) {
                        // Stuck. One more registration (the driver is now
                        // parked with its deadline set) unsticks a lost
                        // wake-up, not a dead driver.
                        let mut poke = Box::pin(sleep(secs(1)));
                        let _ = poll_noop(poke.as_mut());
                        thread::sleep(ms(200));
                        let unstuck = counter.wakes() > 0;
                        done.store(true, SeqCst);
                        wake_stashed();
                        return Err((round, unstuck));
                    }
                    std::hint::spin_loop();
                }
                assert!(poll_with(nap.as_mut(), &waker).is_ready());
            }
        }
        done.store(true, SeqCst);
        wake_stashed();
        driver.join().unwrap();
        Ok(())
    });
    if let Err((round, unstuck)) = outcome {
        panic!(
            "a paused timer was never fired (lost wake-up at round {round}; a later \
             registration unstuck it: {unstuck})"
        );
    }
}

/// The same through `block_on`: a second thread's `Runtime::block_on`
/// (waiting for the seat, polling its own future) files a 1 ms sleep while
/// the thread driving the paused runtime, idle with no timer of its own,
/// heads for its park; the sleep must fire and that `block_on` return.
/// 250,000 rounds: a race, which a lost wake-up loses only in some rounds
/// (the test above, whose sleeper spins rather than parks, hits the window
/// more often).
#[test]
fn a_paused_sleep_in_a_second_block_on_completes() {
    const ROUNDS: usize = 250_000;
    let rounds = Arc::new(AtomicUsize::new(0));
    let counted = rounds.clone();
    let second = thread::spawn(move || {
        let rt = Arc::new(
            Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap(),
        );
        // The driving thread: holds the seat, idle, no timer of its own.
        let seat = rt.clone();
        thread::spawn(move || seat.block_on(pending::<()>()));
        thread::sleep(ms(50));
        for _ in 0..ROUNDS {
            rt.block_on(async { sleep(ms(1)).await });
            counted.fetch_add(1, SeqCst);
        }
        // (The driving thread and the runtime are leaked.)
        std::mem::forget(rt);
    });
    let returned = common::eventually(secs(60), || second.is_finished());
    assert!(
        returned,
        "a 1 ms paused sleep in a second block_on never returned (after {} rounds)",
        rounds.load(SeqCst)
    );
    second.join().unwrap();
    assert_eq!(rounds.load(SeqCst), ROUNDS);
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

/// Spawns a task per nap that sleeps it, then logs (its index, the time
/// since `start`); returns the log once every task is done, in wake order.
async fn sleep_in_tasks(naps: &[Duration], start: Instant) -> Vec<(usize, Duration)> {
    let log = Arc::new(Mutex::new(Vec::new()));
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
    for task in tasks {
        task.await.unwrap();
    }
    let log = log.lock().unwrap().clone();
    log
}
