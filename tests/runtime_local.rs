//! `runtime::LocalRuntime` beyond what the port surface compares with
//! tokio: a multi-thread builder refuses it at the caller's line; local
//! tasks left pending are dropped with it (their futures' destructors
//! run, with the runtime entered); `enter` lets `spawn_local` in; a panic
//! out of `block_on` leaves it working.

mod common;

use std::cell::Cell;
use std::rc::Rc;

use lawn_rt::runtime::{Builder, LocalOptions, LocalRuntime};

#[test]
fn a_multi_thread_builder_panics_at_the_callers_line() {
    let site = common::catch_panic_site("build_local on multi_thread", || {
        Builder::new_multi_thread().build_local(LocalOptions::default())
    });
    assert!(
        site.message.contains("new_current_thread"),
        "{}",
        site.message
    );
    assert_eq!(site.file, file!(), "{site:?}");
}

/// `spawn_local` under a `LocalRuntime`'s handle entered on another
/// thread panics with tokio's message for it, at the caller's line
/// (tokio's `rt_local::test_spawn_local_from_guard_other_thread`); with
/// no `LocalRuntime` entered, tokio's "outside of a `task::LocalSet`" one.
#[test]
fn spawn_local_under_a_local_runtimes_handle_from_another_thread_panics_as_tokio() {
    let (tx, rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let owner = std::thread::spawn(move || {
        let rt = Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
            .unwrap();
        tx.send(rt.handle().clone()).unwrap();
        // The runtime lives until the other thread has tried.
        done_rx.recv().unwrap();
    });
    let handle = rx.recv().unwrap();
    let site = common::catch_panic_site("spawn_local from another thread", || {
        let _entered = handle.enter();
        drop(lawn_rt::task::spawn_local(async {}));
    });
    done_tx.send(()).unwrap();
    owner.join().unwrap();
    assert!(
        site.message.starts_with(
            "Local tasks can only be spawned on a LocalRuntime from the thread the runtime \
             was created on"
        ),
        "{}",
        site.message
    );
    assert_eq!(site.file, file!(), "{site:?}");

    // A plain runtime's handle: the message for no LocalSet at all.
    let rt = Builder::new_current_thread().build().unwrap();
    let site = common::catch_panic_site("spawn_local under a plain runtime", || {
        let _entered = rt.enter();
        drop(lawn_rt::task::spawn_local(async {}));
    });
    assert!(
        site.message
            .starts_with("`spawn_local` called from outside of a `task::LocalSet`"),
        "{}",
        site.message
    );
}

#[test]
fn pending_local_tasks_are_dropped_with_it() {
    struct Dropped(Rc<Cell<u32>>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }
    let drops = Rc::new(Cell::new(0));
    let rt = LocalRuntime::new().unwrap();
    for _ in 0..3 {
        let guard = Dropped(drops.clone());
        rt.spawn_local(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
    }
    rt.block_on(lawn_rt::task::yield_now());
    assert_eq!(drops.get(), 0, "still pending");
    drop(rt);
    assert_eq!(drops.get(), 3);
}

#[test]
fn a_panic_out_of_block_on_leaves_it_working() {
    let rt = LocalRuntime::new().unwrap();
    let caught = std::panic::catch_unwind(|| rt.block_on(async { panic!("boom") }));
    assert!(caught.is_err());
    let task = rt.spawn_local(async { Rc::new(4) });
    assert_eq!(*rt.block_on(task).unwrap(), 4);
}

#[test]
fn pending_tasks_are_dropped_with_the_runtime_entered() {
    struct NeedsRuntime(std::sync::mpsc::Sender<bool>);
    impl Drop for NeedsRuntime {
        fn drop(&mut self) {
            let entered = lawn_rt::runtime::Handle::try_current().is_ok();
            // A timer made in a destructor, as a connection's cleanup may.
            drop(lawn_rt::time::sleep(std::time::Duration::from_secs(1)));
            let _ = self.0.send(entered);
        }
    }
    for shutdown in [false, true] {
        let (tx, rx) = std::sync::mpsc::channel();
        let rt = LocalRuntime::new().unwrap();
        let guard = NeedsRuntime(tx);
        rt.spawn_local(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        rt.block_on(lawn_rt::task::yield_now());
        if shutdown {
            rt.shutdown_timeout(std::time::Duration::from_millis(10));
        } else {
            drop(rt);
        }
        assert!(
            rx.recv().unwrap(),
            "dropped outside the runtime (shutdown: {shutdown})"
        );
    }
}

#[test]
fn enter_lets_spawn_local_in() {
    let rt = LocalRuntime::new().unwrap();
    let task = {
        let _guard = rt.enter();
        lawn_rt::task::spawn_local(async { Rc::new(2) })
    };
    assert_eq!(*rt.block_on(task).unwrap(), 2);
}

/// `#[lawn_rt::test(flavor = "local")]` runs the test on a `LocalRuntime`,
/// as tokio's does: `spawn_local` works anywhere in it.
#[lawn_rt::test(flavor = "local")]
async fn the_local_flavor_runs_on_a_local_runtime() {
    let shared = Rc::new(Cell::new(1));
    let seen = shared.clone();
    let task = lawn_rt::task::spawn_local(async move { seen.get() + 1 });
    assert_eq!(task.await.unwrap(), 2);
    assert_eq!(shared.get(), 1);
}
