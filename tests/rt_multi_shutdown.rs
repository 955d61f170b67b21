//! Shutting a multi-thread runtime down: every task's future is dropped,
//! the workers are joined, nothing leaks over many runtimes; dropping it
//! from inside one of its own tasks does not hang; timers, `block_on`s and
//! handles that outlive it fail clearly or are cancelled.
//!
//! Thread and file-descriptor counts run in a child process ([`isolated`])
//! so other tests' threads do not blur them. Everything that could hang
//! runs under a watchdog.

mod common;

use std::future::pending;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Instant as StdInstant;

use common::{
    assert_panics_with, counting_waker, isolated, multi_thread_runtime, poll_noop, watchdog,
    DropCount,
};
use lawn_rt::runtime::{Builder, Runtime};
use lawn_rt::task::{self, yield_now};
use lawn_rt::time::{interval, sleep, timeout, Duration};

const HANG: Duration = Duration::from_secs(60);
const SHUT_DOWN: &str = "timer driver has shut down";
const WORKER: &str = "lawn-rt-worker";

fn rt2() -> Runtime {
    multi_thread_runtime(2)
}

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
fn spawn_pending(
    rt: &Runtime,
    drops: &Arc<DropCount>,
    n: u64,
) -> Vec<lawn_rt::task::JoinHandle<()>> {
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
fn assert_all_cancelled(joins: Vec<lawn_rt::task::JoinHandle<()>>) {
    for join in joins {
        let err = futures::executor::block_on(join).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
    }
}

// ------------------------------------------------------------- dropping

#[test]
fn dropping_a_multi_thread_runtime_drops_every_task_future() {
    watchdog("drop with pending tasks", HANG, || {
        let rt = rt2();
        let drops = DropCount::new();
        let joins = spawn_pending(&rt, &drops, 1000);
        assert_eq!(drops.get(), 0);
        let start = StdInstant::now();
        drop(rt);
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(drops.get(), 1000, "a task's future outlived its runtime");
        assert!(joins.iter().all(|join| join.is_finished()));
        assert_all_cancelled(joins);
    });
}

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

/// Builds and drops 200 multi-thread runtimes, each running a few tasks
/// and timers (every 20th a blocking task, every 3rd shut down by
/// `shutdown_timeout`): the open file descriptors and threads must not
/// grow.
#[test]
fn two_hundred_multi_thread_runtimes_leak_no_fds_or_threads() {
    if !isolated("two_hundred_multi_thread_runtimes_leak_no_fds_or_threads") {
        return;
    }
    let cycle = |i: usize| {
        let i = i as u64;
        let rt = rt2();
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
    common::assert_no_leak_over(200, "runtimes", cycle);
}

#[test]
fn futures_dropped_at_shutdown_may_spawn_and_make_timers() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let rt = rt2();
    let record = seen.clone();
    let guard = OnDrop(move || {
        // The runtime's context is there while its tasks are dropped, but
        // it is closing: new tasks are cancelled at once.
        let spawned = futures::executor::block_on(lawn_rt::spawn(async { "never runs" }));
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
        sleep(Duration::from_millis(2)).await;
    });
    watchdog("drop runtime", HANG, move || drop(rt));
    assert_eq!(*seen.lock().unwrap(), [true, true]);
}

// -------------------------------------------- dropped from its own task

#[test]
fn dropping_the_runtime_inside_its_own_task_does_not_hang() {
    watchdog("drop inside a task", HANG, || {
        for blocking in [false, true] {
            let rt = rt2();
            let drops = DropCount::new();
            let joins = spawn_pending(&rt, &drops, 100);
            // A blocking task still running when the runtime goes: its
            // shutdown waits for it, on a worker.
            let (release, released) = mpsc::channel::<()>();
            if blocking {
                drop(rt.spawn_blocking(move || {
                    let _ = released.recv_timeout(Duration::from_secs(30));
                }));
            }
            let handle = rt.handle().clone();
            let dropper = handle.spawn(async move {
                sleep(Duration::from_millis(1)).await;
                drop(rt);
                "dropped"
            });
            let out = futures::executor::block_on(dropper);
            assert_eq!(out.unwrap(), "dropped");
            drop(release);
            // The last worker out drops the other tasks' futures.
            assert!(
                common::eventually(Duration::from_secs(10), || drops.get() == 100),
                "{} of 100 futures dropped",
                drops.get()
            );
            assert_all_cancelled(joins);
            // Spawning on it now is cancelled at once.
            let late = futures::executor::block_on(handle.spawn(async {}));
            assert!(late.unwrap_err().is_cancelled());
        }
    });
}

/// The same from a blocking task: the blocking pool's shutdown must not
/// wait for the very thread it runs on. Bounded by a channel, not the
/// watchdog, so a hang fails in seconds (and leaves one stuck thread).
#[test]
fn dropping_the_runtime_inside_its_own_blocking_task_does_not_hang() {
    let rt = rt2();
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

// ------------------------------------------------- what outlives it

#[test]
fn timers_used_after_their_multi_thread_runtime_is_gone_panic_clearly() {
    let rt = rt2();
    // Filed on a worker's shard by a task, then handed out.
    let (mut registered, mut ticker, mut timed) = rt
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
    // Made on this thread with the runtime entered, never polled.
    let mut unpolled = {
        let _entered = rt.enter();
        Box::pin(sleep(Duration::from_millis(10)))
    };
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
    assert_panics_with("runtime was dropped", "sleep", || {
        poll_noop(unpolled.as_mut())
    });
    // Dropping them is fine.
    drop((unpolled, registered, ticker, timed));
}

#[test]
fn pending_timers_wakers_are_released_at_shutdown() {
    let rt = rt2();
    // Registered from this thread (on the shard it was given) and from
    // tasks on the workers.
    let (counter, waker) = counting_waker();
    let mut here = Box::pin({
        let _entered = rt.enter();
        sleep(Duration::from_secs(3600))
    });
    assert!(common::poll_with(here.as_mut(), &waker).is_pending());
    let in_tasks: Vec<_> = (0..8)
        .map(|_| {
            let waker = waker.clone();
            // The task hands its timer out on purpose.
            #[allow(clippy::async_yields_async)]
            let nap = rt.block_on(rt.spawn(async move {
                let mut nap = Box::pin(sleep(Duration::from_secs(3600)));
                assert!(common::poll_with(nap.as_mut(), &waker).is_pending());
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
        "a dead shard kept a pending timer's waker"
    );
    drop((here, in_tasks));
}

#[test]
fn a_handle_block_on_waiting_when_the_runtime_goes_hears_of_it() {
    watchdog("block_on across shutdown", HANG, || {
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

fn spawning_after_shutdown_is_cancelled(shut_down: impl FnOnce(Runtime)) {
    let rt = rt2();
    let handle = rt.handle().clone();
    shut_down(rt);
    let drops = DropCount::new();
    let tracked = drops.track();
    let join = handle.spawn(async move {
        let _tracked = tracked;
        "never"
    });
    assert_eq!(drops.get(), 1, "the future is dropped at once");
    assert!(futures::executor::block_on(join)
        .unwrap_err()
        .is_cancelled());
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    let join = handle.spawn_blocking(move || flag.store(true, SeqCst));
    assert!(futures::executor::block_on(join)
        .unwrap_err()
        .is_cancelled());
    assert!(!ran.load(SeqCst));
}

#[test]
fn spawning_on_a_handle_after_any_shutdown_is_cancelled() {
    spawning_after_shutdown_is_cancelled(drop);
    spawning_after_shutdown_is_cancelled(|rt| rt.shutdown_timeout(Duration::from_secs(1)));
    spawning_after_shutdown_is_cancelled(Runtime::shutdown_background);
}

#[test]
fn shutdown_background_returns_at_once_with_a_blocking_task_running() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (release, released) = mpsc::channel::<()>();
    let (started, wait_started) = mpsc::channel();
    let (done, wait_done) = mpsc::channel();
    drop(rt.spawn_blocking(move || {
        started.send(()).unwrap();
        let _ = released.recv_timeout(Duration::from_secs(30));
        done.send(()).unwrap();
    }));
    wait_started.recv().unwrap();
    let drops = DropCount::new();
    let joins = spawn_pending(&rt, &drops, 10);
    let start = StdInstant::now();
    rt.shutdown_background();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(drops.get(), 10, "tasks are dropped all the same");
    assert_all_cancelled(joins);
    assert!(wait_done.try_recv().is_err());
    release.send(()).unwrap();
    wait_done.recv_timeout(HANG).unwrap();
}

#[test]
fn spawning_from_another_thread_during_shutdown_never_hangs_or_leaks() {
    watchdog("spawn racing shutdown", HANG, || {
        for _ in 0..20 {
            let rt = rt2();
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
