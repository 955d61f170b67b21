//! Tasks: spawning (also through a `Handle`, from other threads, and after
//! `enter`), joining, detaching, `abort` and `AbortHandle` (from the task
//! itself, another task, another thread, racing with polls), and panics
//! turned into a `JoinError`; a panic in a task's output drop or in a join
//! waker stays out of the runtime.
//!
//! The bodies that hold for both flavors run twice, as
//! `current_thread::*` and `multi_thread::*` (two workers; see
//! `common::both_flavors!`); the rest run on a current-thread runtime.
//! Anything that could hang runs under a watchdog.

mod common;

use std::future::pending;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;
use std::time::Instant as StdInstant;

use common::{
    naive_yield, panicking_waker, poll_with, watchdog, DropCount, Flavor, Gate, PanicOnDrop,
    Rendezvous, MEET,
};
use lawn_rt::runtime::{Builder, Handle};
use lawn_rt::task::{self, yield_now, JoinError};
use lawn_rt::time::{interval, sleep, Duration};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(20);

// The bodies that run on both flavors (each in its section below).
both_flavors!(
    abort_a_sleeping_task_on_the_real_clock,
    remote_aborts_racing_with_polls,
    abort_after_completion_keeps_the_output,
    a_panicking_task_gives_a_join_error_and_the_runtime_goes_on,
    a_future_that_panics_in_poll_is_dropped_during_the_unwind,
);

// ------------------------------------------------------------ spawn / join

#[lawn_rt::test]
async fn many_tasks_join_with_their_values() {
    let handles: Vec<_> = (0..1000u64)
        .map(|i| lawn_rt::spawn(async move { i * 2 }))
        .collect();
    let mut sum = 0;
    for (i, handle) in handles.into_iter().enumerate() {
        let value = handle.await.unwrap();
        assert_eq!(value, i as u64 * 2);
        sum += value;
    }
    assert_eq!(sum, 999 * 1000);
}

#[test]
fn handle_spawn_from_another_thread() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let handle = rt.handle().clone();
    let joins = thread::spawn(move || {
        (0..10)
            .map(|i| handle.spawn(async move { i * i }))
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    let values = rt.block_on(async {
        let mut values = Vec::new();
        for join in joins {
            values.push(join.await.unwrap());
        }
        values
    });
    assert_eq!(values, (0..10).map(|i| i * i).collect::<Vec<_>>());
}

#[test]
fn handle_spawn_from_another_thread_wakes_a_parked_runtime() {
    watchdog("remote spawn wakes the park", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let handle = rt.handle().clone();
        let gate = Gate::new();
        let opener = gate.clone();
        let thread = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            // The runtime is parked with no timer: only this can wake it.
            drop(handle.spawn(async move { opener.open("from the task") }));
        });
        assert_eq!(rt.block_on(gate.wait()), "from the task");
        thread.join().unwrap();
    });
}

#[test]
fn handle_current_and_try_current_inside_and_outside() {
    assert!(Handle::try_current().is_err());
    let err = Handle::try_current().unwrap_err();
    assert!(err.to_string().contains("no lawn_rt runtime"), "{err}");

    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        assert!(Handle::try_current().is_ok());
        let inside_task = lawn_rt::spawn(async {
            let handle = Handle::current();
            handle.spawn(async { 3 }).await.unwrap()
        });
        assert_eq!(inside_task.await.unwrap(), 3);
    });
    assert!(Handle::try_current().is_err(), "block_on left its context");

    {
        let _entered = rt.enter();
        assert!(Handle::try_current().is_ok());
        {
            let other = Builder::new_current_thread().enable_all().build().unwrap();
            let _inner = other.enter();
            assert!(Handle::try_current().is_ok());
        }
        assert!(Handle::try_current().is_ok(), "the outer enter is back");
    }
    assert!(Handle::try_current().is_err());
}

#[test]
fn enter_then_spawn_runs_at_the_next_block_on() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let join = {
        let _entered = rt.enter();
        let ran = ran.clone();
        lawn_rt::spawn(async move {
            ran.store(true, SeqCst);
            3
        })
    };
    // Nothing drives the runtime yet.
    thread::sleep(Duration::from_millis(5));
    assert!(!ran.load(SeqCst));
    assert!(!join.is_finished());
    assert_eq!(rt.block_on(join).unwrap(), 3);
    assert!(ran.load(SeqCst));
}

