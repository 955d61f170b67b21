//! Review reproducers for the current-thread runtime (1ee4c4b..HEAD).
//!
//! Every test here fails on the reviewed HEAD; each names the defect it
//! shows. Tests that would otherwise hang run their body on a helper thread
//! and fail after a real-time limit (the stuck thread is leaked).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use lawn_rt::runtime::{Builder, Runtime};

/// Runs `f` on its own thread; `Err` if it has not returned after `limit`.
fn within<T: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, &'static str> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(payload)) => std::panic::resume_unwind(payload),
        Err(_) => Err("hung"),
    }
}

/// A value whose drop panics.
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("PanicOnDrop dropped");
        }
    }
}

/// A waker that panics when woken.
struct PanickingWaker;

impl Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        panic!("PanickingWaker woken");
    }
}

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
    }
}

// ---------------------------------------------------------------------------
// 1. Panics in `Task::complete` (task/mod.rs:121-132) are not caught.
// ---------------------------------------------------------------------------

/// A detached blocking task whose output panics on drop kills its pool
/// thread before `work_loop` decrements `threads` (blocking.rs:161, 182);
/// `Pool::shutdown(None)` then waits for that thread forever, so dropping
/// the runtime hangs. tokio drops the output under `catch_unwind`.
#[test]
fn blocking_output_drop_panic_does_not_hang_runtime_drop() {
    let outcome = within(Duration::from_secs(5), || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let handle = rt.spawn_blocking(move || {
            go_rx.recv().unwrap();
            PanicOnDrop
        });
        drop(handle); // detached: the pool thread drops the output
        go_tx.send(()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        drop(rt);
    });
    assert_eq!(outcome, Ok(()), "dropping the runtime hung");
}

/// Same root cause: a blocking task's `JoinHandle` polled with a waker
/// that panics; the pool thread unwinds out of `complete` and the runtime
/// can no longer be dropped.
#[test]
fn panicking_join_waker_on_blocking_task_does_not_hang_runtime_drop() {
    let outcome = within(Duration::from_secs(5), || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let mut handle = rt.spawn_blocking(move || go_rx.recv().unwrap());
        let waker = Waker::from(Arc::new(PanickingWaker));
        assert!(Pin::new(&mut handle)
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        go_tx.send(()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        drop(handle);
        drop(rt);
    });
    assert_eq!(outcome, Ok(()), "dropping the runtime hung");
}

/// The same panic leaves `blocking_inflight` counted forever
/// (scheduler.rs:528 is never reached), so a paused clock never
/// auto-advances again: a one-second sleep hangs.
#[test]
fn blocking_output_drop_panic_does_not_freeze_paused_clock() {
    let outcome = within(Duration::from_secs(5), || {
        let rt = Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        rt.block_on(async {
            let (go_tx, go_rx) = mpsc::channel::<()>();
            drop(lawn_rt::task::spawn_blocking(move || {
                go_rx.recv().unwrap();
                PanicOnDrop
            }));
            go_tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            lawn_rt::time::sleep(Duration::from_secs(1)).await;
        });
        // Do not wait for the runtime's drop (see the test above).
        std::mem::forget(rt);
    });
    assert_eq!(outcome, Ok(()), "the paused clock never advanced");
}

/// A detached task whose output panics on drop: the panic unwinds out of
/// `Task::run` through the park loop and out of `block_on` (tokio swallows
/// it: the handle was dropped, nobody can observe it). The doc at
/// task/mod.rs:19-20 says a task's panic "never unwinds into the
/// scheduler".
#[test]
fn detached_output_drop_panic_does_not_escape_block_on() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            drop(lawn_rt::spawn(async { PanicOnDrop }));
            lawn_rt::task::yield_now().await;
            lawn_rt::task::yield_now().await;
            "block_on finished"
        })
    }));
    assert_eq!(
        result.ok(),
        Some("block_on finished"),
        "a detached task's output drop panicked out of block_on"
    );
}

/// A `JoinHandle` polled with a panicking waker: the task completes on the
/// driving thread and the waker's panic unwinds out of `block_on`
/// (tokio's `Harness::complete` catches it).
#[test]
fn panicking_join_waker_does_not_escape_block_on() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            let mut handle = lawn_rt::spawn(async {
                lawn_rt::task::yield_now().await;
                1
            });
            let waker = Waker::from(Arc::new(PanickingWaker));
            assert!(Pin::new(&mut handle)
                .poll(&mut Context::from_waker(&waker))
                .is_pending());
            for _ in 0..4 {
                lawn_rt::task::yield_now().await;
            }
            "block_on finished"
        })
    }));
    assert_eq!(
        result.ok(),
        Some("block_on finished"),
        "a join waker's panic escaped block_on"
    );
}

