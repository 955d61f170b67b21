//! `block_on` on the multi-thread runtime, and what that runtime refuses:
//! `Runtime::block_on` (the future runs on the calling thread),
//! `Handle::block_on` from plain and blocking-pool threads (timers and
//! spawns inside), `block_on` inside a task or nested (a panic that says
//! what to do), the paused clock, impossible builder settings, and timers
//! without the time driver.
//!
//! Everything that could hang runs under a watchdog.

mod common;

use std::future::pending;
use std::sync::Arc;
use std::thread;

use common::{current_thread, multi_thread_runtime, watchdog};
use lawn_rt::runtime::{Builder, Handle, Runtime};
use lawn_rt::task;
use lawn_rt::time::{self, sleep, timeout, Duration, Instant};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(60);
/// The default name of a worker thread.
const WORKER: &str = "lawn-rt-worker";
/// What `block_on` inside a runtime says.
const NESTED: &str = "cannot `block_on` inside a runtime";

fn rt2() -> Runtime {
    multi_thread_runtime(2)
}

// ---------------------------------------------------------------- block_on

#[test]
fn runtime_block_on_runs_the_future_on_the_calling_thread() {
    let rt = rt2();
    let here = thread::current().id();
    let (ran_here, task_ran_on) = rt.block_on(async {
        let task = lawn_rt::spawn(async { current_thread() });
        (thread::current().id(), task.await.unwrap())
    });
    assert_eq!(ran_here, here);
    assert_ne!(task_ran_on.0, here);
    assert_eq!(task_ran_on.1, WORKER);
    assert_eq!(rt.block_on(async { 40 + 2 }), 42);
}

#[test]
fn handle_block_on_from_plain_threads_runs_timers_and_spawns() {
    watchdog("Handle::block_on from threads", HANG, || {
        let rt = rt2();
        let threads: Vec<_> = (0..4u64)
            .map(|i| {
                let handle = rt.handle().clone();
                thread::spawn(move || {
                    handle.block_on(async move {
                        let start = Instant::now();
                        sleep(Duration::from_millis(3 + i)).await;
                        assert!(start.elapsed() >= Duration::from_millis(3 + i));
                        let (name, value) = lawn_rt::spawn(async move {
                            sleep(Duration::from_millis(1)).await;
                            (current_thread().1, i * 10)
                        })
                        .await
                        .unwrap();
                        assert_eq!(name, WORKER);
                        let late = timeout(Duration::from_millis(2), pending::<()>()).await;
                        assert!(late.is_err());
                        let ok = timeout(Duration::from_secs(5), async { value + 1 }).await;
                        ok.unwrap()
                    })
                })
            })
            .collect();
        let values: Vec<u64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(values, [1, 11, 21, 31]);
    });
}

#[test]
fn handle_block_on_inside_spawn_blocking_works() {
    watchdog("Handle::block_on in spawn_blocking", HANG, || {
        let rt = rt2();
        let out = rt.block_on(async {
            task::spawn_blocking(|| {
                let handle = Handle::current();
                handle.block_on(async {
                    sleep(Duration::from_millis(2)).await;
                    lawn_rt::spawn(async { 9 }).await.unwrap()
                })
            })
            .await
            .unwrap()
        });
        assert_eq!(out, 9);
    });
}

#[test]
fn block_on_inside_a_worker_task_panics_with_a_clear_message() {
    let rt = Arc::new(rt2());
    // `Handle::block_on` and `Runtime::block_on`, inside a task.
    let inner = rt.clone();
    let errors = rt.block_on(async move {
        let by_handle = lawn_rt::spawn(async { Handle::current().block_on(async {}) });
        let by_runtime = lawn_rt::spawn(async move { inner.block_on(async {}) });
        [by_handle.await.unwrap_err(), by_runtime.await.unwrap_err()]
    });
    for err in errors {
        assert!(err.is_panic(), "{err:?}");
        let message = common::panic_message(&*err.into_panic());
        assert!(
            message.contains(NESTED) && message.contains(".await"),
            "unclear message: {message:?}"
        );
    }
    // Nested in a `Handle::block_on` on a plain thread, too.
    let handle = rt.handle().clone();
    thread::spawn(move || {
        common::assert_panics_with(NESTED, "nested Handle::block_on", || {
            handle.block_on(async { handle.block_on(async {}) })
        });
        // That thread may block_on again afterwards.
        assert_eq!(handle.block_on(async { 3 }), 3);
    })
    .join()
    .unwrap();
    // The runtime is fine afterwards.
    assert_eq!(rt.block_on(rt.spawn(async { 5 })).unwrap(), 5);
}

// ------------------------------------------------- what multi-thread refuses

#[test]
fn the_paused_clock_is_refused_on_multi_thread() {
    const REFUSED: &str = "is not available on a multi_thread runtime";
    let rt = rt2();
    // On the thread in `block_on`...
    rt.block_on(async {
        common::assert_panics_with(REFUSED, "pause in block_on", time::pause);
        common::assert_panics_with(REFUSED, "resume in block_on", time::resume);
        common::assert_panics_with(REFUSED, "advance in block_on", || {
            drop(time::advance(Duration::from_secs(1)))
        });
    });
    // ...and on a worker.
    let err = rt.block_on(rt.spawn(async { time::pause() })).unwrap_err();
    let message = common::panic_message(&*err.into_panic());
    assert!(
        message.contains("`time::pause()`")
            && message.contains(REFUSED)
            && message.contains("current_thread"),
        "unclear message: {message:?}"
    );
    // Timers are unaffected.
    rt.block_on(sleep(Duration::from_millis(1)));
}

#[test]
fn the_builder_rejects_start_paused_and_zero_workers() {
    let err = Builder::new_multi_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    let message = err.to_string();
    assert!(
        message.contains("start_paused") && message.contains("multi_thread"),
        "{message}"
    );

    let err = Builder::new_multi_thread()
        .worker_threads(0)
        .enable_all()
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("worker_threads"), "{err}");

    // `start_paused(false)` and one worker are fine.
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .start_paused(false)
        .build()
        .unwrap();
    assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
}

#[test]
fn timers_on_a_multi_thread_runtime_without_time_panic_clearly() {
    const NO_TIME: &str = "built without it; call `enable_time()` or `enable_all()`";
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    // In a task on a worker...
    let err = rt
        .block_on(rt.spawn(async { sleep(Duration::from_millis(1)).await }))
        .unwrap_err();
    let message = common::panic_message(&*err.into_panic());
    assert!(message.contains(NO_TIME), "unclear message: {message:?}");
    // ...and on the thread in `block_on` (no silent fallback driver).
    common::assert_panics_with(NO_TIME, "sleep in block_on", || {
        rt.block_on(async { sleep(Duration::from_millis(1)).await })
    });
    // Tasks still run.
    assert_eq!(rt.block_on(rt.spawn(async { 2 })).unwrap(), 2);
}
