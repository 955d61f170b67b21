//! Shutting a runtime down: dropping it, `shutdown_timeout`,
//! `shutdown_background`; what happens to tasks, timers, handles and
//! blocking tasks afterwards; and that building and dropping many runtimes
//! leaks neither file descriptors nor threads.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant as StdInstant;

use common::{assert_panics_with, counting_waker, poll_noop, watchdog, DropCount, Gate};
use lawn_rt::runtime::{Builder, Runtime};
use lawn_rt::task::{self, yield_now};
use lawn_rt::time::{interval, sleep, timeout, Duration};

const HANG: Duration = Duration::from_secs(20);
const SHUT_DOWN: &str = "timer driver has shut down";

/// Runs `on_drop` when dropped.
struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

#[test]
fn dropping_a_runtime_drops_every_task_future() {
    let (drops, joins) = watchdog("drop with pending tasks", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let drops = DropCount::new();
        let mut joins = Vec::new();
        // Tasks that never ran: nothing drove the runtime yet.
        for _ in 0..50 {
            let tracked = drops.track();
            joins.push(rt.spawn(async move {
                let _tracked = tracked;
                std::future::pending::<()>().await;
            }));
        }
        rt.block_on(async {
            // Tasks parked on nothing, and tasks parked on long timers.
            for i in 0..100 {
                let tracked = drops.track();
                joins.push(lawn_rt::spawn(async move {
                    let _tracked = tracked;
                    if i % 2 == 0 {
                        std::future::pending::<()>().await;
                    } else {
                        sleep(Duration::from_secs(3600 + i)).await;
                    }
                }));
            }
            yield_now().await;
            yield_now().await;
        });
        assert_eq!(drops.get(), 0);
        drop(rt);
        (drops, joins)
    });
    assert_eq!(drops.get(), 150, "a task's future outlived its runtime");
    for join in joins {
        assert!(join.is_finished());
        let err = futures::executor::block_on(join).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
    }
}

#[test]
fn a_join_handle_awaited_elsewhere_hears_of_the_shutdown() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let join = rt.spawn(std::future::pending::<()>());
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

#[test]
fn futures_dropped_at_shutdown_may_spawn_and_make_timers() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
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
            std::future::pending::<()>().await;
        }));
        yield_now().await;
    });
    watchdog("drop runtime", HANG, move || drop(rt));
    assert_eq!(*seen.lock().unwrap(), [true, true]);
}

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

#[test]
fn a_pending_timers_waker_is_released_at_shutdown() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (counter, waker) = counting_waker();
    let mut nap = Box::pin({
        let _entered = rt.enter();
        sleep(Duration::from_secs(3600))
    });
    assert!(common::poll_with(nap.as_mut(), &waker).is_pending());
    drop(waker);
    assert_eq!(Arc::strong_count(&counter), 2, "the driver holds the waker");
    drop(rt);
    assert_eq!(
        Arc::strong_count(&counter),
        1,
        "the dead driver kept a pending timer's waker"
    );
    // Dropping the timer afterwards is fine.
    drop(nap);
}

#[test]
fn a_sleep_polled_after_its_runtime_is_gone_panics_clearly() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (mut unpolled, mut registered, mut ticker, mut timed) = {
        let _entered = rt.enter();
        (
            Box::pin(sleep(Duration::from_millis(10))),
            Box::pin(sleep(Duration::from_secs(3600))),
            interval(Duration::from_millis(10)),
            Box::pin(timeout(
                Duration::from_secs(3600),
                std::future::pending::<()>(),
            )),
        )
    };
    rt.block_on(async {
        assert!(poll_noop(registered.as_mut()).is_pending());
        ticker.tick().await;
        assert!(poll_noop(timed.as_mut()).is_pending());
    });
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
    // And the panic says what to make of it.
    assert_panics_with("runtime was dropped", "sleep", || {
        poll_noop(unpolled.as_mut())
    });
    // Dropping them is fine.
    drop((unpolled, registered, ticker, timed));
}

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

#[test]
fn shutdown_timeout_returns_after_about_the_timeout() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let (release, done) = start_stuck_blocking(&rt);
    // Queued behind it (one thread): cancelled by the shutdown.
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
    release.send(()).unwrap();
    done.recv_timeout(HANG).unwrap();
    let err = futures::executor::block_on(queued).unwrap_err();
    assert!(err.is_cancelled());
    assert!(
        !ran.load(SeqCst),
        "a queued blocking task ran after shutdown"
    );
}

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

#[test]
fn shutdown_background_returns_at_once() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (release, done) = start_stuck_blocking(&rt);
    let drops = DropCount::new();
    let tracked = drops.track();
    drop(rt.spawn(async move {
        let _tracked = tracked;
        sleep(Duration::from_secs(3600)).await;
    }));
    let start = StdInstant::now();
    rt.shutdown_background();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert_eq!(drops.get(), 1, "tasks are dropped all the same");
    assert!(done.try_recv().is_err());
    release.send(()).unwrap();
    done.recv_timeout(HANG).unwrap();
}

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

