//! The paused clock for tests (feature `test-util`): [`pause`], [`resume`],
//! [`advance`]; tokio's semantics.
//!
//! Ground rules: only a current-thread runtime's driver may be paused
//! through these functions (the one test code runs on); its park loop
//! auto-advances a paused clock to the next timer when it has nothing else
//! to do and no blocking task is running.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::driver::{Handle, Role};

/// Pauses the current runtime's clock; like `tokio::time::pause`.
///
/// From then on [`Instant::now`](crate::time::Instant::now) stands still
/// except when moved by [`advance`], or when the runtime has nothing to do:
/// then it jumps to the next timer's deadline (auto-advance), so a test that
/// sleeps an hour takes no time. The clock stops on a tick boundary, so
/// advancing by a whole number of ticks fires a timer made that far ahead.
///
/// # Panics
///
/// Outside a current-thread `lawn_rt` runtime (on a multi-thread one too:
/// its workers' clocks cannot stop together, as in tokio), or if time is
/// already paused (with a message saying so, at the caller's line).
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{self, sleep, Duration, Instant};
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(async {
///     time::pause();
///     let start = Instant::now();
///     sleep(Duration::from_secs(60)).await; // auto-advances: no real wait
///     assert_eq!(start.elapsed(), Duration::from_secs(60));
/// });
/// ```
#[track_caller]
pub fn pause() {
    let handle = pausable("pause");
    assert!(
        handle.pause(),
        "lawn_rt: `time::pause()`: time is already paused"
    );
}

/// Resumes a paused clock; like `tokio::time::resume`. Time runs again from
/// where it stood.
///
/// # Panics
///
/// Outside a current-thread `lawn_rt` runtime, or if time is not paused.
///
/// # Examples
///
/// ```
/// use lawn_rt::time;
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(async {
///     time::pause();
///     time::resume();
/// });
/// ```
#[track_caller]
pub fn resume() {
    let handle = pausable("resume");
    assert!(
        handle.resume(),
        "lawn_rt: `time::resume()`: time is not paused"
    );
}

/// Moves a paused clock forward by `duration`, fires every timer now due,
/// and yields so their tasks run before this one goes on; like
/// `tokio::time::advance`.
///
/// # Panics
///
/// Outside a current-thread `lawn_rt` runtime, or if time is not paused
/// (checked when called, at the caller's line, and again when first
/// polled).
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{self, sleep, Duration};
/// use std::future::{poll_fn, Future};
/// use std::pin::pin;
/// use std::task::Poll;
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(async {
///     time::pause();
///     let mut nap = pin!(sleep(Duration::from_millis(10)));
///     // Poll it once, which registers it.
///     poll_fn(|cx| Poll::Ready(nap.as_mut().poll(cx).is_ready())).await;
///     time::advance(Duration::from_millis(10)).await;
///     assert!(nap.is_elapsed());
/// });
/// ```
#[track_caller]
pub fn advance(duration: Duration) -> Advance {
    let handle = pausable("advance");
    assert!(
        handle.is_paused(),
        "lawn_rt: `time::advance()` needs a paused clock; call `time::pause()` first (or \
         build the runtime with `start_paused(true)`)"
    );
    Advance {
        handle,
        by: duration,
        advanced: false,
    }
}

/// The future [`advance`] returns.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{self, Duration};
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(async {
///     time::pause();
///     let step: time::Advance = time::advance(Duration::from_secs(1));
///     step.await;
/// });
/// ```
#[must_use = "futures do nothing unless polled"]
#[derive(Debug)]
pub struct Advance {
    handle: Handle,
    by: Duration,
    advanced: bool,
}

impl Future for Advance {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.advanced {
            return Poll::Ready(());
        }
        self.advanced = true;
        let driver = &self.handle;
        assert!(
            driver.advance(self.by),
            "lawn_rt: `time::advance()`: time is not paused (it was resumed)"
        );
        driver.process_now();
        // Let the tasks of the timers just fired run first.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// The entered driver, if `time::{what}` may pause it.
#[track_caller]
fn pausable(what: &str) -> Handle {
    // Panics (here, at the caller's line) inside a runtime without time.
    let handle = Handle::current();
    let role = handle.role();
    if matches!(role, Role::WorkerShard(_)) {
        panic!(
            "lawn_rt: `time::{what}()` is not available on a multi_thread runtime: its workers' \
             clocks cannot stop together; use a current_thread runtime (`#[lawn_rt::test]`'s \
             default, or `Builder::new_current_thread()`)"
        );
    }
    if role != Role::CurrentThread {
        panic!(
            "lawn_rt: `time::{what}()` needs a current_thread lawn_rt runtime (such as \
             `#[lawn_rt::test]`'s); none is entered on this thread (a bare `Driver` has its own \
             `pause`/`advance`)"
        );
    }
    handle
}
