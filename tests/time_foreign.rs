//! Foreign shards: where no `lawn_rt` driver is entered, each thread's
//! timers file in a driver of that thread's own, and one timer thread
//! (`lawn-rt-timer`) fires them all. What a user of another executor can
//! observe: whose shard a timer files in, that timers outlive their thread,
//! that nothing fires early under a cancellation storm, and that an idle
//! process gets no timer wake-ups. Real clock: that is the point.

mod common;

use std::pin::pin;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

#[cfg(target_os = "linux")]
use common::assert_timer_thread_idle;
use common::units::ms;
use common::{isolated, poll_noop};
use lawn_rt::driver::Handle;
use lawn_rt::time::{sleep, sleep_until, timeout, Instant};

/// A generous bound for "did not hang".
const HANG: Duration = Duration::from_secs(5);

#[test]
fn each_thread_has_a_shard_of_its_own_and_keeps_it() {
    let here = Handle::current();
    assert!(here.same_driver(&Handle::current()), "one shard per thread");
    let there = thread::spawn(Handle::current).join().unwrap();
    assert!(!here.same_driver(&there), "another thread, another shard");
    assert!(!there.is_shutdown());
}

/// A sleep made on one thread and first polled on another files in the
/// polling thread's shard (where it will most likely be dropped); one
/// polled where it was made stays there.
#[test]
fn a_timer_files_where_it_is_first_polled() {
    let made_here = Box::pin(sleep(Duration::from_secs(60)));
    let (tx, rx) = mpsc::channel();
    let poller = thread::spawn(move || {
        let mut made_here = made_here;
        let mine = Handle::current();
        let before = mine.pending_timers();
        assert!(poll_noop(made_here.as_mut()).is_pending());
        tx.send(mine.pending_timers() - before).unwrap();
        made_here // keeps it pending while the other thread looks
    });
    let filed_there = rx.recv().unwrap();
    let made_here = poller.join().unwrap();
    assert_eq!(filed_there, 1, "filed on the polling thread's shard");
    drop(made_here);

    let here = Handle::current();
    let before = here.pending_timers();
    let mut stays = pin!(sleep(Duration::from_secs(60)));
    assert!(poll_noop(stays.as_mut()).is_pending());
    assert_eq!(here.pending_timers(), before + 1);
}

/// A thread that exits with a timer pending on its shard (its sleep handed
/// to another thread, as a task that moved) leaves it to fire as usual.
#[test]
fn a_timer_outlives_the_thread_whose_shard_holds_it() {
    let deadline = Instant::now() + ms(30);
    let moved = thread::spawn(move || {
        let mut timer = Box::pin(sleep_until(deadline));
        assert!(poll_noop(timer.as_mut()).is_pending());
        timer // the thread exits; its shard's handle goes with it
    })
    .join()
    .unwrap();
    let start = std::time::Instant::now();
    futures::executor::block_on(moved);
    assert!(Instant::now() >= deadline, "early");
    assert!(start.elapsed() < HANG, "never fired");
}

/// Eight threads each create and drop 20,000 timeouts (on their own
/// shards) while another thread sleeps 1 ms at a time until they are
/// done: no sleep wakes early and every one wakes. (How late the sleeper
/// is under such a storm is bounded by `tests/reliability/storms.rs`.)
#[test]
fn a_cancellation_storm_on_other_threads_loses_no_sleep_and_fires_none_early() {
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let storm: Vec<_> = (0..8)
        .map(|_| {
            let done = done.clone();
            thread::spawn(move || {
                for _ in 0..20_000 {
                    let mut t = pin!(timeout(
                        Duration::from_secs(10),
                        std::future::pending::<()>()
                    ));
                    assert!(poll_noop(t.as_mut()).is_pending());
                }
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            })
        })
        .collect();
    let slept = futures::executor::block_on(async {
        let mut slept = 0;
        while done.load(std::sync::atomic::Ordering::SeqCst) < 8 || slept < 10 {
            let deadline = Instant::now() + ms(1);
            sleep_until(deadline).await;
            assert!(
                Instant::now() >= deadline,
                "a sleep woke before its deadline"
            );
            slept += 1;
        }
        slept
    });
    for t in storm {
        t.join().unwrap();
    }
    assert!(slept >= 10);
}

/// In a fresh process: once no timer is pending, the timer thread sleeps
/// until one registers. An idle process has no timer wake-ups.
#[cfg(target_os = "linux")]
#[test]
fn an_idle_process_has_no_timer_wake_ups() {
    if !isolated("an_idle_process_has_no_timer_wake_ups") {
        return;
    }
    futures::executor::block_on(sleep(ms(2)));
    {
        // A pending timer cancelled: nothing is left.
        let mut cancelled = pin!(sleep(Duration::from_secs(30)));
        assert!(poll_noop(cancelled.as_mut()).is_pending());
    }
    assert_timer_thread_idle(ms(20), ms(200));
}

/// In a fresh process: the timer thread sleeps until a timer 60 s away; a
/// timer due in 5 ms, registered afterwards on another thread, wakes it.
#[test]
fn an_earlier_timer_on_another_thread_wakes_the_timer_thread() {
    if !isolated("an_earlier_timer_on_another_thread_wakes_the_timer_thread") {
        return;
    }
    let mut long = Box::pin(sleep(Duration::from_secs(60)));
    assert!(poll_noop(long.as_mut()).is_pending());
    thread::sleep(ms(20));
    let start = std::time::Instant::now();
    thread::spawn(|| futures::executor::block_on(sleep(ms(5))))
        .join()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(elapsed >= ms(5) && elapsed < HANG, "{elapsed:?}");
    drop(long);
}

