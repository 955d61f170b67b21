//! Shutting a runtime down: dropping it (also from inside one of its own
//! tasks or blocking tasks), `shutdown_timeout` and `shutdown_background`;
//! what becomes of tasks, timers and their wakers, join handles, handles
//! and blocking tasks afterwards; that building and dropping many runtimes
//! leaks neither file descriptors nor threads; and a runtime kept in a
//! thread-local.
//!
//! The bodies that hold for both flavors run twice, as
//! `current_thread::*` and `multi_thread::*` (two workers; see
//! `common::both_flavors!`); the tests after them are about one flavor.
//! Thread and file-descriptor counts run in a child process
//! ([`isolated`]) so other tests' threads do not blur them. Everything
//! that could hang runs under a watchdog.

mod common;

use std::future::pending;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Instant as StdInstant;

use common::{
    assert_panics_with, counting_waker, isolated, panicking_waker, poll_noop, poll_with, rt2,
    watchdog, DropCount, Flavor, Gate, WORKER,
};
use lawn_rt::runtime::{Builder, Runtime};
use lawn_rt::task::{self, yield_now, JoinHandle};
use lawn_rt::time::{interval, sleep, timeout, Duration};

/// Long enough that a test on a current-thread runtime hitting it has hung.
const HANG: Duration = Duration::from_secs(20);
/// The same on a multi-thread runtime (more threads to wait for).
const MULTI_HANG: Duration = Duration::from_secs(60);
/// What polling a timer of a dropped runtime says.
const SHUT_DOWN: &str = "timer driver has shut down";

/// Runs `on_drop` when dropped.
struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

/// Spawns on `rt`, from outside and from a task, `n` tasks (`n` even)
/// that never complete (half on nothing, half on long timers), each
/// holding a value `drops` counts; returns their join handles.
fn spawn_pending(rt: &Runtime, drops: &Arc<DropCount>, n: u64) -> Vec<JoinHandle<()>> {
    let mut joins: Vec<_> = (0..n / 2)
        .map(|i| {
            let tracked = drops.track();
            rt.spawn(async move {
                let _tracked = tracked;
                if i % 2 == 0 {
                    pending::<()>().await;
                } else {
                    sleep(Duration::from_secs(3600 + i)).await;
                }
            })
        })
        .collect();
    let drops = drops.clone();
    let inside = rt.block_on(async move {
        let joins: Vec<_> = (0..n / 2)
            .map(|i| {
                let tracked = drops.track();
                lawn_rt::spawn(async move {
                    let _tracked = tracked;
                    let mut every = interval(Duration::from_millis(1 + i % 5));
                    loop {
                        every.tick().await;
                        sleep(Duration::from_secs(i)).await;
                    }
                })
            })
            .collect();
        sleep(Duration::from_millis(10)).await;
        joins
    });
    joins.extend(inside);
    joins
}

/// Checks that every task was cancelled (waiting for each to be).
#[track_caller]
fn assert_all_cancelled<T: std::fmt::Debug>(joins: Vec<JoinHandle<T>>) {
    for join in joins {
        let err = futures::executor::block_on(join).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
    }
}

