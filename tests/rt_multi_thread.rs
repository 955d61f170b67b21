//! The multi-thread runtime (`Builder::new_multi_thread`) through the
//! public API: spawning and joining under load (from outside, from tasks,
//! nested), tasks really running on every worker, work stealing from a busy
//! worker, no lost wake-ups while workers park and unpark, `block_on`
//! (`Runtime`'s, `Handle`'s from plain and blocking-pool threads, and the
//! misuse it refuses), the paused clock refused, `spawn_blocking`,
//! `yield_now`, `abort`, panics, the `#[lawn_rt::test]` flavor and thread
//! names.
//!
//! Timers across workers are in `rt_multi_timers.rs`, shutdown in
//! `rt_multi_shutdown.rs`. Everything that could hang runs under a
//! watchdog; a few tests block a worker on purpose (spinning at a
//! [`Rendezvous`]) to see which threads run what.

mod common;

use std::collections::{HashMap, HashSet};
use std::future::{pending, Future};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Instant as StdInstant;

use common::{current_thread, multi_thread_runtime, watchdog, DropCount, Gate, Rendezvous};
use lawn_rt::runtime::{Builder, Handle, Runtime};
use lawn_rt::task::{self, yield_now};
use lawn_rt::time::{self, sleep, timeout, Duration, Instant};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(60);
/// How long a task waits for another to turn up on another worker.
const MEET: Duration = Duration::from_secs(10);
/// The default name of a worker thread.
const WORKER: &str = "lawn-rt-worker";
/// What `block_on` inside a runtime says.
const NESTED: &str = "cannot `block_on` inside a runtime";

fn rt2() -> Runtime {
    multi_thread_runtime(2)
}

