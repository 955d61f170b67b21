//! Timers inside spawned tasks, on the paused clock: sleeping tasks wake in
//! deadline order at exact times, a `timeout` around a `JoinHandle`
//! detaches the task, and an `interval` in a task ticks on schedule.

mod common;

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use common::Rng;
use lawn_rt::time::{interval, sleep, timeout, Duration, Instant};

// ------------------------------------------------------ timers inside tasks

#[lawn_rt::test(start_paused = true)]
async fn sleeping_tasks_complete_in_deadline_order() {
    let start = Instant::now();
    let mut rng = Rng(0x5eed);
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut millis: Vec<u64> = (1..=200).collect();
    // Shuffle (Fisher-Yates) so spawn order says nothing.
    for i in (1..millis.len()).rev() {
        millis.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let joins: Vec<_> = millis
        .iter()
        .map(|&ms| {
            let order = order.clone();
            lawn_rt::spawn(async move {
                sleep(Duration::from_millis(ms)).await;
                let elapsed = start.elapsed();
                order.lock().unwrap().push(ms);
                (ms, elapsed)
            })
        })
        .collect();
    for join in joins {
        let (ms, elapsed) = join.await.unwrap();
        assert_eq!(elapsed, Duration::from_millis(ms), "woke at the wrong time");
    }
    let order = order.lock().unwrap();
    assert_eq!(*order, (1..=200).collect::<Vec<_>>());
    assert_eq!(start.elapsed(), Duration::from_millis(200));
}

#[lawn_rt::test(start_paused = true)]
async fn timeout_around_a_join_handle() {
    let start = Instant::now();
    let finished = Arc::new(AtomicBool::new(false));
    let flag = finished.clone();
    let slow = lawn_rt::spawn(async move {
        sleep(Duration::from_secs(10)).await;
        flag.store(true, SeqCst);
        "slow"
    });
    let elapsed = timeout(Duration::from_secs(1), slow).await;
    assert!(elapsed.is_err());
    assert_eq!(start.elapsed(), Duration::from_secs(1));
    // The timeout dropped the handle: the task is detached, not aborted.
    sleep(Duration::from_secs(10)).await;
    assert!(finished.load(SeqCst), "a detached task keeps running");

    let fast = lawn_rt::spawn(async {
        sleep(Duration::from_millis(10)).await;
        "fast"
    });
    let before = Instant::now();
    assert_eq!(
        timeout(Duration::from_secs(1), fast)
            .await
            .unwrap()
            .unwrap(),
        "fast"
    );
    assert_eq!(before.elapsed(), Duration::from_millis(10));
}

#[lawn_rt::test(start_paused = true)]
async fn interval_inside_a_task() {
    let start = Instant::now();
    let ticks = lawn_rt::spawn(async move {
        let mut every = interval(Duration::from_millis(10));
        let mut ticks = Vec::new();
        for _ in 0..5 {
            let at = every.tick().await;
            ticks.push((at - start, start.elapsed()));
        }
        ticks
    })
    .await
    .unwrap();
    let expected: Vec<_> = (0..5u64)
        .map(|i| (Duration::from_millis(10 * i), Duration::from_millis(10 * i)))
        .collect();
    assert_eq!(ticks, expected);
}

/// The request loop: each round a timeout completes (its timer is
/// cancelled) and the next one starts, in one task poll, so the next timer
/// files the waker the cancelled one left (`coop::keep_waker`). Every
/// timer still wakes its task, on both flavors, and a sleep of another
/// waker polled in the task is not given the task's.
#[test]
fn a_tasks_next_timer_takes_the_waker_its_cancelled_one_left() {
    use std::future::{pending, poll_fn, Future};
    use std::pin::pin;
    use std::sync::atomic::AtomicUsize;
    use std::task::{Poll, Wake, Waker};

    struct Woken(AtomicUsize);
    impl Wake for Woken {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, SeqCst);
        }
    }

    for multi in [false, true] {
        let rt = match multi {
            false => lawn_rt::runtime::Builder::new_current_thread(),
            true => lawn_rt::runtime::Builder::new_multi_thread(),
        }
        .enable_all()
        .build()
        .unwrap();
        let rounds = rt.block_on(async {
            lawn_rt::spawn(async {
                let mut rounds = 0;
                for _ in 0..20 {
                    // Completed requests: their timeouts are cancelled in
                    // this poll, the first of them after filing.
                    for _ in 0..3 {
                        let mut churn = pin!(timeout(Duration::from_secs(5), pending::<()>()));
                        poll_fn(|cx| Poll::Ready(churn.as_mut().poll(cx).is_pending())).await;
                    }
                    // A sleep polled with another waker (a sub-future's):
                    // it must hold that one, not the task's it could take.
                    let woken = Arc::new(Woken(AtomicUsize::new(0)));
                    let other_waker = Waker::from(woken.clone());
                    let mut other = pin!(sleep(Duration::from_millis(1)));
                    let polled = other
                        .as_mut()
                        .poll(&mut std::task::Context::from_waker(&other_waker));
                    assert!(polled.is_pending());
                    // The next request's timeout, awaited: its timer holds
                    // the task's waker and must wake it, after the other
                    // sleep's has woken its own waker.
                    let start = Instant::now();
                    let waited = timeout(Duration::from_millis(3), pending::<()>()).await;
                    assert!(waited.is_err());
                    assert!(start.elapsed() >= Duration::from_millis(3));
                    assert_eq!(woken.0.load(SeqCst), 1, "the other waker was not woken");
                    rounds += 1;
                }
                rounds
            })
            .await
            .unwrap()
        });
        assert_eq!(rounds, 20, "multi-thread: {multi}");
    }
}

