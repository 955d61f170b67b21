//! `spawn_blocking`: thread names, a bounded pool, `Handle::current` and
//! `block_on` from a blocking thread, panics and `abort`, `is_finished`
//! only once the output can be taken, the paused clock standing still (no
//! auto-advance) while a blocking task runs, and a blocking task's output
//! drop or join waker that panics not keeping the runtime from being
//! dropped; on a current-thread runtime, and on a multi-thread one, whose
//! workers go on while the pool runs blocking tasks.
//!
//! Blocking tasks run on real threads for real time (their point);
//! anything that could hang runs under a watchdog.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use common::{current_thread, panicking_waker, poll_with, watchdog, PanicOnDrop, MEET};
use lawn_rt::runtime::{Builder, Handle};
use lawn_rt::task;
use lawn_rt::time::{sleep, timeout, Duration, Instant};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(20);
/// The same for the multi-thread test (more threads to wait for).
const MULTI_HANG: Duration = Duration::from_secs(60);

// ---------------------------------------------------------- spawn_blocking

#[test]
fn spawn_blocking_runs_on_a_thread_named_by_the_builder() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .thread_name("rt-basic-blocking")
        .build()
        .unwrap();
    let (name, id) = rt.block_on(async {
        task::spawn_blocking(|| {
            (
                thread::current().name().map(str::to_owned),
                thread::current().id(),
            )
        })
        .await
        .unwrap()
    });
    assert_eq!(name.as_deref(), Some("rt-basic-blocking"));
    assert_ne!(id, thread::current().id());

    // The default name.
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let name = rt
        .block_on(rt.spawn_blocking(|| thread::current().name().map(str::to_owned)))
        .unwrap();
    assert_eq!(name.as_deref(), Some("lawn-rt-blocking"));
}

#[test]
fn many_blocking_tasks_on_two_threads_all_complete() {
    watchdog("blocking pool of two", HANG, || {
        let rt = Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(2)
            .build()
            .unwrap();
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads = Arc::new(Mutex::new(std::collections::HashSet::new()));
        let sum = rt.block_on(async {
            let joins: Vec<_> = (0..40u64)
                .map(|i| {
                    let running = running.clone();
                    let most = most.clone();
                    let threads = threads.clone();
                    task::spawn_blocking(move || {
                        let now = running.fetch_add(1, SeqCst) + 1;
                        most.fetch_max(now, SeqCst);
                        threads.lock().unwrap().insert(thread::current().id());
                        thread::sleep(Duration::from_millis(1));
                        running.fetch_sub(1, SeqCst);
                        i
                    })
                })
                .collect();
            let mut sum = 0;
            for join in joins {
                sum += join.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, (0..40).sum::<u64>());
        assert!(most.load(SeqCst) <= 2, "{} ran at once", most.load(SeqCst));
        assert!(threads.lock().unwrap().len() <= 2);
    });
}

#[test]
fn handle_current_works_inside_spawn_blocking() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let got = rt.block_on(async {
        task::spawn_blocking(|| {
            let handle = Handle::current();
            // Spawn back onto the runtime and wait for it from here.
            let (tx, rx) = std::sync::mpsc::channel();
            drop(handle.spawn(async move {
                sleep(Duration::from_millis(1)).await;
                tx.send(5).unwrap();
            }));
            rx.recv().unwrap()
        })
        .await
        .unwrap()
    });
    assert_eq!(got, 5);
}

#[test]
fn a_panicking_blocking_task_gives_a_join_error() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let err = rt
        .block_on(rt.spawn_blocking(|| panic!("blocking boom")))
        .unwrap_err();
    assert!(err.is_panic());
    assert_eq!(
        *err.into_panic().downcast::<&str>().unwrap(),
        "blocking boom"
    );
    // The pool still works.
    assert_eq!(rt.block_on(rt.spawn_blocking(|| 1)).unwrap(), 1);
}

/// tokio's rule (`time::pause`, "Preventing auto-advance"): while a
/// blocking task runs, a paused clock does not auto-advance.
#[lawn_rt::test(start_paused = true)]
async fn a_running_blocking_task_stops_the_paused_clock_from_auto_advancing() {
    let start = Instant::now();
    let slept = Arc::new(AtomicBool::new(false));
    let flag = slept.clone();
    let sleeper = lawn_rt::spawn(async move {
        sleep(Duration::from_secs(1)).await;
        flag.store(true, SeqCst);
    });
    let blocking = task::spawn_blocking(|| {
        thread::sleep(Duration::from_millis(50));
        42
    });
    assert_eq!(blocking.await.unwrap(), 42);
    assert!(!slept.load(SeqCst), "the 1 s sleep completed first");
    assert_eq!(start.elapsed(), Duration::ZERO, "the paused clock moved");
    // Once it is done, auto-advance is back.
    sleeper.await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_secs(1));
}

/// The same, many times over with short blocking tasks, to catch the clock
/// auto-advancing between the blocking task's end and its handle's wake.
#[lawn_rt::test(start_paused = true)]
async fn paused_clock_stands_still_across_many_short_blocking_tasks() {
    let start = Instant::now();
    let _sleeper = lawn_rt::spawn(sleep(Duration::from_secs(1)));
    for i in 0..1000 {
        task::spawn_blocking(|| ()).await.unwrap();
        assert_eq!(
            start.elapsed(),
            Duration::ZERO,
            "the paused clock auto-advanced around blocking task {i}"
        );
    }
}