fn spawning_after_shutdown_is_cancelled(shut_down: impl FnOnce(Runtime)) {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
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

#[test]
fn spawning_on_a_handle_after_drop_is_cancelled() {
    spawning_after_shutdown_is_cancelled(drop);
}

#[test]
fn spawning_on_a_handle_after_shutdown_timeout_is_cancelled() {
    spawning_after_shutdown_is_cancelled(|rt| rt.shutdown_timeout(Duration::from_secs(1)));
}

#[test]
fn spawning_on_a_handle_after_shutdown_background_is_cancelled() {
    spawning_after_shutdown_is_cancelled(Runtime::shutdown_background);
}

#[test]
fn spawning_from_another_thread_during_shutdown_never_hangs_or_leaks() {
    watchdog("spawn racing shutdown", HANG, || {
        for _ in 0..20 {
            let rt = Builder::new_current_thread().enable_all().build().unwrap();
            let handle = rt.handle().clone();
            let drops = DropCount::new();
            let spawner = {
                let drops = drops.clone();
                thread::spawn(move || {
                    let mut joins = Vec::new();
                    for _ in 0..200 {
                        let tracked = drops.track();
                        joins.push(handle.spawn(async move {
                            let _tracked = tracked;
                            std::future::pending::<()>().await;
                        }));
                    }
                    joins
                })
            };
            rt.block_on(yield_now());
            drop(rt);
            let joins = spawner.join().unwrap();
            // Every task spawned is dropped: by the shutdown, or at once
            // if it came after.
            assert_eq!(drops.get(), 200);
            for join in joins {
                assert!(futures::executor::block_on(join)
                    .unwrap_err()
                    .is_cancelled());
            }
        }
    });
}

/// Builds and drops 1,000 runtimes, each running a small sleep and a task
/// (and every 100th a blocking task): the process's open file descriptors
/// and threads must not grow. Runs alone in a child process, so that other
/// tests' threads and files do not blur the counts.
#[test]
fn a_thousand_runtimes_leak_no_fds_or_threads() {
    if !common::isolated("a_thousand_runtimes_leak_no_fds_or_threads") {
        return;
    }
    let cycle = |i: usize| {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let (got, registered, leftover) = rt.block_on(async move {
            sleep(Duration::from_micros(100)).await;
            let task = lawn_rt::spawn(async move {
                sleep(Duration::from_micros(50)).await;
                i
            });
            let blocking = if i % 100 == 0 {
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
            let leftover = lawn_rt::spawn(std::future::pending::<()>());
            (task.await.unwrap() + blocking, registered, leftover)
        });
        assert_eq!(got, 2 * i);
        match i % 300 {
            100 => rt.shutdown_timeout(Duration::from_secs(10)),
            _ => drop(rt),
        }
        drop(registered);
        assert!(futures::executor::block_on(leftover)
            .unwrap_err()
            .is_cancelled());
    };
    common::assert_no_leak_over(1000, "runtimes", cycle);
}

/// The same with `shutdown_background`: its blocking threads leave on their
/// own, shortly after.
#[test]
fn runtimes_shut_down_in_the_background_leave_no_threads_behind() {
    if !common::isolated("runtimes_shut_down_in_the_background_leave_no_threads_behind") {
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
    let named = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim_end().starts_with("rt-shutdown-joi"))
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

/// A blocking task that drops its own runtime: the blocking pool's
/// shutdown must not wait for the very thread it runs on (it did, forever).
#[test]
fn dropping_the_runtime_inside_its_own_blocking_task_does_not_hang() {
    watchdog("drop runtime in its blocking task", HANG, || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let handle = rt.handle().clone();
        let (done, done_rx) = mpsc::channel();
        let join = handle.spawn_blocking(move || {
            drop(rt);
            done.send(()).unwrap();
        });
        done_rx
            .recv()
            .expect("the blocking task dropped its runtime and went on");
        drop(join);
    });
}

// -------------------------------------------- dropped from its own task

/// A current-thread runtime dropped inside one of its own tasks (or inside
/// a `block_on` future, through a handle) neither hangs nor loses its
/// shutdown: the task that dropped it completes, and once the thread stops
/// driving, every other task's future is dropped and a later spawn is
/// cancelled at once, as on the multi-thread runtime.
#[test]
fn dropping_the_runtime_inside_its_own_task_does_not_hang() {
    watchdog("drop inside a task", HANG, || {
        for inside_block_on in [false, true] {
            let rt = Builder::new_current_thread().enable_all().build().unwrap();
            let handle = rt.handle().clone();
            let drops = DropCount::new();
            let others: Vec<_> = (0..10)
                .map(|_| {
                    let tracked = drops.track();
                    handle.spawn(async move {
                        let _tracked = tracked;
                        sleep(Duration::from_secs(3600)).await;
                    })
                })
                .collect();
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
                handle.block_on(dropper).unwrap()
            };
            assert_eq!(out, "dropped");
            assert_eq!(drops.get(), 10, "the other tasks' futures were dropped");
            for other in others {
                let joined = futures::executor::block_on(other);
                assert!(joined.unwrap_err().is_cancelled());
            }
            let late = futures::executor::block_on(handle.spawn(async {}));
            assert!(
                late.unwrap_err().is_cancelled(),
                "a spawn after the drop ran"
            );
        }
    });
}
