//! Misuse of the runtime and of the time API: each panics with a message
//! that says what to do, reported at the caller's line (`#[track_caller]`
//! all the way down), or — for impossible `Builder` settings — makes
//! `build()` return an `InvalidInput` error naming the setting.
//!
//! Panic sites are taken from a panic hook that records only the panics of
//! the thread asking (`common::catch_panic_site`), so these tests run in
//! parallel without stepping on each other's hooks.

mod common;

use std::io::ErrorKind;

use common::{catch_panic_site, PanicSite};
use lawn_rt::runtime::{Builder, Handle, Runtime};
use lawn_rt::task;
use lawn_rt::time::{self, Duration, Instant};

/// Checks that a panic happened in this file at `line` with a message
/// containing every one of `needles`.
#[track_caller]
fn assert_site(site: &PanicSite, line: u32, needles: &[&str]) {
    assert_eq!(
        (site.file.as_str(), site.line),
        (file!(), line),
        "panic reported at the wrong place (message: {:?})",
        site.message
    );
    for needle in needles {
        assert!(
            site.message.contains(needle),
            "panic message {:?} does not contain {needle:?}",
            site.message
        );
    }
    // Where tokio has a message for the same misuse, ours starts with
    // tokio's words (ported code and its tests match on them) and says
    // `lawn_rt:` in what it adds; else it starts with `lawn_rt:`.
    assert!(
        site.message.contains("lawn_rt: "),
        "panic message {:?} does not say where it comes from",
        site.message
    );
}

fn without_time() -> Runtime {
    Builder::new_current_thread().enable_io().build().unwrap()
}

fn paused() -> Runtime {
    Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap()
}

const NO_TIME: &[&str] = &["time driver", "enable_time()"];

// ------------------------------------------------ timers without the driver

#[test]
fn sleep_in_a_runtime_without_time() {
    let rt = without_time();
    let mut line = 0;
    let site = catch_panic_site("sleep", || {
        rt.block_on(async {
            line = line!() + 1;
            time::sleep(Duration::from_millis(1)).await;
        })
    });
    assert_site(&site, line, NO_TIME);
}

#[test]
fn sleep_until_in_a_runtime_without_time() {
    let rt = without_time();
    let deadline = Instant::now() + Duration::from_millis(1);
    let mut line = 0;
    let site = catch_panic_site("sleep_until", || {
        rt.block_on(async {
            line = line!() + 1;
            time::sleep_until(deadline).await;
        })
    });
    assert_site(&site, line, NO_TIME);
}

#[test]
fn timeout_in_a_runtime_without_time() {
    let rt = without_time();
    let mut line = 0;
    let site = catch_panic_site("timeout", || {
        rt.block_on(async {
            line = line!() + 1;
            let _ = time::timeout(Duration::from_millis(1), async {}).await;
        })
    });
    assert_site(&site, line, NO_TIME);
}

#[test]
fn interval_in_a_runtime_without_time() {
    let rt = without_time();
    let mut line = 0;
    let site = catch_panic_site("interval", || {
        rt.block_on(async {
            line = line!() + 1;
            let _every = time::interval(Duration::from_millis(1));
        })
    });
    assert_site(&site, line, NO_TIME);
}

#[test]
fn timers_in_a_task_or_entered_runtime_without_time() {
    let rt = without_time();
    // In a spawned task: the panic becomes its JoinError, but the hook
    // still sees where it was raised.
    let (tx, rx) = std::sync::mpsc::channel();
    let site = catch_panic_site("sleep in a task", || {
        let err = rt.block_on(async {
            lawn_rt::spawn(async move {
                tx.send(line!() + 1).unwrap();
                time::sleep(Duration::from_millis(1)).await;
            })
            .await
            .unwrap_err()
        });
        assert!(err.is_panic());
    });
    assert_site(&site, rx.recv().unwrap(), NO_TIME);

    // After `Runtime::enter`: no silent fallback to a foreign shard.
    let _entered = rt.enter();
    let line = line!() + 1;
    let site = catch_panic_site("sleep after enter", || time::sleep(Duration::ZERO));
    assert_site(&site, line, NO_TIME);
}

// --------------------------------------------------------- the paused clock

#[test]
fn pause_twice() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let mut line = 0;
    let site = catch_panic_site("pause twice", || {
        rt.block_on(async {
            time::pause();
            line = line!() + 1;
            time::pause();
        })
    });
    assert_site(&site, line, &["already paused"]);
}

#[test]
fn pause_when_started_paused() {
    let rt = paused();
    let mut line = 0;
    let site = catch_panic_site("pause a paused runtime", || {
        rt.block_on(async {
            line = line!() + 1;
            time::pause();
        })
    });
    assert_site(&site, line, &["already paused"]);
}

