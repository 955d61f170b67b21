//! `task::JoinSet`: tasks joined in the order they finish, `len` and
//! `is_empty`, `try_join_next`, `abort_all` and the returned `AbortHandle`s,
//! aborting on drop, `detach_all`, `shutdown`, panics, `join_all`,
//! `spawn_blocking`, `spawn_on` from outside, a set joined after its
//! runtime shut down, and 100k tasks (joined in time bounded by their
//! count: a set that looked through its tasks on every join would not
//! finish within the watchdog).
//!
//! The bodies run on both flavors (`current_thread::*` and
//! `multi_thread::*`, see `common::both_flavors!`), each under a watchdog.

mod common;

use std::future::{pending, poll_fn};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::task::Poll;

use common::{assert_send_sync, catch_panic_site, on, until, watchdog, DropCount, Flavor, Gate};
use lawn_rt::task::{self, JoinError, JoinSet};
use lawn_rt::time::{sleep, Duration};

both_flavors!(
    tasks_join_in_completion_order,
    len_and_is_empty_follow_the_tasks,
    try_join_next_takes_only_finished_tasks,
    abort_all_gives_cancelled_errors,
    spawn_returns_an_abort_handle_for_that_task,
    dropping_the_set_aborts_its_tasks,
    detach_all_lets_the_tasks_run_on,
    shutdown_aborts_and_waits_for_every_task,
    panics_give_panic_errors,
    join_all_gives_every_output,
    join_all_resumes_a_task_panic,
    join_all_panics_on_a_cancelled_task,
    spawn_blocking_joins_with_the_others,
    a_hundred_thousand_tasks_join,
    joins_among_a_hundred_thousand_idle_tasks,
    joined_after_the_runtime_shut_down,
    spawned_after_the_runtime_shut_down,
    spawn_on_from_outside_the_runtime,
    from_iterator_and_extend_spawn_every_future,
    poll_join_next_wakes_the_last_waker,
);

/// Tasks that finish in an order unrelated to their spawning come out of
/// `join_next` in the order they finished.
fn tasks_join_in_completion_order(flavor: Flavor) {
    on(flavor, "completion order", || async {
        let gates: Vec<Gate<()>> = (0..5).map(|_| Gate::new()).collect();
        let mut set = JoinSet::new();
        for (i, gate) in gates.iter().enumerate() {
            let wait = gate.wait();
            set.spawn(async move {
                wait.await;
                i
            });
        }
        for i in [3, 0, 4, 1, 2] {
            gates[i].open(());
            assert_eq!(set.join_next().await.unwrap().unwrap(), i);
        }
        assert!(set.join_next().await.is_none());
    });
}

fn len_and_is_empty_follow_the_tasks(flavor: Flavor) {
    on(flavor, "len and is_empty", || async {
        let mut set = JoinSet::new();
        assert_eq!(set.len(), 0);
        assert!(set.is_empty());
        let gate = Gate::new();
        for i in 0..10u32 {
            let wait = gate.clone();
            set.spawn(async move {
                if i == 0 {
                    wait.wait().await;
                }
                i
            });
        }
        assert_eq!(set.len(), 10);
        assert!(!set.is_empty());
        // Finished but not joined: still in the set.
        sleep(Duration::from_millis(5)).await;
        assert_eq!(set.len(), 10);
        for left in (1..10).rev() {
            set.join_next().await.unwrap().unwrap();
            assert_eq!(set.len(), left);
        }
        gate.open(());
        assert_eq!(set.join_next().await.unwrap().unwrap(), 0);
        assert!(set.is_empty());
        assert_eq!(format!("{set:?}"), "JoinSet { len: 0 }");
    });
}

fn try_join_next_takes_only_finished_tasks(flavor: Flavor) {
    on(flavor, "try_join_next", || async {
        let mut set: JoinSet<u32> = JoinSet::new();
        assert!(set.try_join_next().is_none(), "empty set");
        let gate = Gate::new();
        let wait = gate.wait();
        set.spawn(async move {
            wait.await;
            1
        });
        sleep(Duration::from_millis(5)).await;
        assert!(set.try_join_next().is_none(), "nothing has finished");
        assert_eq!(set.len(), 1);
        gate.open(());
        let mut got = None;
        until(|| {
            got = set.try_join_next();
            got.is_some()
        })
        .await;
        assert_eq!(got.unwrap().unwrap(), 1);
        assert!(set.is_empty());
        assert!(set.try_join_next().is_none());
    });
}

