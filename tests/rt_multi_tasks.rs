//! Tasks on the multi-thread runtime beyond spawn and join:
//! `spawn_blocking` (on the blocking pool, while the workers go on),
//! `yield_now` (timers and other tasks get in), `abort` from anywhere, a
//! panicking task (a `JoinError`, the workers go on), and a waker that
//! `yield_now` defers and that panics (the worker must survive it).
//!
//! Everything that could hang runs under a watchdog.

mod common;

use std::future::{pending, Future};
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::thread;

use common::{current_thread, multi_thread_runtime, watchdog, DropCount, Rendezvous};
use lawn_rt::runtime::{Builder, Runtime};
use lawn_rt::task::{self, yield_now};
use lawn_rt::time::{sleep, Duration};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(60);
/// How long a task waits for another to turn up on another worker.
const MEET: Duration = Duration::from_secs(10);

fn rt2() -> Runtime {
    multi_thread_runtime(2)
}

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