#[lawn_rt::test]
async fn join_handle_is_finished() {
    let gate = Gate::new();
    let waiting = gate.clone();
    let join = lawn_rt::spawn(async move { waiting.wait().await });
    yield_now().await;
    assert!(!join.is_finished());
    gate.open(11);
    yield_now().await;
    assert!(join.is_finished());
    assert_eq!(join.await.unwrap(), 11);
}

#[lawn_rt::test]
async fn dropping_a_join_handle_detaches_the_task() {
    let outputs = DropCount::new();
    let ran = Arc::new(AtomicBool::new(false));
    let output = outputs.track();
    let flag = ran.clone();
    let gate = Gate::<()>::new();
    let waiting = gate.clone();
    drop(lawn_rt::spawn(async move {
        waiting.wait().await;
        flag.store(true, SeqCst);
        output
    }));
    yield_now().await;
    assert!(!ran.load(SeqCst));
    assert_eq!(outputs.get(), 0, "the task's future holds its output");
    gate.open(());
    yield_now().await;
    assert!(ran.load(SeqCst), "a detached task still runs");
    assert_eq!(
        outputs.get(),
        1,
        "its output is dropped, nobody can take it"
    );
}

#[lawn_rt::test]
async fn dropping_a_join_handle_after_completion_drops_the_output() {
    let outputs = DropCount::new();
    let output = outputs.track();
    let join = lawn_rt::spawn(async move { output });
    yield_now().await;
    assert!(join.is_finished());
    assert_eq!(outputs.get(), 0, "the output waits for its handle");
    drop(join);
    assert_eq!(outputs.get(), 1);
}

// ------------------------------------------------------------------- abort

#[lawn_rt::test]
async fn abort_a_pending_task_drops_its_future_promptly() {
    let drops = DropCount::new();
    let tracked = drops.track();
    let join = lawn_rt::spawn(async move {
        let _tracked = tracked;
        std::future::pending::<()>().await;
    });
    yield_now().await; // let it start
    assert_eq!(drops.get(), 0);
    join.abort();
    yield_now().await;
    assert_eq!(drops.get(), 1, "the future is dropped at the next turn");
    assert!(join.is_finished());
    let err = join.await.unwrap_err();
    assert!(err.is_cancelled() && !err.is_panic(), "{err:?}");
}

#[lawn_rt::test]
async fn abort_a_task_that_never_ran() {
    let drops = DropCount::new();
    let tracked = drops.track();
    let join = lawn_rt::spawn(async move {
        drop(tracked);
        unreachable!("an aborted task is never polled")
    });
    join.abort();
    let err = join.await.unwrap_err();
    assert!(err.is_cancelled());
    assert_eq!(drops.get(), 1);
}

/// Aborting a task parked on a long timer of the real clock cancels it at
/// once and drops its future, whether the abort comes from inside the
/// runtime or from a thread outside it.
fn abort_a_sleeping_task_on_the_real_clock(flavor: Flavor) {
    watchdog("abort a sleeper", flavor.hang(), move || {
        let rt = flavor.rt();
        rt.block_on(async {
            let drops = DropCount::new();
            let tracked = drops.track();
            let join = lawn_rt::spawn(async move {
                let _tracked = tracked;
                sleep(Duration::from_secs(3600)).await;
            });
            yield_now().await;
            let start = StdInstant::now();
            join.abort();
            assert!(join.await.unwrap_err().is_cancelled());
            assert_eq!(drops.get(), 1);
            assert!(start.elapsed() < Duration::from_secs(5));
        });
        // Spawned from outside, aborted from this thread (outside the
        // runtime) once it sleeps.
        let drops = DropCount::new();
        let tracked = drops.track();
        let sleeper = rt.spawn(async move {
            let _tracked = tracked;
            sleep(Duration::from_secs(3600)).await;
        });
        rt.block_on(sleep(Duration::from_millis(2)));
        sleeper.abort();
        assert!(rt.block_on(sleeper).unwrap_err().is_cancelled());
        assert_eq!(drops.get(), 1);
    });
}

