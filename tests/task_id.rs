//! `task::Id`: every task gets a distinct one at spawn (`spawn`,
//! `spawn_blocking`, `spawn_local`, on any runtime, from many threads at
//! once); `task::id()`/`try_id()` inside a task agree with
//! `JoinHandle::id`, `AbortHandle::id` and `JoinError::id`, across awaits
//! and a move to another thread; `block_on`'s own future is no task (as in
//! tokio: `try_id` is `None`, `id` panics at the caller's line); the id is
//! current while the task's future or unclaimed output drops, and the
//! previous one (a task polling a `LocalSet`, or none) is back after each
//! poll; `JoinSet::{join_next_with_id, try_join_next_with_id}`; `Display`,
//! `Debug` and the traits that make it a map key.
//!
//! The bodies run on both flavors (`current_thread::*` and
//! `multi_thread::*`, see `common::both_flavors!`), under a watchdog.

mod common;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::future::pending;
use std::sync::{Arc, Mutex};
use std::thread;

use common::{catch_panic_site, on, watchdog, Flavor};
use lawn_rt::runtime::Builder;
use lawn_rt::task::{self, Id, JoinSet, LocalSet};
use lawn_rt::time::{sleep, Duration};

both_flavors!(
    ids_are_distinct_and_match_the_handles,
    block_on_is_not_a_task,
    the_id_holds_across_awaits,
    blocking_and_local_tasks_have_ids,
    join_errors_carry_the_tasks_id,
    join_set_with_id,
    drops_see_the_tasks_id,
);

fn ids_are_distinct_and_match_the_handles(flavor: Flavor) {
    on(flavor, "distinct ids", || async {
        let handles: Vec<_> = (0..200)
            .map(|_| {
                task::spawn(async {
                    let first = task::id();
                    task::yield_now().await;
                    assert_eq!(task::try_id(), Some(first));
                    first
                })
            })
            .collect();
        let mut seen = HashSet::new();
        for handle in handles {
            let id = handle.id();
            assert_eq!(handle.abort_handle().id(), id);
            assert!(seen.insert(id), "{id} given twice");
            assert_eq!(
                handle.await.unwrap(),
                id,
                "task::id() inside is the handle's"
            );
        }
        // Ids are plain values: Copy, Ord, Hash, Display and Debug.
        let ordered: BTreeSet<Id> = seen.iter().copied().collect();
        assert_eq!(ordered.len(), 200);
        let any = *ordered.first().unwrap();
        let number: u64 = any.to_string().parse().expect("Display is the number");
        assert!(number > 0);
        assert_eq!(format!("{any:?}"), format!("Id({number})"));
    });
}

/// As in tokio: the future given to `block_on` is not a task.
fn block_on_is_not_a_task(flavor: Flavor) {
    watchdog("block_on", flavor.hang(), move || {
        assert_eq!(task::try_id(), None, "no task outside any runtime");
        let rt = flavor.rt();
        rt.block_on(async {
            assert_eq!(task::try_id(), None);
            // Also after a task ran on this thread (current-thread
            // runtime) and between awaits.
            task::spawn(async { task::yield_now().await })
                .await
                .unwrap();
            sleep(Duration::from_millis(1)).await;
            assert_eq!(task::try_id(), None);
        });
        let line = line!() + 1;
        let site = catch_panic_site("id in block_on", || rt.block_on(async { task::id() }));
        assert!(site.file.ends_with("task_id.rs"), "{}", site.file);
        assert_eq!(site.line, line);
        assert!(
            site.message
                .contains("Can't get a task id when not inside a task"),
            "{}",
            site.message
        );
        // Outside every runtime: the same panic, at the caller's line.
        let line = line!() + 1;
        let site = catch_panic_site("id outside", || task::id());
        assert_eq!(site.line, line);
        assert!(
            site.message.contains("not inside a task"),
            "{}",
            site.message
        );
        assert_eq!(task::try_id(), None);
    });
}

/// The id stays the task's across awaits, timers, and (multi-thread) a
/// move to another thread; tasks interleaved on one thread each see their
/// own.
fn the_id_holds_across_awaits(flavor: Flavor) {
    on(flavor, "across awaits", move || async move {
        let handles: Vec<_> = (0..20u64)
            .map(|i| {
                task::spawn(async move {
                    let mine = task::id();
                    for round in 0..10 {
                        assert_eq!(task::id(), mine);
                        if round % 2 == 0 {
                            task::yield_now().await;
                        } else {
                            sleep(Duration::from_micros(50 * i)).await;
                        }
                    }
                    mine
                })
            })
            .collect();
        for handle in handles {
            let id = handle.id();
            assert_eq!(handle.await.unwrap(), id);
        }
        if flavor == Flavor::MultiThread {
            let moving = task::spawn(async {
                let before = (thread::current().id(), task::id());
                // Hands this worker to a new thread: after the next await
                // another thread polls this task.
                let inside = task::block_in_place(task::try_id);
                assert_eq!(inside, Some(before.1));
                task::yield_now().await;
                (before, (thread::current().id(), task::id()))
            });
            let id = moving.id();
            let ((thread_before, id_before), (thread_after, id_after)) = moving.await.unwrap();
            assert_ne!(thread_before, thread_after, "the task moved");
            assert_eq!((id_before, id_after), (id, id));
        }
    });
}