/// Blocks the thread for `d` without sleeping: CPU-busy work.
fn busy(d: Duration) {
    let start = StdInstant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Where tasks ran: how many ran on each thread, by thread name.
#[derive(Clone, Default)]
struct Places(Arc<Mutex<HashMap<ThreadId, (String, usize)>>>);

impl Places {
    fn record(&self) {
        let (id, name) = current_thread();
        self.0.lock().unwrap().entry(id).or_insert((name, 0)).1 += 1;
    }

    fn threads(&self) -> HashMap<ThreadId, (String, usize)> {
        self.0.lock().unwrap().clone()
    }

    /// Checks that every task ran on a thread named `name`; returns how
    /// many threads ran some.
    #[track_caller]
    fn assert_all_named(&self, name: &str) -> usize {
        let threads = self.threads();
        for (thread, count) in threads.values() {
            assert_eq!(thread, name, "{count} tasks ran on another thread");
        }
        threads.len()
    }
}

// ------------------------------------------------------------ spawn / join

/// A task that spawns two children, one of which spawns a grandchild; its
/// value is `5 * i + 2`.
async fn family(i: u64, places: Places) -> u64 {
    places.record();
    let first = lawn_rt::spawn({
        let places = places.clone();
        async move {
            places.record();
            3 * i
        }
    });
    let second = lawn_rt::spawn(async move {
        places.record();
        let inner = places.clone();
        let grandchild = lawn_rt::spawn(async move {
            inner.record();
            i + 1
        });
        grandchild.await.unwrap() * 2
    });
    first.await.unwrap() + second.await.unwrap()
}

#[test]
fn thousands_of_tasks_spawned_from_outside_and_nested_join_with_their_values() {
    let places = watchdog("spawn and join under load", HANG, || {
        let rt = rt2();
        let places = Places::default();
        // From another thread, through a handle...
        let handle = rt.handle().clone();
        let remote = {
            let places = places.clone();
            thread::spawn(move || {
                (0..2000)
                    .map(|i| handle.spawn(family(i, places.clone())))
                    .collect::<Vec<_>>()
            })
        };
        // ...from this one, and from inside a task.
        let mut joins: Vec<_> = (2000..3000)
            .map(|i| rt.spawn(family(i, places.clone())))
            .collect();
        let inner = places.clone();
        let spawner = rt.spawn(async move {
            let joins: Vec<_> = (3000..4000)
                .map(|i| lawn_rt::spawn(family(i, inner.clone())))
                .collect();
            let mut values = Vec::new();
            for join in joins {
                values.push(join.await.unwrap());
            }
            values
        });
        let mut all = remote.join().unwrap();
        all.append(&mut joins);
        let values = rt.block_on(async move {
            let mut values = Vec::new();
            for join in all {
                values.push(join.await.unwrap());
            }
            values.extend(spawner.await.unwrap());
            values
        });
        let expected: Vec<u64> = (0..4000).map(|i| 5 * i + 2).collect();
        assert_eq!(values, expected);
        places
    });
    let threads = places.threads();
    let ran: usize = threads.values().map(|(_, n)| n).sum();
    assert_eq!(ran, 4000 * 4, "every task records once");
    let workers = places.assert_all_named(WORKER);
    assert!(
        workers <= 2,
        "tasks ran on {workers} threads with 2 workers"
    );
    eprintln!("tasks per worker: {:?}", threads.values().map(|(_, n)| n));
}

#[test]
fn blocking_work_spawned_from_outside_runs_on_both_workers() {
    watchdog("blocking work on both workers", HANG, || {
        let rt = rt2();
        // Both workers idle (parked) before the work arrives.
        rt.block_on(sleep(Duration::from_millis(10)));
        let places = Places::default();
        let joins: Vec<_> = (0..40)
            .map(|_| {
                let places = places.clone();
                rt.spawn(async move {
                    places.record();
                    thread::sleep(Duration::from_millis(2));
                })
            })
            .collect();
        rt.block_on(async {
            for join in joins {
                join.await.unwrap();
            }
        });
        let threads = places.threads();
        assert_eq!(
            places.assert_all_named(WORKER),
            2,
            "blocking tasks did not spread over both workers: {:?}",
            threads.values().collect::<Vec<_>>()
        );
        assert!(!threads.contains_key(&thread::current().id()));
    });
}

#[test]
fn two_tasks_that_block_until_they_meet_run_on_two_workers_at_once() {
    watchdog("rendezvous of two tasks", HANG, || {
        let rt = rt2();
        for round in 0..20 {
            let meet = Rendezvous::new(2);
            let joins: Vec<_> = (0..2)
                .map(|_| {
                    let meet = meet.clone();
                    rt.spawn(async move { (meet.meet(MEET), thread::current().id()) })
                })
                .collect();
            let (a, b) = rt.block_on(async {
                let mut joins = joins.into_iter();
                let a = joins.next().unwrap().await.unwrap();
                (a, joins.next().unwrap().await.unwrap())
            });
            assert!(a.0 && b.0, "round {round}: the second task never ran");
            assert_ne!(a.1, b.1, "round {round}");
        }
    });
}

#[test]
fn a_parked_worker_steals_from_a_worker_busy_with_a_spawning_task() {
    watchdog("work stealing", HANG, || {
        let rt = rt2();
        for round in 0..5 {
            // Both workers idle: one wakes for the parent, the other only
            // because the parent's queue fills up.
            rt.block_on(sleep(Duration::from_millis(5)));
            let parent = rt.spawn(async move {
                let parent = thread::current().id();
                let ran = Arc::new(AtomicUsize::new(0));
                let children: Vec<_> = (0..64)
                    .map(|_| {
                        let ran = ran.clone();
                        lawn_rt::spawn(async move {
                            busy(Duration::from_micros(200));
                            ran.fetch_add(1, SeqCst);
                            thread::current().id()
                        })
                    })
                    .collect();
                // Keep this worker busy until some child has run: only the
                // other worker can have run it.
                let deadline = StdInstant::now() + MEET;
                while ran.load(SeqCst) == 0 && StdInstant::now() < deadline {
                    std::hint::spin_loop();
                }
                let stolen_while_busy = ran.load(SeqCst);
                let mut ids = Vec::new();
                for child in children {
                    ids.push(child.await.unwrap());
                }
                (parent, stolen_while_busy, ids)
            });
            let (parent, stolen_while_busy, ids) = rt.block_on(parent).unwrap();
            assert!(
                stolen_while_busy > 0,
                "round {round}: the idle worker took none of the 64 queued tasks"
            );
            let elsewhere = ids.iter().filter(|&&id| id != parent).count();
            assert!(elsewhere > 0, "round {round}");
            assert!(
                elsewhere < 64,
                "round {round}: the parent's worker ran none"
            );
        }
    });
}

// --------------------------------------------------------- lost wake-ups

/// Many thousand round trips between plain threads and tasks, each of
/// which leaves the workers with nothing to do, so they park between
/// rounds: a lost wake-up stops a round, which fails after 10 s.
#[test]
fn no_lost_wake_ups_while_workers_park_between_round_trips() {
    const ROUNDS: u32 = 10_000;
    const SPAWN_ROUNDS: u32 = 3_000;
    let round_limit = Duration::from_secs(10);
    watchdog("ping-pong with parking workers", HANG, move || {
        let rt = rt2();
        // Two threads ping-pong with a task each: a wake from outside
        // (the inject queue), then a std channel back.
        let pairs: Vec<_> = (0..2)
            .map(|pair| {
                let ping = Gate::<u32>::new();
                let (pong, replies) = mpsc::channel();
                let task = {
                    let ping = ping.clone();
                    rt.spawn(async move {
                        for round in 0..ROUNDS {
                            assert_eq!(ping.wait().await, round);
                            pong.send(round).unwrap();
                        }
                    })
                };
                let thread = thread::spawn(move || {
                    for round in 0..ROUNDS {
                        ping.open(round);
                        match replies.recv_timeout(round_limit) {
                            Ok(got) => assert_eq!(got, round),
                            Err(_) => panic!("pair {pair}: round {round} lost a wake-up"),
                        }
                    }
                });
                (task, thread)
            })
            .collect();
        // A third spawns a task and waits for it with `Handle::block_on`
        // (its own thread parks and is unparked by a worker).
        let handle = rt.handle().clone();
        let spawner = thread::spawn(move || {
            for round in 0..SPAWN_ROUNDS {
                let join = handle.spawn(async move { round + 1 });
                assert_eq!(handle.block_on(join).unwrap(), round + 1);
            }
        });
        for (task, thread) in pairs {
            thread.join().unwrap();
            rt.block_on(task).unwrap();
        }
        spawner.join().unwrap();
    });
}

/// Tasks on the workers wake each other through gates, in a ring, while
/// other workers park and unpark: every wake lands.
#[test]
fn no_lost_wake_ups_in_a_ring_of_tasks() {
    const TASKS: usize = 8;
    const LAPS: u32 = 2_000;
    watchdog("ring of tasks", HANG, || {
        let rt = rt2();
        let gates: Vec<Gate<u32>> = (0..TASKS).map(|_| Gate::new()).collect();
        let joins: Vec<_> = (0..TASKS)
            .map(|i| {
                let mine = gates[i].clone();
                let next = gates[(i + 1) % TASKS].clone();
                rt.spawn(async move {
                    for lap in 0..LAPS {
                        let got = mine.wait().await;
                        assert_eq!(got, lap);
                        // The last task starts the next lap.
                        next.open(if i == TASKS - 1 { lap + 1 } else { lap });
                    }
                })
            })
            .collect();
        gates[0].open(0);
        rt.block_on(async {
            for join in joins {
                join.await.unwrap();
            }
        });
    });
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

// ------------------------------------------- blocking, yield, abort, panics

#[test]
fn spawn_blocking_runs_on_the_blocking_pool_while_workers_go_on() {
    watchdog("spawn_blocking on multi-thread", HANG, || {
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

#[test]
fn yield_now_lets_timers_and_other_tasks_in() {
    for workers in [1, 2] {
        watchdog("yield_now on multi-thread", HANG, move || {
            let rt = multi_thread_runtime(workers);
            let flag = Arc::new(AtomicBool::new(false));
            let set = flag.clone();
            // Spins on `yield_now` until a timer's task sets the flag: with
            // one worker, only yielding lets the timer fire.
            let spinner = rt.spawn(async move {
                let mut yields = 0u64;
                while !flag.load(SeqCst) {
                    yield_now().await;
                    yields += 1;
                }
                yields
            });
            let setter = rt.spawn(async move {
                sleep(Duration::from_millis(3)).await;
                set.store(true, SeqCst);
            });
            rt.block_on(setter).unwrap();
            assert!(rt.block_on(spinner).unwrap() > 0);
        });
    }
    // With one worker, a task spawned before a yield has run after it.
    let rt = multi_thread_runtime(1);
    let ran = rt.block_on(rt.spawn(async {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        drop(lawn_rt::spawn(async move { flag.store(true, SeqCst) }));
        yield_now().await;
        ran.load(SeqCst)
    }));
    assert!(ran.unwrap());
}

/// A waker that panics when woken.
struct PanickingWaker;

impl std::task::Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        panic!("PanickingWaker woken");
    }
}

/// `yield_now` polled by hand with a waker that panics, inside a task: the
/// worker wakes it after its next park, and the panic is the waker's (the
/// panic hook reports it), not the worker's: both workers go on running
/// tasks. Runs in a child process (a failure here may abort: see
/// `rt_multi_timers.rs`).
#[test]
fn a_panicking_waker_deferred_by_yield_now_does_not_take_its_worker_down() {
    if !common::isolated("a_panicking_waker_deferred_by_yield_now_does_not_take_its_worker_down") {
        return;
    }
    watchdog("panicking deferred waker", HANG, || {
        let rt = rt2();
        let meet = Rendezvous::new(2);
        for join in (0..2)
            .map(|_| {
                let meet = meet.clone();
                rt.spawn(async move {
                    assert!(meet.meet(MEET), "the tasks did not meet");
                    let waker = std::task::Waker::from(Arc::new(PanickingWaker));
                    let mut cx = std::task::Context::from_waker(&waker);
                    let yielded = std::pin::pin!(yield_now()).poll(&mut cx);
                    assert!(yielded.is_pending());
                })
            })
            .collect::<Vec<_>>()
        {
            rt.block_on(join).unwrap();
        }
        thread::sleep(Duration::from_millis(20));
        let (ran, ran_rx) = mpsc::channel();
        drop(rt.spawn(async move { ran.send(()).unwrap() }));
        assert!(
            ran_rx.recv_timeout(MEET).is_ok(),
            "no worker runs tasks after a deferred waker panicked on each"
        );
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
    });
}

#[test]
fn abort_cancels_tasks_from_anywhere_and_drops_their_futures() {
    watchdog("abort on multi-thread", HANG, || {
        let rt = rt2();
        let drops = DropCount::new();
        // A task parked on a long timer, aborted from this thread.
        let tracked = drops.track();
        let sleeper = rt.spawn(async move {
            let _tracked = tracked;
            sleep(Duration::from_secs(3600)).await;
        });
        rt.block_on(sleep(Duration::from_millis(2)));
        sleeper.abort();
        assert!(rt.block_on(sleeper).unwrap_err().is_cancelled());
        assert_eq!(drops.get(), 1);
        // Busy tasks (always yielding), aborted from another thread while
        // the workers poll them.
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
        assert_eq!(drops.get(), 101);
        // From another task; and a completed task keeps its output.
        let out = rt.block_on(async {
            let victim = lawn_rt::spawn(pending::<()>());
            let abort = victim.abort_handle();
            lawn_rt::spawn(async move { abort.abort() }).await.unwrap();
            assert!(victim.await.unwrap_err().is_cancelled());
            let done = lawn_rt::spawn(async { 8 });
            while !done.is_finished() {
                yield_now().await;
            }
            done.abort();
            done.await
        });
        assert_eq!(out.unwrap(), 8);
    });
}

#[test]
fn a_panicking_task_gives_a_join_error_and_the_workers_go_on() {
    watchdog("panics on multi-thread", HANG, || {
        let rt = rt2();
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
        // Both workers still run tasks.
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
    });
}

// ------------------------------------------------------ macros and threads

#[lawn_rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_macro_runs_a_multi_thread_runtime() {
    let handle = Handle::current();
    assert!(format!("{handle:?}").contains("multi_thread"), "{handle:?}");
    let places = Places::default();
    let joins: Vec<_> = (0..16)
        .map(|_| {
            let places = places.clone();
            lawn_rt::spawn(async move {
                places.record();
                thread::sleep(Duration::from_millis(1));
                sleep(Duration::from_millis(1)).await;
            })
        })
        .collect();
    for join in joins {
        join.await.unwrap();
    }
    let workers = places.assert_all_named(WORKER);
    assert!((1..=2).contains(&workers));
    let start = Instant::now();
    timeout(Duration::from_secs(5), sleep(Duration::from_millis(2)))
        .await
        .unwrap();
    assert!(start.elapsed() >= Duration::from_millis(2));
}

#[lawn_rt::test(flavor = "multi_thread")]
async fn the_test_macro_defaults_to_one_worker_per_cpu() {
    let expected = thread::available_parallelism().map_or(1, |n| n.get());
    let meet = Rendezvous::new(expected);
    let joins: Vec<_> = (0..expected)
        .map(|_| {
            let meet = meet.clone();
            lawn_rt::spawn(async move { meet.meet(MEET) })
        })
        .collect();
    for join in joins {
        assert!(join.await.unwrap(), "fewer than {expected} workers");
    }
}

#[test]
fn worker_threads_are_named_by_the_builder() {
    watchdog("thread names", HANG, || {
        // Default: `lawn-rt-worker`.
        let rt = rt2();
        // A new thread names itself once it runs.
        let named = common::eventually(MEET, || {
            let names = common::thread_names();
            names.iter().filter(|name| *name == WORKER).count() >= 2
        });
        assert!(named, "{:?}", common::thread_names());
        drop(rt);
        // `thread_name` names workers and blocking threads alike.
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("my-pool")
            .enable_all()
            .build()
            .unwrap();
        let meet = Rendezvous::new(2);
        let joins: Vec<_> = (0..2)
            .map(|_| {
                let meet = meet.clone();
                rt.spawn(async move {
                    assert!(meet.meet(MEET));
                    current_thread().1
                })
            })
            .collect();
        for join in joins {
            assert_eq!(rt.block_on(join).unwrap(), "my-pool");
        }
        let blocking = rt.block_on(rt.spawn_blocking(|| current_thread().1));
        assert_eq!(blocking.unwrap(), "my-pool");
    });
}

#[test]
fn one_worker_runs_everything() {
    watchdog("one worker", HANG, || {
        let rt = multi_thread_runtime(1);
        let places = Places::default();
        let values = rt.block_on({
            let places = places.clone();
            async move {
                let joins: Vec<_> = (0..500)
                    .map(|i| lawn_rt::spawn(family(i, places.clone())))
                    .collect();
                let mut values = Vec::new();
                for join in joins {
                    values.push(join.await.unwrap());
                }
                values
            }
        });
        assert_eq!(values, (0..500).map(|i| 5 * i + 2).collect::<Vec<_>>());
        assert_eq!(places.assert_all_named(WORKER), 1);
        let seen: HashSet<_> = places.threads().into_keys().collect();
        assert!(!seen.contains(&thread::current().id()));
    });
}