/// Starts a blocking task on `rt` that runs until `release` is sent (or
/// 30 s pass); returns when it has started. `done` hears when it ends.
fn start_stuck_blocking(rt: &Runtime) -> (mpsc::Sender<()>, mpsc::Receiver<()>) {
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (started_tx, started_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel();
    drop(rt.spawn_blocking(move || {
        started_tx.send(()).unwrap();
        let _ = release_rx.recv_timeout(Duration::from_secs(30));
        let _ = done_tx.send(());
    }));
    started_rx.recv().unwrap();
    (release_tx, done_rx)
}

// ===========================================================================
// Both flavors
// ===========================================================================

both_flavors!(
    dropping_a_runtime_drops_every_task_future,
    futures_dropped_at_shutdown_may_spawn_and_make_timers,
    pending_timers_wakers_are_released_at_shutdown,
    timers_used_after_their_runtime_is_gone_panic_clearly,
    shutdown_background_returns_at_once_with_a_blocking_task_running,
    blocking_tasks_spawned_just_before_a_drop_still_run,
    blocking_tasks_spawned_just_before_shutdown_timeout_still_run,
    spawning_on_a_handle_after_drop_is_cancelled,
    spawning_on_a_handle_after_shutdown_timeout_is_cancelled,
    spawning_on_a_handle_after_shutdown_background_is_cancelled,
    spawning_from_another_thread_during_shutdown_never_hangs_or_leaks,
    dropping_the_runtime_inside_its_own_task_does_not_hang,
    dropping_the_runtime_inside_its_own_blocking_task_does_not_hang,
    many_runtimes_leak_no_fds_or_threads,
);

// ------------------------------------------------------------- dropping

/// Dropping a runtime drops the future of every task it still has: tasks
/// spawned from outside and from tasks, parked on nothing, on long timers
/// and on intervals, and tasks spawned after the last `block_on` (which a
/// current-thread runtime never ran). It does so promptly, and each join
/// handle then reports a cancellation.
fn dropping_a_runtime_drops_every_task_future(flavor: Flavor) {
    watchdog("drop with pending tasks", flavor.hang(), move || {
        let rt = flavor.rt();
        let drops = DropCount::new();
        let mut joins = spawn_pending(&rt, &drops, 1000);
        for _ in 0..50 {
            let tracked = drops.track();
            joins.push(rt.spawn(async move {
                let _tracked = tracked;
                pending::<()>().await;
            }));
        }
        assert_eq!(drops.get(), 0);
        let start = StdInstant::now();
        drop(rt);
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(drops.get(), 1050, "a task's future outlived its runtime");
        assert!(joins.iter().all(|join| join.is_finished()));
        assert_all_cancelled(joins);
    });
}

/// The futures a shutdown drops still see the runtime's context: spawning
/// there gives a task that is cancelled at once, and making (and dropping)
/// a timer is fine.
fn futures_dropped_at_shutdown_may_spawn_and_make_timers(flavor: Flavor) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let rt = flavor.rt();
    let record = seen.clone();
    let guard = OnDrop(move || {
        // The runtime's context is there while its tasks are dropped...
        let join = lawn_rt::spawn(async { "never runs" });
        // ...but it is closing: new tasks are cancelled at once.
        let spawned = futures::executor::block_on(join);
        record
            .lock()
            .unwrap()
            .push(matches!(&spawned, Err(err) if err.is_cancelled()));
        // Making (and dropping) a timer is fine.
        drop(sleep(Duration::from_millis(1)));
        record.lock().unwrap().push(true);
    });
    rt.block_on(async {
        drop(lawn_rt::spawn(async move {
            let _guard = guard;
            pending::<()>().await;
        }));
        // Lets the task start: on this thread (current-thread) or on a
        // worker (multi-thread).
        yield_now().await;
        sleep(Duration::from_millis(2)).await;
    });
    watchdog("drop runtime", flavor.hang(), move || drop(rt));
    assert_eq!(*seen.lock().unwrap(), [true, true]);
}

/// A dropped runtime releases the wakers of its pending timers: those
/// registered from a thread that entered it and those registered by its
/// tasks (on a worker's shard, multi-thread). Dropping the timers
/// afterwards is fine.
fn pending_timers_wakers_are_released_at_shutdown(flavor: Flavor) {
    let rt = flavor.rt();
    let (counter, waker) = counting_waker();
    let mut here = Box::pin({
        let _entered = rt.enter();
        sleep(Duration::from_secs(3600))
    });
    assert!(poll_with(here.as_mut(), &waker).is_pending());
    let in_tasks: Vec<_> = (0..8)
        .map(|_| {
            let waker = waker.clone();
            // The task hands its timer out on purpose.
            #[allow(clippy::async_yields_async)]
            let nap = rt.block_on(rt.spawn(async move {
                let mut nap = Box::pin(sleep(Duration::from_secs(3600)));
                assert!(poll_with(nap.as_mut(), &waker).is_pending());
                nap
            }));
            nap.unwrap()
        })
        .collect();
    drop(waker);
    assert_eq!(
        Arc::strong_count(&counter),
        10,
        "the drivers hold the wakers"
    );
    drop(rt);
    assert_eq!(
        Arc::strong_count(&counter),
        1,
        "a dead driver kept a pending timer's waker"
    );
    drop((here, in_tasks));
}