/// `spawn_blocking` closures and `LocalSet` tasks run as tasks with ids of
/// their own; a set driven inside a task gives its tasks theirs and the
/// driving task its own back after each.
fn blocking_and_local_tasks_have_ids(flavor: Flavor) {
    watchdog("blocking and local", flavor.hang(), move || {
        let rt = flavor.rt();
        let blocking = rt.spawn_blocking(task::try_id);
        let id = blocking.id();
        assert_eq!(rt.block_on(blocking).unwrap(), Some(id));

        let local = LocalSet::new();
        local.block_on(&rt, async {
            let handle = task::spawn_local(async {
                task::yield_now().await;
                task::id()
            });
            let id = handle.id();
            assert_eq!(handle.await.unwrap(), id);
            assert_eq!(task::try_id(), None, "the set's block_on is no task");
        });

        // A set made and driven (`run_until`) inside a task of another
        // set: the inner task has its own id, and the outer task's is back
        // after each of its polls.
        let outer_set = LocalSet::new();
        outer_set.block_on(&rt, async {
            let outer = task::spawn_local(async {
                let me = task::id();
                let inner = LocalSet::new();
                let driven = inner.run_until(async move {
                    let handle = task::spawn_local(async {
                        for _ in 0..5 {
                            task::yield_now().await;
                        }
                        task::id()
                    });
                    let inner_id = handle.id();
                    (inner_id, handle.await.unwrap())
                });
                // Polled right after the set's turn, in the same poll of
                // this task: the inner task's id must not linger.
                let checker = async move {
                    for _ in 0..5 {
                        assert_eq!(task::try_id(), Some(me));
                        task::yield_now().await;
                    }
                };
                let ((inner_id, seen), ()) = futures::future::join(driven, checker).await;
                assert_eq!(seen, inner_id);
                assert_ne!(inner_id, me);
                // `run_until`'s own future runs in the outer task.
                assert_eq!(task::id(), me);
                me
            });
            let id = outer.id();
            assert_eq!(outer.await.unwrap(), id);
        });
    });
}

fn join_errors_carry_the_tasks_id(flavor: Flavor) {
    on(flavor, "join errors", || async {
        let panicking = task::spawn(async { panic!("boom") });
        let id = panicking.id();
        let err = panicking.await.unwrap_err();
        assert!(err.is_panic());
        assert_eq!(err.id(), id);
        assert!(err.to_string().starts_with(&format!("task {id} ")), "{err}");

        let aborted = task::spawn(pending::<()>());
        let abort = aborted.abort_handle();
        abort.abort();
        let err = aborted.await.unwrap_err();
        assert!(err.is_cancelled());
        assert_eq!(err.id(), abort.id());
        assert_eq!(
            format!("{err:?}"),
            format!("JoinError::Cancelled({:?})", abort.id())
        );
    });
}

fn join_set_with_id(flavor: Flavor) {
    on(flavor, "JoinSet with ids", || async {
        let mut set = JoinSet::new();
        let mut expected = HashMap::new();
        for i in 0..10u64 {
            let abort = set.spawn(async move {
                sleep(Duration::from_millis(i % 3)).await;
                (i, task::id())
            });
            expected.insert(abort.id(), i);
        }
        let blocking = set.spawn_blocking(|| (100, task::id())).id();
        expected.insert(blocking, 100);
        let failing = set.spawn(async { panic!("boom") }).id();
        let aborted = set.spawn(pending());
        aborted.abort();

        let mut errors = Vec::new();
        let mut joined = 0;
        while let Some(next) = set.join_next_with_id().await {
            match next {
                Ok((id, (i, inside))) => {
                    assert_eq!(
                        expected.remove(&id),
                        Some(i),
                        "the id of the task that gave {i}"
                    );
                    assert_eq!(inside, id);
                    joined += 1;
                }
                Err(err) => errors.push((err.id(), err.is_panic())),
            }
        }
        assert_eq!(joined, 11);
        assert!(expected.is_empty());
        errors.sort();
        let mut want = vec![(failing, true), (aborted.id(), false)];
        want.sort();
        assert_eq!(errors, want);

        // try_join_next_with_id: nothing until a task has finished.
        let mut set = JoinSet::new();
        let id = set.spawn(async { task::id() }).id();
        let joined = loop {
            match set.try_join_next_with_id() {
                Some(result) => break result.unwrap(),
                None => task::yield_now().await,
            }
        };
        assert_eq!(joined, (id, id));
        assert!(set.try_join_next_with_id().is_none());
        let failing = set.spawn(async { panic!("later") }).id();
        let err = loop {
            match set.try_join_next_with_id() {
                Some(result) => break result.unwrap_err(),
                None => task::yield_now().await,
            }
        };
        assert_eq!(err.id(), failing);
    });
}

