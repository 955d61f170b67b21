//! `task_local!` and `task::LocalKey`: scopes nest and restore the outer
//! value; a value follows its task across awaits and across workers of a
//! multi-thread runtime (a migration forced with `block_in_place`) while
//! tasks with other values share the threads; `try_with`/`try_get` outside
//! every scope, and `with`/`get` panicking there at the caller's line; a
//! panic inside a scope's poll (or a `sync_scope`'s closure) puts the
//! previous value back; the inner future's `Drop` sees the value (dropped
//! mid-flight, aborted, or at completion), before the value itself drops;
//! `sync_scope`; a scope entered inside the key's own `with` panics;
//! `take_value`; and all of it without a lawn_rt runtime, under
//! `futures::executor::block_on`.
//!
//! (`tests/task_local.rs` is `LocalSet`'s: task-*local* tasks.)

mod common;

use std::cell::RefCell;
use std::collections::HashSet;
use std::future::{pending, Future};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread;

use common::{catch_panic_site, poll_noop, watchdog, Flavor};
use lawn_rt::runtime::Builder;
use lawn_rt::task::{self, AccessError, LocalKey, TaskLocalFuture};
use lawn_rt::time::{sleep, Duration};

lawn_rt::task_local! {
    static NUMBER: u32;
    static NAME: String;
}

// Declared with attributes and visibility, several in one invocation, and
// without a trailing semicolon.
lawn_rt::task_local! {
    /// Documented.
    pub static DOCUMENTED: u8;
    #[allow(dead_code)]
    pub(crate) static UNUSED: Vec<u8>
}

/// Long enough that a test hitting it has hung.
const HANG: std::time::Duration = std::time::Duration::from_secs(30);

#[test]
fn scopes_nest_and_restore_the_outer_value() {
    futures::executor::block_on(NUMBER.scope(1, async {
        assert_eq!(NUMBER.get(), 1);
        let inner = NUMBER
            .scope(2, async {
                assert_eq!(NUMBER.get(), 2);
                NUMBER.scope(3, async { NUMBER.get() }).await
            })
            .await;
        assert_eq!(inner, 3);
        assert_eq!(NUMBER.get(), 1, "the outer value is back");
        // Another key is independent of this one.
        assert!(NAME.try_with(|_| ()).is_err());
        NAME.scope("n".to_string(), async {
            assert_eq!(NAME.get(), "n");
            assert_eq!(NUMBER.get(), 1);
        })
        .await;
        assert!(DOCUMENTED.try_get().is_err());
        assert_eq!(DOCUMENTED.sync_scope(8, || DOCUMENTED.get()), 8);
    }));
    assert!(NUMBER.try_get().is_err(), "nothing left set");
}

/// The value is the future's, not the thread's: two scopes of one key
/// polled in turn on one thread each see their own value across their
/// awaits.
#[test]
fn interleaved_scopes_on_one_thread_see_their_own_values() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let handles: Vec<_> = (0..20u32)
            .map(|i| {
                task::spawn(NUMBER.scope(i, async move {
                    for _ in 0..10 {
                        assert_eq!(NUMBER.get(), i);
                        task::yield_now().await;
                    }
                    NUMBER.get()
                }))
            })
            .collect();
        for (i, handle) in handles.into_iter().enumerate() {
            assert_eq!(handle.await.unwrap(), i as u32);
        }
        // The root future (no scope) sees none, between all those polls.
        assert!(NUMBER.try_get().is_err());
    });
}

