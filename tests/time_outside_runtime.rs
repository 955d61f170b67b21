//! Timers with no `lawn_rt` driver entered: they file in the polling
//! thread's foreign shard, which a lazily started background thread
//! (`lawn-rt-timer`) fires, so they work under
//! `futures::executor::block_on`, inside a tokio runtime and on plain
//! threads, and a waker that panics does not stop that thread
//! (`time_foreign.rs` covers the shards themselves). These tests use the
//! real clock: that is their point.

mod common;

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;
use std::thread;
use std::time::Instant as StdInstant;

use common::units::ms;
use common::{fn_waker, isolated, paused_driver, poll_noop, poll_with, thread_names, watchdog};
use lawn_rt::driver::Handle;
use lawn_rt::time::{interval, sleep, sleep_until, timeout, Duration, Instant};

/// A generous bound for "did not hang": far above any expected latency.
const HANG: Duration = Duration::from_secs(5);

#[test]
fn block_on_sleep() {
    let start = std::time::Instant::now();
    futures::executor::block_on(sleep(ms(20)));
    let elapsed = start.elapsed();
    assert!(elapsed >= ms(20), "woke after {elapsed:?}");
    assert!(elapsed < HANG, "took {elapsed:?}");
}

#[test]
fn block_on_timeout_fires_and_does_not_fire() {
    futures::executor::block_on(async {
        let start = Instant::now();
        let fired = timeout(ms(10), std::future::pending::<()>()).await;
        assert!(fired.is_err());
        assert!(start.elapsed() >= ms(10));

        let not_fired = timeout(Duration::from_secs(10), sleep(ms(5))).await;
        assert_eq!(not_fired, Ok(()));
        assert!(start.elapsed() < HANG);
    });
}

#[test]
fn timers_without_an_entered_driver_use_the_threads_foreign_shard() {
    let driver = paused_driver();
    assert!(Handle::try_entered().is_none());
    let shard = Handle::current();
    assert!(!shard.same_driver(driver.handle()));
    assert!(!shard.is_shutdown());

    // Made outside any entered driver, a sleep ignores the paused driver.
    let mut sleep = pin!(sleep(ms(5)));
    assert!(poll_noop(sleep.as_mut()).is_pending());
    assert_eq!(driver.handle().pending_timers(), 0);
    assert_eq!(driver.advance(ms(5)), 0);
    futures::executor::block_on(sleep);
}

/// In a fresh process: the timer thread parks on a long timer; an
/// earlier timer registered afterwards must wake it early.
#[test]
fn an_earlier_timer_wakes_the_parked_timer_thread() {
    if !isolated("an_earlier_timer_wakes_the_parked_timer_thread") {
        return;
    }
    let mut long = Box::pin(sleep(Duration::from_secs(60)));
    assert!(poll_noop(long.as_mut()).is_pending());
    // Let the timer thread start and park on the long deadline.
    thread::sleep(ms(20));
    let start = std::time::Instant::now();
    futures::executor::block_on(sleep(ms(10)));
    let elapsed = start.elapsed();
    assert!(elapsed >= ms(10));
    assert!(elapsed < HANG, "the earlier timer waited {elapsed:?}");
    drop(long);
}

