//! `task::LocalSet` and `task::spawn_local`: `!Send` (`Rc`-holding) tasks
//! run on the thread that drives the set; `spawn_local` outside a set
//! panics at the caller's line; wake-ups from other threads (a std thread,
//! `spawn_blocking`, many threads at once) resume local tasks; an awaited
//! set completes once its tasks have; `run_until` returns its future's
//! output while the other tasks make progress; timers (real and paused
//! clock); dropping a set drops its tasks (their handles hear
//! `Cancelled`); aborts, panics, handles awaited on other threads, nested
//! spawns, `enter`, `JoinSet::spawn_local`.
//!
//! The bodies run on both flavors (`current_thread::*` and
//! `multi_thread::*`, see `common::both_flavors!`): the set is driven by
//! `LocalSet::block_on` on the test's thread, so on a multi-thread runtime
//! its tasks run there while the workers run the rest. Each body runs
//! under a watchdog.

mod common;

use std::cell::{Cell, RefCell};
use std::future::pending;
use std::rc::Rc;
use std::sync::Arc;
use std::thread;

use common::{catch_panic_site, until, watchdog, DropCount, Flavor, Gate};
use lawn_rt::runtime::Builder;
use lawn_rt::task::{self, JoinSet, LocalSet};
use lawn_rt::time::{interval, sleep, Duration, Instant};

/// Runs `body(&local)` inside `local.block_on` on a fresh runtime of
/// `flavor`, under a watchdog.
#[track_caller]
fn run_local<F, Fut>(flavor: Flavor, what: &str, body: F) -> Fut::Output
where
    F: FnOnce(&LocalSet) -> Fut + Send + 'static,
    Fut: std::future::Future,
    Fut::Output: Send + 'static,
{
    watchdog(what, flavor.hang(), move || {
        let rt = flavor.rt();
        let local = LocalSet::new();
        local.block_on(&rt, body(&local))
    })
}

both_flavors!(
    rc_holding_tasks_run_on_the_driving_thread,
    a_std_thread_wakes_a_local_task,
    spawn_blocking_wakes_a_local_task,
    many_threads_wake_local_tasks_at_once,
    an_awaited_set_completes_when_its_tasks_have,
    run_until_returns_while_other_tasks_progress,
    a_self_waking_task_does_not_starve_run_until,
    timers_in_local_tasks,
    dropping_the_set_drops_its_tasks,
    abort_from_another_thread_cancels_a_local_task,
    a_panicking_local_task_gives_a_panic_error,
    a_local_handle_awaited_on_another_thread,
    spawn_local_inside_local_tasks,
    join_set_spawn_local,
    ten_thousand_local_tasks,
);

fn rc_holding_tasks_run_on_the_driving_thread(flavor: Flavor) {
    run_local(flavor, "Rc tasks", |_| async {
        let log = Rc::new(RefCell::new(Vec::new()));
        let me = thread::current().id();
        let mut handles = Vec::new();
        for i in 0..10 {
            let log = log.clone();
            handles.push(task::spawn_local(async move {
                task::yield_now().await;
                log.borrow_mut().push(i);
                thread::current().id()
            }));
        }
        for handle in handles {
            assert_eq!(handle.await.unwrap(), me, "a local task left the thread");
        }
        let mut got = log.borrow().clone();
        got.sort();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
        assert_eq!(Rc::strong_count(&log), 1, "every task's future dropped");
    });
}

/// A local task waits for a value a std thread sends later.
fn a_std_thread_wakes_a_local_task(flavor: Flavor) {
    run_local(flavor, "woken from a std thread", |_| async {
        let gate = Gate::new();
        let opener = gate.clone();
        let marker = Rc::new(());
        let handle = task::spawn_local(async move {
            let _marker = marker; // not Send
            gate.wait().await
        });
        let thread = thread::spawn(move || {
            thread::sleep(std::time::Duration::from_millis(20));
            opener.open(42);
        });
        assert_eq!(handle.await.unwrap(), 42);
        thread.join().unwrap();
    });
}

