//! `RuntimeFlavor` and `Handle::runtime_flavor`; `Builder::on_thread_start`
//! and `on_thread_stop`: run once each, on the thread itself, on every
//! thread a runtime starts (multi-thread workers, a thread a
//! `block_in_place` hand-off starts, blocking-pool threads of either
//! flavor) and never on the `block_on` thread; the start hook before the
//! thread's first work, the stop hook after its last, both with the
//! runtime entered; every stop hook has run when the runtime's drop
//! returns, and an idle blocking thread's runs when it leaves; a second
//! call replaces the hook; a panicking hook does not take the runtime
//! down.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Barrier, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

use common::{eventually, watchdog};
use lawn_rt::runtime::{Builder, Handle, RuntimeFlavor};
use lawn_rt::task;

const HANG: Duration = Duration::from_secs(60);

#[test]
fn runtime_flavor_names_the_scheduler() {
    let current = Builder::new_current_thread().build().unwrap();
    assert_eq!(
        current.handle().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
    assert_eq!(
        current.block_on(async { Handle::current().runtime_flavor() }),
        RuntimeFlavor::CurrentThread
    );
    let multi = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    assert_eq!(multi.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
    let in_task = multi.block_on(multi.spawn(async { Handle::current().runtime_flavor() }));
    assert_eq!(in_task.unwrap(), RuntimeFlavor::MultiThread);
    assert_eq!(
        lawn_rt::runtime::Runtime::new()
            .unwrap()
            .handle()
            .runtime_flavor(),
        RuntimeFlavor::MultiThread
    );
    assert_eq!(
        format!("{:?}", RuntimeFlavor::CurrentThread),
        "CurrentThread"
    );
    assert_ne!(RuntimeFlavor::CurrentThread, RuntimeFlavor::MultiThread);
}

/// What the hooks saw, per thread.
#[derive(Default)]
struct Seen {
    /// Per thread: (starts, stops, its name).
    threads: Mutex<HashMap<ThreadId, (usize, usize, String)>>,
    /// Hooks that ran without the runtime entered, or with the wrong one.
    outside: AtomicUsize,
}

impl Seen {
    fn record(&self, flavor: RuntimeFlavor, start: bool) {
        let entered = Handle::try_current().map(|h| h.runtime_flavor());
        if entered.ok() != Some(flavor) {
            self.outside.fetch_add(1, SeqCst);
        }
        let me = thread::current();
        let mut threads = self.threads.lock().unwrap();
        let entry = threads
            .entry(me.id())
            .or_insert_with(|| (0, 0, me.name().unwrap_or("").to_string()));
        if start {
            assert_eq!(entry.1, 0, "a start after the thread's stop");
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
        HOOKED.with(|hooked| hooked.store(start, SeqCst));
    }

    fn starts(&self) -> usize {
        self.threads.lock().unwrap().values().map(|t| t.0).sum()
    }

    fn stops(&self) -> usize {
        self.threads.lock().unwrap().values().map(|t| t.1).sum()
    }

    /// Every thread ran each hook exactly once.
    fn assert_balanced(&self) {
        let threads = self.threads.lock().unwrap();
        for (id, (starts, stops, name)) in threads.iter() {
            assert_eq!((*starts, *stops), (1, 1), "{name} ({id:?})");
        }
        assert_eq!(
            self.outside.load(SeqCst),
            0,
            "a hook ran outside its runtime"
        );
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<_> = self
            .threads
            .lock()
            .unwrap()
            .values()
            .map(|t| t.2.clone())
            .collect();
        names.sort();
        names
    }
}

thread_local! {
    /// Set by the start hook on its thread (cleared by the stop hook).
    static HOOKED: AtomicBool = const { AtomicBool::new(false) };
}

/// Whether this thread's start hook has run.
fn hooked_here() -> bool {
    HOOKED.with(|hooked| hooked.load(SeqCst))
}

/// A builder of `flavor` with both hooks recording into `seen`.
fn hooked(flavor: RuntimeFlavor, seen: &Arc<Seen>) -> Builder {
    let mut builder = match flavor {
        RuntimeFlavor::CurrentThread => Builder::new_current_thread(),
        _ => {
            let mut builder = Builder::new_multi_thread();
            builder.worker_threads(3);
            builder
        }
    };
    let on_start = seen.clone();
    let on_stop = seen.clone();
    builder
        .enable_all()
        .on_thread_start(move || on_start.record(flavor, true))
        .on_thread_stop(move || on_stop.record(flavor, false));
    builder
}

/// Runs `n` blocking tasks at once (so on `n` threads), each asserting
/// that its thread's start hook ran before it.
async fn blocking_at_once(n: usize) {
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let barrier = barrier.clone();
            task::spawn_blocking(move || {
                assert!(hooked_here(), "the start hook runs before the work");
                barrier.wait();
            })
        })
        .collect();
    for handle in handles {
        handle.await.unwrap();
    }
}

#[test]
fn multi_thread_workers_and_blocking_threads_run_both_hooks() {
    watchdog("multi hooks", HANG, || {
        let seen = Arc::new(Seen::default());
        let rt = hooked(RuntimeFlavor::MultiThread, &seen)
            .thread_name("hooked")
            .build()
            .unwrap();
        assert!(eventually(HANG, || seen.starts() == 3), "three workers");
        let on_workers = rt.block_on(async {
            assert!(!hooked_here(), "no hook on the block_on thread");
            let tasks: Vec<_> = (0..20)
                .map(|_| {
                    task::spawn(async {
                        task::yield_now().await;
                        hooked_here()
                    })
                })
                .collect();
            let mut all = true;
            for task in tasks {
                all &= task.await.unwrap();
            }
            blocking_at_once(2).await;
            all
        });
        assert!(on_workers, "tasks run on hooked workers");
        assert_eq!(seen.starts(), 5, "three workers, two blocking threads");
        assert_eq!(seen.stops(), 0, "nothing stopped yet");
        drop(rt);
        assert_eq!(
            seen.stops(),
            5,
            "every thread stopped when the drop returns"
        );
        seen.assert_balanced();
        assert!(!seen
            .threads
            .lock()
            .unwrap()
            .contains_key(&thread::current().id()));
        assert_eq!(seen.names(), ["hooked"; 5]);
    });
}

#[test]
fn current_thread_blocking_threads_run_both_hooks() {
    watchdog("current hooks", HANG, || {
        let seen = Arc::new(Seen::default());
        let rt = hooked(RuntimeFlavor::CurrentThread, &seen).build().unwrap();
        rt.block_on(async {
            task::spawn(async {}).await.unwrap();
            assert_eq!(seen.starts(), 0, "no thread yet: tasks run here");
            blocking_at_once(3).await;
        });
        assert_eq!(seen.starts(), 3);
        drop(rt);
        assert_eq!(seen.stops(), 3);
        seen.assert_balanced();
        assert_eq!(seen.names(), ["lawn-rt-blocking"; 3]);
    });
}

/// A blocking thread that idles out its keep-alive runs its stop hook as
/// it leaves, long before the runtime's drop; the next blocking task gets
/// a new thread, which runs the start hook.
#[test]
fn an_idle_blocking_thread_runs_the_stop_hook_as_it_leaves() {
    watchdog("keep-alive", HANG, || {
        let seen = Arc::new(Seen::default());
        let rt = hooked(RuntimeFlavor::CurrentThread, &seen)
            .thread_keep_alive(Duration::from_millis(20))
            .build()
            .unwrap();
        rt.block_on(rt.spawn_blocking(|| ())).unwrap();
        assert!(
            eventually(HANG, || seen.stops() == 1),
            "left after its keep-alive"
        );
        rt.block_on(rt.spawn_blocking(|| assert!(hooked_here())))
            .unwrap();
        assert_eq!(seen.starts(), 2);
        drop(rt);
        assert_eq!(seen.stops(), 2);
        seen.assert_balanced();
    });
}

/// `block_in_place` hands a worker to a new thread: that thread runs the
/// start hook, and both it and the thread left behind stop by the drop.
#[test]
fn a_hand_off_thread_runs_both_hooks() {
    watchdog("hand-off hooks", HANG, || {
        let seen = Arc::new(Seen::default());
        let rt = hooked(RuntimeFlavor::MultiThread, &seen).build().unwrap();
        assert!(eventually(HANG, || seen.starts() == 3));
        rt.block_on(async {
            task::spawn(async {
                task::block_in_place(|| thread::sleep(Duration::from_millis(5)));
                task::yield_now().await;
            })
            .await
            .unwrap();
        });
        assert!(
            eventually(HANG, || seen.starts() >= 4),
            "the new worker thread ran the start hook"
        );
        drop(rt);
        assert_eq!(seen.stops(), seen.starts());
        seen.assert_balanced();
    });
}

#[test]
fn a_second_call_replaces_the_hook() {
    let first = Arc::new(AtomicUsize::new(0));
    let second = Arc::new(AtomicUsize::new(0));
    let (a, b) = (first.clone(), second.clone());
    let mut builder = Builder::new_current_thread();
    builder
        .on_thread_start(move || {
            a.fetch_add(1, SeqCst);
        })
        .on_thread_start(move || {
            b.fetch_add(1, SeqCst);
        });
    // A clone of the builder keeps the hook.
    let clone = builder.clone();
    for mut builder in [builder, clone] {
        let rt = builder.build().unwrap();
        rt.block_on(rt.spawn_blocking(|| ())).unwrap();
    }
    assert_eq!(first.load(SeqCst), 0);
    assert_eq!(second.load(SeqCst), 2);
    assert!(
        format!("{:?}", Builder::new_current_thread().on_thread_stop(|| ()))
            .contains("on_thread_stop: true")
    );
}

/// Hooks that panic (reported by the panic hook) do not stop the threads
/// from working, nor the runtime from shutting down.
#[test]
fn panicking_hooks_leave_the_runtime_working() {
    watchdog("panicking hooks", HANG, || {
        for flavor in [RuntimeFlavor::CurrentThread, RuntimeFlavor::MultiThread] {
            let mut builder = match flavor {
                RuntimeFlavor::CurrentThread => Builder::new_current_thread(),
                _ => Builder::new_multi_thread(),
            };
            let rt = builder
                .worker_threads(2)
                .enable_all()
                .on_thread_start(|| panic!("start hook panics (on purpose)"))
                .on_thread_stop(|| panic!("stop hook panics (on purpose)"))
                .build()
                .unwrap();
            let out = rt.block_on(async {
                let task = task::spawn(async {
                    lawn_rt::time::sleep(lawn_rt::time::Duration::from_millis(1)).await;
                    1
                });
                let blocking = task::spawn_blocking(|| 2);
                task.await.unwrap() + blocking.await.unwrap()
            });
            assert_eq!(out, 3, "{flavor:?}");
            drop(rt);
        }
    });
}
