//! `task::block_in_place`: on a multi-thread worker the worker moves to a
//! new thread while the closure blocks, so the runtime's other tasks,
//! timers and sockets keep going (even with one worker); the calling task
//! goes on afterwards. Elsewhere it just runs the closure; on a
//! current-thread runtime it panics with tokio's message at the caller's
//! line. Threads left behind are reused by later hand-offs. Shutdown waits
//! for a closure in progress (up to its timeout).

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use common::{catch_panic_site, recv_within, watchdog};
use lawn_rt::runtime::{Builder, Handle, Runtime};
use lawn_rt::task::{block_in_place, spawn_blocking};
use lawn_rt::time::{sleep, Instant};

const PATIENCE: Duration = Duration::from_secs(10);
const TOKIO_MESSAGE: &str = "can call blocking only when running on the multi-threaded runtime";

fn multi(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

/// With one worker, a task blocking in `block_in_place` until another
/// task has run would wait forever unless the worker moved on.
#[test]
fn other_tasks_run_while_the_closure_blocks_even_with_one_worker() {
    watchdog("one worker", PATIENCE, || {
        let rt = multi(1);
        rt.block_on(async {
            let (tx, rx) = mpsc::channel();
            let blocker = lawn_rt::spawn(async move {
                block_in_place(|| recv_within(&rx, PATIENCE, "the other task's message"))
            });
            // Spawned after the blocker started blocking, or before: both
            // must run.
            let other = lawn_rt::spawn(async move {
                sleep(Duration::from_millis(5)).await;
                tx.send(7).unwrap();
            });
            other.await.unwrap();
            assert_eq!(blocker.await.unwrap(), 7);
        });
    });
}

/// Timers filed on the worker before the hand-off fire on its new thread,
/// on time, while the old thread still blocks.
#[test]
fn the_workers_timers_fire_while_its_old_thread_blocks() {
    watchdog("timers", PATIENCE, || {
        let rt = multi(1);
        rt.block_on(async {
            let (tx, rx) = mpsc::channel();
            let start = Instant::now();
            // Filed on the only worker's shard first.
            let sleeper = lawn_rt::spawn(async move {
                sleep(Duration::from_millis(30)).await;
                tx.send(Instant::now()).unwrap();
            });
            let blocker = lawn_rt::spawn(async move {
                block_in_place(|| recv_within(&rx, PATIENCE, "the sleeper"))
            });
            let fired = blocker.await.unwrap();
            sleeper.await.unwrap();
            assert!(fired >= start + Duration::from_millis(30), "early");
        });
    });
}

/// The closure may borrow from the task; the task goes on after it with
/// timers, spawns and awaits, and can do it again.
#[test]
fn the_task_goes_on_after_the_closure_and_may_call_it_again() {
    watchdog("goes on", PATIENCE, || {
        let rt = multi(2);
        let total = rt.block_on(async {
            lawn_rt::spawn(async {
                let words = [String::from("a"), "bb".into(), "ccc".into()];
                let mut total = 0;
                for round in 0..20 {
                    total += block_in_place(|| words.iter().map(|w| w.len()).sum::<usize>());
                    sleep(Duration::from_millis(1)).await;
                    total += lawn_rt::spawn(async move { round % 2 }).await.unwrap();
                }
                total
            })
            .await
            .unwrap()
        });
        assert_eq!(total, 20 * 6 + 10);
    });
}

/// Many hand-offs in a row: every task completes, and the runtime's drop
/// joins every thread.
#[test]
fn many_hand_offs_lose_no_task() {
    watchdog("many", PATIENCE * 3, || {
        let rt = multi(2);
        let done = Arc::new(AtomicUsize::new(0));
        rt.block_on(async {
            let tasks: Vec<_> = (0..50)
                .map(|i| {
                    let done = done.clone();
                    lawn_rt::spawn(async move {
                        for _ in 0..4 {
                            block_in_place(|| std::thread::sleep(Duration::from_micros(200)));
                            lawn_rt::task::yield_now().await;
                        }
                        done.fetch_add(1, SeqCst);
                        i
                    })
                })
                .collect();
            for (i, task) in tasks.into_iter().enumerate() {
                assert_eq!(task.await.unwrap(), i);
            }
        });
        drop(rt);
        assert_eq!(done.load(SeqCst), 50);
    });
}

/// A thread a hand-off left behind waits to take the next hand-off, so a
/// task calling `block_in_place` over and over runs its closures on a few
/// threads, not a new one each time.
#[test]
fn hand_offs_reuse_the_threads_they_left_behind() {
    watchdog("reuse", PATIENCE, || {
        let rt = multi(2);
        let threads = rt.block_on(async {
            lawn_rt::spawn(async {
                let mut threads = std::collections::HashSet::new();
                for _ in 0..200 {
                    threads.insert(block_in_place(|| std::thread::current().id()));
                    lawn_rt::task::yield_now().await;
                }
                threads.len()
            })
            .await
            .unwrap()
        });
        // Typically 2 or 3; a hand-off that comes before the last left
        // thread is back (a loaded machine) starts one more.
        assert!(threads <= 50, "{threads} threads for 200 hand-offs");
    });
}

/// tokio's pattern: `block_in_place(|| Handle::current().block_on(..))`
/// drives a future (with timers) to completion from inside a task.
#[test]
fn handle_block_on_inside_the_closure_completes() {
    watchdog("nested block_on", PATIENCE, || {
        let rt = multi(1);
        rt.block_on(async {
            lawn_rt::spawn(async {
                block_in_place(|| {
                    Handle::current().block_on(async {
                        sleep(Duration::from_millis(5)).await;
                        lawn_rt::spawn(async { 3 }).await.unwrap()
                    })
                })
            })
            .await
            .unwrap()
        });
    });
}

/// Where there is no worker to hand over, the closure just runs: outside
/// any runtime, on a multi-thread runtime's `block_on` thread, on a
/// blocking-pool thread, nested in another `block_in_place`.
#[test]
fn without_a_worker_to_hand_over_the_closure_just_runs() {
    watchdog("just runs", PATIENCE, || {
        assert_eq!(block_in_place(|| 1), 1);
        let rt = multi(1);
        rt.block_on(async {
            assert_eq!(block_in_place(|| 2), 2);
            assert_eq!(spawn_blocking(|| block_in_place(|| 3)).await.unwrap(), 3);
            let nested = lawn_rt::spawn(async { block_in_place(|| block_in_place(|| 4)) });
            assert_eq!(nested.await.unwrap(), 4);
        });
        // A current-thread runtime's blocking pool, and a thread that only
        // entered one (no `block_on` there): no panic.
        let current = Builder::new_current_thread().enable_all().build().unwrap();
        current.block_on(async {
            assert_eq!(spawn_blocking(|| block_in_place(|| 5)).await.unwrap(), 5);
        });
        let _entered = current.enter();
        assert_eq!(block_in_place(|| 6), 6);
    });
}

/// What is handed over is the worker of the runtime the thread works
/// for, whatever runtime a task has entered: with another runtime's handle
/// entered (multi-thread or current-thread), the calling worker's runtime
/// keeps running its tasks, and the entered one is untouched.
#[test]
fn the_worker_handed_over_is_the_threads_not_the_entered_runtimes() {
    watchdog("entered elsewhere", PATIENCE, || {
        let a = multi(1);
        let b = multi(1);
        let c = Builder::new_current_thread().enable_all().build().unwrap();
        for entered in [b.handle().clone(), c.handle().clone()] {
            let (tx, rx) = mpsc::channel();
            let blocker = a.spawn(async move {
                let _entered = entered.enter();
                block_in_place(|| recv_within(&rx, PATIENCE, "a's other task"))
            });
            let other = a.spawn(async move { tx.send(11).unwrap() });
            a.block_on(other).unwrap();
            assert_eq!(a.block_on(blocker).unwrap(), 11);
        }
        assert_eq!(b.block_on(b.spawn(async { 12 })).unwrap(), 12);
        assert_eq!(
            c.block_on(async { lawn_rt::spawn(async { 13 }).await.unwrap() }),
            13
        );
        drop(a);
        drop(b);
    });
}

/// A multi-thread runtime's handle entered inside a current-thread
/// runtime's `block_on` does not make `block_in_place` legal there: the
/// thread still runs the current-thread runtime.
#[test]
fn a_multi_thread_handle_entered_on_a_current_thread_runtime_still_panics() {
    let multi = multi(1);
    let current = Builder::new_current_thread().enable_all().build().unwrap();
    let handle = multi.handle().clone();
    let site = catch_panic_site("entered", || {
        current.block_on(async move {
            let _entered = handle.enter();
            block_in_place(|| 1)
        })
    });
    assert!(site.message.contains(TOKIO_MESSAGE), "{:?}", site.message);
}

/// A runtime dropped inside the closure (on the thread that handed its
/// worker over) shuts down without waiting for that thread (it cannot
/// join itself): the drop returns, the closure goes on, and the shutdown
/// completes in the background (as for a runtime dropped inside its own
/// task): soon work spawned through a handle is cancelled.
#[test]
fn a_runtime_dropped_inside_the_closure_shuts_down() {
    watchdog("dropped inside", PATIENCE, || {
        let slot = Arc::new(std::sync::Mutex::new(Some(multi(2))));
        let handle = slot.lock().unwrap().as_ref().unwrap().handle().clone();
        let (done_tx, done) = mpsc::channel();
        {
            let slot = slot.clone();
            handle.spawn(async move {
                block_in_place(|| {
                    drop(slot.lock().unwrap().take());
                    done_tx.send(()).unwrap();
                });
            });
        }
        recv_within(&done, PATIENCE, "the drop inside the closure returned");
        loop {
            let late = handle.spawn_blocking(|| "ran");
            match futures::executor::block_on(late) {
                Ok(_) => std::thread::sleep(Duration::from_millis(1)),
                Err(err) => {
                    assert!(err.is_cancelled(), "{err:?}");
                    break;
                }
            }
        }
        let late = handle.spawn(async { "ran" });
        let err = futures::executor::block_on(late).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
    });
}

/// On the thread running a current-thread runtime there is nobody to hand
/// the runtime to: a panic with tokio's message, at the caller's line,
/// inside a task (a `JoinError`) as in `block_on`.
#[test]
fn on_a_current_thread_runtime_it_panics_at_the_callers_line() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let line = line!() + 1;
    let blocking = async { block_in_place(|| 1) };
    let site = catch_panic_site("in block_on", || rt.block_on(blocking));
    assert_eq!((site.file.as_str(), site.line), (file!(), line));
    assert!(site.message.contains(TOKIO_MESSAGE), "{:?}", site.message);
    assert!(
        site.message.contains("spawn_blocking"),
        "{:?}",
        site.message
    );

    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let joined = rt.block_on(rt.spawn(async move {
        block_in_place(|| flag.store(true, SeqCst));
    }));
    let err = joined.unwrap_err();
    assert!(err.is_panic());
    assert!(!ran.load(SeqCst), "the closure must not run");
    // The runtime is fine afterwards.
    assert_eq!(
        rt.block_on(async { lawn_rt::spawn(async { 8 }).await.unwrap() }),
        8
    );
}