#[test]
fn resume_when_not_paused() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let mut line = 0;
    let site = catch_panic_site("resume", || {
        rt.block_on(async {
            line = line!() + 1;
            time::resume();
        })
    });
    assert_site(&site, line, &["not paused"]);

    // Also after a pause and a resume.
    let mut line = 0;
    let site = catch_panic_site("resume twice", || {
        rt.block_on(async {
            time::pause();
            time::resume();
            line = line!() + 1;
            time::resume();
        })
    });
    assert_site(&site, line, &["not paused"]);
}

#[test]
fn advance_when_not_paused() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let mut line = 0;
    let site = catch_panic_site("advance", || {
        rt.block_on(async {
            line = line!() + 1;
            time::advance(Duration::from_millis(1)).await;
        })
    });
    assert_site(&site, line, &["paused clock", "time::pause()"]);

    // After a resume.
    let mut line = 0;
    let site = catch_panic_site("advance after resume", || {
        rt.block_on(async {
            time::pause();
            time::resume();
            line = line!() + 1;
            time::advance(Duration::from_millis(1)).await;
        })
    });
    assert_site(&site, line, &["paused clock"]);
}

#[test]
fn pause_resume_and_advance_outside_a_runtime() {
    let line = line!() + 1;
    let site = catch_panic_site("pause outside", || time::pause());
    assert_site(&site, line, &["runtime"]);

    let line = line!() + 1;
    let site = catch_panic_site("resume outside", || time::resume());
    assert_site(&site, line, &["runtime"]);

    let line = line!() + 1;
    let site = catch_panic_site("advance outside", || time::advance(Duration::ZERO));
    assert_site(&site, line, &["runtime"]);
}

#[test]
fn pause_in_a_runtime_without_time() {
    let rt = without_time();
    let mut line = 0;
    let site = catch_panic_site("pause without time", || {
        rt.block_on(async {
            line = line!() + 1;
            time::pause();
        })
    });
    assert_site(&site, line, NO_TIME);
}

// ----------------------------------------------------------- bad arguments

#[test]
fn interval_of_zero() {
    let line = line!() + 1;
    let site = catch_panic_site("interval(ZERO)", || time::interval(Duration::ZERO));
    assert_site(&site, line, &["period", "non-zero"]);

    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let mut line = 0;
    let site = catch_panic_site("interval_at(.., ZERO) in a runtime", || {
        rt.block_on(async {
            line = line!() + 1;
            let _ = time::interval_at(Instant::now(), Duration::ZERO);
        })
    });
    assert_site(&site, line, &["period", "non-zero"]);
}

// ------------------------------------------------------- outside a runtime

#[test]
fn spawn_outside_a_runtime() {
    let line = line!() + 1;
    let site = catch_panic_site("spawn", || lawn_rt::spawn(async {}));
    assert_site(&site, line, &["spawn", "inside a lawn_rt runtime"]);

    let line = line!() + 1;
    let site = catch_panic_site("task::spawn", || task::spawn(async {}));
    assert_site(&site, line, &["spawn", "inside a lawn_rt runtime"]);

    let line = line!() + 1;
    let site = catch_panic_site("spawn_blocking", || task::spawn_blocking(|| ()));
    assert_site(&site, line, &["spawn_blocking", "inside a lawn_rt runtime"]);
}

#[test]
fn spawn_after_the_enter_guard_is_dropped() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    drop(rt.enter());
    let line = line!() + 1;
    let site = catch_panic_site("spawn after enter", || lawn_rt::spawn(async {}));
    assert_site(&site, line, &["inside a lawn_rt runtime"]);
}

#[test]
fn handle_current_outside_a_runtime() {
    let line = line!() + 1;
    let site = catch_panic_site("Handle::current", || Handle::current());
    assert_site(&site, line, &["Handle::current()", "no lawn_rt runtime"]);

    // On another thread than the runtime's.
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let _entered = rt.enter();
    std::thread::spawn(|| {
        let line = line!() + 1;
        let site = catch_panic_site("Handle::current on a thread", || Handle::current());
        assert_site(&site, line, &["no lawn_rt runtime"]);
    })
    .join()
    .unwrap();
}

// ---------------------------------------------------------- nested block_on

#[test]
fn block_on_inside_block_on() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let mut line = 0;
    let site = catch_panic_site("nested block_on", || {
        rt.block_on(async {
            line = line!() + 1;
            rt.block_on(async {});
        })
    });
    assert_site(
        &site,
        line,
        &["cannot `block_on` inside a runtime", ".await"],
    );
}

#[test]
fn block_on_inside_a_task() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let other = std::sync::Arc::new(Builder::new_current_thread().enable_all().build().unwrap());
    let inner = other.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let site = catch_panic_site("block_on in a task", || {
        let err = rt.block_on(async move {
            lawn_rt::spawn(async move {
                tx.send(line!() + 1).unwrap();
                inner.block_on(async {});
            })
            .await
            .unwrap_err()
        });
        assert!(err.is_panic());
    });
    assert_site(
        &site,
        rx.recv().unwrap(),
        &["cannot `block_on` inside a runtime"],
    );
}