/// Timers that outlive their runtime panic with a message that says so
/// when polled: a sleep never polled, a registered sleep, an interval and
/// a timeout, whether made on a thread that entered the runtime (and
/// polled in `block_on`) or filed by a task and handed out. Dropping them
/// is fine.
fn timers_used_after_their_runtime_is_gone_panic_clearly(flavor: Flavor) {
    let rt = flavor.rt();
    // Made on this thread with the runtime entered...
    let (mut unpolled, mut registered, mut ticker, mut timed) = {
        let _entered = rt.enter();
        (
            Box::pin(sleep(Duration::from_millis(10))),
            Box::pin(sleep(Duration::from_secs(3600))),
            interval(Duration::from_millis(10)),
            Box::pin(timeout(Duration::from_secs(3600), pending::<()>())),
        )
    };
    // ...and polled in `block_on`.
    rt.block_on(async {
        assert!(poll_noop(registered.as_mut()).is_pending());
        ticker.tick().await;
        assert!(poll_noop(timed.as_mut()).is_pending());
    });
    // Filed by a task (on a worker's shard, multi-thread), then handed out.
    let (mut task_registered, mut task_ticker, mut task_timed) = rt
        .block_on(rt.spawn(async {
            let mut registered = Box::pin(sleep(Duration::from_secs(3600)));
            assert!(poll_noop(registered.as_mut()).is_pending());
            let mut ticker = interval(Duration::from_millis(10));
            ticker.tick().await;
            let mut timed = Box::pin(timeout(Duration::from_secs(3600), pending::<()>()));
            assert!(poll_noop(timed.as_mut()).is_pending());
            (registered, ticker, timed)
        }))
        .unwrap();
    drop(rt);

    assert_panics_with(SHUT_DOWN, "never-polled sleep", || {
        poll_noop(unpolled.as_mut())
    });
    assert_panics_with(SHUT_DOWN, "registered sleep", || {
        poll_noop(registered.as_mut())
    });
    assert_panics_with(SHUT_DOWN, "interval", || {
        futures::executor::block_on(ticker.tick())
    });
    assert_panics_with(SHUT_DOWN, "timeout", || poll_noop(timed.as_mut()));
    assert_panics_with(SHUT_DOWN, "sleep registered by a task", || {
        poll_noop(task_registered.as_mut())
    });
    assert_panics_with(SHUT_DOWN, "interval ticked by a task", || {
        futures::executor::block_on(task_ticker.tick())
    });
    assert_panics_with(SHUT_DOWN, "timeout polled by a task", || {
        poll_noop(task_timed.as_mut())
    });
    // And the panic says what to make of it.
    assert_panics_with("runtime was dropped", "sleep", || {
        poll_noop(unpolled.as_mut())
    });
    // Dropping them is fine.
    drop((unpolled, registered, ticker, timed));
    drop((task_registered, task_ticker, task_timed));
}

/// `shutdown_background` returns at once although a blocking task is
/// still running: the tasks' futures are dropped all the same (their
/// handles report a cancellation), and the blocking task runs on until it
/// is told to end.
fn shutdown_background_returns_at_once_with_a_blocking_task_running(flavor: Flavor) {
    let rt = flavor.rt();
    let (release, done) = start_stuck_blocking(&rt);
    let drops = DropCount::new();
    let joins = spawn_pending(&rt, &drops, 10);
    let start = StdInstant::now();
    rt.shutdown_background();
    let took = start.elapsed();
    let at_once = flavor.pick(Duration::from_secs(1), Duration::from_secs(2));
    assert!(took < at_once, "took {took:?}");
    assert_eq!(drops.get(), 10, "tasks are dropped all the same");
    assert_all_cancelled(joins);
    assert!(done.try_recv().is_err());
    release.send(()).unwrap();
    done.recv_timeout(flavor.hang()).unwrap();
}

/// Blocking tasks spawned right before the runtime is dropped (the last
/// flush of a service) all run, though most are still queued when the
/// drop begins; the drop waits for them and each handle gives its output.
/// tokio's pool behaves so in practice: a thread started or woken for a
/// task runs the queue before it looks at the shutdown.
fn blocking_tasks_spawned_just_before_a_drop_still_run(flavor: Flavor) {
    queued_blocking_tasks_run(flavor, "a drop", drop);
}

/// The same with `shutdown_timeout`: queued blocking tasks that finish
/// within the timeout all run before it returns.
fn blocking_tasks_spawned_just_before_shutdown_timeout_still_run(flavor: Flavor) {
    queued_blocking_tasks_run(flavor, "shutdown_timeout", |rt| {
        rt.shutdown_timeout(Duration::from_secs(10))
    });
}

/// Spawns 20 blocking tasks and at once `shut_down(rt)`: all of them ran
/// by the time it returns, and each handle gives its task's output.
fn queued_blocking_tasks_run(
    flavor: Flavor,
    what: &str,
    shut_down: impl FnOnce(Runtime) + Send + 'static,
) {
    watchdog(
        &format!("{what} with queued blocking tasks"),
        flavor.hang(),
        move || {
            let rt = flavor.rt();
            let (ran, joins) = spawn_blocking_counters(&rt, 20);
            shut_down(rt);
            assert_eq!(ran.load(SeqCst), 20, "a queued blocking task was dropped");
            assert_all_ran(joins);
        },
    );
}

/// Spawns `n` blocking tasks that each count themselves and return their
/// index.
fn spawn_blocking_counters(rt: &Runtime, n: usize) -> (Arc<AtomicUsize>, Vec<JoinHandle<usize>>) {
    let ran = Arc::new(AtomicUsize::new(0));
    let joins = (0..n)
        .map(|i| {
            let ran = ran.clone();
            rt.spawn_blocking(move || {
                ran.fetch_add(1, SeqCst);
                i
            })
        })
        .collect();
    (ran, joins)
}