/// An abort after the task completed has no effect: its output is kept.
/// An abort from another task cancels a pending one.
fn abort_after_completion_keeps_the_output(flavor: Flavor) {
    flavor.rt().block_on(async {
        let join = lawn_rt::spawn(async { "kept" });
        yield_now().await;
        if flavor == Flavor::MultiThread {
            // It ran on a worker: wait for it.
            while !join.is_finished() {
                yield_now().await;
            }
        }
        assert!(join.is_finished());
        join.abort();
        join.abort_handle().abort();
        assert_eq!(join.await.unwrap(), "kept");

        // From another task.
        let victim = lawn_rt::spawn(pending::<()>());
        let abort = victim.abort_handle();
        lawn_rt::spawn(async move { abort.abort() }).await.unwrap();
        assert!(victim.await.unwrap_err().is_cancelled());
        let done = lawn_rt::spawn(async { 8 });
        while !done.is_finished() {
            yield_now().await;
        }
        done.abort();
        assert_eq!(done.await.unwrap(), 8);
    });
}

#[lawn_rt::test]
async fn abort_handle_aborts_and_reports_finished() {
    let drops = DropCount::new();
    let tracked = drops.track();
    let join = lawn_rt::spawn(async move {
        let _tracked = tracked;
        std::future::pending::<()>().await;
    });
    let abort = join.abort_handle();
    let clone = abort.clone();
    assert!(!abort.is_finished());
    clone.abort();
    let err = join.await.unwrap_err();
    assert!(err.is_cancelled());
    assert!(abort.is_finished() && clone.is_finished());
    assert_eq!(drops.get(), 1);
    // Aborting again is harmless.
    abort.abort();
}

#[lawn_rt::test]
async fn abort_handle_outlives_a_dropped_join_handle() {
    let drops = DropCount::new();
    let tracked = drops.track();
    let join = lawn_rt::spawn(async move {
        let _tracked = tracked;
        std::future::pending::<()>().await;
    });
    let abort = join.abort_handle();
    drop(join);
    yield_now().await;
    assert_eq!(drops.get(), 0, "detached, still running");
    abort.abort();
    yield_now().await;
    assert_eq!(drops.get(), 1);
    assert!(abort.is_finished());
}

#[lawn_rt::test]
async fn a_task_aborting_itself_stops_at_its_next_yield() {
    let me = Gate::new();
    let my_handle = me.clone();
    let drops = DropCount::new();
    let tracked = drops.track();
    let past_yield = Arc::new(AtomicBool::new(false));
    let flag = past_yield.clone();
    let join = lawn_rt::spawn(async move {
        let _tracked = tracked;
        let abort: task::AbortHandle = my_handle.wait().await;
        abort.abort();
        yield_now().await;
        flag.store(true, SeqCst);
    });
    me.open(join.abort_handle());
    let err = join.await.unwrap_err();
    assert!(err.is_cancelled(), "{err:?}");
    assert!(
        !past_yield.load(SeqCst),
        "polled again after aborting itself"
    );
    assert_eq!(drops.get(), 1);
}

/// Aborts from another thread racing with polls: every task ends
/// cancelled or with its output, and its future is dropped exactly once;
/// tasks that never stop yielding, aborted from another thread, are
/// cancelled and their futures dropped.
fn remote_aborts_racing_with_polls(flavor: Flavor) {
    watchdog("remote abort stress", flavor.hang(), move || {
        let rt = flavor.rt();
        let drops = DropCount::new();
        let joins: Vec<_> = (0..200)
            .map(|i| {
                let tracked = drops.track();
                rt.spawn(async move {
                    let _tracked = tracked;
                    for _ in 0..(i % 20) {
                        naive_yield().await;
                    }
                    i
                })
            })
            .collect();
        let aborts: Vec<_> = joins.iter().map(|join| join.abort_handle()).collect();
        let aborter = thread::spawn(move || {
            for (i, abort) in aborts.iter().enumerate() {
                if i % 2 == 0 {
                    abort.abort();
                }
                if i % 16 == 0 {
                    thread::yield_now();
                }
            }
        });
        let (mut cancelled, mut finished) = (0, 0);
        rt.block_on(async {
            for (i, join) in joins.into_iter().enumerate() {
                match join.await {
                    Ok(value) => {
                        assert_eq!(value, i);
                        finished += 1;
                    }
                    Err(err) => {
                        assert!(err.is_cancelled(), "{err:?}");
                        assert_eq!(i % 2, 0, "task {i} was not aborted");
                        cancelled += 1;
                    }
                }
            }
        });
        aborter.join().unwrap();
        assert_eq!(cancelled + finished, 200);
        assert_eq!(drops.get(), 200);

        // Busy tasks (always yielding), aborted from another thread (while
        // the workers poll them, on a multi-thread runtime).
        let drops = DropCount::new();
        for _ in 0..100 {
            let tracked = drops.track();
            let spinner = rt.spawn(async move {
                let _tracked = tracked;
                loop {
                    yield_now().await;
                }
            });
            let abort = spinner.abort_handle();
            thread::spawn(move || abort.abort()).join().unwrap();
            let err = rt.block_on(spinner).unwrap_err();
            assert!(err.is_cancelled(), "{err:?}");
        }
        assert_eq!(drops.get(), 100);
    });
}