/// At shutdown, one task's join waker panics inside `Inner::shutdown`'s
/// loop (scheduler.rs:394-396): the remaining tasks are never shut down
/// (their futures are never dropped), and the driver and the blocking pool
/// are never shut down either (the `Drop` that follows sees
/// `owned.closed` and returns).
#[test]
fn panic_during_shutdown_still_drops_every_task() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let flags: Vec<Arc<AtomicBool>> = (0..8).map(|_| Arc::new(AtomicBool::new(false))).collect();
    let mut handles = Vec::new();
    for flag in &flags {
        let guard = DropFlag(flag.clone());
        handles.push(rt.spawn(async move {
            let _guard = guard;
            // Kept alive by the timer's waker, not only by `owned`.
            lawn_rt::time::sleep(Duration::from_secs(3600)).await;
        }));
    }
    rt.block_on(lawn_rt::task::yield_now()); // every task registers its timer
                                             // The first task's handle gets a waker that panics.
    let waker = Waker::from(Arc::new(PanickingWaker));
    assert!(Pin::new(&mut handles[0])
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    // On HEAD the waker's panic escapes the drop; either way, every task
    // must have been shut down afterwards.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(rt)));
    let alive = flags.iter().filter(|f| !f.load(SeqCst)).count();
    assert_eq!(
        alive, 0,
        "{alive} task futures were never dropped by the shutdown"
    );
}

// ---------------------------------------------------------------------------
// 2. `is_finished()` before the output is in the slot (task/mod.rs:122-126).
// ---------------------------------------------------------------------------