/// Panics unless each handle gives its task's index.
fn assert_all_ran(joins: Vec<JoinHandle<usize>>) {
    for (i, join) in joins.into_iter().enumerate() {
        match futures::executor::block_on(join) {
            Ok(output) => assert_eq!(output, i),
            Err(err) => panic!("blocking task {i}: {err}"),
        }
    }
}

// ------------------------------------------------ spawning afterwards

/// After `shut_down(rt)`, spawning through a handle (or an entered
/// context) gives a task that is cancelled at once, whose future is
/// dropped at once; a blocking task is cancelled and never runs.
fn spawning_after_shutdown_is_cancelled(flavor: Flavor, shut_down: impl FnOnce(Runtime)) {
    let rt = flavor.rt();
    let handle = rt.handle().clone();
    shut_down(rt);

    let drops = DropCount::new();
    let tracked = drops.track();
    let join = handle.spawn(async move {
        let _tracked = tracked;
        "never"
    });
    assert_eq!(drops.get(), 1, "the future is dropped at once");
    assert!(join.is_finished());
    let err = futures::executor::block_on(join).unwrap_err();
    assert!(err.is_cancelled(), "{err:?}");

    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let join = handle.spawn_blocking(move || flag.store(true, SeqCst));
    let err = futures::executor::block_on(join).unwrap_err();
    assert!(err.is_cancelled(), "{err:?}");
    assert!(!ran.load(SeqCst));

    // Also through an entered context.
    let _entered = handle.enter();
    let join = lawn_rt::spawn(async {});
    assert!(futures::executor::block_on(join)
        .unwrap_err()
        .is_cancelled());
    let join = task::spawn_blocking(|| ());
    assert!(futures::executor::block_on(join)
        .unwrap_err()
        .is_cancelled());
}

fn spawning_on_a_handle_after_drop_is_cancelled(flavor: Flavor) {
    spawning_after_shutdown_is_cancelled(flavor, drop);
}

fn spawning_on_a_handle_after_shutdown_timeout_is_cancelled(flavor: Flavor) {
    spawning_after_shutdown_is_cancelled(flavor, |rt| rt.shutdown_timeout(Duration::from_secs(1)));
}

fn spawning_on_a_handle_after_shutdown_background_is_cancelled(flavor: Flavor) {
    spawning_after_shutdown_is_cancelled(flavor, Runtime::shutdown_background);
}

/// Another thread spawning through a handle while the runtime is dropped:
/// every task it spawned has its future dropped (by the shutdown, or at
/// once if it came after) and its handle reports a cancellation; nothing
/// hangs.
fn spawning_from_another_thread_during_shutdown_never_hangs_or_leaks(flavor: Flavor) {
    watchdog("spawn racing shutdown", flavor.hang(), move || {
        for _ in 0..20 {
            let rt = flavor.rt();
            let handle = rt.handle().clone();
            let drops = DropCount::new();
            let spawner = {
                let drops = drops.clone();
                thread::spawn(move || {
                    (0..200)
                        .map(|_| {
                            let tracked = drops.track();
                            handle.spawn(async move {
                                let _tracked = tracked;
                                yield_now().await;
                                pending::<()>().await;
                            })
                        })
                        .collect::<Vec<_>>()
                })
            };
            rt.block_on(yield_now());
            drop(rt);
            let joins = spawner.join().unwrap();
            assert_eq!(drops.get(), 200);
            assert_all_cancelled(joins);
        }
    });
}

// -------------------------------------------- dropped from its own task

