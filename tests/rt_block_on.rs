//! `Runtime::block_on` through the public API: its value, being woken from
//! another thread, the misuse it refuses (nesting, inside a task), several
//! threads sharing one runtime and handing the driving over, tasks left
//! over from one `block_on` going on in the next, wakes from other threads
//! racing with polls, and the runtime types' auto traits.
//!
//! The clock here is the real one (the point is threads meeting), with
//! short sleeps; anything that could hang runs under a watchdog.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;

use common::{watchdog, Gate};
use lawn_rt::runtime::Builder;
use lawn_rt::task::yield_now;
use lawn_rt::time::{sleep, Duration};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------- block_on

#[test]
fn block_on_returns_the_value() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    assert_eq!(rt.block_on(async { 40 + 2 }), 42);
    assert_eq!(rt.block_on(async { "again" }), "again");
    // No drivers at all.
    let bare = Builder::new_current_thread().build().unwrap();
    assert_eq!(bare.block_on(async { vec![1, 2, 3] }), vec![1, 2, 3]);
}

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
fn block_on_inside_a_task_panics_with_a_clear_message() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let err = rt.block_on(async {
        lawn_rt::spawn(async {
            let inner = Builder::new_current_thread().enable_all().build().unwrap();
            inner.block_on(async {});
        })
        .await
        .unwrap_err()
    });
    assert!(err.is_panic(), "{err:?}");
    let message = common::panic_message(&*err.into_panic());
    assert!(
        message.contains("cannot `block_on` inside a runtime") && message.contains(".await"),
        "unclear message: {message:?}"
    );
    // The runtime is fine afterwards.
    assert_eq!(rt.block_on(async { 5 }), 5);
}

#[test]
fn nested_block_on_on_the_same_runtime_panics_and_leaves_it_usable() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    common::assert_panics_with(
        "cannot `block_on` inside a runtime",
        "nested block_on",
        || rt.block_on(async { rt.block_on(async {}) }),
    );
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