/// A timeout around a blocking task under the paused clock: the clock
/// stands still while the blocking task runs, so the timeout cannot fire
/// (tokio's rule; the common way to wait for real I/O in a paused test).
#[lawn_rt::test(start_paused = true)]
async fn a_timeout_around_a_blocking_task_does_not_fire_while_it_runs() {
    for _ in 0..100 {
        let blocking = task::spawn_blocking(|| thread::sleep(Duration::from_micros(500)));
        let result = timeout(Duration::from_millis(10), blocking).await;
        assert!(result.is_ok(), "the paused clock ran past a blocking task");
    }
}

#[test]
fn abort_a_blocking_task() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let running = rt.spawn_blocking(move || {
        started_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        "ran to the end"
    });
    started_rx.recv().unwrap();
    // Queued behind it (one thread): an abort keeps it from starting.
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let queued = rt.spawn_blocking(move || flag.store(true, SeqCst));
    queued.abort();
    // Running: an abort has no effect (tokio's rule).
    running.abort();
    release_tx.send(()).unwrap();
    assert_eq!(rt.block_on(running).unwrap(), "ran to the end");
    assert!(rt.block_on(queued).unwrap_err().is_cancelled());
    assert!(!ran.load(SeqCst));
}

/// `Runtime::block_on` from a blocking thread of the same runtime (tokio's
/// `Handle::block_on` pattern): that thread waits while the runtime's
/// thread drives.
#[test]
fn block_on_from_a_blocking_thread_of_the_same_runtime() {
    watchdog("block_on from a blocking thread", HANG, || {
        let rt = Arc::new(Builder::new_current_thread().enable_all().build().unwrap());
        let inner = rt.clone();
        let got = rt.block_on(async move {
            task::spawn_blocking(move || {
                inner.block_on(async {
                    let task = lawn_rt::spawn(async {
                        sleep(Duration::from_millis(2)).await;
                        20
                    });
                    sleep(Duration::from_millis(1)).await;
                    task.await.unwrap() + 1
                })
            })
            .await
            .unwrap()
        });
        assert_eq!(got, 21);
    });
}

// ------------------------------------------------ output and join wakers

/// A blocking task's `is_finished()` is true only once its output can be
/// taken: polling the handle right after it turns true gives the output,
/// never `Pending` (tokio stores the output before it marks the task
/// complete). Spins on `is_finished` over 400,000 blocking tasks (about
/// 5 s here), then takes the output at once.
#[test]
fn is_finished_on_a_blocking_task_means_its_output_is_ready() {
    use futures::FutureExt;
    const ROUNDS: u64 = 400_000;
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    for round in 0..ROUNDS {
        let handle = rt.spawn_blocking(|| 7);
        while !handle.is_finished() {
            std::hint::spin_loop();
        }
        match handle.now_or_never() {
            Some(Ok(7)) => {}
            other => panic!("round {round}: is_finished() was true but polling gave {other:?}"),
        }
    }
}

/// A detached blocking task whose output panics when dropped (on its pool
/// thread, since nobody takes it): the pool thread survives it, so dropping
/// the runtime, which waits for the pool's threads, does not hang (tokio
/// drops the output under `catch_unwind`).
#[test]
fn a_detached_blocking_tasks_output_that_panics_on_drop_does_not_hang_the_runtimes_drop() {
    watchdog("drop the runtime", Duration::from_secs(5), || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let handle = rt.spawn_blocking(move || {
            go_rx.recv().unwrap();
            PanicOnDrop
        });
        drop(handle); // detached: the pool thread drops the output
        go_tx.send(()).unwrap();
        thread::sleep(Duration::from_millis(100));
        drop(rt);
    });
}

/// A blocking task's join handle polled with a waker that panics: the pool
/// thread that completes the task and calls that waker survives it, so
/// dropping the runtime does not hang.
#[test]
fn a_panicking_join_waker_of_a_blocking_task_does_not_hang_the_runtimes_drop() {
    watchdog("drop the runtime", Duration::from_secs(5), || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let mut handle = rt.spawn_blocking(move || go_rx.recv().unwrap());
        assert!(poll_with(std::pin::Pin::new(&mut handle), &panicking_waker()).is_pending());
        go_tx.send(()).unwrap();
        thread::sleep(Duration::from_millis(100));
        drop(handle);
        drop(rt);
    });
}

// ---------------------------------------------------- multi-thread runtime

#[test]
fn spawn_blocking_runs_on_the_blocking_pool_while_workers_go_on() {
    watchdog("spawn_blocking on multi-thread", MULTI_HANG, || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(4)
            .enable_all()
            .build()
            .unwrap();
        // From outside and from tasks; more than the pool has threads.
        let outside: Vec<_> = (0..8u64)
            .map(|i| rt.spawn_blocking(move || (i, current_thread().1)))
            .collect();
        let values = rt.block_on(async move {
            let inside: Vec<_> = (8..16u64)
                .map(|i| task::spawn_blocking(move || (i, current_thread().1)))
                .collect();
            let mut values = Vec::new();
            for join in outside.into_iter().chain(inside) {
                values.push(join.await.unwrap());
            }
            values
        });
        for (i, (value, name)) in values.into_iter().enumerate() {
            assert_eq!(value, i as u64);
            assert_eq!(name, "lawn-rt-blocking");
        }
        // A blocking task that waits for a task: the workers keep going.
        let (tx, rx) = mpsc::channel();
        let out = rt.block_on(async move {
            let blocking = task::spawn_blocking(move || rx.recv_timeout(MEET));
            sleep(Duration::from_millis(1)).await;
            lawn_rt::spawn(async move { tx.send(7).unwrap() })
                .await
                .unwrap();
            blocking.await.unwrap()
        });
        assert_eq!(out, Ok(7));
    });
}