/// A runtime dropped inside one of its own tasks, or inside a `block_on`
/// future (through a handle), neither hangs nor loses its shutdown: the
/// code that dropped it completes, every other task's future is dropped
/// (on a current-thread runtime as soon as the thread stops driving; on a
/// multi-thread one by the last worker out) and a later spawn is cancelled
/// at once.
///
/// A multi-thread runtime dropped inside one of its tasks also while a
/// blocking task still runs: its shutdown waits for that on a worker while
/// the dropping code goes on (and releases it). Dropped elsewhere (in a
/// `block_on` future, or anywhere on a current-thread runtime, whose
/// shutdown runs on the thread that drove it before `block_on` returns),
/// the drop waits for the blocking task, as every drop of a runtime does
/// (`dropping_a_runtime_waits_for_running_blocking_tasks`).
fn dropping_the_runtime_inside_its_own_task_does_not_hang(flavor: Flavor) {
    // (inside a `block_on` future rather than a task, a blocking task running)
    let cases: &[(bool, bool)] = match flavor {
        Flavor::CurrentThread => &[(false, false), (true, false)],
        Flavor::MultiThread => &[(false, false), (false, true), (true, false)],
    };
    watchdog("drop inside a task", flavor.hang(), move || {
        for &(inside_block_on, blocking) in cases {
            let rt = flavor.rt();
            let drops = DropCount::new();
            let joins = spawn_pending(&rt, &drops, 100);
            // A blocking task still running when the runtime goes: its
            // shutdown waits for it.
            let (release, released) = mpsc::channel::<()>();
            if blocking {
                drop(rt.spawn_blocking(move || {
                    let _ = released.recv_timeout(Duration::from_secs(30));
                }));
            }
            let handle = rt.handle().clone();
            let out = if inside_block_on {
                handle.block_on(async move {
                    sleep(Duration::from_millis(1)).await;
                    drop(rt);
                    "dropped"
                })
            } else {
                let dropper = handle.spawn(async move {
                    sleep(Duration::from_millis(1)).await;
                    drop(rt);
                    "dropped"
                });
                match flavor {
                    // Only a `block_on` drives a current-thread runtime.
                    Flavor::CurrentThread => handle.block_on(dropper).unwrap(),
                    Flavor::MultiThread => futures::executor::block_on(dropper).unwrap(),
                }
            };
            assert_eq!(out, "dropped");
            drop(release);
            match flavor {
                Flavor::CurrentThread => {
                    assert_eq!(drops.get(), 100, "the other tasks' futures were dropped")
                }
                Flavor::MultiThread => assert!(
                    common::eventually(Duration::from_secs(10), || drops.get() == 100),
                    "{} of 100 futures dropped",
                    drops.get()
                ),
            }
            assert_all_cancelled(joins);
            let late = futures::executor::block_on(handle.spawn(async {}));
            assert!(
                late.unwrap_err().is_cancelled(),
                "a spawn after the drop ran"
            );
        }
    });
}

/// The same from a blocking task: the blocking pool's shutdown must not
/// wait for the very thread it runs on (it did, forever). Bounded by a
/// channel, not the watchdog, so a hang fails in seconds (and leaves one
/// stuck thread).
fn dropping_the_runtime_inside_its_own_blocking_task_does_not_hang(flavor: Flavor) {
    let rt = flavor.rt();
    let drops = DropCount::new();
    let joins = spawn_pending(&rt, &drops, 10);
    let handle = rt.handle().clone();
    let (dropped, wait_dropped) = mpsc::channel();
    drop(handle.spawn_blocking(move || {
        drop(rt);
        dropped.send(()).unwrap();
    }));
    assert!(
        wait_dropped.recv_timeout(Duration::from_secs(10)).is_ok(),
        "dropping the runtime inside its own blocking task hangs"
    );
    assert_eq!(drops.get(), 10);
    assert_all_cancelled(joins);
}

// ------------------------------------------------------------ leaks

/// Builds and drops many runtimes (1,000 current-thread ones, 200
/// multi-thread ones), each running a sleep and a few tasks and timers
/// (every 20th a blocking task, every 3rd shut down by `shutdown_timeout`)
/// and leaving behind things that point back at it: the process's open
/// file descriptors and threads must not grow. Runs alone in a child
/// process, so that other tests' threads and files do not blur the counts.
fn many_runtimes_leak_no_fds_or_threads(flavor: Flavor) {
    if !isolated(&flavor.test_name("many_runtimes_leak_no_fds_or_threads")) {
        return;
    }
    let cycle = |i: usize| {
        let i = i as u64;
        let rt = flavor.rt();
        let (got, registered, leftover) = rt.block_on(async move {
            sleep(Duration::from_micros(100)).await;
            let tasks: Vec<_> = (0..4)
                .map(|k| {
                    lawn_rt::spawn(async move {
                        sleep(Duration::from_micros(50 * k)).await;
                        i + k
                    })
                })
                .collect();
            let blocking = if i % 20 == 0 {
                task::spawn_blocking(move || i).await.unwrap()
            } else {
                i
            };
            // Things that point back at the runtime when it goes: a
            // detached task on a long timer, a registered timer and a join
            // handle that outlive it.
            drop(lawn_rt::spawn(sleep(Duration::from_secs(3600))));
            let mut registered = Box::pin(sleep(Duration::from_secs(3600)));
            assert!(poll_noop(registered.as_mut()).is_pending());
            let leftover = lawn_rt::spawn(pending::<()>());
            let mut sum = blocking;
            for task in tasks {
                sum += task.await.unwrap();
            }
            (sum, registered, leftover)
        });
        assert_eq!(got, 5 * i + 6);
        match i % 3 {
            0 => rt.shutdown_timeout(Duration::from_secs(10)),
            _ => drop(rt),
        }
        drop(registered);
        assert!(futures::executor::block_on(leftover)
            .unwrap_err()
            .is_cancelled());
    };
    common::assert_no_leak_over(flavor.pick(1000, 200), "runtimes", cycle);
}

// ===========================================================================
// Current-thread runtime
// ===========================================================================