fn spawn_blocking_wakes_a_local_task(flavor: Flavor) {
    run_local(flavor, "woken by spawn_blocking", |_| async {
        let state = Rc::new(Cell::new(0));
        let mine = state.clone();
        let handle = task::spawn_local(async move {
            let value = task::spawn_blocking(|| {
                thread::sleep(std::time::Duration::from_millis(10));
                7
            })
            .await
            .unwrap();
            mine.set(value);
        });
        handle.await.unwrap();
        assert_eq!(state.get(), 7);
    });
}

/// 8 threads each open 50 gates that 400 local tasks wait on, at once:
/// every task is resumed (no wake-up lost between the threads' pushes and
/// the set's turns).
fn many_threads_wake_local_tasks_at_once(flavor: Flavor) {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 50;
    run_local(flavor, "wake storm", |_| async {
        let done = Rc::new(Cell::new(0));
        let mut gates = Vec::new();
        for _ in 0..THREADS * PER_THREAD {
            let gate: Gate<()> = Gate::new();
            let wait = gate.wait();
            let done = done.clone();
            task::spawn_local(async move {
                wait.await;
                done.set(done.get() + 1);
            });
            gates.push(gate);
        }
        task::yield_now().await; // every task has registered its waker
        let start = Arc::new(std::sync::Barrier::new(THREADS));
        let threads: Vec<_> = gates
            .chunks(PER_THREAD)
            .map(|chunk| {
                let chunk = chunk.to_vec();
                let start = start.clone();
                thread::spawn(move || {
                    start.wait();
                    for gate in chunk {
                        gate.open(());
                    }
                })
            })
            .collect();
        until(|| done.get() == THREADS * PER_THREAD).await;
        for thread in threads {
            thread.join().unwrap();
        }
    });
}

/// `rt.block_on(local)`: the set completes once every task has finished,
/// including tasks spawned by tasks.
fn an_awaited_set_completes_when_its_tasks_have(flavor: Flavor) {
    watchdog("awaited set", flavor.hang(), move || {
        let rt = flavor.rt();
        let local = LocalSet::new();
        let finished = Rc::new(Cell::new(0));
        for ms in [3u64, 1, 2] {
            let finished = finished.clone();
            local.spawn_local(async move {
                sleep(Duration::from_millis(ms)).await;
                let inner = finished.clone();
                task::spawn_local(async move {
                    task::yield_now().await;
                    inner.set(inner.get() + 1);
                });
                finished.set(finished.get() + 1);
            });
        }
        assert!(format!("{local:?}").contains("tasks: 3"), "{local:?}");
        rt.block_on(local);
        assert_eq!(finished.get(), 6);
        // An empty set is done at once.
        rt.block_on(LocalSet::new());
    });
}

/// `run_until` returns its future's output as soon as it is ready, while
/// the other local tasks have been running meanwhile; tasks left unfinished
/// stay in the set and go on running when it is driven again.
fn run_until_returns_while_other_tasks_progress(flavor: Flavor) {
    watchdog("run_until", flavor.hang(), move || {
        let rt = flavor.rt();
        let local = LocalSet::new();
        let ticks = Rc::new(Cell::new(0u32));
        let counter = ticks.clone();
        local.spawn_local(async move {
            loop {
                counter.set(counter.get() + 1);
                sleep(Duration::from_millis(1)).await;
            }
        });
        let seen = ticks.clone();
        let out = rt.block_on(local.run_until(async move {
            until(|| seen.get() >= 5).await;
            "output"
        }));
        assert_eq!(out, "output");
        let at_return = ticks.get();
        assert!(at_return >= 5);
        // Not driven: no progress.
        thread::sleep(std::time::Duration::from_millis(10));
        assert_eq!(ticks.get(), at_return);
        // Driven again: the task goes on.
        let seen = ticks.clone();
        rt.block_on(local.run_until(async move { until(|| seen.get() >= at_return + 3).await }));
        drop(local);
        assert_eq!(Rc::strong_count(&ticks), 1, "the looping task was dropped");
    });
}