fn abort_all_gives_cancelled_errors(flavor: Flavor) {
    on(flavor, "abort_all", || async {
        let mut set = JoinSet::new();
        for _ in 0..50 {
            set.spawn(pending::<()>());
        }
        // Finished before the abort: keeps its output.
        let done = Arc::new(AtomicUsize::new(0));
        let flag = done.clone();
        set.spawn(async move {
            flag.store(1, SeqCst);
        });
        until(|| done.load(SeqCst) == 1).await;
        set.abort_all();
        assert_eq!(set.len(), 51, "aborted tasks stay in the set");
        let (mut cancelled, mut ok) = (0, 0);
        while let Some(result) = set.join_next().await {
            match result {
                Ok(()) => ok += 1,
                Err(err) => {
                    assert!(err.is_cancelled(), "{err}");
                    cancelled += 1;
                }
            }
        }
        assert_eq!((cancelled, ok), (50, 1));
    });
}

fn spawn_returns_an_abort_handle_for_that_task(flavor: Flavor) {
    on(flavor, "abort handle", || async {
        let mut set = JoinSet::new();
        let gate = Gate::new();
        let wait = gate.wait();
        set.spawn(async move {
            wait.await;
            "kept"
        });
        let doomed = set.spawn(async {
            pending::<()>().await;
            "aborted"
        });
        doomed.abort();
        let err = set.join_next().await.unwrap().unwrap_err();
        assert!(err.is_cancelled());
        assert!(doomed.is_finished());
        gate.open(());
        assert_eq!(set.join_next().await.unwrap().unwrap(), "kept");
    });
}

fn dropping_the_set_aborts_its_tasks(flavor: Flavor) {
    on(flavor, "drop aborts", || async {
        let dropped = DropCount::new();
        let started = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        for _ in 0..20 {
            let guard = dropped.track();
            let started = started.clone();
            set.spawn(async move {
                let _guard = guard;
                started.fetch_add(1, SeqCst);
                pending::<()>().await;
            });
        }
        until(|| started.load(SeqCst) == 20).await;
        assert_eq!(dropped.get(), 0);
        drop(set);
        until(|| dropped.get() == 20).await;
    });
}

fn detach_all_lets_the_tasks_run_on(flavor: Flavor) {
    on(flavor, "detach_all", || async {
        let (tx, rx) = mpsc::channel();
        let gates: Vec<Gate<()>> = (0..5).map(|_| Gate::new()).collect();
        let mut set = JoinSet::new();
        for (i, gate) in gates.iter().enumerate() {
            let tx = tx.clone();
            let wait = gate.wait();
            set.spawn(async move {
                wait.await;
                tx.send(i).unwrap();
            });
        }
        set.detach_all();
        assert!(set.is_empty());
        assert!(set.join_next().await.is_none());
        drop(set); // aborts nothing: the set is empty
        for gate in &gates {
            gate.open(());
        }
        let mut got = Vec::new();
        until(|| {
            got.extend(rx.try_iter());
            got.len() == 5
        })
        .await;
        got.sort();
        assert_eq!(got, [0, 1, 2, 3, 4]);
    });
}

fn shutdown_aborts_and_waits_for_every_task(flavor: Flavor) {
    on(flavor, "shutdown", || async {
        let dropped = DropCount::new();
        let mut set = JoinSet::new();
        for _ in 0..30 {
            let guard = dropped.track();
            set.spawn(async move {
                let _guard = guard;
                pending::<()>().await;
            });
        }
        set.spawn(async { panic!("ignored by shutdown") });
        set.shutdown().await;
        assert!(set.is_empty());
        assert_eq!(
            dropped.get(),
            30,
            "every future dropped once shutdown returns"
        );
        // The set is usable again.
        set.spawn(async {});
        set.join_next().await.unwrap().unwrap();
    });
}

fn panics_give_panic_errors(flavor: Flavor) {
    on(flavor, "panics", || async {
        let mut set = JoinSet::new();
        set.spawn(async { panic!("task boom") });
        set.spawn(async { 2 });
        let mut panicked = None;
        let mut values = Vec::new();
        while let Some(result) = set.join_next().await {
            match result {
                Ok(value) => values.push(value),
                Err(err) => panicked = Some(err),
            }
        }
        let err: JoinError = panicked.expect("the panicking task's error");
        assert!(err.is_panic());
        assert!(!err.is_cancelled());
        assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "task boom");
        assert_eq!(values, [2]);
    });
}

fn join_all_gives_every_output(flavor: Flavor) {
    on(flavor, "join_all", || async {
        let mut set = JoinSet::new();
        for i in 0..100u64 {
            set.spawn(async move {
                task::yield_now().await;
                i
            });
        }
        let mut all = set.join_all().await;
        all.sort();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
    });
}