/// `complete` sets `COMPLETE` before it stores the output in the slot, so
/// `is_finished()` can be true while polling the handle still gives
/// `Pending` (tokio stores the output first: 0 misses in 190,000 rounds of
/// this loop). Spin on `is_finished`, then take the output at once.
#[test]
fn is_finished_means_the_output_is_ready() {
    use futures::FutureExt;
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let began = std::time::Instant::now();
    let mut rounds = 0u64;
    while began.elapsed() < Duration::from_secs(5) {
        rounds += 1;
        let handle = rt.spawn_blocking(|| 7);
        while !handle.is_finished() {
            std::hint::spin_loop();
        }
        match handle.now_or_never() {
            Some(Ok(7)) => {}
            other => panic!("round {rounds}: is_finished() was true but polling gave {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------
// 3. Paused clock: lost wake-up between `auto_advance` and
//    `begin_park_paused` (scheduler.rs:293-296, shared.rs:285-292).
// ---------------------------------------------------------------------------

/// A timer registered from another thread (here a second `block_on`
/// caller, which the docs allow) after `auto_advance` has seen no timer
/// but before `begin_park_paused` sets `parked_until` does not unpark the
/// driving thread, which then blocks with no deadline: the paused clock
/// never reaches the timer and both threads hang.
#[test]
fn paused_clock_timer_from_another_thread_is_not_lost() {
    let outcome = within(Duration::from_secs(20), || {
        let rt = Arc::new(
            Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap(),
        );
        let done = Arc::new(AtomicBool::new(false));
        let rounds = Arc::new(AtomicUsize::new(0));
        // The driving thread: waits (no timer of its own) until told.
        let driver = {
            let (rt, done) = (rt.clone(), done.clone());
            std::thread::spawn(move || {
                rt.block_on(std::future::poll_fn(|cx| {
                    if done.load(SeqCst) {
                        Poll::Ready(())
                    } else {
                        stash(cx.waker());
                        Poll::Pending
                    }
                }))
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        // Another thread: sleeps over and over on the runtime's (paused)
        // driver, waking up by spinning rather than parking so that its
        // next registration lands while the driver heads back to park.
        {
            let _entered = rt.enter();
            let began = std::time::Instant::now();
            let mut jitter = 0u32;
            while began.elapsed() < Duration::from_secs(5) {
                // Vary where in the driver's loop the registration lands.
                jitter = (jitter + 7) % 64;
                for _ in 0..jitter {
                    std::hint::spin_loop();
                }
                let flag = Arc::new(Flag::default());
                let waker = Waker::from(flag.clone());
                let mut nap = Box::pin(lawn_rt::time::sleep(Duration::from_millis(1)));
                let mut cx = Context::from_waker(&waker);
                if nap.as_mut().poll(&mut cx).is_ready() {
                    continue;
                }
                let started = std::time::Instant::now();
                while !flag.0.load(SeqCst) {
                    if started.elapsed() > Duration::from_secs(2) {
                        // Stuck. Show it was a lost wake-up, not a dead
                        // driver: one more registration (the driver is now
                        // parked with `parked_until` set) unsticks it.
                        let mut poke = Box::pin(lawn_rt::time::sleep(Duration::from_secs(1)));
                        let _ = poke.as_mut().poll(&mut Context::from_waker(Waker::noop()));
                        std::thread::sleep(Duration::from_millis(200));
                        let unstuck = flag.0.load(SeqCst);
                        done.store(true, SeqCst);
                        wake_stashed();
                        return Err((rounds.load(SeqCst), unstuck));
                    }
                    std::hint::spin_loop();
                }
                assert!(nap.as_mut().poll(&mut cx).is_ready());
                rounds.fetch_add(1, SeqCst);
            }
        }
        done.store(true, SeqCst);
        wake_stashed();
        driver.join().unwrap();
        Ok(rounds.load(SeqCst))
    });
    match outcome {
        Ok(Ok(_)) => {}
        Ok(Err((round, unstuck))) => panic!(
            "a paused timer was never fired (lost wake-up at round {round}; a later \
             registration unstuck it: {unstuck})"
        ),
        Err(_) => panic!("hung"),
    }
}

#[derive(Default)]
struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, SeqCst);
    }
}

static STASHED: std::sync::Mutex<Option<Waker>> = std::sync::Mutex::new(None);

fn stash(waker: &Waker) {
    *STASHED.lock().unwrap() = Some(waker.clone());
}

fn wake_stashed() {
    if let Some(waker) = STASHED.lock().unwrap().take() {
        waker.wake();
    }
}

/// The same lost wake-up through the documented multi-`block_on` path: a
/// second thread's `block_on` (waiting for the seat, polling its own
/// future) files its timer while the driving thread, idle with no timer
/// of its own, heads for `begin_park_paused`. The driving thread then
/// blocks with no deadline and the second `block_on` never returns.
/// A race: fails 5/5 runs alone, about 2 in 3 with the whole file running
/// in parallel (the test above, with its spinning waker, is the reliable
/// one).
#[test]
fn paused_clock_second_block_on_is_not_lost() {
    let rounds = Arc::new(AtomicUsize::new(0));
    let counted = rounds.clone();
    let outcome = within(Duration::from_secs(12), move || {
        let rt = Arc::new(
            Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap(),
        );
        // The driving thread: holds the seat, idle, no timer of its own.
        let seat = rt.clone();
        std::thread::spawn(move || seat.block_on(std::future::pending::<()>()));
        std::thread::sleep(Duration::from_millis(50));
        let began = std::time::Instant::now();
        while began.elapsed() < Duration::from_secs(8) {
            rt.block_on(async { lawn_rt::time::sleep(Duration::from_millis(1)).await });
            counted.fetch_add(1, SeqCst);
        }
        // (The driving thread and the runtime are leaked.)
        std::mem::forget(rt);
    });
    assert!(
        outcome.is_ok(),
        "a 1 ms paused sleep in a second block_on never returned (after {} rounds)",
        rounds.load(SeqCst)
    );
}

// ---------------------------------------------------------------------------
// 4. Semantics: a timer made just outside `block_on` binds to the fallback.
// ---------------------------------------------------------------------------

/// `rt.block_on(sleep(d))` (the pattern of `Runtime::block_on`'s own doc
/// example): the argument is evaluated before `block_on` enters the
/// runtime, so `sleep` binds to the fallback driver (`Handle::current()`
/// at sleep.rs:46): real clock, 1 ms ticks, its own thread. On a paused
/// runtime a one-hour sleep then takes a real hour. tokio panics at the
/// `sleep` call instead ("there is no reactor running"); either that or
/// binding to the runtime at the first poll would do, not silently using
/// another clock.
#[test]
fn block_on_of_a_sleep_made_outside_uses_the_runtime_clock() {
    let outcome = within(Duration::from_secs(3), || {
        let rt = Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let made_outside =
            std::panic::catch_unwind(|| lawn_rt::time::sleep(Duration::from_secs(3600)));
        if let Ok(nap) = made_outside {
            rt.block_on(nap);
        }
        std::mem::forget(rt);
    });
    assert_eq!(
        outcome,
        Ok(()),
        "a paused runtime's block_on waited on the real clock"
    );
}

// ---------------------------------------------------------------------------
// 5. A runtime in a thread-local aborts the process when the thread exits.
// ---------------------------------------------------------------------------

std::thread_local! {
    static THREAD_RUNTIME: Runtime = Builder::new_current_thread().enable_all().build().unwrap();
}

/// `Runtime::drop` enters the runtime first (mod.rs:268), and
/// `context::enter` uses `HANDLE.with` (context.rs:39; the driver's
/// `enter`, driver/handle.rs:252, likewise), which panics once that
/// thread-local is destroyed; thread-local destructors run in reverse
/// order of first use, so a runtime kept in a `thread_local!` and used
/// once panics in its destructor at thread exit, and a panic there aborts
/// the whole process. tokio's drop uses `try_with` (tokio's twin of this
/// test exits cleanly). Runs in a child process, since it aborts.
#[test]
fn runtime_in_a_thread_local_does_not_abort_at_thread_exit() {
    const NAME: &str = "runtime_in_a_thread_local_does_not_abort_at_thread_exit";
    if std::env::var_os("LAWN_RT_REVIEW_CHILD").is_some() {
        std::thread::spawn(|| {
            THREAD_RUNTIME.with(|rt| {
                rt.block_on(async { lawn_rt::time::sleep(Duration::from_millis(1)).await })
            });
        })
        .join()
        .unwrap();
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", NAME, "--test-threads=1"])
        .env("LAWN_RT_REVIEW_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the child process died: {} ({})",
        output.status,
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .find(|l| l.contains("fatal") || l.contains("cannot access"))
            .unwrap_or("")
    );
}