/// What was dropped, and the task id current then.
type DropLog = Arc<Mutex<Vec<(&'static str, Option<Id>)>>>;

/// Records `task::try_id()` when dropped.
struct RecordsId(DropLog, &'static str);

impl Drop for RecordsId {
    fn drop(&mut self) {
        self.0.lock().unwrap().push((self.1, task::try_id()));
    }
}

/// A task's future dropped by an abort or by the shutdown, and an output
/// nobody claims (dropped when the task completes, or when its handle is
/// dropped after that), drop with the task's id current, as in tokio; the
/// thread's id is back afterwards.
fn drops_see_the_tasks_id(flavor: Flavor) {
    watchdog("drops", flavor.hang(), move || {
        let log = DropLog::default();
        let rt = flavor.rt();
        let ids = rt.block_on({
            let log = log.clone();
            async move {
                let guard = RecordsId(log.clone(), "aborted future");
                let aborted = task::spawn(async move {
                    let _guard = guard;
                    pending::<()>().await;
                });
                task::yield_now().await;
                aborted.abort();
                let aborted_id = aborted.id();
                assert!(aborted.await.unwrap_err().is_cancelled());

                // Detached before it completes: its output drops when it does.
                let (tx, rx) = std::sync::mpsc::channel();
                let output = RecordsId(log.clone(), "detached output");
                let detached = task::spawn(async move {
                    tx.send(()).unwrap();
                    output
                });
                let detached_id = detached.id();
                drop(detached);
                common::until(|| rx.try_recv().is_ok()).await;
                common::until(|| log.lock().unwrap().len() == 2).await;

                // Completed, then its handle dropped here (block_on's
                // future): the output drops as the task's.
                let output = RecordsId(log.clone(), "unclaimed output");
                let finished = task::spawn(async move { output });
                let finished_id = finished.id();
                common::until(|| finished.is_finished()).await;
                drop(finished);
                assert_eq!(task::try_id(), None, "block_on's none is back");
                (aborted_id, detached_id, finished_id)
            }
        });
        let guard = RecordsId(log.clone(), "shut down");
        let shut = rt.spawn(async move {
            let _guard = guard;
            pending::<()>().await;
        });
        let shut_id = shut.id();
        drop(rt);
        drop(shut);
        let (aborted, detached, finished) = ids;
        assert_eq!(
            *log.lock().unwrap(),
            [
                ("aborted future", Some(aborted)),
                ("detached output", Some(detached)),
                ("unclaimed output", Some(finished)),
                ("shut down", Some(shut_id)),
            ]
        );
        assert_eq!(task::try_id(), None);
    });
}

/// Ids stay distinct with several runtimes spawning from several threads
/// at once (one process-wide counter).
#[test]
fn ids_are_distinct_across_runtimes_and_threads() {
    watchdog("many spawners", std::time::Duration::from_secs(60), || {
        let spawners: Vec<_> = (0..4)
            .map(|n| {
                thread::spawn(move || {
                    let rt = if n % 2 == 0 {
                        Builder::new_current_thread().build().unwrap()
                    } else {
                        Builder::new_multi_thread()
                            .worker_threads(2)
                            .build()
                            .unwrap()
                    };
                    rt.block_on(async {
                        let handles: Vec<_> = (0..500)
                            .map(|_| task::spawn(async { task::id() }))
                            .collect();
                        let mut ids = Vec::new();
                        for handle in handles {
                            ids.push(handle.await.unwrap());
                        }
                        ids
                    })
                })
            })
            .collect();
        let mut all = HashSet::new();
        for spawner in spawners {
            for id in spawner.join().unwrap() {
                assert!(all.insert(id), "{id} given twice");
            }
        }
        assert_eq!(all.len(), 2000);
    });
}

#[test]
fn auto_traits() {
    common::assert_send_sync::<Id>();
    fn copy<T: Copy + Eq + Ord + std::hash::Hash + std::fmt::Display + std::fmt::Debug>() {}
    copy::<Id>();
}