fn join_all_resumes_a_task_panic(flavor: Flavor) {
    on(flavor, "join_all panic", || async {
        let dropped = DropCount::new();
        let guard = dropped.track();
        // In a task of its own, so its panic becomes a `JoinError`.
        let joined = task::spawn(async move {
            let mut set = JoinSet::new();
            set.spawn(async move {
                let _guard = guard;
                pending::<()>().await;
            });
            set.spawn(async { panic!("one task failed") });
            set.join_all().await
        })
        .await;
        let err = joined.unwrap_err();
        assert!(err.is_panic());
        assert_eq!(
            *err.into_panic().downcast::<&str>().unwrap(),
            "one task failed",
            "the task's own panic, resumed"
        );
        // The other task was aborted with the set.
        until(|| dropped.get() == 1).await;
    });
}

fn join_all_panics_on_a_cancelled_task(flavor: Flavor) {
    on(flavor, "join_all cancelled", || async {
        let joined = task::spawn(async {
            let mut set = JoinSet::new();
            set.spawn(pending::<()>()).abort();
            set.join_all().await
        })
        .await;
        let payload = joined.unwrap_err().into_panic();
        let message = common::panic_message(&*payload);
        assert!(message.contains("was cancelled"), "{message}");
    });
}

fn spawn_blocking_joins_with_the_others(flavor: Flavor) {
    on(flavor, "spawn_blocking", || async {
        let mut set = JoinSet::new();
        let (tx, rx) = mpsc::channel::<()>();
        set.spawn_blocking(move || {
            rx.recv().unwrap();
            "blocking"
        });
        set.spawn(async { "async" });
        assert_eq!(set.join_next().await.unwrap().unwrap(), "async");
        tx.send(()).unwrap();
        assert_eq!(set.join_next().await.unwrap().unwrap(), "blocking");
        let handle = lawn_rt::runtime::Handle::current();
        set.spawn_blocking_on(|| "on", &handle);
        assert_eq!(set.join_next().await.unwrap().unwrap(), "on");
        set.spawn_blocking(|| panic!("blocking boom"));
        assert!(set.join_next().await.unwrap().unwrap_err().is_panic());
    });
}

/// 100k tasks, joined as they finish: bounded by the watchdog, which a
/// set that scanned its tasks on each join (10^10 steps) would not meet.
fn a_hundred_thousand_tasks_join(flavor: Flavor) {
    const N: u64 = 100_000;
    on(flavor, "100k tasks", || async {
        let mut set = JoinSet::new();
        for i in 0..N {
            set.spawn(async move { i });
        }
        assert_eq!(set.len(), N as usize);
        let (mut count, mut sum) = (0u64, 0u64);
        while let Some(result) = set.join_next().await {
            count += 1;
            sum += result.unwrap();
        }
        assert_eq!(count, N);
        assert_eq!(sum, N * (N - 1) / 2);
    });
}

/// Joins among 100k tasks that never finish: each join must cost the
/// same as in a small set. 100k joins that each looked at the idle tasks
/// would take 10^10 steps, far beyond the watchdog.
fn joins_among_a_hundred_thousand_idle_tasks(flavor: Flavor) {
    const IDLE: usize = 100_000;
    const JOINS: usize = 100_000;
    on(flavor, "joins among idle tasks", || async {
        let mut set = JoinSet::new();
        for _ in 0..IDLE {
            set.spawn(async {
                pending::<()>().await;
                usize::MAX
            });
        }
        for i in 0..JOINS {
            set.spawn(async move { i });
            assert_eq!(set.join_next().await.unwrap().unwrap(), i);
        }
        assert_eq!(set.len(), IDLE);
        set.abort_all();
        let mut cancelled = 0;
        while let Some(result) = set.join_next().await {
            assert!(result.unwrap_err().is_cancelled());
            cancelled += 1;
        }
        assert_eq!(cancelled, IDLE);
    });
}

/// A set whose runtime has shut down: its tasks were cancelled, and
/// joining (here on another executor) gives their errors, never hangs;
/// tasks that had finished keep their output.
fn joined_after_the_runtime_shut_down(flavor: Flavor) {
    watchdog("joined after shutdown", flavor.hang(), move || {
        let rt = flavor.rt();
        let mut set = JoinSet::new();
        let dropped = DropCount::new();
        for _ in 0..10 {
            let guard = dropped.track();
            set.spawn_on(
                async move {
                    let _guard = guard;
                    pending::<u32>().await
                },
                rt.handle(),
            );
        }
        let done = Arc::new(AtomicUsize::new(0));
        let flag = done.clone();
        set.spawn_on(
            async move {
                flag.store(1, SeqCst);
                7
            },
            rt.handle(),
        );
        // Until that task has returned (it completes in the same poll).
        rt.block_on(until(|| done.load(SeqCst) == 1));
        drop(rt);
        assert_eq!(dropped.get(), 10, "shutdown dropped every future");
        assert_eq!(set.len(), 11);
        let (mut cancelled, mut ok) = (0, 0);
        futures::executor::block_on(async {
            while let Some(result) = set.join_next().await {
                match result {
                    Ok(value) => {
                        assert_eq!(value, 7);
                        ok += 1;
                    }
                    Err(err) => {
                        assert!(err.is_cancelled(), "{err}");
                        cancelled += 1;
                    }
                }
            }
        });
        assert_eq!((cancelled, ok), (10, 1));
    });
}