/// A local task that wakes itself on every poll shares the thread: the
/// set hands it back after a bounded number of polls, so `run_until`'s
/// future (waiting on a timer) still completes.
fn a_self_waking_task_does_not_starve_run_until(flavor: Flavor) {
    run_local(flavor, "self-waking task", |_| async {
        let spins = Rc::new(Cell::new(0u64));
        let counter = spins.clone();
        let spinner = task::spawn_local(async move {
            loop {
                counter.set(counter.get() + 1);
                common::naive_yield().await;
            }
        });
        sleep(Duration::from_millis(20)).await;
        assert!(spins.get() > 0);
        spinner.abort();
        assert!(spinner.await.unwrap_err().is_cancelled());
    });
}

fn timers_in_local_tasks(flavor: Flavor) {
    run_local(flavor, "timers", |_| async {
        let start = Instant::now();
        let fired = Rc::new(RefCell::new(Vec::new()));
        let mut handles = Vec::new();
        for ms in [15u64, 5, 10] {
            let fired = fired.clone();
            handles.push(task::spawn_local(async move {
                sleep(Duration::from_millis(ms)).await;
                fired.borrow_mut().push(ms);
            }));
        }
        let ticks = task::spawn_local(async {
            let mut every = interval(Duration::from_millis(2));
            for _ in 0..5 {
                every.tick().await;
            }
        });
        for handle in handles {
            handle.await.unwrap();
        }
        ticks.await.unwrap();
        assert_eq!(*fired.borrow(), [5, 10, 15]);
        assert!(start.elapsed() >= Duration::from_millis(15));
    });
}

/// On a paused clock (current-thread runtime), an hour of local sleeps
/// passes at once.
#[test]
fn paused_clock_timers_in_local_tasks() {
    watchdog(
        "paused local timers",
        std::time::Duration::from_secs(30),
        || {
            let rt = Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap();
            let local = LocalSet::new();
            let real = std::time::Instant::now();
            let order = local.block_on(&rt, async {
                let order = Rc::new(RefCell::new(Vec::new()));
                let mut handles = Vec::new();
                for mins in [60u64, 20, 40] {
                    let order = order.clone();
                    handles.push(task::spawn_local(async move {
                        sleep(Duration::from_secs(mins * 60)).await;
                        order.borrow_mut().push(mins);
                    }));
                }
                for handle in handles {
                    handle.await.unwrap();
                }
                let order = order.borrow().clone();
                order
            });
            assert_eq!(order, [20, 40, 60]);
            assert!(real.elapsed() < std::time::Duration::from_secs(10));
        },
    );
}

/// Dropping a set drops the futures of its tasks on the spot; their
/// handles (awaited anywhere) then give `Cancelled`.
fn dropping_the_set_drops_its_tasks(flavor: Flavor) {
    watchdog("drop the set", flavor.hang(), move || {
        let rt = flavor.rt();
        let local = LocalSet::new();
        let dropped = DropCount::new();
        let rc = Rc::new(());
        let mut handles = Vec::new();
        for _ in 0..10 {
            let guard = dropped.track();
            let rc = rc.clone();
            handles.push(local.spawn_local(async move {
                let _guard = guard;
                let _rc = rc;
                pending::<()>().await;
            }));
        }
        // Ten that ran and wait, ten never polled.
        local.block_on(&rt, task::yield_now());
        for _ in 0..10 {
            let guard = dropped.track();
            handles.push(local.spawn_local(async move {
                let _guard = guard;
            }));
        }
        assert_eq!(dropped.get(), 0);
        drop(local);
        assert_eq!(dropped.get(), 20);
        assert_eq!(Rc::strong_count(&rc), 1);
        futures::executor::block_on(async {
            for handle in handles {
                assert!(handle.await.unwrap_err().is_cancelled());
            }
        });
    });
}

/// `JoinHandle::abort` and an `AbortHandle` used on another thread cancel
/// local tasks; a finished task keeps its output.
fn abort_from_another_thread_cancels_a_local_task(flavor: Flavor) {
    run_local(flavor, "abort", |_| async {
        let dropped = DropCount::new();
        let guard = dropped.track();
        let waiting = task::spawn_local(async move {
            let _guard = guard;
            pending::<()>().await;
        });
        task::yield_now().await;
        let abort = waiting.abort_handle();
        thread::spawn(move || abort.abort()).join().unwrap();
        assert!(waiting.await.unwrap_err().is_cancelled());
        assert_eq!(dropped.get(), 1);

        let never_polled = task::spawn_local(async { 1 });
        never_polled.abort();
        assert!(never_polled.await.unwrap_err().is_cancelled());

        let finished = task::spawn_local(async { 2 });
        let abort = finished.abort_handle();
        until(|| abort.is_finished()).await;
        finished.abort();
        assert_eq!(finished.await.unwrap(), 2);
    });
}

