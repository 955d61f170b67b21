//! The current-thread runtime through its public API: `block_on`, spawning
//! and joining, abort, panics, yielding and fairness, timers inside tasks,
//! the coop budget, and `spawn_blocking`.
//!
//! Timing is exact under the paused clock; the few real-clock tests (their
//! point is the real clock: starvation, blocking threads) use generous
//! bounds, and anything that could hang runs under a watchdog.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant as StdInstant;

use common::{naive_yield, watchdog, DropCount, Gate, Rng};
use lawn_rt::runtime::{Builder, Handle, Runtime};
use lawn_rt::task::{self, yield_now, JoinError};
use lawn_rt::time::{self, interval, sleep, timeout, Duration, Instant};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------- block_on

#[test]
fn block_on_returns_the_value() {
    let rt = Runtime::new().unwrap();
    assert_eq!(rt.block_on(async { 40 + 2 }), 42);
    assert_eq!(rt.block_on(async { "again" }), "again");
    // No drivers at all.
    let bare = Builder::new_current_thread().build().unwrap();
    assert_eq!(bare.block_on(async { vec![1, 2, 3] }), vec![1, 2, 3]);
}

#[test]
fn block_on_is_woken_from_another_thread() {
    watchdog("block_on woken from a thread", HANG, || {
        let rt = Runtime::new().unwrap();
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
    let rt = Runtime::new().unwrap();
    let err = rt.block_on(async {
        lawn_rt::spawn(async {
            let inner = Runtime::new().unwrap();
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
    let rt = Runtime::new().unwrap();
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
        let rt = Arc::new(Runtime::new().unwrap());
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
        let rt = Arc::new(Runtime::new().unwrap());
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
    let rt = Runtime::new().unwrap();
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
        let rt = Runtime::new().unwrap();
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

    let rt = Runtime::new().unwrap();
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
            let other = Runtime::new().unwrap();
            let _inner = other.enter();
            assert!(Handle::try_current().is_ok());
        }
        assert!(Handle::try_current().is_ok(), "the outer enter is back");
    }
    assert!(Handle::try_current().is_err());
}

#[test]
fn enter_then_spawn_runs_at_the_next_block_on() {
    let rt = Runtime::new().unwrap();
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

#[test]
fn abort_a_sleeping_task_on_the_real_clock() {
    watchdog("abort a sleeper", HANG, || {
        let rt = Runtime::new().unwrap();
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
    });
}

#[lawn_rt::test]
async fn abort_after_completion_keeps_the_output() {
    let join = lawn_rt::spawn(async { "kept" });
    yield_now().await;
    assert!(join.is_finished());
    join.abort();
    join.abort_handle().abort();
    assert_eq!(join.await.unwrap(), "kept");
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

// ------------------------------------------------------------------ panics

#[lawn_rt::test]
async fn a_panicking_task_gives_a_join_error_and_the_runtime_goes_on() {
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

// ------------------------------------------------------- yield and fairness

#[lawn_rt::test]
async fn yielding_tasks_interleave() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let joins: Vec<_> = (0..3)
        .map(|id| {
            let log = log.clone();
            lawn_rt::spawn(async move {
                for _ in 0..50 {
                    log.lock().unwrap().push(id);
                    yield_now().await;
                }
            })
        })
        .collect();
    for join in joins {
        join.await.unwrap();
    }
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 150);
    let longest_run = log.chunk_by(|a, b| a == b).map(<[i32]>::len).max().unwrap();
    assert_eq!(
        longest_run, 1,
        "yield_now did not let the others run: {log:?}"
    );
}

#[lawn_rt::test]
async fn yield_now_lets_a_spawned_task_run_first() {
    // From the block_on future...
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let _join = lawn_rt::spawn(async move { flag.store(true, SeqCst) });
    yield_now().await;
    assert!(ran.load(SeqCst));

    // ...and from a task.
    let inner = lawn_rt::spawn(async {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let _join = lawn_rt::spawn(async move { flag.store(true, SeqCst) });
        yield_now().await;
        ran.load(SeqCst)
    });
    assert!(inner.await.unwrap());
}

/// `futures_lite`/smol/async-std style yields (wake, then `Pending`) in the
/// `block_on` future must not keep spawned tasks from running: tokio runs
/// up to its event interval of tasks between two polls of that future,
/// woken or not.
#[test]
fn a_block_on_future_that_wakes_itself_does_not_starve_tasks() {
    let rt = Runtime::new().unwrap();
    let polls = rt.block_on(async {
        let join = lawn_rt::spawn(async { 1 });
        let mut polls = 0;
        while !join.is_finished() && polls < 10_000 {
            naive_yield().await;
            polls += 1;
        }
        polls
    });
    assert!(
        polls < 10,
        "the spawned task had not run after {polls} self-woken polls of the block_on future"
    );
}

/// A task awaiting `time::advance` runs after the tasks of the timers the
/// advance fired (the doc of `advance` says so).
#[lawn_rt::test(start_paused = true)]
async fn advance_lets_the_fired_tasks_run_first() {
    let fired = Arc::new(AtomicUsize::new(0));
    for _ in 0..3 {
        let fired = fired.clone();
        drop(lawn_rt::spawn(async move {
            sleep(Duration::from_millis(10)).await;
            fired.fetch_add(1, SeqCst);
        }));
    }
    yield_now().await; // they register their timers
    let from_task = lawn_rt::spawn({
        let fired = fired.clone();
        async move {
            time::advance(Duration::from_millis(10)).await;
            fired.load(SeqCst)
        }
    });
    assert_eq!(from_task.await.unwrap(), 3);
}

/// The same, from the `block_on` future itself.
#[lawn_rt::test(start_paused = true)]
async fn advance_in_block_on_lets_the_fired_tasks_run_first() {
    let fired = Arc::new(AtomicUsize::new(0));
    for _ in 0..3 {
        let fired = fired.clone();
        drop(lawn_rt::spawn(async move {
            sleep(Duration::from_millis(10)).await;
            fired.fetch_add(1, SeqCst);
        }));
    }
    yield_now().await;
    time::advance(Duration::from_millis(10)).await;
    assert_eq!(fired.load(SeqCst), 3);
}

/// Real clock: a task that never waits for anything must not keep a due
/// timer from firing.
fn busy_task_vs_timer(
    busy: impl Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + 'static,
) -> Duration {
    watchdog("busy task vs timer", HANG, move || {
        let rt = Runtime::new().unwrap();
        rt.block_on(async move {
            let stop = Arc::new(AtomicBool::new(false));
            let spins = Arc::new(AtomicUsize::new(0));
            let busy_task = {
                let stop = stop.clone();
                let spins = spins.clone();
                // Bounded by real time so that a starved runtime fails the
                // test instead of hanging it.
                let give_up = StdInstant::now() + Duration::from_secs(5);
                lawn_rt::spawn(async move {
                    while !stop.load(SeqCst) && StdInstant::now() < give_up {
                        busy().await;
                        spins.fetch_add(1, SeqCst);
                    }
                })
            };
            let start = StdInstant::now();
            let sleeper = lawn_rt::spawn(async move {
                sleep(Duration::from_millis(5)).await;
                start.elapsed()
            });
            let took = sleeper.await.unwrap();
            stop.store(true, SeqCst);
            busy_task.await.unwrap();
            assert!(spins.load(SeqCst) > 0, "the busy task never ran");
            took
        })
    })
}

#[test]
fn a_task_looping_on_yield_now_does_not_starve_a_timer() {
    let took = busy_task_vs_timer(|| Box::pin(yield_now()));
    assert!(took >= Duration::from_millis(5), "fired early: {took:?}");
    assert!(
        took < Duration::from_millis(500),
        "the 5 ms timer took {took:?}"
    );
}

#[test]
fn a_task_looping_on_ready_sleeps_does_not_starve_a_timer() {
    // `sleep(ZERO)` is always ready: only the coop budget makes the task
    // hand the thread back.
    let took = busy_task_vs_timer(|| Box::pin(sleep(Duration::ZERO)));
    assert!(took >= Duration::from_millis(5), "fired early: {took:?}");
    assert!(
        took < Duration::from_millis(500),
        "the 5 ms timer took {took:?}"
    );
}

#[test]
fn a_task_waking_itself_does_not_starve_a_timer() {
    let took = busy_task_vs_timer(|| Box::pin(naive_yield()));
    assert!(took >= Duration::from_millis(5), "fired early: {took:?}");
    assert!(
        took < Duration::from_millis(500),
        "the 5 ms timer took {took:?}"
    );
}

#[test]
fn ready_tasks_are_not_starved_by_many_firing_timers() {
    watchdog("ready task vs timers", HANG, || {
        let rt = Runtime::new().unwrap();
        rt.block_on(async {
            let stop = Arc::new(AtomicBool::new(false));
            let fired = Arc::new(AtomicUsize::new(0));
            let sleepers: Vec<_> = (0..1000u64)
                .map(|i| {
                    let stop = stop.clone();
                    let fired = fired.clone();
                    lawn_rt::spawn(async move {
                        let period = Duration::from_micros(100 + i % 7 * 50);
                        while !stop.load(SeqCst) {
                            sleep(period).await;
                            fired.fetch_add(1, SeqCst);
                        }
                    })
                })
                .collect();
            // Let the timer storm start.
            while fired.load(SeqCst) < 2000 {
                sleep(Duration::from_millis(1)).await;
            }
            let start = StdInstant::now();
            let yielder = lawn_rt::spawn(async {
                for _ in 0..100 {
                    yield_now().await;
                }
                for _ in 0..100 {
                    naive_yield().await;
                }
            });
            let done = timeout(Duration::from_secs(10), yielder).await;
            let took = start.elapsed();
            stop.store(true, SeqCst);
            for sleeper in sleepers {
                sleeper.await.unwrap();
            }
            assert!(done.is_ok(), "the ready task was starved ({took:?})");
            assert!(
                took < Duration::from_secs(5),
                "the ready task took {took:?}"
            );
        });
    });
}

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

// -------------------------------------------------------------------- coop

/// Ready sleeps a task completes in one go, while a task that is always
/// ready counts how often it got the thread.
fn ready_sleeps_vs_spinner(unconstrained: bool) -> (usize, usize) {
    watchdog("coop", HANG, move || {
        let rt = Runtime::new().unwrap();
        rt.block_on(async move {
            let stop = Arc::new(AtomicBool::new(false));
            let turns = Arc::new(AtomicUsize::new(0));
            let spinner = {
                let stop = stop.clone();
                let turns = turns.clone();
                lawn_rt::spawn(async move {
                    while !stop.load(SeqCst) {
                        turns.fetch_add(1, SeqCst);
                        naive_yield().await;
                    }
                })
            };
            yield_now().await;
            assert!(turns.load(SeqCst) > 0);
            let worker = {
                let turns = turns.clone();
                let work = async move {
                    let before = turns.load(SeqCst);
                    for _ in 0..1000 {
                        sleep(Duration::ZERO).await;
                    }
                    turns.load(SeqCst) - before
                };
                if unconstrained {
                    lawn_rt::spawn(task::unconstrained(work))
                } else {
                    lawn_rt::spawn(work)
                }
            };
            let spinner_turns = worker.await.unwrap();
            stop.store(true, SeqCst);
            spinner.await.unwrap();
            (spinner_turns, 1000)
        })
    })
}

#[test]
fn unconstrained_completes_many_ready_sleeps_in_one_poll() {
    let (spinner_turns, sleeps) = ready_sleeps_vs_spinner(true);
    assert_eq!(
        spinner_turns, 0,
        "{sleeps} ready sleeps under `unconstrained` were interrupted {spinner_turns} times"
    );
}

#[test]
fn the_coop_budget_makes_a_task_of_ready_sleeps_yield() {
    let (spinner_turns, sleeps) = ready_sleeps_vs_spinner(false);
    // 1000 sleeps at 128 per poll: at least 7 forced yields.
    assert!(
        spinner_turns >= 5,
        "{sleeps} ready sleeps let another task in only {spinner_turns} times"
    );
}

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
    let rt = Runtime::new().unwrap();
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
    let rt = Runtime::new().unwrap();
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
    let rt = Runtime::new().unwrap();
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
        let rt = Arc::new(Runtime::new().unwrap());
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

/// Tasks still running when a `block_on` returns go on at the next one,
/// from any thread.
#[test]
fn tasks_left_by_one_block_on_continue_in_the_next() {
    watchdog("left-over tasks", HANG, || {
        let rt = Arc::new(Runtime::new().unwrap());
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
        let rt = Runtime::new().unwrap();
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

/// Aborts from another thread racing with polls: every task ends
/// cancelled or with its output, and its future is dropped exactly once.
#[test]
fn remote_aborts_racing_with_polls() {
    watchdog("remote abort stress", HANG, || {
        let rt = Runtime::new().unwrap();
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
    });
}

#[test]
fn yield_now_outside_a_runtime_completes() {
    futures::executor::block_on(async {
        for _ in 0..10 {
            yield_now().await;
        }
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