/// A task spawned on a runtime that has shut down is cancelled at once:
/// the set has its error ready.
fn spawned_after_the_runtime_shut_down(flavor: Flavor) {
    watchdog("spawned after shutdown", flavor.hang(), move || {
        let rt = flavor.rt();
        let handle = rt.handle().clone();
        drop(rt);
        let mut set = JoinSet::new();
        set.spawn_on(async { 1 }, &handle);
        set.spawn_blocking_on(|| 2, &handle);
        assert_eq!(set.len(), 2);
        for _ in 0..2 {
            let err = set.try_join_next().expect("ready at once").unwrap_err();
            assert!(err.is_cancelled());
        }
        assert!(set.is_empty());
        assert!(futures::executor::block_on(set.join_next()).is_none());
    });
}

fn spawn_on_from_outside_the_runtime(flavor: Flavor) {
    watchdog("spawn_on", flavor.hang(), move || {
        let rt = flavor.rt();
        let mut set = JoinSet::new();
        for i in 0..10u32 {
            set.spawn_on(async move { i }, rt.handle());
        }
        // Joined from a plain thread: the set's waker is that thread's.
        let joined = std::thread::spawn(move || {
            futures::executor::block_on(async {
                let mut sum = 0;
                while let Some(result) = set.join_next().await {
                    sum += result.unwrap();
                }
                sum
            })
        });
        let sum = rt.block_on(async {
            // Keeps a current-thread runtime driven meanwhile.
            loop {
                if joined.is_finished() {
                    break joined.join().unwrap();
                }
                sleep(Duration::from_millis(1)).await;
            }
        });
        assert_eq!(sum, 45);
    });
}

fn from_iterator_and_extend_spawn_every_future(flavor: Flavor) {
    on(flavor, "collect and extend", || async {
        let mut set: JoinSet<u32> = (0..10).map(|i| async move { i }).collect();
        set.extend((10..20).map(|i| async move { i }));
        assert_eq!(set.len(), 20);
        let mut all = set.join_all().await;
        all.sort();
        assert_eq!(all, (0..20).collect::<Vec<_>>());
    });
}

/// `poll_join_next` says `Ready(None)` on an empty set, `Pending` while
/// nothing has finished, and wakes the waker of its latest call once a
/// task finishes.
fn poll_join_next_wakes_the_last_waker(flavor: Flavor) {
    on(flavor, "poll_join_next", || async {
        let mut set = JoinSet::new();
        let first = poll_fn(|cx| Poll::Ready(set.poll_join_next(cx))).await;
        assert!(matches!(first, Poll::Ready(None)));
        let gate = Gate::new();
        let wait = gate.wait();
        set.spawn(async move {
            wait.await;
            5
        });
        let (counter, waker) = common::counting_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        assert!(set.poll_join_next(&mut cx).is_pending());
        assert!(set.poll_join_next(&mut cx).is_pending());
        gate.open(());
        until(|| counter.wakes() > 0).await;
        assert_eq!(counter.wakes(), 1, "woken once");
        match set.poll_join_next(&mut cx) {
            Poll::Ready(Some(Ok(5))) => {}
            other => panic!("expected the task's output, got {other:?}"),
        }
    });
}

// ------------------------------------------------------ one flavor suffices

#[test]
fn spawn_outside_a_runtime_panics_at_the_callers_line() {
    let mut set = JoinSet::new();
    let line = line!() + 2;
    let site = catch_panic_site("spawn outside a runtime", || {
        set.spawn(async {});
    });
    assert!(site.message.contains("lawn_rt"), "{}", site.message);
    assert!(site.file.ends_with("task_join_set.rs"), "{}", site.file);
    assert_eq!(site.line, line);
    assert!(set.is_empty());
}

#[test]
fn the_set_is_send_and_sync_for_send_and_sync_outputs() {
    assert_send_sync::<JoinSet<u32>>();
    fn join_next_is_send<T: Send + 'static>(set: &mut JoinSet<T>) -> impl Send + '_ {
        set.join_next()
    }
    let mut set = JoinSet::<u8>::default();
    drop(join_next_is_send(&mut set));
}