/// On a multi-thread runtime: 40 tasks with their own values run across
/// both workers, sleeping and yielding, and always see their own value;
/// one is made to change threads (`block_in_place` hands its worker to a
/// new thread, so after its next await another thread polls it) and keeps
/// its value, inside `block_in_place` too.
#[test]
fn the_value_follows_a_task_across_threads() {
    watchdog("migration", HANG, || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let threads = Arc::new(Mutex::new(HashSet::new()));
            let mut handles = Vec::new();
            for i in 0..40u32 {
                let threads = threads.clone();
                handles.push(task::spawn(NUMBER.scope(i, async move {
                    for round in 0..20u64 {
                        assert_eq!(NUMBER.get(), i);
                        threads.lock().unwrap().insert(thread::current().id());
                        if round % 2 == 0 {
                            task::yield_now().await;
                        } else {
                            sleep(Duration::from_micros(100 * (round % 5))).await;
                        }
                    }
                    NUMBER.get()
                })));
            }

            let migrating = task::spawn(NUMBER.scope(1000, async {
                let before = thread::current().id();
                let inside = task::block_in_place(|| (thread::current().id(), NUMBER.get()));
                assert_eq!(
                    inside,
                    (before, 1000),
                    "block_in_place runs here, in the scope"
                );
                task::yield_now().await;
                let after = thread::current().id();
                (before, after, NUMBER.get())
            }));

            for (i, handle) in handles.into_iter().enumerate() {
                assert_eq!(handle.await.unwrap(), i as u32);
            }
            let (before, after, value) = migrating.await.unwrap();
            assert_ne!(before, after, "the task moved to another thread");
            assert_eq!(value, 1000, "and its value with it");
            assert!(
                threads.lock().unwrap().len() >= 2,
                "the scoped tasks ran on both workers"
            );
        });
    });
}

/// A task spawned from inside a scope does not inherit the value (it is
/// the scope's future's, as in tokio).
#[test]
fn a_spawned_task_does_not_inherit_the_value() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(NUMBER.scope(7, async {
        let child = task::spawn(async { NUMBER.try_get() });
        assert!(child.await.unwrap().is_err());
        assert_eq!(NUMBER.get(), 7);
    }));
}

lawn_rt::task_local! {
    /// Never given a value.
    static UNSET: u8;
}

#[test]
fn try_with_outside_every_scope() {
    assert_eq!(NUMBER.try_with(|n| *n), Err(UNSET.try_get().unwrap_err()));
    let err = NAME.try_get().unwrap_err();
    assert_eq!(err.to_string(), "task-local value not set");
    assert_eq!(format!("{err:?}"), "AccessError");
    let _: &dyn std::error::Error = &err;

    // After a scope has completed, and in a task that has none.
    futures::executor::block_on(NUMBER.scope(1, async {}));
    assert!(NUMBER.try_with(|_| ()).is_err());
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let in_task = rt.block_on(rt.spawn(async { NUMBER.try_get().is_err() }));
    assert!(in_task.unwrap());
    // The closure does not run.
    let ran = std::cell::Cell::new(false);
    assert!(NUMBER.try_with(|_| ran.set(true)).is_err());
    assert!(!ran.get());
}

#[test]
fn with_and_get_outside_every_scope_panic_at_the_callers_line() {
    let line = line!() + 1;
    let site = catch_panic_site("with outside a scope", || NUMBER.with(|n| *n));
    assert!(site.file.ends_with("task_local_key.rs"), "{}", site.file);
    assert_eq!(site.line, line);
    assert!(
        site.message
            .contains("cannot access a task-local storage value without setting it first")
            && site.message.contains("NUMBER"),
        "{}",
        site.message
    );

    let line = line!() + 1;
    let site = catch_panic_site("get outside a scope", || NAME.get());
    assert_eq!(site.line, line);
    assert!(site.message.contains("`NAME`"), "{}", site.message);
}

/// A future that panics on its first poll.
struct PanicOnPoll;

impl Future for PanicOnPoll {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        panic!("boom in poll");
    }
}