/// 20,000 tasks spawned on tokio's multi-thread runtime, each sleeping
/// 1–3 ms, every other one racing a second sleep and dropping the loser
/// once the winner fires: the load where the workers, registering, fire
/// most of their shards' due timers themselves (`driver/batch.rs`,
/// "Firing on the shard's own thread") while the timer thread fires the
/// rest. Every sleep completes, none before its deadline.
#[test]
fn spawned_sleeps_in_tokio_all_complete_none_early_while_workers_fire_them() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let tasks: Vec<_> = (0..20_000u64)
            .map(|i| {
                tokio::spawn(async move {
                    let at = |spread: u64| {
                        Instant::now() + Duration::from_micros(1_000 + (i * spread) % 2_000)
                    };
                    let mut due = at(7_919);
                    if i % 2 == 0 {
                        sleep_until(due).await;
                    } else {
                        let other = at(104_729);
                        let (one, two) = (pin!(sleep_until(due)), pin!(sleep_until(other)));
                        futures::future::select(one, two).await;
                        due = due.min(other);
                    }
                    let now = Instant::now();
                    assert!(now >= due, "a sleep woke {:?} early", due - now);
                })
            })
            .collect();
        for task in tasks {
            tokio::time::timeout(HANG, task)
                .await
                .expect("a sleep was lost")
                .expect("a sleeping task panicked");
        }
    });
}

/// Deadlines given as instants (`sleep_until`, `timeout_at`, a reset to an
/// earlier tick) register from the kernel's coarse clock when they are
/// more than its lag bound (50 ms) away, and from a precise read when
/// nearer: on the real clock, neither fires early, none is lost, and one
/// already past completes on its first poll. Both on a foreign shard and
/// in a runtime.
#[test]
fn deadlines_given_as_instants_fire_on_time_near_or_far() {
    let check = || async {
        let offsets_us = [
            0u64, 300, 1_500, 4_500, 9_000, 25_000, 49_000, 52_000, 80_000,
        ];
        for &us in &offsets_us {
            let deadline = Instant::now() + Duration::from_micros(us);
            sleep_until(deadline).await;
            assert!(Instant::now() >= deadline, "sleep_until {us} µs: early");
            let deadline = Instant::now() + Duration::from_micros(us);
            let out = lawn_rt::time::timeout_at(deadline, std::future::pending::<()>()).await;
            assert!(
                out.is_err() && Instant::now() >= deadline,
                "timeout_at {us} µs: early"
            );
        }
        // Reset to an earlier deadline, near and far.
        for &us in &offsets_us {
            let mut slept = pin!(sleep(Duration::from_secs(60)));
            assert!(poll_noop(slept.as_mut()).is_pending());
            let deadline = Instant::now() + Duration::from_micros(us);
            slept.as_mut().reset(deadline);
            slept.as_mut().await;
            assert!(Instant::now() >= deadline, "reset to {us} µs: early");
        }
        // A deadline already past completes on the first poll.
        let past = Instant::now();
        thread::sleep(Duration::from_millis(1));
        assert!(poll_noop(pin!(sleep_until(past))).is_ready());
    };
    futures::executor::block_on(check());
    let rt = lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(check());
}

/// A slack set before the first foreign timer is the one they file with.
/// Under the default, a sleep due at 8 ms (slack 1 ms) shares the wake-up
/// of one filed at 5 ms for 8.5 ms (3.5 ms ahead, slack 512 µs) once the
/// timer thread plans with both: it never resumes before 8.5 ms. Under
/// `TimerSlack::NONE` each is woken for on its own, so the first resumes
/// before 8.5 ms unless the machine kept the timer thread off its CPU for
/// 500 µs (asked of one try in 11, not of each). Once timers exist the
/// call changes nothing and returns the slack in force.
#[test]
fn a_foreign_timer_slack_set_before_the_first_timer_is_the_one_they_take() {
    use futures::future::join;
    use lawn_rt::runtime::TimerSlack;
    use lawn_rt::time::set_foreign_timer_slack;

    if !isolated("a_foreign_timer_slack_set_before_the_first_timer_is_the_one_they_take") {
        return;
    }
    assert_eq!(set_foreign_timer_slack(TimerSlack::NONE), Ok(()));
    let mut late = Vec::new();
    let mut alone = 0;
    for _ in 0..11 {
        let start = Instant::now();
        let (first, second) = (start + ms(8), start + Duration::from_micros(8_500));
        let woke = async {
            sleep_until(first).await;
            Instant::now()
        };
        let later = async {
            sleep_until(start + ms(5)).await;
            // The short sleep unparks the timer thread, which plans again
            // with the 8.5 ms sleep filed.
            join(sleep_until(second), sleep(Duration::from_micros(100))).await;
        };
        let (woke, _) = futures::executor::block_on(join(woke, later));
        alone += usize::from(woke < second);
        late.push(woke - first);
    }
    eprintln!("the 8 ms sleep, no slack: woken on its own {alone} times in 11, late {late:?}");
    assert!(
        alone > 0,
        "always woken with the 8.5 ms sleep, as under the default slack: {late:?}"
    );
    assert_eq!(
        set_foreign_timer_slack(TimerSlack::DEFAULT),
        Err(TimerSlack::NONE)
    );
}