fn a_panicking_local_task_gives_a_panic_error(flavor: Flavor) {
    run_local(flavor, "panic", |_| async {
        let rc = Rc::new(());
        let mine = rc.clone();
        let handle = task::spawn_local(async move {
            let _rc = mine;
            task::yield_now().await;
            panic!("local boom");
        });
        let err = handle.await.unwrap_err();
        assert!(err.is_panic());
        assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "local boom");
        assert_eq!(Rc::strong_count(&rc), 1, "the panicked future was dropped");
        // The set goes on.
        assert_eq!(task::spawn_local(async { 3 }).await.unwrap(), 3);
    });
}

/// A local task's handle (its output `Send`) awaited by a runtime task,
/// possibly on another thread.
fn a_local_handle_awaited_on_another_thread(flavor: Flavor) {
    run_local(flavor, "handle on another thread", |_| async {
        let gate = Gate::new();
        let wait = gate.wait();
        let local = task::spawn_local(async move {
            let _not_send = Rc::new(());
            wait.await;
            "from the local task"
        });
        let awaiting = task::spawn(async move { local.await.unwrap() });
        sleep(Duration::from_millis(2)).await;
        gate.open(());
        assert_eq!(awaiting.await.unwrap(), "from the local task");
    });
}

fn spawn_local_inside_local_tasks(flavor: Flavor) {
    run_local(flavor, "nested spawn_local", |_| async {
        let depth = task::spawn_local(async {
            task::spawn_local(async { task::spawn_local(async { Rc::new(3) }).await.unwrap() })
                .await
                .unwrap()
        })
        .await
        .unwrap();
        assert_eq!(*depth, 3);
    });
}

fn join_set_spawn_local(flavor: Flavor) {
    run_local(flavor, "JoinSet::spawn_local", |local| {
        let mut set = JoinSet::new();
        for i in 0..5u32 {
            set.spawn_local_on(
                async move {
                    sleep(Duration::from_millis(u64::from(5 - i))).await;
                    Rc::new(i)
                },
                local,
            );
        }
        async move {
            set.spawn_local(async { Rc::new(9) });
            let mut got: Vec<u32> = Vec::new();
            while let Some(result) = set.join_next().await {
                got.push(*result.unwrap());
            }
            got.sort();
            assert_eq!(got, [0, 1, 2, 3, 4, 9]);
        }
    });
}

fn ten_thousand_local_tasks(flavor: Flavor) {
    const N: usize = 10_000;
    run_local(flavor, "10k local tasks", |_| async {
        let count = Rc::new(Cell::new(0));
        let handles: Vec<_> = (0..N)
            .map(|_| {
                let count = count.clone();
                task::spawn_local(async move {
                    task::yield_now().await;
                    count.set(count.get() + 1);
                })
            })
            .collect();
        for handle in handles {
            handle.await.unwrap();
        }
        assert_eq!(count.get(), N);
    });
}

// ------------------------------------------------------ one flavor suffices

#[test]
fn spawn_local_outside_a_local_set_panics_at_the_callers_line() {
    let line = line!() + 2;
    let site = catch_panic_site("spawn_local outside a LocalSet", || {
        task::spawn_local(async {});
    });
    assert!(
        site.message.contains("lawn_rt")
            && site
                .message
                .contains("`spawn_local` called from outside of a `task::LocalSet`"),
        "{}",
        site.message
    );
    assert!(site.file.ends_with("task_local.rs"), "{}", site.file);
    assert_eq!(site.line, line);

    // Inside a runtime, but outside any set: the same.
    let rt = Builder::new_current_thread().build().unwrap();
    let line = line!() + 3;
    let site = catch_panic_site("spawn_local in a runtime", || {
        rt.block_on(async {
            task::spawn_local(async {});
        })
    });
    assert!(site.message.contains("LocalSet"), "{}", site.message);
    assert_eq!(site.line, line);
}