/// A timer whose waker panics, fired by the current-thread runtime's park
/// loop: the panic is the waker's (the panic hook reports it), not the
/// runtime's. `block_on`'s future is not lost: it completes, and the
/// runtime goes on firing timers, as the multi-thread runtime's workers and
/// the foreign shards' timer thread do. Runs in a child process (a
/// regression would unwind out of `block_on`).
#[test]
fn a_panicking_timer_waker_does_not_take_block_on_down() {
    if !common::isolated("a_panicking_timer_waker_does_not_take_block_on_down") {
        return;
    }
    let rt = lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        let mut nap = Box::pin(sleep(Duration::from_millis(2)));
        assert!(common::poll_with(nap.as_mut(), &common::panicking_waker()).is_pending());
        // The loop parks past the nap's deadline and fires its waker.
        sleep(Duration::from_millis(20)).await;
        assert!(nap.is_elapsed());
        42
    });
    assert_eq!(out, 42);
    let start = Instant::now();
    rt.block_on(sleep(Duration::from_millis(1)));
    assert!(start.elapsed() >= Duration::from_millis(1));
}

/// Memory comes back once a load of timers is gone, even while other
/// timers stay pending (the park loop almost always has one): a runtime
/// that held 200,000 timers gives its driver's memory back within about a
/// second of parks, and the driver's own bytes return to near zero.
#[test]
fn the_driver_gives_memory_back_once_a_load_of_timers_is_gone() {
    let rt = lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let driver = lawn_rt::driver::Handle::current();
        let mut load: Vec<_> = (0..200_000u64)
            .map(|i| Box::pin(sleep(Duration::from_millis(1_000 + i % 3_600_000))))
            .collect();
        for timer in load.iter_mut() {
            assert!(common::poll_noop(timer.as_mut()).is_pending());
        }
        let full = driver.allocated_bytes();
        assert!(full > 4_000_000, "200,000 timers held only {full} bytes");
        drop(load);
        // Parks with a short timer pending each time, for over a second.
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(1_500)
            && driver.allocated_bytes() > 256 * 1024
        {
            sleep(Duration::from_millis(5)).await;
        }
        let left = driver.allocated_bytes();
        assert!(
            left <= 256 * 1024,
            "{left} of {full} bytes still held 1.5 s after the timers went"
        );
    });
}