#[test]
fn sleep_moved_to_and_dropped_on_other_threads() {
    // Made here, awaited on another thread.
    let made_here = sleep(ms(5));
    let deadline = made_here.deadline();
    thread::spawn(move || futures::executor::block_on(made_here))
        .join()
        .unwrap();
    assert!(Instant::now() >= deadline);

    // Registered here, dropped on another thread before it fires.
    let mut registered = Box::pin(sleep(Duration::from_secs(30)));
    assert!(poll_noop(registered.as_mut()).is_pending());
    thread::spawn(move || drop(registered)).join().unwrap();

    // Many threads at once, each with its own sleeps.
    let threads: Vec<_> = (0..8u64)
        .map(|n| {
            thread::spawn(move || {
                let start = Instant::now();
                futures::executor::block_on(async {
                    sleep(ms(n % 4 + 1)).await;
                    sleep_until(Instant::now() + ms(1)).await;
                });
                assert!(start.elapsed() >= ms(n % 4 + 2));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn interval_under_block_on() {
    futures::executor::block_on(async {
        let start = Instant::now();
        let mut every = interval(ms(3));
        for _ in 0..4 {
            every.tick().await;
        }
        assert!(start.elapsed() >= ms(9));
    });
}

#[test]
fn duration_max_on_a_foreign_shard_registers_and_cancels() {
    let mut forever = Box::pin(sleep(Duration::MAX));
    assert!(poll_noop(forever.as_mut()).is_pending());
    assert!(!forever.is_elapsed());
    let mut far = Box::pin(sleep_until(
        Instant::now() + Duration::from_secs(100 * 365 * 86_400),
    ));
    assert!(poll_noop(far.as_mut()).is_pending());
    drop(forever);
    drop(far);
    // The shard still serves short timers afterwards.
    futures::executor::block_on(sleep(ms(1)));
}

// ---------------------------------------------------------------------------
// Inside tokio
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "current_thread")]
async fn tokio_current_thread_timeout() {
    let start = Instant::now();
    let fired = timeout(ms(10), std::future::pending::<()>()).await;
    assert!(fired.is_err());
    assert!(start.elapsed() >= ms(10));

    let ok = timeout(Duration::from_secs(10), tokio::time::sleep(ms(5))).await;
    assert_eq!(ok, Ok(()));
    let ok = timeout(Duration::from_secs(10), sleep(ms(5))).await;
    assert_eq!(ok, Ok(()));
    assert!(start.elapsed() < HANG);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_multi_thread_timeout_and_spawned_sleeps() {
    let start = Instant::now();
    let fired = timeout(ms(10), std::future::pending::<()>()).await;
    assert!(fired.is_err());
    assert!(start.elapsed() >= ms(10));
    let ok = timeout(Duration::from_secs(10), async { 42 }).await;
    assert_eq!(ok, Ok(42));

    // Tasks that may move between worker threads while sleeping.
    let tasks: Vec<_> = (0..64u64)
        .map(|n| {
            tokio::spawn(async move {
                let requested = Duration::from_micros(n * 50);
                let begun = Instant::now();
                sleep(requested).await;
                tokio::task::yield_now().await;
                let result = timeout(ms(2), std::future::pending::<()>()).await;
                assert!(result.is_err());
                assert!(begun.elapsed() >= requested + ms(2));
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert!(start.elapsed() < HANG);
}

/// A runtime built by hand (both flavours), as an application would.
#[test]
fn built_tokio_runtimes() {
    let current = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    for rt in [current, multi] {
        rt.block_on(async {
            assert!(timeout(ms(5), std::future::pending::<()>()).await.is_err());
            assert_eq!(timeout(Duration::from_secs(5), sleep(ms(2))).await, Ok(()));
        });
        // A lawn_rt timer made inside the runtime outlives it: it belongs to
        // the foreign shard, not to tokio.
        let mut outlives = {
            let _in_tokio = rt.enter();
            Box::pin(sleep(ms(3)))
        };
        assert!(poll_noop(outlives.as_mut()).is_pending());
        drop(rt);
        futures::executor::block_on(outlives);
    }
}

// ---------------------------------------------------------------------------
// The thread
// ---------------------------------------------------------------------------

/// How many threads named `lawn-rt-timer` this process has, waiting (up
/// to [`HANG`]) for at least `at_least`: a new thread sets its name itself,
/// a moment after `spawn` returns.
#[cfg(target_os = "linux")]
fn timer_threads(at_least: usize) -> usize {
    let start = std::time::Instant::now();
    loop {
        let count = thread_names()
            .iter()
            .filter(|name| *name == "lawn-rt-timer")
            .count();
        if count >= at_least || start.elapsed() > HANG {
            return count;
        }
        thread::sleep(ms(1));
    }
}

/// Once a timer has registered, the timer thread exists, once, named
/// `lawn-rt-timer`.
#[cfg(target_os = "linux")]
#[test]
fn the_timer_thread_is_named_lawn_rt_timer() {
    let mut sleep = pin!(sleep(ms(1)));
    assert!(poll_noop(sleep.as_mut()).is_pending());
    assert_eq!(timer_threads(1), 1, "threads: {:?}", thread_names());
    futures::executor::block_on(sleep);
}

/// In a fresh process: the timer thread starts on the first
/// registration, not on first use of the API or creation of a timer.
#[cfg(target_os = "linux")]
#[test]
fn the_timer_thread_starts_on_first_registration() {
    if !isolated("the_timer_thread_starts_on_first_registration") {
        return;
    }
    assert_eq!(timer_threads(0), 0);
    let _ = Handle::current();
    let _ = Instant::now();
    let mut sleep = pin!(sleep(ms(2)));
    let mut due = pin!(sleep_until(Instant::now()));
    assert_eq!(poll_noop(due.as_mut()), Poll::Ready(()));
    // Give a wrongly started thread time to name itself.
    thread::sleep(ms(20));
    assert_eq!(timer_threads(0), 0, "started before any timer registered");
    assert!(poll_noop(sleep.as_mut()).is_pending());
    assert_eq!(timer_threads(1), 1, "threads: {:?}", thread_names());
    futures::executor::block_on(sleep);
    assert_eq!(timer_threads(1), 1);
}

#[test]
fn instant_now_without_a_driver_is_the_real_clock() {
    let a = std::time::Instant::now();
    let now = Instant::now();
    let b = std::time::Instant::now();
    assert!(a <= now.into_std() && now.into_std() <= b);
    let ready = {
        let mut past = pin!(sleep_until(Instant::now() - ms(1)));
        poll_noop(past.as_mut())
    };
    assert_eq!(ready, Poll::Ready(()));
}

// ---------------------------------------------------------------------------
// A waker that panics
// ---------------------------------------------------------------------------

/// Five timers due together on a foreign shard, the first one's waker
/// panicking: the other four wakers are woken, their sleeps are ready, and
/// the timer thread survives to serve later timers.
#[test]
fn a_panicking_waker_does_not_stop_the_timer_thread() {
    assert!(Handle::try_entered().is_none());
    let woken = Arc::new(AtomicUsize::new(0));
    let mut sleeps = Vec::new();
    for i in 0..5 {
        let mut sleep = Box::pin(sleep(ms(20)));
        let waker = if i == 0 {
            fn_waker(|| panic!("foreign-shard waker panics"))
        } else {
            let woken = woken.clone();
            fn_waker(move || {
                woken.fetch_add(1, SeqCst);
            })
        };
        assert!(poll_with(sleep.as_mut(), &waker).is_pending());
        sleeps.push(sleep);
    }
    let start = StdInstant::now();
    while woken.load(SeqCst) < 4 && start.elapsed() < HANG {
        thread::sleep(ms(5));
    }
    assert_eq!(woken.load(SeqCst), 4, "non-panicking wakers woken");
    for sleep in sleeps.iter_mut().skip(1) {
        assert_eq!(poll_noop(sleep.as_mut()), Poll::Ready(()));
    }
    watchdog("a foreign-shard sleep after the panic", HANG, || {
        futures::executor::block_on(sleep(ms(5)))
    });
}
