//! `block_on`: `Runtime::block_on` runs the future on the calling thread
//! and returns its value; `block_on` inside a task or nested panics with a
//! message that says what to do and leaves the runtime usable. On a
//! current-thread runtime: being woken from another thread, several threads
//! sharing one runtime and handing the driving over, tasks left over from
//! one `block_on` going on in the next, wakes from other threads racing
//! with polls. On a multi-thread runtime: `Handle::block_on` from plain and
//! blocking-pool threads (timers and spawns inside), and what that flavor
//! refuses (the paused clock, impossible builder settings, timers without
//! the time driver). And the runtime types' auto traits.
//!
//! The bodies that hold for both flavors run twice, as
//! `current_thread::*` and `multi_thread::*` (two workers; see
//! `common::both_flavors!`). The clock here is the real one (the point is
//! threads meeting), with short sleeps; anything that could hang runs
//! under a watchdog.

mod common;

use std::future::pending;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;

use common::{current_thread, rt2, watchdog, Flavor, Gate, WORKER};
use lawn_rt::runtime::{Builder, Handle};
use lawn_rt::task::{self, yield_now};
use lawn_rt::time::{self, sleep, timeout, Duration, Instant};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(20);
/// The same for the multi-thread tests (more threads to wait for).
const MULTI_HANG: Duration = Duration::from_secs(60);
/// What `block_on` inside a runtime says.
const NESTED: &str = "cannot `block_on` inside a runtime";

// ===========================================================================
// Both flavors
// ===========================================================================

both_flavors!(
    block_on_runs_the_future_on_the_calling_thread_and_returns_its_value,
    block_on_inside_a_task_panics_with_a_clear_message,
    nested_block_on_panics_and_leaves_the_runtime_usable,
);

/// `Runtime::block_on` runs its future on the calling thread and returns
/// its value, also on a runtime with no drivers at all. A task it spawns
/// runs there too on a current-thread runtime, on a worker on a
/// multi-thread one.
fn block_on_runs_the_future_on_the_calling_thread_and_returns_its_value(flavor: Flavor) {
    let rt = flavor.rt();
    let here = thread::current().id();
    let (ran_here, task_ran_on) = rt.block_on(async {
        let task = lawn_rt::spawn(async { current_thread() });
        (thread::current().id(), task.await.unwrap())
    });
    assert_eq!(ran_here, here);
    match flavor {
        Flavor::CurrentThread => assert_eq!(task_ran_on.0, here),
        Flavor::MultiThread => {
            assert_ne!(task_ran_on.0, here);
            assert_eq!(task_ran_on.1, WORKER);
        }
    }
    assert_eq!(rt.block_on(async { 40 + 2 }), 42);
    assert_eq!(rt.block_on(async { "again" }), "again");
    // No drivers at all.
    let bare = flavor.builder().build().unwrap();
    assert_eq!(bare.block_on(async { vec![1, 2, 3] }), vec![1, 2, 3]);
}

/// `block_on` inside a task (another runtime's, `Handle::block_on` of its
/// own runtime, its own `Runtime::block_on`) panics with a message that
/// says to `.await` instead; the task's handle reports the panic and the
/// runtime is fine afterwards.
fn block_on_inside_a_task_panics_with_a_clear_message(flavor: Flavor) {
    let rt = Arc::new(flavor.rt());
    let inner = rt.clone();
    let errors = rt.block_on(async move {
        let by_another_runtime = lawn_rt::spawn(async {
            let other = Builder::new_current_thread().enable_all().build().unwrap();
            other.block_on(async {});
        });
        let by_handle = lawn_rt::spawn(async { Handle::current().block_on(async {}) });
        let by_runtime = lawn_rt::spawn(async move { inner.block_on(async {}) });
        [
            by_another_runtime.await.unwrap_err(),
            by_handle.await.unwrap_err(),
            by_runtime.await.unwrap_err(),
        ]
    });
    for err in errors {
        assert!(err.is_panic(), "{err:?}");
        let message = common::panic_message(&*err.into_panic());
        assert!(
            message.contains(NESTED) && message.contains(".await"),
            "unclear message: {message:?}"
        );
    }
    // The runtime is fine afterwards.
    assert_eq!(rt.block_on(async { 5 }), 5);
    assert_eq!(rt.block_on(rt.spawn(async { 5 })).unwrap(), 5);
}