#[test]
fn a_panic_inside_poll_restores_the_previous_value() {
    // Nested in an outer scope: the outer value is back after the panic,
    // and the inner scope's value is back in its future.
    NUMBER.sync_scope(1, || {
        let mut inner = Box::pin(NUMBER.scope(2, PanicOnPoll));
        let caught = catch_unwind(AssertUnwindSafe(|| poll_noop(inner.as_mut())));
        assert!(caught.is_err());
        assert_eq!(NUMBER.get(), 1);
        assert_eq!(inner.as_mut().take_value(), Some(2));
    });
    // With no outer scope: nothing left set.
    let mut lone = Box::pin(NUMBER.scope(3, PanicOnPoll));
    assert!(catch_unwind(AssertUnwindSafe(|| poll_noop(lone.as_mut()))).is_err());
    assert!(NUMBER.try_get().is_err());

    // The same inside an async outer scope, the panic caught by a
    // hand-written catch_unwind future around the inner scope.
    futures::executor::block_on(NUMBER.scope(10, async {
        let mut inner = pin!(NUMBER.scope(20, async {
            assert_eq!(NUMBER.get(), 20);
            task::yield_now().await;
            panic!("late boom");
        }));
        let caught = std::future::poll_fn(|cx| {
            match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
                Ok(Poll::Pending) => Poll::Pending,
                Ok(Poll::Ready(())) => Poll::Ready(false),
                Err(_) => Poll::Ready(true),
            }
        })
        .await;
        assert!(caught);
        assert_eq!(NUMBER.get(), 10);
    }));

    // A task that panics in its scope: the worker's next task sees no value.
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let err = task::spawn(NUMBER.scope(5, PanicOnPoll)).await.unwrap_err();
        assert!(err.is_panic());
        assert!(task::spawn(async { NUMBER.try_get().is_err() })
            .await
            .unwrap());
    });
}

#[test]
fn a_panic_in_sync_scope_restores_the_previous_value() {
    NUMBER.sync_scope(1, || {
        let caught = catch_unwind(|| NUMBER.sync_scope(2, || panic!("sync boom")));
        assert!(caught.is_err());
        assert_eq!(NUMBER.get(), 1);
    });
    assert!(NUMBER.try_get().is_err());
}

/// Records what a task-local held when it dropped, and when the value
/// itself dropped.
type Log = Arc<Mutex<Vec<String>>>;

/// Pushes what `NAME` holds when it drops.
struct ReadsOnDrop(Log);

impl Drop for ReadsOnDrop {
    fn drop(&mut self) {
        let seen = NAME.try_get().unwrap_or_else(|_| "<unset>".into());
        self.0
            .lock()
            .unwrap()
            .push(format!("future dropped, saw {seen}"));
    }
}