#[test]
fn join_error_into_panic_on_a_cancelled_task() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let err = rt.block_on(async {
        let join = lawn_rt::spawn(std::future::pending::<()>());
        join.abort();
        join.await.unwrap_err()
    });
    let line = line!() + 1;
    let site = catch_panic_site("into_panic", || err.into_panic());
    assert_site(&site, line, &["into_panic", "did not panic"]);
}

#[test]
fn join_handle_polled_after_completion() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let site = catch_panic_site("join handle polled twice", || {
        rt.block_on(async {
            let mut join = lawn_rt::spawn(async { 1 });
            assert_eq!((&mut join).await.unwrap(), 1);
            let _ = (&mut join).await;
        })
    });
    assert!(site.message.contains("polled again"), "{site:?}");
}

// ---------------------------------------------------------------- Builder

/// `build()` fails with `InvalidInput` naming `setting`, without panicking.
#[track_caller]
fn assert_rejected(builder: &mut Builder, setting: &[&str]) {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder.build()));
    let Ok(result) = result else {
        panic!("`build()` panicked instead of returning an error ({setting:?})");
    };
    let err = result.expect_err("`build()` accepted an impossible setting");
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    let message = err.to_string();
    assert!(
        setting.iter().any(|name| message.contains(name)),
        "the error {message:?} does not name the setting ({setting:?})"
    );
}

#[test]
fn builder_rejects_impossible_settings() {
    let resolution: &[&str] = &["timer_resolution", "timer resolution"];
    assert_rejected(
        Builder::new_current_thread()
            .enable_all()
            .timer_resolution(Duration::ZERO),
        resolution,
    );
    assert_rejected(
        Builder::new_current_thread()
            .enable_all()
            .timer_resolution(Duration::from_secs(1) + Duration::from_nanos(1)),
        resolution,
    );
    assert_rejected(
        Builder::new_current_thread()
            .enable_all()
            .timer_resolution(Duration::MAX),
        resolution,
    );
    assert_rejected(
        Builder::new_current_thread().start_paused(true),
        &["start_paused"],
    );
    assert_rejected(
        Builder::new_current_thread().enable_io().start_paused(true),
        &["start_paused"],
    );
    // Zero blocking threads panics where it is set, as in tokio (it was an
    // error from `build()`): tests/reliability/bad_input.rs.
    let zero = std::panic::catch_unwind(|| {
        Builder::new_current_thread().max_blocking_threads(0);
    });
    assert!(zero.is_err());
    assert_rejected(
        Builder::new_current_thread().thread_name("nul\0byte"),
        &["thread_name"],
    );
    // A rejected setting, set right, builds.
    let mut builder = Builder::new_current_thread();
    builder.enable_all().timer_resolution(Duration::ZERO);
    assert!(builder.build().is_err());
    builder.timer_resolution(Duration::from_millis(1));
    assert!(builder.build().is_ok());
}

#[test]
fn builder_accepts_the_edges() {
    for resolution in [Duration::from_nanos(1), Duration::from_secs(1)] {
        let rt = Builder::new_current_thread()
            .enable_all()
            .timer_resolution(resolution)
            .start_paused(true)
            .build()
            .unwrap_or_else(|err| panic!("{resolution:?}: {err}"));
        rt.block_on(async {
            let start = Instant::now();
            time::sleep(Duration::from_millis(3)).await;
            assert!(start.elapsed() >= Duration::from_millis(3));
        });
    }
    let rt = Builder::new_current_thread()
        .max_blocking_threads(1)
        .start_paused(false)
        .build()
        .unwrap();
    assert_eq!(rt.block_on(rt.spawn_blocking(|| 1)).unwrap(), 1);
}

/// Enter guards nest: dropping one before a guard made after it panics,
/// as in tokio; dropped in order they are fine, and after such a panic
/// the thread can enter again.
#[test]
fn enter_guards_dropped_out_of_order_panic() {
    let rt = || Builder::new_current_thread().enable_all().build().unwrap();
    let (rt1, rt2) = (rt(), rt());
    let first = rt1.enter();
    let second = rt2.enter();
    drop(second);
    drop(first);
    let out_of_order = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let first = rt1.enter();
        let second = rt2.enter();
        drop(first);
        drop(second);
    }));
    let message = common::panic_message(&*out_of_order.unwrap_err());
    assert!(message.contains("dropped out of order"), "{message}");
    let rt3 = rt();
    let _entered = rt3.enter();
    assert!(lawn_rt::runtime::Handle::try_current().is_ok());
}