#[test]
fn enter_lets_spawn_local_queue_tasks() {
    let rt = Builder::new_current_thread().build().unwrap();
    let local = LocalSet::new();
    let ran = Rc::new(Cell::new(false));
    let handle = {
        let _entered = local.enter();
        let ran = ran.clone();
        task::spawn_local(async move { ran.set(true) })
    };
    // Not run until the set is driven.
    assert!(!ran.get());
    assert!(!handle.is_finished());
    local.block_on(&rt, handle).unwrap();
    assert!(ran.get());
    // The guard restored "no set".
    let result = std::panic::catch_unwind(|| drop(task::spawn_local(async {})));
    assert!(result.is_err());
}

/// Nested sets: `spawn_local` goes to the innermost one whose context is
/// entered, and the outer one is current again afterwards.
#[test]
fn nested_sets_spawn_into_the_innermost() {
    let rt = Builder::new_current_thread().build().unwrap();
    let outer = LocalSet::new();
    outer.block_on(&rt, async {
        let inner = LocalSet::new();
        let where_ = inner
            .run_until(async { task::spawn_local(async { "inner" }).await.unwrap() })
            .await;
        assert_eq!(where_, "inner");
        // The outer set is current again.
        assert_eq!(task::spawn_local(async { "outer" }).await.unwrap(), "outer");
    });
}

/// A set driven from inside one of its own tasks (which holds it in an
/// `Rc`): a wake of that task during its own poll, which the inner turn
/// finds while the task is out being polled, is not lost.
#[test]
fn a_set_driven_from_inside_its_own_task() {
    watchdog(
        "set driven from its own task",
        std::time::Duration::from_secs(30),
        || {
            let rt = Builder::new_current_thread().enable_all().build().unwrap();
            let local = Rc::new(LocalSet::new());
            let inner = local.clone();
            let handle = local.spawn_local(async move {
                // Wakes this very task, then lets the inner turn run.
                inner.run_until(common::naive_yield()).await;
                inner
                    .run_until(async { task::spawn_local(async { 4 }).await.unwrap() })
                    .await
            });
            assert_eq!(local.block_on(&rt, handle).unwrap(), 4);
        },
    );
}

/// A future dropped with the set that calls `spawn_local` in its drop
/// does not panic: its task is cancelled at once.
#[test]
fn spawn_local_while_the_set_drops_is_cancelled() {
    struct SpawnOnDrop(Rc<RefCell<Option<task::JoinHandle<()>>>>);
    impl Drop for SpawnOnDrop {
        fn drop(&mut self) {
            *self.0.borrow_mut() = Some(task::spawn_local(async {}));
        }
    }
    let slot = Rc::new(RefCell::new(None));
    let local = LocalSet::new();
    let on_drop = SpawnOnDrop(slot.clone());
    local.spawn_local(async move {
        let _on_drop = on_drop;
        pending::<()>().await;
    });
    drop(local);
    let handle = slot.borrow_mut().take().expect("spawned in the drop");
    assert!(handle.is_finished());
    let err = futures::executor::block_on(handle).unwrap_err();
    assert!(err.is_cancelled());
}

/// A set driven by another executor (no lawn_rt runtime): local tasks and
/// their timers still run.
#[test]
fn a_set_driven_by_another_executor() {
    watchdog(
        "futures executor",
        std::time::Duration::from_secs(30),
        || {
            let local = LocalSet::new();
            let out = futures::executor::block_on(local.run_until(async {
                let handle = task::spawn_local(async {
                    sleep(Duration::from_millis(2)).await;
                    Rc::new(5)
                });
                *handle.await.unwrap()
            }));
            assert_eq!(out, 5);
        },
    );
}

#[test]
fn local_set_and_guard_implement_debug() {
    let local = LocalSet::default();
    assert_eq!(format!("{local:?}"), "LocalSet { tasks: 0 }");
    let guard = local.enter();
    assert!(format!("{guard:?}").starts_with("LocalEnterGuard"));
    local.spawn_local(async {});
    assert_eq!(format!("{local:?}"), "LocalSet { tasks: 1 }");
    drop(guard);
}