/// A panic in the closure is the task's panic; the worker, already on its
/// new thread, keeps the runtime going.
#[test]
fn a_panic_in_the_closure_fails_only_its_task() {
    watchdog("panic", PATIENCE, || {
        let rt = multi(1);
        rt.block_on(async {
            let failed = lawn_rt::spawn(async {
                block_in_place(|| panic!("boom in the closure"));
            });
            let err = failed.await.unwrap_err();
            assert!(err.is_panic());
            assert_eq!(lawn_rt::spawn(async { 9 }).await.unwrap(), 9);
            sleep(Duration::from_millis(2)).await;
        });
    });
}

/// Dropping the runtime while a closure blocks waits for it (the task
/// then completes or is cancelled; either way its future is dropped
/// before the drop returns); `shutdown_timeout` waits only up to its
/// timeout and lets the thread go.
#[test]
fn shutdown_waits_for_a_closure_in_progress_up_to_its_timeout() {
    watchdog("shutdown", PATIENCE, || {
        for timeout in [None, Some(Duration::from_millis(20))] {
            let rt = multi(2);
            let (started_tx, started) = mpsc::channel();
            let finished = Arc::new(AtomicBool::new(false));
            let dropped = common::DropCount::new();
            {
                let finished = finished.clone();
                let tracked = dropped.track();
                rt.spawn(async move {
                    let _tracked = tracked;
                    block_in_place(|| {
                        started_tx.send(()).unwrap();
                        std::thread::sleep(Duration::from_millis(300));
                        finished.store(true, SeqCst);
                    });
                    std::future::pending::<()>().await;
                });
            }
            recv_within(&started, PATIENCE, "the closure started");
            let start = std::time::Instant::now();
            match timeout {
                None => {
                    drop(rt);
                    assert!(finished.load(SeqCst), "the drop did not wait");
                    assert_eq!(dropped.get(), 1, "the task's future was not dropped");
                }
                Some(timeout) => {
                    rt.shutdown_timeout(timeout);
                    let took = start.elapsed();
                    assert!(took < Duration::from_millis(250), "waited {took:?}");
                    assert!(!finished.load(SeqCst));
                    // The thread let go still ends its task.
                    let deadline = std::time::Instant::now() + PATIENCE;
                    while dropped.get() == 0 {
                        assert!(std::time::Instant::now() < deadline, "never dropped");
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    assert!(finished.load(SeqCst));
                }
            }
        }
    });
}

/// Inside `block_in_place` the thread is no longer a worker: a fresh
/// current-thread runtime's `block_on` runs there, as in tokio, and the
/// task goes on afterwards.
#[test]
fn a_current_thread_runtime_runs_inside_block_in_place() {
    watchdog(
        "current-thread block_on in block_in_place",
        PATIENCE,
        || {
            let rt = multi(1);
            rt.block_on(async {
                lawn_rt::spawn(async {
                    let out = block_in_place(|| {
                        let inner = Builder::new_current_thread().enable_all().build().unwrap();
                        inner.block_on(async {
                            sleep(Duration::from_millis(1)).await;
                            7
                        })
                    });
                    lawn_rt::task::yield_now().await;
                    out
                })
                .await
                .unwrap()
            })
        },
    );
}

/// The same from the future of a multi-thread runtime's own `block_on`
/// (not a worker): `block_in_place` leaves the runtime there too, so the
/// nested `block_on` runs.
#[test]
fn a_current_thread_runtime_runs_inside_block_in_place_in_block_on() {
    watchdog(
        "nested block_on in block_on's block_in_place",
        PATIENCE,
        || {
            let rt = multi(1);
            let out = rt.block_on(async {
                block_in_place(|| {
                    let inner = Builder::new_current_thread().enable_all().build().unwrap();
                    inner.block_on(async { 8 })
                })
            });
            assert_eq!(out, 8);
        },
    );
}

/// A waker a task's `yield_now` deferred is woken before `block_in_place`
/// starts blocking, not once it is done (tokio#7877): here the waker is a
/// flag of the test's own, read while the closure blocks.
#[test]
fn a_yielded_waker_is_woken_before_the_closure_blocks() {
    struct Flag(AtomicBool);
    impl std::task::Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, SeqCst);
        }
    }
    watchdog("deferred wakers before block_in_place", PATIENCE, || {
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let rt = multi(1);
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let task = {
            let flag = flag.clone();
            rt.spawn(async move {
                let waker = std::task::Waker::from(flag);
                let mut yielded = std::pin::pin!(lawn_rt::task::yield_now());
                let mut cx = std::task::Context::from_waker(&waker);
                assert!(std::future::Future::poll(yielded.as_mut(), &mut cx).is_pending());
                block_in_place(|| {
                    started_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                });
            })
        };
        started_rx.recv().unwrap();
        let woken = flag.0.load(SeqCst);
        release_tx.send(()).unwrap();
        rt.block_on(task).unwrap();
        assert!(woken, "the yielded waker waited for the blocking closure");
    });
}

/// From inside a `LocalSet` on a runtime, `block_in_place` panics with
/// tokio's message, also on a multi-thread runtime (the set's tasks must
/// stay on their thread).
#[test]
fn block_in_place_in_a_local_set_panics() {
    watchdog("block_in_place in a LocalSet", PATIENCE, || {
        let rt = multi(2);
        let site = catch_panic_site("run_until", || {
            rt.block_on(lawn_rt::task::LocalSet::new().run_until(async { block_in_place(|| {}) }))
        });
        assert!(
            site.message
                .starts_with("can call blocking only when running on the multi-threaded runtime"),
            "{}",
            site.message
        );
        let site = catch_panic_site("spawn_local", || {
            let set = lawn_rt::task::LocalSet::new();
            let task = set.spawn_local(async { block_in_place(|| {}) });
            rt.block_on(set.run_until(task)).unwrap();
        });
        assert!(
            site.message.contains("can call blocking only"),
            "{}",
            site.message
        );
    });
}