/// A join handle awaited on another thread (another executor) hears of the
/// shutdown: it reports a cancellation.
#[test]
fn a_join_handle_awaited_elsewhere_hears_of_the_shutdown() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let join = rt.spawn(pending::<()>());
    rt.block_on(yield_now());
    let (tx, rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        tx.send(()).unwrap();
        futures::executor::block_on(join)
    });
    rx.recv().unwrap();
    thread::sleep(Duration::from_millis(10)); // let it park on the handle
    drop(rt);
    let result = watchdog("join handle woken by shutdown", HANG, move || {
        waiter.join().unwrap()
    });
    assert!(result.unwrap_err().is_cancelled());
}

/// 1,000 tasks ticking intervals and sleeping: dropping their runtime
/// takes well under 5 s and drops every task's future.
#[test]
fn dropping_a_runtime_with_pending_timers_does_not_hang() {
    watchdog("drop with pending timers", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let drops = DropCount::new();
        rt.block_on(async {
            for i in 0..1000u64 {
                let tracked = drops.track();
                drop(lawn_rt::spawn(async move {
                    let _tracked = tracked;
                    let mut every = interval(Duration::from_millis(1 + i % 5));
                    loop {
                        every.tick().await;
                        sleep(Duration::from_secs(i)).await;
                    }
                }));
            }
            sleep(Duration::from_millis(20)).await;
        });
        let start = StdInstant::now();
        drop(rt);
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(drops.get(), 1000);
    });
}

/// A sleep of a dropped runtime awaited in another executor panics, saying
/// its driver has shut down.
#[test]
fn a_sleep_awaited_in_another_executor_after_shutdown_panics() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let nap = {
        let _entered = rt.enter();
        sleep(Duration::from_millis(1))
    };
    drop(rt);
    assert_panics_with(SHUT_DOWN, "sleep in futures::executor", || {
        futures::executor::block_on(nap)
    });
}

/// `shutdown_timeout` with a blocking task that does not end returns after
/// about the timeout (not before) and leaves that task running; a blocking
/// task queued behind it runs once the thread is free, after the shutdown
/// returned (as in tokio: its pool's threads run the queue before they
/// look at the shutdown).
#[test]
fn shutdown_timeout_returns_after_about_the_timeout() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let (release, done) = start_stuck_blocking(&rt);
    // Queued behind it (one thread): it runs when that thread is free.
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let queued = rt.spawn_blocking(move || flag.store(true, SeqCst));
    let start = StdInstant::now();
    rt.shutdown_timeout(Duration::from_millis(200));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(200),
        "returned early: {took:?}"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
    // The blocking task is still running; it ends when told to.
    assert!(done.try_recv().is_err());
    assert!(
        !ran.load(SeqCst),
        "the queued task ran before its thread was free"
    );
    release.send(()).unwrap();
    done.recv_timeout(HANG).unwrap();
    watchdog("the queued blocking task", HANG, move || {
        futures::executor::block_on(queued).expect("the queued blocking task ran");
    });
    assert!(ran.load(SeqCst));
}

/// `shutdown_timeout` returns as soon as the blocking tasks have ended,
/// long before a long timeout.
#[test]
fn shutdown_timeout_returns_early_when_blocking_tasks_end() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (release, done) = start_stuck_blocking(&rt);
    let releaser = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        release.send(()).unwrap();
    });
    let start = StdInstant::now();
    rt.shutdown_timeout(Duration::from_secs(60));
    assert!(start.elapsed() < Duration::from_secs(10));
    done.try_recv().unwrap();
    releaser.join().unwrap();
}

/// Dropping a runtime waits for the blocking tasks that are running.
#[test]
fn dropping_a_runtime_waits_for_running_blocking_tasks() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let finished = Arc::new(AtomicBool::new(false));
    let flag = finished.clone();
    let (started_tx, started_rx) = mpsc::channel();
    drop(rt.spawn_blocking(move || {
        started_tx.send(()).unwrap();
        thread::sleep(Duration::from_millis(50));
        flag.store(true, SeqCst);
    }));
    started_rx.recv().unwrap();
    watchdog("drop waits for blocking", HANG, move || drop(rt));
    assert!(finished.load(SeqCst));
}

/// 50 runtimes shut down with `shutdown_background`: their blocking threads
/// leave on their own, shortly after, and no fd stays open.
#[test]
fn runtimes_shut_down_in_the_background_leave_no_threads_behind() {
    if !isolated("runtimes_shut_down_in_the_background_leave_no_threads_behind") {
        return;
    }
    let fds = common::open_fds();
    let threads = common::thread_count();
    for i in 0..50 {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        assert_eq!(rt.block_on(rt.spawn_blocking(move || i)).unwrap(), i);
        rt.shutdown_background();
    }
    // Give the idle blocking threads time to see the shutdown and exit.
    let settle = StdInstant::now();
    while common::thread_count() > threads && settle.elapsed() < Duration::from_secs(10) {
        thread::sleep(Duration::from_millis(5));
    }
    assert!(
        common::thread_count() <= threads,
        "threads grew from {threads} to {}",
        common::thread_count()
    );
    assert!(
        common::open_fds() <= fds,
        "fds grew from {fds} to {}",
        common::open_fds()
    );
}