// ------------------------------------------------------------------ panics

/// A panicking task gives a `JoinError` carrying its panic (tasks spawned
/// from outside and from a task, before and after a timer), and the
/// runtime goes on: its other tasks, timers and intervals, new tasks
/// after the panic, and on a multi-thread runtime both workers.
fn a_panicking_task_gives_a_join_error_and_the_runtime_goes_on(flavor: Flavor) {
    watchdog("panicking tasks", flavor.hang(), move || {
        let rt = flavor.rt();
        rt.block_on(async {
            let ticker = lawn_rt::spawn(async {
                let mut every = interval(Duration::from_millis(1));
                for _ in 0..5 {
                    every.tick().await;
                }
                "ticked"
            });
            let boom = lawn_rt::spawn(async {
                sleep(Duration::from_millis(2)).await;
                panic!("boom");
            });
            let neighbour = lawn_rt::spawn(async {
                sleep(Duration::from_millis(3)).await;
                1
            });
            let err = boom.await.unwrap_err();
            assert!(err.is_panic() && !err.is_cancelled(), "{err:?}");
            assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");
            assert_eq!(neighbour.await.unwrap(), 1);
            assert_eq!(ticker.await.unwrap(), "ticked");
            // New tasks and timers after the panic.
            let after = lawn_rt::spawn(async {
                sleep(Duration::from_millis(1)).await;
                2
            });
            assert_eq!(after.await.unwrap(), 2);
        });

        let outside: Vec<_> = (0..10)
            .map(|i| rt.spawn(async move { panic!("boom {i}") }))
            .collect();
        let errors = rt.block_on(async move {
            let inside: Vec<_> = (10..20)
                .map(|i| {
                    lawn_rt::spawn(async move {
                        sleep(Duration::from_millis(1)).await;
                        panic!("boom {i}")
                    })
                })
                .collect();
            let mut errors = Vec::new();
            for join in outside.into_iter().chain(inside) {
                errors.push(join.await.unwrap_err());
            }
            errors
        });
        for (i, err) in errors.into_iter().enumerate() {
            assert!(err.is_panic(), "{err:?}");
            assert_eq!(
                common::panic_message(&*err.into_panic()),
                format!("boom {i}")
            );
        }
        if flavor == Flavor::MultiThread {
            // Both workers still run tasks: two that meet run on both.
            let meet = Rendezvous::new(2);
            let joins: Vec<_> = (0..2)
                .map(|_| {
                    let meet = meet.clone();
                    rt.spawn(async move { meet.meet(MEET) })
                })
                .collect();
            for join in joins {
                assert!(rt.block_on(join).unwrap(), "a worker is gone");
            }
        }
    });
}

/// A future that panics in `poll` is dropped during the unwind, as tokio
/// drops it (tokio's `rt_common::panic_in_task`): `thread::panicking()`
/// is true in its `Drop`, which still sees the task's id, and the handle
/// gets the panic.
fn a_future_that_panics_in_poll_is_dropped_during_the_unwind(flavor: Flavor) {
    struct Boom(Option<std::sync::mpsc::Sender<(bool, Option<task::Id>)>>);
    impl std::future::Future for Boom {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
            panic!("boom in poll");
        }
    }
    impl Drop for Boom {
        fn drop(&mut self) {
            let seen = (thread::panicking(), task::try_id());
            self.0.take().unwrap().send(seen).unwrap();
        }
    }
    watchdog("a panic in poll", flavor.hang(), move || {
        let rt = flavor.rt();
        let (tx, rx) = std::sync::mpsc::channel();
        let join = rt.spawn(Boom(Some(tx)));
        let id = join.id();
        let err = rt.block_on(join).unwrap_err();
        assert!(err.is_panic(), "{err:?}");
        assert_eq!(common::panic_message(&*err.into_panic()), "boom in poll");
        assert_eq!(
            rx.try_recv().unwrap(),
            (true, Some(id)),
            "(panicking, task id) in the future's Drop"
        );
    });
}