/// A `block_on` nested in a `block_on` of the same runtime panics (through
/// the `Runtime` on this thread, through a `Handle` on a plain thread);
/// the unwinding leaves the runtime usable: that thread may `block_on`
/// again, and the runtime still drives tasks and timers.
fn nested_block_on_panics_and_leaves_the_runtime_usable(flavor: Flavor) {
    let rt = flavor.rt();
    common::assert_panics_with(NESTED, "nested block_on", || {
        rt.block_on(async { rt.block_on(async {}) })
    });
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
    // The unwinding gave the core back: the runtime still drives tasks and
    // timers.
    let got = rt.block_on(async {
        let task = lawn_rt::spawn(async {
            sleep(Duration::from_millis(1)).await;
            9
        });
        task.await.unwrap()
    });
    assert_eq!(got, 9);
}

// ===========================================================================
// Current-thread runtime
// ===========================================================================

#[test]
fn block_on_is_woken_from_another_thread() {
    watchdog("block_on woken from a thread", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let gate = Gate::new();
        let opener = gate.clone();
        let thread = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            opener.open(7);
        });
        // Nothing else to do: the runtime parks with no deadline and only
        // the other thread's wake can end it.
        assert_eq!(rt.block_on(gate.wait()), 7);
        thread.join().unwrap();
    });
}

#[test]
fn two_threads_block_on_one_runtime_while_one_drives() {
    watchdog("two block_on threads", HANG, || {
        let rt = Arc::new(Builder::new_current_thread().enable_all().build().unwrap());
        let (driving_tx, driving_rx) = std::sync::mpsc::channel();
        let release = Gate::new();

        // A drives: its future waits for B to be done.
        let driver = {
            let rt = rt.clone();
            let release = release.clone();
            thread::spawn(move || {
                rt.block_on(async move {
                    driving_tx.send(()).unwrap();
                    release.wait().await
                })
            })
        };
        driving_rx.recv().unwrap();

        // B waits for the seat; its spawned task (and its timer) run on A,
        // and B's future completes on B's thread all the same.
        let got = rt.block_on(async {
            let task = lawn_rt::spawn(async {
                sleep(Duration::from_millis(5)).await;
                7
            });
            task.await.unwrap()
        });
        assert_eq!(got, 7);
        release.open("done");
        assert_eq!(driver.join().unwrap(), "done");
    });
}

#[test]
fn a_waiting_block_on_takes_over_driving_when_the_driver_leaves() {
    watchdog("block_on handover", HANG, || {
        let rt = Arc::new(Builder::new_current_thread().enable_all().build().unwrap());
        let (driving_tx, driving_rx) = std::sync::mpsc::channel();
        let leave = Gate::new();
        let first = {
            let rt = rt.clone();
            let leave = leave.clone();
            thread::spawn(move || {
                rt.block_on(async move {
                    driving_tx.send(()).unwrap();
                    leave.wait().await;
                })
            })
        };
        driving_rx.recv().unwrap();
        let rt2 = rt.clone();
        let second = thread::spawn(move || {
            rt2.block_on(async {
                // Registered while the first thread drives...
                let task = lawn_rt::spawn(async {
                    sleep(Duration::from_millis(30)).await;
                    "late"
                });
                sleep(Duration::from_millis(10)).await;
                // ...and completed after it has left: only this thread can
                // drive now.
                task.await.unwrap()
            })
        });
        leave.open(());
        first.join().unwrap();
        assert_eq!(second.join().unwrap(), "late");
    });
}

