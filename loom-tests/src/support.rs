//! What every model shares: the loom entry point, a waker that records its
//! wake-ups, and small helpers for polling by hand.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Once;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use lawn_rt::driver::{Driver, Handle};
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use loom::sync::{Condvar, Mutex};

/// The preemption bound used when `LOOM_MAX_PREEMPTIONS` is not set: every
/// interleaving with at most this many preemptions is explored.
pub const DEFAULT_PREEMPTIONS: usize = 5;

/// One tick of the models' drivers (they use 1 ms ticks).
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// Runs `body` under loom for every interleaving within the preemption
/// bound (`LOOM_MAX_PREEMPTIONS`, else [`DEFAULT_PREEMPTIONS`]).
/// Prints how many interleavings it explored (run the tests with
/// `--nocapture` to see it).
pub fn model(body: impl Fn() + Sync + Send + 'static) {
    model_bounded(DEFAULT_PREEMPTIONS, body);
}

/// As [`model`], with `bound` in place of [`DEFAULT_PREEMPTIONS`]: for a
/// model whose threads take so many locks that the default bound would
/// take hours (`LOOM_MAX_PREEMPTIONS` still overrides it).
pub fn model_bounded(bound: usize, body: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(bound);
    }
    let bound = builder.preemption_bound;
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = runs.clone();
    let started = std::time::Instant::now();
    builder.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        body();
    });
    println!(
        "loom: {} interleavings (preemption bound {bound:?}) in {:.1?}",
        runs.load(std::sync::atomic::Ordering::Relaxed),
        started.elapsed()
    );
}

/// A driver (1 ms ticks) whose clock is paused: a model moves it by hand.
pub(crate) fn paused_driver() -> Driver {
    let driver = Driver::new();
    driver.pause();
    driver
}

/// Polls `future` once with `waker`.
pub(crate) fn poll<F: Future + ?Sized>(future: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(waker))
}

/// A waker's target that counts its wake-ups and can be told that from
/// now on any wake-up is a bug (its timer's drop has returned).
pub(crate) struct Recorder {
    what: &'static str,
    woken: AtomicUsize,
    forbidden: AtomicBool,
    /// Set when woken while forbidden, before the panic: a thread that
    /// catches waker panics (the foreign timer thread) does not hide it.
    woken_after_drop: AtomicBool,
    /// A driver the waker calls into when woken, as a real waker may
    /// (wakers are called with no driver lock held; one called under the
    /// lock deadlocks here, and loom reports it).
    reenters: Option<Handle>,
}

impl Recorder {
    pub(crate) fn new(what: &'static str) -> std::sync::Arc<Recorder> {
        Recorder::build(what, None)
    }

    /// A recorder whose waker, when woken, asks `driver` how many timers it
    /// holds (taking its lock).
    pub(crate) fn reentrant(what: &'static str, driver: &Driver) -> std::sync::Arc<Recorder> {
        Recorder::build(what, Some(driver.handle().clone()))
    }

    fn build(what: &'static str, reenters: Option<Handle>) -> std::sync::Arc<Recorder> {
        std::sync::Arc::new(Recorder {
            what,
            woken: AtomicUsize::new(0),
            forbidden: AtomicBool::new(false),
            woken_after_drop: AtomicBool::new(false),
            reenters,
        })
    }

    pub(crate) fn waker(self: &std::sync::Arc<Self>) -> Waker {
        Waker::from(self.clone())
    }

    pub(crate) fn woken(&self) -> usize {
        self.woken.load(SeqCst)
    }

    /// From now on a wake-up fails the model.
    pub(crate) fn forbid(&self) {
        self.forbidden.store(true, SeqCst);
    }
}

impl Wake for Recorder {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        if self.forbidden.load(SeqCst) {
            self.woken_after_drop.store(true, SeqCst);
        }
        assert!(
            !self.forbidden.load(SeqCst),
            "{}: woken after its timer's drop returned",
            self.what
        );
        if let Some(driver) = &self.reenters {
            let _ = driver.pending_timers();
        }
        self.woken.fetch_add(1, SeqCst);
    }
}

/// Panics unless every clone of `recorder`'s wakers has been dropped:
/// nothing the driver stored for it leaked. Also panics if it was woken
/// after its timer's drop returned, in case that panic was caught.
#[track_caller]
pub(crate) fn assert_released(recorder: &std::sync::Arc<Recorder>) {
    assert!(
        !recorder.woken_after_drop.load(SeqCst),
        "{}: woken after its timer's drop returned",
        recorder.what
    );
    assert_eq!(
        std::sync::Arc::strong_count(recorder),
        1,
        "{}: a clone of its waker is still held",
        recorder.what
    );
}

/// A waker that, when called on any thread but the one that made it,
/// returns only once [`open`](Gate::open)ed: it keeps the batch that calls
/// it in flight while the model's main thread acts (a slow waker, as a
/// real one may be).
pub(crate) struct Gate {
    maker: loom::thread::ThreadId,
    open: Mutex<bool>,
    opened: Condvar,
    woken: AtomicUsize,
}

impl Gate {
    pub(crate) fn new() -> std::sync::Arc<Gate> {
        std::sync::Arc::new(Gate {
            maker: loom::thread::current().id(),
            open: Mutex::new(false),
            opened: Condvar::new(),
            woken: AtomicUsize::new(0),
        })
    }

    pub(crate) fn waker(self: &std::sync::Arc<Self>) -> Waker {
        Waker::from(self.clone())
    }

    pub(crate) fn woken(&self) -> usize {
        self.woken.load(SeqCst)
    }

    /// Lets every call return, now and from now on.
    pub(crate) fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

impl Wake for Gate {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.woken.fetch_add(1, SeqCst);
        if loom::thread::current().id() != self.maker {
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
        }
    }
}

/// Stands in for a worker's `mio::Waker` and `Poll`: `wake` is the unpark
/// hook, `wait` blocks the "worker" until a wake-up has come (wake-ups
/// are remembered, as mio's are, so an early one is not lost).
pub(crate) struct MioWaker {
    wakes: Mutex<usize>,
    signal: Condvar,
}

impl MioWaker {
    pub(crate) fn new() -> MioWaker {
        MioWaker {
            wakes: Mutex::new(0),
            signal: Condvar::new(),
        }
    }

    pub(crate) fn wake(&self) {
        *self.wakes.lock().unwrap() += 1;
        self.signal.notify_all();
    }

    pub(crate) fn wakes(&self) -> usize {
        *self.wakes.lock().unwrap()
    }

    /// Blocks until a wake-up has come (loom reports a deadlock if none
    /// ever does); consumes it.
    pub(crate) fn wait(&self) {
        let mut wakes = self.wakes.lock().unwrap();
        while *wakes == 0 {
            wakes = self.signal.wait(wakes).unwrap();
        }
        *wakes -= 1;
    }
}

/// The part of a panic message models expect (`lawn_rt`'s shutdown error).
pub(crate) const SHUT_DOWN: &str = "has shut down";

/// Runs `f`, turning a panic into its message. Expected panics (those
/// naming a shutdown) are not printed: a model meets one in most of its
/// thousands of iterations.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !message(info.payload()).contains(SHUT_DOWN) {
                previous(info);
            }
        }));
    });
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| message(&*payload))
}

/// A panic payload's message.
pub fn message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_owned()
    }
}