/// A detached task whose output panics when dropped: the panic stays in
/// the task (nobody can observe it: its handle is gone) and does not
/// unwind out of the `block_on` that ran it.
#[test]
fn a_detached_tasks_output_that_panics_on_drop_does_not_escape_block_on() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            drop(lawn_rt::spawn(async { PanicOnDrop }));
            lawn_rt::task::yield_now().await;
            lawn_rt::task::yield_now().await;
            "block_on finished"
        })
    }));
    assert_eq!(
        result.ok(),
        Some("block_on finished"),
        "a detached task's output drop panicked out of block_on"
    );
}

/// A completed task whose output panics when dropped: dropping its
/// handle (which drops the output) does not panic, as in tokio.
#[test]
fn dropping_the_handle_of_an_output_that_panics_on_drop_does_not_panic() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            let handle = lawn_rt::spawn(async { PanicOnDrop });
            while !handle.is_finished() {
                lawn_rt::task::yield_now().await;
            }
            drop(handle);
            "block_on finished"
        })
    }));
    assert_eq!(
        result.ok(),
        Some("block_on finished"),
        "dropping a join handle panicked with its output's drop"
    );
}

/// A join handle polled with a waker that panics: when the task completes
/// (on the thread in `block_on`), the waker's panic does not unwind out of
/// `block_on` (tokio's `Harness::complete` catches it too).
#[test]
fn a_panicking_join_waker_does_not_escape_block_on() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            let mut handle = lawn_rt::spawn(async {
                lawn_rt::task::yield_now().await;
                1
            });
            assert!(poll_with(Pin::new(&mut handle), &panicking_waker()).is_pending());
            for _ in 0..4 {
                lawn_rt::task::yield_now().await;
            }
            "block_on finished"
        })
    }));
    assert_eq!(
        result.ok(),
        Some("block_on finished"),
        "a join waker's panic escaped block_on"
    );
}

#[lawn_rt::test]
async fn join_error_display_debug_and_io_error() {
    let value = 17;
    let panicked = lawn_rt::spawn(async move {
        panic!("formatted {value}");
    })
    .await
    .unwrap_err();
    let display = panicked.to_string();
    let debug = format!("{panicked:?}");
    assert!(
        display.contains("panicked") && display.contains("formatted 17"),
        "{display}"
    );
    assert!(
        debug.contains("Panic") && debug.contains("formatted 17"),
        "{debug}"
    );
    // A `String` payload.
    let payload = panicked.into_panic();
    assert_eq!(
        payload.downcast_ref::<String>().map(String::as_str),
        Some("formatted 17")
    );

    let join = lawn_rt::spawn(std::future::pending::<()>());
    join.abort();
    let cancelled = join.await.unwrap_err();
    let display = cancelled.to_string();
    let debug = format!("{cancelled:?}");
    assert!(display.contains("cancelled"), "{display}");
    assert!(debug.contains("Cancelled"), "{debug}");
    let cancelled = cancelled.try_into_panic().unwrap_err();
    assert!(cancelled.is_cancelled());

    let io: std::io::Error = cancelled.into();
    assert_eq!(io.kind(), std::io::ErrorKind::Other);
    assert!(io.to_string().contains("cancelled"), "{io}");

    let panicked = lawn_rt::spawn(async { panic!("io") }).await.unwrap_err();
    let io = std::io::Error::from(panicked);
    assert_eq!(io.kind(), std::io::ErrorKind::Other);
    assert!(io.to_string().contains("panicked"), "{io}");

    fn is_error<E: std::error::Error + Send + Sync + 'static>(_: &E) {}
    let err: JoinError = lawn_rt::spawn(async { panic!("sync") }).await.unwrap_err();
    is_error(&err);
}