/// Tasks still running when a `block_on` returns go on at the next one,
/// from any thread.
#[test]
fn tasks_left_by_one_block_on_continue_in_the_next() {
    watchdog("left-over tasks", HANG, || {
        let rt = Arc::new(Builder::new_current_thread().enable_all().build().unwrap());
        let done = Arc::new(AtomicUsize::new(0));
        let joins = rt.block_on({
            let done = done.clone();
            async move {
                let joins: Vec<_> = (0..10)
                    .map(|i| {
                        let done = done.clone();
                        lawn_rt::spawn(async move {
                            for _ in 0..i {
                                yield_now().await;
                            }
                            sleep(Duration::from_millis(i)).await;
                            done.fetch_add(1, SeqCst);
                        })
                    })
                    .collect();
                yield_now().await; // some are mid-yield now
                joins
            }
        });
        assert!(done.load(SeqCst) < 10);
        let other = rt.clone();
        thread::spawn(move || {
            other.block_on(async {
                for join in joins {
                    join.await.unwrap();
                }
            })
        })
        .join()
        .unwrap();
        assert_eq!(done.load(SeqCst), 10);
    });
}

/// Wakes from other threads racing with polls: no wake-up is lost, no
/// task is polled after it completed.
#[test]
fn remote_wakes_racing_with_polls_lose_nothing() {
    watchdog("remote wake stress", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        const TASKS: usize = 50;
        const STEPS: usize = 100;
        let gates: Vec<Vec<Gate<()>>> = (0..TASKS)
            .map(|_| (0..STEPS).map(|_| Gate::new()).collect())
            .collect();
        let joins: Vec<_> = gates
            .iter()
            .map(|chain| {
                let chain = chain.clone();
                rt.spawn(async move {
                    for gate in chain {
                        gate.wait().await;
                        if gate.is_open() {
                            unreachable!("a gate's value is taken once");
                        }
                    }
                    STEPS
                })
            })
            .collect();
        let openers: Vec<_> = gates
            .chunks(TASKS / 2)
            .map(|part| {
                let part = part.to_vec();
                thread::spawn(move || {
                    for step in 0..STEPS {
                        for chain in &part {
                            chain[step].open(());
                        }
                        if step % 10 == 0 {
                            thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        let total = rt.block_on(async {
            let mut total = 0;
            for join in joins {
                total += join.await.unwrap();
            }
            total
        });
        for opener in openers {
            opener.join().unwrap();
        }
        assert_eq!(total, TASKS * STEPS);
    });
}

// ===========================================================================
// Multi-thread runtime
// ===========================================================================

#[test]
fn handle_block_on_from_plain_threads_runs_timers_and_spawns() {
    watchdog("Handle::block_on from threads", MULTI_HANG, || {
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
    watchdog("Handle::block_on in spawn_blocking", MULTI_HANG, || {
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

    // Zero workers panics where it is set, as in tokio (it was an error
    // from `build()`): tests/reliability/bad_input.rs.
    let zero = std::panic::catch_unwind(|| {
        Builder::new_multi_thread().worker_threads(0);
    });
    assert!(zero.is_err());

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
    // ...and on the thread in `block_on` (no silent fallback to a foreign shard).
    common::assert_panics_with(NO_TIME, "sleep in block_on", || {
        rt.block_on(async { sleep(Duration::from_millis(1)).await })
    });
    // Tasks still run.
    assert_eq!(rt.block_on(rt.spawn(async { 2 })).unwrap(), 2);
}

// ===========================================================================
// The runtime types
// ===========================================================================

#[test]
fn runtime_types_have_tokios_auto_traits() {
    fn send_sync<T: Send + Sync>() {}
    fn unpin<T: Unpin>() {}
    send_sync::<lawn_rt::runtime::Runtime>();
    send_sync::<lawn_rt::runtime::Handle>();
    send_sync::<lawn_rt::runtime::Builder>();
    send_sync::<lawn_rt::task::JoinHandle<u8>>();
    send_sync::<lawn_rt::task::AbortHandle>();
    send_sync::<lawn_rt::task::JoinError>();
    unpin::<lawn_rt::task::JoinHandle<u8>>();
}
