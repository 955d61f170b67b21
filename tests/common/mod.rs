//! Helpers shared by the `time_*` integration tests: a paused driver, a
//! waker that counts its wakes, one-shot polling, and a tiny PRNG.
//!
//! Not every test file uses every helper.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use lawn_rt::driver::Driver;

/// A driver on the paused clock (1 ms ticks): time moves only by
/// [`Driver::advance`].
pub fn paused_driver() -> Driver {
    let driver = Driver::new();
    driver.pause();
    driver
}

/// Counts how often a waker made from it was woken.
#[derive(Default)]
pub struct Counter {
    wakes: AtomicUsize,
}

impl Counter {
    /// How many wakes so far.
    pub fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }
}

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }
}

/// A counter and a waker that bumps it. `Arc::strong_count(&counter)` is 1
/// once every clone of the waker has been dropped.
pub fn counting_waker() -> (Arc<Counter>, Waker) {
    let counter = Arc::new(Counter::default());
    let waker = Waker::from(counter.clone());
    (counter, waker)
}

/// Polls `future` once with `waker`.
pub fn poll_with<F: Future + ?Sized>(future: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(waker))
}

/// Polls `future` once with a waker that does nothing.
pub fn poll_noop<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    poll_with(future, Waker::noop())
}

/// xorshift64*: small, fast and reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform enough in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Fails the test with `what` unless `f` panics with a message containing
/// `expected`; returns normally otherwise.
#[track_caller]
pub fn assert_panics_with<R>(expected: &str, what: &str, f: impl FnOnce() -> R) {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let Err(payload) = result else {
        panic!("{what}: expected a panic containing {expected:?}, but it returned");
    };
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("<non-string panic payload>");
    assert!(
        message.contains(expected),
        "{what}: panic message {message:?} does not contain {expected:?}"
    );
}

/// Runs the test `name` of this binary alone in a child process, with
/// `ISOLATED` set: so that it sees a fallback driver no other test touched,
/// or so that an abort fails only this test. Returns `true` in the child
/// (go ahead), `false` in the parent (done).
pub fn isolated(name: &str) -> bool {
    const ISOLATED: &str = "LAWN_RT_TEST_ISOLATED";
    if std::env::var_os(ISOLATED).is_some() {
        return true;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(ISOLATED, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "isolated run of {name} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    false
}