/// A runtime's blocking threads are named, and the last one left is gone
/// once the runtime is dropped.
#[test]
fn blocking_threads_are_joined_on_drop() {
    let rt = Builder::new_current_thread()
        .thread_name("rt-shutdown-join-check")
        .build()
        .unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let joins: Vec<_> = (0..4)
        .map(|_| {
            let count = count.clone();
            rt.spawn_blocking(move || {
                count.fetch_add(1, SeqCst);
                thread::sleep(Duration::from_millis(5));
            })
        })
        .collect();
    rt.block_on(async {
        for join in joins {
            join.await.unwrap();
        }
    });
    drop(rt);
    assert_eq!(count.load(SeqCst), 4);
    let named = common::thread_names()
        .iter()
        .filter(|name| name.starts_with("rt-shutdown-joi"))
        .count();
    assert_eq!(named, 0, "blocking threads outlived their runtime");
}

/// A `Gate` awaited by a task survives the runtime: opening it later does
/// nothing harmful (the task is gone, its waker dropped or inert).
#[test]
fn waking_a_task_after_shutdown_is_harmless() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let gate = Gate::<u8>::new();
    let waiting = gate.clone();
    let join = rt.spawn(async move { waiting.wait().await });
    rt.block_on(yield_now());
    drop(rt);
    gate.open(1);
    assert!(futures::executor::block_on(join)
        .unwrap_err()
        .is_cancelled());
}

/// A sleep of a dropped runtime awaited by another runtime's `block_on`
/// panics, saying its driver has shut down; the new runtime is fine.
#[test]
fn block_on_a_timer_of_a_dropped_runtime_in_a_new_one_panics() {
    let first = Builder::new_current_thread().enable_all().build().unwrap();
    let nap = {
        let _entered = first.enter();
        sleep(Duration::from_millis(1))
    };
    drop(first);
    let second = Builder::new_current_thread().enable_all().build().unwrap();
    assert_panics_with(SHUT_DOWN, "old sleep in a new runtime", || {
        second.block_on(nap)
    });
    // The new runtime is fine.
    second.block_on(sleep(Duration::from_millis(1)));
}

/// A join waker that panics while the runtime shuts its tasks down does not
/// stop the shutdown: every task's future is still dropped (those after
/// the panicking one too, although their timers keep them alive), whether
/// or not the waker's panic escapes the drop.
#[test]
fn a_join_waker_panicking_during_shutdown_does_not_stop_it_dropping_every_task() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let drops = DropCount::new();
    let mut handles = Vec::new();
    for _ in 0..8 {
        let tracked = drops.track();
        handles.push(rt.spawn(async move {
            let _tracked = tracked;
            // Kept alive by the timer's waker, not only by the runtime.
            sleep(Duration::from_secs(3600)).await;
        }));
    }
    rt.block_on(yield_now()); // every task registers its timer
    let waker = panicking_waker();
    // The first task's handle gets a waker that panics.
    assert!(poll_with(Pin::new(&mut handles[0]), &waker).is_pending());
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(rt)));
    let alive = 8 - drops.get();
    assert_eq!(
        alive, 0,
        "{alive} task futures were never dropped by the shutdown"
    );
}

std::thread_local! {
    static THREAD_RUNTIME: Runtime = Builder::new_current_thread().enable_all().build().unwrap();
}

/// A runtime kept in a `thread_local!` and used once is dropped when its
/// thread exits, after thread-locals it needs may have been destroyed
/// (they are destroyed in reverse order of first use): its drop must not
/// panic there, which would abort the process (tokio's twin of this test
/// exits cleanly). Runs in a child process, since a failure aborts.
#[test]
fn a_runtime_in_a_thread_local_is_dropped_at_thread_exit_without_aborting() {
    if !isolated("a_runtime_in_a_thread_local_is_dropped_at_thread_exit_without_aborting") {
        return;
    }
    std::thread::spawn(|| {
        THREAD_RUNTIME
            .with(|rt| rt.block_on(async { lawn_rt::time::sleep(Duration::from_millis(1)).await }));
    })
    .join()
    .unwrap();
}

// ===========================================================================
// Multi-thread runtime
// ===========================================================================