/// A value that logs its own drop.
struct Value(&'static str, Log);

impl Drop for Value {
    fn drop(&mut self) {
        self.1
            .lock()
            .unwrap()
            .push(format!("value {} dropped", self.0));
    }
}

lawn_rt::task_local! {
    static VALUE: Value;
}

#[test]
fn the_inner_future_sees_the_value_in_its_drop() {
    let log: Log = Arc::default();

    // Dropped mid-flight (pending), inside an outer scope.
    NAME.sync_scope("outer".into(), || {
        let guard = ReadsOnDrop(log.clone());
        let mut fut = Box::pin(NAME.scope("inner".into(), async move {
            let _guard = guard;
            pending::<()>().await;
        }));
        assert!(poll_noop(fut.as_mut()).is_pending());
        drop(fut);
        assert_eq!(
            NAME.get(),
            "outer",
            "the outer value is back after the drop"
        );
    });
    // Never polled at all.
    let guard = ReadsOnDrop(log.clone());
    drop(NAME.scope("unpolled".into(), async move {
        let _guard = guard;
    }));
    // Completed: its locals drop inside the last poll.
    let guard = ReadsOnDrop(log.clone());
    futures::executor::block_on(NAME.scope("completed".into(), async move {
        let _guard = guard;
        task::yield_now().await;
    }));
    assert_eq!(
        *log.lock().unwrap(),
        [
            "future dropped, saw inner",
            "future dropped, saw unpolled",
            "future dropped, saw completed",
        ]
    );
    assert!(NAME.try_get().is_err());

    // The inner future first, then the value.
    let order: Log = Arc::default();
    let in_drop = order.clone();
    struct SeesValue(Log);
    impl Drop for SeesValue {
        fn drop(&mut self) {
            let seen = VALUE.try_with(|v| v.0).unwrap_or("<unset>");
            self.0
                .lock()
                .unwrap()
                .push(format!("future dropped, saw {seen}"));
        }
    }
    let fut = VALUE.scope(Value("v", order.clone()), async move {
        let _sees = SeesValue(in_drop);
        pending::<()>().await;
    });
    let mut fut = Box::pin(fut);
    assert!(poll_noop(fut.as_mut()).is_pending());
    drop(fut);
    assert_eq!(
        *order.lock().unwrap(),
        ["future dropped, saw v", "value v dropped"]
    );
}

/// An aborted task's future is dropped by the runtime (on a worker, or
/// by the shutdown): its `Drop` sees the value.
fn an_aborted_task_sees_the_value_in_its_drop(flavor: Flavor) {
    watchdog("aborted scope", flavor.hang(), move || {
        let log: Log = Arc::default();
        let rt = flavor.rt();
        rt.block_on(async {
            let guard = ReadsOnDrop(log.clone());
            let handle = task::spawn(NAME.scope("aborted".into(), async move {
                let _guard = guard;
                pending::<()>().await;
            }));
            task::yield_now().await;
            handle.abort();
            assert!(handle.await.unwrap_err().is_cancelled());
        });
        // Cancelled by the runtime's shutdown, never polled.
        let guard = ReadsOnDrop(log.clone());
        drop(rt.spawn(NAME.scope("shut down".into(), async move {
            let _guard = guard;
            pending::<()>().await;
        })));
        drop(rt);
        assert_eq!(
            *log.lock().unwrap(),
            [
                "future dropped, saw aborted",
                "future dropped, saw shut down"
            ]
        );
    });
}

both_flavors!(an_aborted_task_sees_the_value_in_its_drop);

#[test]
fn sync_scope_sets_the_value_for_the_closure() {
    assert_eq!(NUMBER.sync_scope(4, || NUMBER.get() + 1), 5);
    let nested = NUMBER.sync_scope(1, || {
        let inner = NUMBER.sync_scope(2, || NUMBER.get());
        (inner, NUMBER.get())
    });
    assert_eq!(nested, (2, 1));
    // `with` and `try_with` pass a reference to the value.
    let len = NAME.sync_scope("four".into(), || NAME.with(String::len));
    assert_eq!(len, 4);
    assert!(NUMBER.try_get().is_err());
    // The value is dropped when the closure returns.
    let log: Log = Arc::default();
    VALUE.sync_scope(Value("sync", log.clone()), || {
        assert!(log.lock().unwrap().is_empty());
    });
    assert_eq!(*log.lock().unwrap(), ["value sync dropped"]);
}

#[test]
fn entering_a_scope_inside_the_keys_own_with_panics() {
    let line = line!() + 2;
    let site = catch_panic_site("sync_scope inside with", || {
        NUMBER.sync_scope(1, || NUMBER.with(|_| NUMBER.sync_scope(2, || ())))
    });
    assert_eq!(site.line, line);
    assert!(
        site.message
            .contains("cannot enter a task-local scope while the task-local storage is borrowed"),
        "{}",
        site.message
    );
    // Another key's scope is fine there.
    NUMBER.sync_scope(1, || {
        NUMBER.with(|n| NAME.sync_scope(n.to_string(), || assert_eq!(NAME.get(), "1")))
    });
    // A scope's future polled inside `with`: the same panic.
    let caught = catch_unwind(|| {
        NUMBER.sync_scope(1, || {
            NUMBER.with(|_| {
                let fut = pin!(NUMBER.scope(2, async {}));
                poll_noop(fut)
            })
        })
    });
    assert!(caught.is_err());
    assert!(NUMBER.try_get().is_err());
}

#[test]
fn take_value_and_polls_after_completion() {
    let mut fut = Box::pin(NUMBER.scope(9, async { NUMBER.try_get() }));
    assert_eq!(poll_noop(fut.as_mut()), Poll::Ready(Ok(9)));
    assert_eq!(
        format!("{fut:?}"),
        "TaskLocalFuture { key: \"NUMBER\", value: Some(9), .. }"
    );
    assert_eq!(fut.as_mut().take_value(), Some(9));
    assert_eq!(fut.as_mut().take_value(), None);
    let site = catch_panic_site("polled after completion", || poll_noop(fut.as_mut()));
    assert!(
        site.message
            .contains("`TaskLocalFuture` polled after completion"),
        "{}",
        site.message
    );

    // Taken before the inner future runs: it runs without a value.
    let mut taken = Box::pin(NUMBER.scope(1, async { NUMBER.try_get().is_err() }));
    assert_eq!(taken.as_mut().take_value(), Some(1));
    assert_eq!(poll_noop(taken.as_mut()), Poll::Ready(true));

    assert_eq!(format!("{NUMBER:?}"), "LocalKey { name: \"NUMBER\", .. }");
}

/// No lawn_rt runtime: `futures::executor::block_on` drives scopes across
/// real waits (lawn_rt timers, a wake from another thread), nested, with a
/// futures `join` of two scopes of one key interleaving on one thread.
#[test]
fn works_under_another_executor() {
    watchdog("futures executor", HANG, || {
        futures::executor::block_on(NUMBER.scope(1, async {
            sleep(Duration::from_millis(2)).await;
            assert_eq!(NUMBER.get(), 1);

            let (tx, rx) = futures::channel::oneshot::channel();
            let sender = thread::spawn(move || {
                thread::sleep(std::time::Duration::from_millis(5));
                tx.send(()).unwrap();
            });
            rx.await.unwrap();
            assert_eq!(NUMBER.get(), 1);
            sender.join().unwrap();

            let seen = Arc::new(Mutex::new(Vec::new()));
            let a = NUMBER.scope(2, {
                let seen = seen.clone();
                async move {
                    for _ in 0..3 {
                        seen.lock().unwrap().push(NUMBER.get());
                        common::naive_yield().await;
                    }
                }
            });
            let b = NUMBER.scope(3, {
                let seen = seen.clone();
                async move {
                    for _ in 0..3 {
                        seen.lock().unwrap().push(NUMBER.get());
                        common::naive_yield().await;
                    }
                }
            });
            futures::future::join(a, b).await;
            assert_eq!(*seen.lock().unwrap(), [2, 3, 2, 3, 2, 3], "interleaved");
            assert_eq!(NUMBER.get(), 1);
        }));
    });
}

/// The key and the future have the auto traits a task needs.
#[test]
fn auto_traits() {
    common::assert_send_sync::<LocalKey<u32>>();
    common::assert_send_sync::<AccessError>();
    fn send<T: Send>(_: &T) {}
    let fut: TaskLocalFuture<u32, _> = NUMBER.scope(1, async {});
    send(&fut);
    // A `!Send` value stays on its thread (a LocalSet task): the future is
    // `!Send` then, and still works there.
    lawn_rt::task_local! {
        static LOCAL_RC: std::rc::Rc<RefCell<u32>>;
    }
    let rc = std::rc::Rc::new(RefCell::new(0));
    let rt = Builder::new_current_thread().build().unwrap();
    let local = task::LocalSet::new();
    let out = local.block_on(
        &rt,
        LOCAL_RC.scope(rc.clone(), async {
            task::spawn_local(async {}).await.unwrap();
            LOCAL_RC.with(|rc| *rc.borrow_mut() += 1);
            *LOCAL_RC.get().borrow()
        }),
    );
    assert_eq!(out, 1);
}
