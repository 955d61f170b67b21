//! The runtime's identity as tokio gives it: `runtime::Id` (unique, never
//! reused, the same through every handle and inside tasks, a local set's
//! its own), `worker_index` (which worker runs the task; `Some(0)` on the
//! thread driving a current-thread runtime; `None` elsewhere), and
//! `TryCurrentError`'s two kinds (no runtime entered; the thread's context
//! already destroyed at thread exit).

use std::collections::HashSet;

use lawn_rt::runtime::{worker_index, Builder, Handle};
use lawn_rt::task::LocalSet;

#[test]
fn ids_are_unique_and_the_same_through_every_handle() {
    let mut seen = HashSet::new();
    for _ in 0..4 {
        let current = Builder::new_current_thread().build().unwrap();
        let multi = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        for rt in [&current, &multi] {
            let id = rt.handle().id();
            assert!(seen.insert(id), "id {id} given twice");
            assert_eq!(rt.handle().clone().id(), id);
            assert_eq!(rt.block_on(async { Handle::current().id() }), id);
            let in_task = rt.block_on(rt.spawn(async { Handle::current().id() }));
            assert_eq!(in_task.unwrap(), id);
        }
        // Dropped runtimes' ids are not handed out again.
        drop((current, multi));
        let local = LocalSet::new();
        assert!(seen.insert(local.id()), "a local set shares an id");
    }
}

#[test]
fn worker_index_names_the_worker_or_none() {
    let current = Builder::new_current_thread().build().unwrap();
    assert_eq!(current.block_on(async { worker_index() }), Some(0));
    let spawned = current.block_on(current.spawn(async { worker_index() }));
    assert_eq!(spawned.unwrap(), Some(0));
    let blocking = current.block_on(current.spawn_blocking(worker_index));
    assert_eq!(
        blocking.unwrap(),
        None,
        "a blocking-pool thread is no worker"
    );
    assert_eq!(worker_index(), None, "outside block_on");

    let multi = Builder::new_multi_thread()
        .worker_threads(3)
        .build()
        .unwrap();
    assert_eq!(
        multi.block_on(async { worker_index() }),
        None,
        "block_on's thread"
    );
    let mut seen = HashSet::new();
    for _ in 0..200 {
        let index = multi.block_on(multi.spawn(async { worker_index() }));
        let index = index.unwrap().expect("a task runs on a worker");
        assert!(index < 3, "{index}");
        seen.insert(index);
    }
    assert!(!seen.is_empty());
}

#[test]
fn try_current_says_why_it_failed() {
    let err = Handle::try_current().unwrap_err();
    assert!(err.is_missing_context() && !err.is_thread_local_destroyed());

    // At thread exit: a thread-local registered before the runtime's
    // context is destroyed after it, and its destructor looks.
    struct LooksAtExit(std::sync::mpsc::Sender<(bool, bool, String)>);
    impl Drop for LooksAtExit {
        fn drop(&mut self) {
            // No assertion here: a panic in a thread-local's destructor
            // aborts. The test thread looks at what is sent.
            let err = Handle::try_current().unwrap_err();
            let _ = self.0.send((
                err.is_missing_context(),
                err.is_thread_local_destroyed(),
                err.to_string(),
            ));
        }
    }
    thread_local! {
        static LOOKER: std::cell::RefCell<Option<LooksAtExit>> = const { std::cell::RefCell::new(None) };
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        LOOKER.with(|l| *l.borrow_mut() = Some(LooksAtExit(tx)));
        let rt = Builder::new_current_thread().build().unwrap();
        rt.block_on(async {});
        assert!(Handle::try_current().is_err());
    })
    .join()
    .unwrap();
    let (missing, destroyed, message) = rx.recv().unwrap();
    assert_eq!((missing, destroyed), (false, true));
    assert!(message.contains("exiting"), "{message}");
}