/// Dropping a multi-thread runtime joins its workers before `drop`
/// returns: no worker thread is left, the thread count is back where it
/// was, and every task was cancelled.
#[test]
fn dropping_a_multi_thread_runtime_joins_its_workers() {
    if !isolated("dropping_a_multi_thread_runtime_joins_its_workers") {
        return;
    }
    let workers = || {
        common::thread_names()
            .iter()
            .filter(|name| *name == WORKER)
            .count()
    };
    let threads = common::thread_count();
    assert_eq!(workers(), 0);
    let rt = rt2();
    // A new thread names itself once it runs.
    assert!(common::eventually(Duration::from_secs(10), || workers() == 2));
    assert_eq!(rt.block_on(rt.spawn_blocking(|| 1)).unwrap(), 1);
    let drops = DropCount::new();
    let joins = spawn_pending(&rt, &drops, 100);
    drop(rt);
    // Joined before `drop` returned: nothing to wait for.
    assert_eq!(workers(), 0, "{:?}", common::thread_names());
    assert_eq!(common::thread_count(), threads);
    assert_eq!(drops.get(), 100);
    assert_all_cancelled(joins);
}

/// Multi-thread runtimes shut down from inside one of their own tasks
/// (nobody joins their workers then) leave no worker threads behind: they
/// exit on their own.
#[test]
fn a_runtime_dropped_inside_its_own_task_lets_its_workers_exit() {
    if !isolated("a_runtime_dropped_inside_its_own_task_lets_its_workers_exit") {
        return;
    }
    let threads = common::thread_count();
    for _ in 0..20 {
        let rt = rt2();
        let handle = rt.handle().clone();
        let dropper = handle.spawn(async move { rt.shutdown_timeout(Duration::from_secs(1)) });
        futures::executor::block_on(dropper).unwrap();
    }
    // Nobody joins them, but they leave on their own.
    let gone = common::eventually(Duration::from_secs(10), || {
        common::thread_count() <= threads
    });
    assert!(
        gone,
        "worker threads left behind: {:?}",
        common::thread_names()
    );
}

/// `Handle::block_on`s waiting on plain threads when the multi-thread
/// runtime goes hear of it: one waiting on a timer panics saying the
/// driver has shut down, one waiting on a task's join handle gets a
/// cancellation.
#[test]
fn a_handle_block_on_waiting_when_the_runtime_goes_hears_of_it() {
    watchdog("block_on across shutdown", MULTI_HANG, || {
        let rt = rt2();
        let (started, wait_started) = mpsc::channel();
        let on_timer = {
            let handle = rt.handle().clone();
            let started = started.clone();
            thread::spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    handle.block_on(async {
                        let nap = sleep(Duration::from_secs(3600));
                        started.send(()).unwrap();
                        nap.await
                    })
                }));
                common::panic_message(&*result.unwrap_err())
            })
        };
        let on_task = {
            let handle = rt.handle().clone();
            thread::spawn(move || {
                let join = handle.spawn(pending::<()>());
                started.send(()).unwrap();
                handle.block_on(join)
            })
        };
        wait_started.recv().unwrap();
        wait_started.recv().unwrap();
        thread::sleep(Duration::from_millis(10)); // let them park
        drop(rt);
        let message = on_timer.join().unwrap();
        assert!(message.contains(SHUT_DOWN), "{message:?}");
        assert!(on_task.join().unwrap().unwrap_err().is_cancelled());
    });
}

/// `Runtime::enter`'s guard borrows the runtime only until its last use,
/// as tokio's does: the runtime can be shut down (moved) while the guard
/// is alive, and the guard's drop afterwards restores the context.
#[test]
fn a_runtime_can_be_shut_down_while_entered() {
    for rt in [
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap(),
    ] {
        let _entered = rt.enter();
        rt.shutdown_timeout(Duration::from_millis(100));
    }
    assert!(lawn_rt::runtime::Handle::try_current().is_err());
}

/// `shutdown_timeout(Duration::MAX)` waits as long as the blocking tasks
/// take, on both flavors, where adding it to an instant would overflow.
#[test]
fn shutdown_timeout_of_duration_max_waits_for_the_blocking_tasks() {
    for rt in [
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ] {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        rt.spawn_blocking(move || {
            thread::sleep(Duration::from_millis(20));
            flag.store(true, SeqCst);
        });
        rt.shutdown_timeout(Duration::MAX);
        assert!(done.load(SeqCst), "returned before the blocking task ended");
    }
}

/// A sleep polled through the handle of a runtime that has shut down
/// panics with tokio's words first (a ported `should_panic` test matches
/// on them), then what lawn_rt adds.
#[test]
fn a_sleep_after_shutdown_panics_with_tokios_words() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let _entered = rt.enter();
    rt.shutdown_timeout(Duration::from_secs(10));
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handle.block_on(sleep(Duration::from_millis(10)));
    }))
    .expect_err("no panic");
    let message = panicked
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panicked.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        message.starts_with("A Tokio 1.x context was found, but it is being shutdown. (lawn_rt: "),
        "{message:?}"
    );
}
