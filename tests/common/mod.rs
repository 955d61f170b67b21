//! Helpers shared by the integration tests: paused drivers and runtimes,
//! wakers that count, panic or run a closure, one-shot polling, watchdogs
//! that turn a hang into a failure, runtimes of either flavor (and
//! [`both_flavors!`](crate::both_flavors), which runs one test body on
//! each), and a tiny PRNG.
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

/// Polls `interval` for its next tick once, with a waker that does nothing.
pub fn poll_tick(interval: &mut lawn_rt::time::Interval) -> Poll<lawn_rt::time::Instant> {
    interval.poll_tick(&mut Context::from_waker(Waker::noop()))
}

/// A waker that runs `f` each time it is woken (by value or by reference).
pub fn fn_waker(f: impl Fn() + Send + Sync + 'static) -> Waker {
    struct FnWake<F>(F);
    impl<F: Fn() + Send + Sync + 'static> Wake for FnWake<F> {
        fn wake(self: Arc<Self>) {
            (self.0)();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            (self.0)();
        }
    }
    Waker::from(Arc::new(FnWake(f)))
}

/// Compiles only if `T` is `Send` and `Sync`.
pub fn assert_send_sync<T: Send + Sync>() {}

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

    /// Uniform enough in `0..100`.
    pub fn percent(&mut self) -> u64 {
        self.below(100)
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
/// `ISOLATED` set: so that it sees foreign shards and a timer thread no other test touched,
/// or so that an abort fails only this test. Returns `true` in the child
/// (go ahead), `false` in the parent (done), which passes on what the
/// child wrote to stderr.
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
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "isolated run of {name} failed ({}):\n{stdout}\n{stderr}",
        output.status,
    );
    // What the child printed (a test's figures, shown with `--nocapture`).
    eprint!("{stderr}");
    false
}

/// Counts the values of [`Tracked`] dropped so far; share it with
/// `Arc::clone`.
#[derive(Default)]
pub struct DropCount(AtomicUsize);

impl DropCount {
    /// A fresh counter.
    pub fn new() -> Arc<DropCount> {
        Arc::new(DropCount::default())
    }

    /// How many [`Tracked`] values made from it have been dropped.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// A value that bumps this counter when dropped.
    pub fn track(self: &Arc<Self>) -> Tracked {
        Tracked(self.clone())
    }
}

/// Bumps its [`DropCount`] when dropped: move it into a future (or make it
/// a task's output) to see when that is dropped.
pub struct Tracked(Arc<DropCount>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0 .0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Where and why a panic happened, as the panic hook saw it.
#[derive(Clone, Debug)]
pub struct PanicSite {
    pub file: String,
    pub line: u32,
    pub message: String,
}

std::thread_local! {
    /// `Some` while this thread captures panics (see [`catch_panic_site`]).
    static CAPTURED: std::cell::RefCell<Option<Option<PanicSite>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f`, which must panic, and returns where the panic was raised (its
/// `Location`, so a `#[track_caller]` chain reports the caller's line) and
/// its message. The first panic on this thread while `f` runs counts, also
/// one caught inside `f` (a task's panic, which the runtime turns into a
/// `JoinError`).
///
/// Installs, once per process, a panic hook that records panics of the
/// threads inside `catch_panic_site` and hands every other panic to the
/// previous hook: tests in one binary run on parallel threads, and this
/// keeps them out of each other's way without a lock.
#[track_caller]
pub fn catch_panic_site<R>(what: &str, f: impl FnOnce() -> R) -> PanicSite {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let recorded = CAPTURED
                .try_with(|captured| {
                    let mut captured = captured.borrow_mut();
                    match &mut *captured {
                        Some(slot) => {
                            if slot.is_none() {
                                let location = info.location().expect("a panic location");
                                *slot = Some(PanicSite {
                                    file: location.file().to_string(),
                                    line: location.line(),
                                    message: panic_message(info.payload()),
                                });
                            }
                            true
                        }
                        None => false,
                    }
                })
                .unwrap_or(false);
            if !recorded {
                previous(info);
            }
        }));
    });
    CAPTURED.with(|captured| *captured.borrow_mut() = Some(None));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let site = CAPTURED.with(|captured| captured.borrow_mut().take().flatten());
    drop(result);
    site.unwrap_or_else(|| panic!("{what}: expected a panic, but none happened"))
}

/// The message of a panic payload (`&str` or `String`).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "<non-string panic payload>".to_string())
}

/// Open file descriptors of this process (entries of `/proc/self/fd`).
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Threads of this process (entries of `/proc/self/task`).
pub fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// Runs `f` on its own thread and returns its result, failing the test if
/// it takes longer than `limit` (a hang becomes a failure, not a stuck
/// test run; the stuck thread is left behind). A panic in `f` is passed on.
#[track_caller]
pub fn watchdog<R: Send + 'static>(
    what: &str,
    limit: std::time::Duration,
    f: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = std::thread::Builder::new()
        .name(format!("watchdog: {what}"))
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let _ = tx.send(result);
        })
        .unwrap();
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => {
            thread.join().unwrap();
            value
        }
        Ok(Err(payload)) => std::panic::resume_unwind(payload),
        Err(_) => panic!("{what}: still running after {limit:?} (hang?)"),
    }
}

/// Joins `thread`, failing the test (naming `what`) if it has not ended
/// within `limit` (a deadlock); a panic of the thread is passed on.
#[track_caller]
pub fn join_within<T>(
    what: &str,
    limit: std::time::Duration,
    thread: std::thread::JoinHandle<T>,
) -> T {
    let start = std::time::Instant::now();
    while !thread.is_finished() {
        assert!(
            start.elapsed() < limit,
            "{what}: still running after {limit:?} (deadlock)"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    match thread.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Receives on `rx`, failing the test (naming `what`) if nothing comes
/// within `limit`.
#[track_caller]
pub fn recv_within<T>(
    rx: &std::sync::mpsc::Receiver<T>,
    limit: std::time::Duration,
    what: &str,
) -> T {
    rx.recv_timeout(limit)
        .unwrap_or_else(|err| panic!("{what}: not signalled within {limit:?} ({err})"))
}

/// A value whose drop panics (unless the thread is already unwinding):
/// a task's output or a future's state that user code made hostile.
pub struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("PanicOnDrop dropped");
        }
    }
}

/// A one-shot value another thread or task can set; awaiting [`Gate::wait`]
/// gives it. Cloning shares the slot.
pub struct Gate<T> {
    shared: Arc<std::sync::Mutex<GateState<T>>>,
}

struct GateState<T> {
    value: Option<T>,
    waker: Option<Waker>,
}

impl<T> Clone for Gate<T> {
    fn clone(&self) -> Self {
        Gate {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Default for Gate<T> {
    fn default() -> Self {
        Gate {
            shared: Arc::new(std::sync::Mutex::new(GateState {
                value: None,
                waker: None,
            })),
        }
    }
}

impl<T> Gate<T> {
    pub fn new() -> Gate<T> {
        Gate::default()
    }

    /// Stores `value` and wakes the waiter (outside the lock).
    pub fn open(&self, value: T) {
        let waker = {
            let mut state = self.shared.lock().unwrap();
            state.value = Some(value);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether a value is waiting.
    pub fn is_open(&self) -> bool {
        self.shared.lock().unwrap().value.is_some()
    }

    /// Waits for the value (takes it).
    pub fn wait(&self) -> impl Future<Output = T> + Send + 'static
    where
        T: Send + 'static,
    {
        let shared = self.shared.clone();
        std::future::poll_fn(move |cx| {
            let mut state = shared.lock().unwrap();
            match state.value.take() {
                Some(value) => Poll::Ready(value),
                None => {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
    }
}

/// Yields the way most executors' `yield_now` do (`futures_lite`, smol,
/// async-std): wakes itself at once and returns `Pending` once.
pub async fn naive_yield() {
    let mut yielded = false;
    std::future::poll_fn(move |cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

// ---------------------------------------------------------------------------
// The paused runtime (`#[lawn_rt::test(start_paused = true)]` and friends)
// ---------------------------------------------------------------------------

/// Timers pending in the driver entered on this thread: inside a runtime
/// test, the runtime's.
pub fn pending_timers() -> usize {
    lawn_rt::driver::Handle::current().pending_timers()
}

/// [`lawn_rt::time::advance`] on a paused runtime, returning how many timers
/// it fired: the runtime's twin of the count [`Driver::advance`] returns.
/// It counts the timers that left the driver, so it is exact only while
/// nothing else registers or drops timers meanwhile (the tests that poll by
/// hand, with no tasks of their own).
pub async fn advance_and_count(by: std::time::Duration) -> usize {
    let before = pending_timers();
    lawn_rt::time::advance(by).await;
    before
        .checked_sub(pending_timers())
        .expect("timers were registered during `advance`: count them another way")
}

/// A current-thread runtime (time and I/O enabled) whose clock starts
/// paused, with ticks of `resolution`.
pub fn paused_runtime(resolution: std::time::Duration) -> lawn_rt::runtime::Runtime {
    lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .timer_resolution(resolution)
        .start_paused(true)
        .build()
        .expect("a paused runtime")
}

/// Runs the future `body()` makes on a paused runtime (default resolution)
/// under [`watchdog`], naming `what`: for tests whose failure mode is a
/// hang (a lost wake-up, a spin in auto-advance, a park far too long), so
/// they fail instead of stalling the run.
#[track_caller]
pub fn paused_within<F, Fut>(limit: std::time::Duration, what: &str, body: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    watchdog(what, limit, move || {
        paused_runtime(lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION).block_on(body())
    })
}

/// `d` rounded up to a whole number of the runtime's default ticks
/// ([`DEFAULT_TIMER_RESOLUTION`](lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION)):
/// how long a timer made on a tick boundary of a paused runtime takes to
/// fire.
pub fn round_up_to_tick(d: std::time::Duration) -> std::time::Duration {
    let tick = lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION.as_nanos();
    let ticks = d.as_nanos().div_ceil(tick);
    std::time::Duration::from_nanos(u64::try_from(ticks * tick).unwrap())
}

/// Short names for the durations the paused-clock tests use.
pub mod units {
    use lawn_rt::runtime::DEFAULT_TIMER_RESOLUTION;
    use std::time::Duration;

    /// The runtime's default tick.
    pub const TICK: Duration = DEFAULT_TIMER_RESOLUTION;
    pub const HOUR: Duration = Duration::from_secs(3600);
    pub const DAY: Duration = Duration::from_secs(86_400);

    pub const fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    pub const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    pub const fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }
}

// ---------------------------------------------------------------------------
// The multi-thread runtime (the `rt_multi_*` tests)
// ---------------------------------------------------------------------------

/// A multi-thread runtime with `workers` workers, time and I/O enabled.
pub fn multi_thread_runtime(workers: usize) -> lawn_rt::runtime::Runtime {
    lawn_rt::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a multi-thread runtime")
}

/// A multi-thread runtime with two workers (time and I/O enabled): the one
/// most multi-thread tests use.
pub fn rt2() -> lawn_rt::runtime::Runtime {
    multi_thread_runtime(2)
}

/// The default name of a multi-thread runtime's worker threads.
pub const WORKER: &str = "lawn-rt-worker";

/// How long a task spinning at a [`Rendezvous`] waits for another to turn
/// up on another worker.
pub const MEET: std::time::Duration = std::time::Duration::from_secs(10);

/// A meeting point for `parties` threads that waits by spinning: each
/// [`meet`](Rendezvous::meet) blocks its thread until all parties have
/// arrived. Tasks that meet this way were running at the same time, so on
/// as many different worker threads. Cloning shares it.
#[derive(Clone)]
pub struct Rendezvous {
    arrived: Arc<AtomicUsize>,
    parties: usize,
}

impl Rendezvous {
    pub fn new(parties: usize) -> Rendezvous {
        Rendezvous {
            arrived: Arc::new(AtomicUsize::new(0)),
            parties,
        }
    }

    /// Arrives and waits (blocking the thread) for the others; `false` if
    /// they had not all arrived within `limit`.
    pub fn meet(&self, limit: std::time::Duration) -> bool {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        let deadline = std::time::Instant::now() + limit;
        while self.arrived.load(Ordering::SeqCst) < self.parties {
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::yield_now();
        }
        true
    }
}

/// The current thread's id and name (`""` if unnamed): where a task ran.
pub fn current_thread() -> (std::thread::ThreadId, String) {
    let thread = std::thread::current();
    (thread.id(), thread.name().unwrap_or("").to_string())
}

/// The names of this process's threads (`/proc/self/task/*/comm`, which
/// the kernel cuts to 15 bytes).
pub fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .map(|name| name.trim_end().to_string())
        .collect()
}

/// Waits (polling every millisecond, at most `limit`) until `done()`;
/// returns whether it became true.
pub fn eventually(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

// ---------------------------------------------------------------------------
// Both flavors: one test body, run on a current-thread and a multi-thread
// runtime
// ---------------------------------------------------------------------------

/// The flavor of runtime a shared test body runs on (see
/// [`both_flavors!`](crate::both_flavors)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `Builder::new_current_thread()`.
    CurrentThread,
    /// `Builder::new_multi_thread()` with two workers ([`rt2`]).
    MultiThread,
}

impl Flavor {
    /// A builder of this flavor (two workers for a multi-thread one),
    /// nothing enabled yet.
    pub fn builder(self) -> lawn_rt::runtime::Builder {
        match self {
            Flavor::CurrentThread => lawn_rt::runtime::Builder::new_current_thread(),
            Flavor::MultiThread => {
                let mut builder = lawn_rt::runtime::Builder::new_multi_thread();
                builder.worker_threads(2);
                builder
            }
        }
    }

    /// A runtime of this flavor, time and I/O enabled.
    pub fn rt(self) -> lawn_rt::runtime::Runtime {
        self.builder().enable_all().build().expect("a runtime")
    }

    /// How long a test body on this flavor may run before a watchdog takes
    /// it for a hang: 20 s on a current-thread runtime, 60 s on a
    /// multi-thread one (more threads to wait for).
    pub fn hang(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.pick(20, 60))
    }

    /// `current_thread` on a current-thread runtime, `multi_thread` on a
    /// multi-thread one: either per flavor.
    pub fn pick<T>(self, current_thread: T, multi_thread: T) -> T {
        match self {
            Flavor::CurrentThread => current_thread,
            Flavor::MultiThread => multi_thread,
        }
    }

    /// The full name of the test `name` that `both_flavors!`, invoked at the
    /// root of a test crate, made for this flavor (`current_thread::name`
    /// or `multi_thread::name`), for [`isolated`].
    pub fn test_name(self, name: &str) -> String {
        format!("{}::{name}", self.pick("current_thread", "multi_thread"))
    }
}

/// Runs the future `body()` makes on a fresh runtime of `flavor` (time and
/// I/O enabled), under a watchdog named `what` ([`Flavor::hang`]).
#[track_caller]
pub fn on<F, Fut>(flavor: Flavor, what: &str, body: F) -> Fut::Output
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future,
    Fut::Output: Send + 'static,
{
    watchdog(what, flavor.hang(), move || flavor.rt().block_on(body()))
}

/// Waits, sleeping 1 ms at a time on lawn_rt's timers (so the runtime runs
/// other tasks), until `done()`.
pub async fn until(mut done: impl FnMut() -> bool) {
    while !done() {
        lawn_rt::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}

/// Runs each named test body on both runtime flavors: for every
/// `fn name(flavor: Flavor)` listed, makes a `#[test] fn name()` in a
/// module `current_thread` (with [`Flavor::CurrentThread`]) and one in a
/// module `multi_thread` (with [`Flavor::MultiThread`]), so the tests are
/// `current_thread::name` and `multi_thread::name`. The bodies stay
/// ordinary functions (formatted, linted and documented where they are
/// written); tests that only make sense on one flavor are plain `#[test]`s
/// next to them.
#[macro_export]
macro_rules! both_flavors {
    ($($name:ident),* $(,)?) => {
        /// The shared test bodies on a current-thread runtime.
        mod current_thread {
            $(
                #[test]
                fn $name() {
                    super::$name($crate::common::Flavor::CurrentThread)
                }
            )*
        }

        /// The shared test bodies on a multi-thread runtime (two workers).
        mod multi_thread {
            $(
                #[test]
                fn $name() {
                    super::$name($crate::common::Flavor::MultiThread)
                }
            )*
        }
    };
}

/// Helpers for the `net_*` tests.
pub mod net;

/// Runs `cycle(0)` (what is made once per process), then `cycle(1..=n)`,
/// and asserts that open fds and threads did not grow over the `n`
/// cycles (each builds and drops a runtime); logs the totals.
pub fn assert_no_leak_over(n: usize, what: &str, mut cycle: impl FnMut(usize)) {
    cycle(0);
    let fds = open_fds();
    let threads = thread_count();
    let start = std::time::Instant::now();
    for i in 1..=n {
        cycle(i);
    }
    let took = start.elapsed();
    let (fds_after, threads_after) = (open_fds(), thread_count());
    assert!(
        fds_after <= fds,
        "open fds grew from {fds} to {fds_after} over {n} {what}"
    );
    assert!(
        threads_after <= threads,
        "threads grew from {threads} to {threads_after} over {n} {what}: {:?}",
        thread_names()
    );
    eprintln!(
        "{n} {what} in {took:?}; fds {fds} -> {fds_after}, threads {threads} -> {threads_after}"
    );
}

/// A waker that panics when woken (with the message `"panicking waker
/// woken"`), as user code may.
pub fn panicking_waker() -> Waker {
    struct Panicking;
    impl std::task::Wake for Panicking {
        fn wake(self: Arc<Self>) {
            panic!("panicking waker woken");
        }
    }
    Waker::from(Arc::new(Panicking))
}

/// Raises this process's soft limit on open files to `wanted`, as far as
/// the hard limit allows (a test that opens thousands of sockets); returns
/// the soft limit in force afterwards.
// `rlim_t` is `u64` on Linux, not on every platform.
#[allow(clippy::unnecessary_cast)]
pub fn raise_fd_limit(wanted: u64) -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes only the `rlimit` it is given, which lives
    // for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        panic!("getrlimit: {}", std::io::Error::last_os_error());
    }
    if limit.rlim_cur >= wanted as libc::rlim_t {
        return limit.rlim_cur as u64;
    }
    let raised = libc::rlimit {
        rlim_cur: (wanted as libc::rlim_t).min(limit.rlim_max),
        rlim_max: limit.rlim_max,
    };
    // SAFETY: `setrlimit` only reads the `rlimit` it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
        raised.rlim_cur as u64
    } else {
        limit.rlim_cur as u64
    }
}

/// The timer thread's voluntary context switches (Linux), read from
/// `/proc`.
#[cfg(target_os = "linux")]
pub fn timer_thread_switches() -> Option<u64> {
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let path = task.ok()?.path();
        let comm = std::fs::read_to_string(path.join("comm")).ok()?;
        if comm.trim_end() != "lawn-rt-timer" {
            continue;
        }
        let status = std::fs::read_to_string(path.join("status")).ok()?;
        let line = status
            .lines()
            .find(|l| l.starts_with("voluntary_ctxt_switches:"))?;
        return line.split_whitespace().nth(1)?.parse().ok();
    }
    None
}

/// Waits `settle` (the timer thread settles into its idle sleep), then
/// panics if the timer thread wakes more than once in the next `watch`
/// (cancelled timers may cost it one last wake-up before it idles).
#[cfg(target_os = "linux")]
pub fn assert_timer_thread_idle(settle: std::time::Duration, watch: std::time::Duration) {
    std::thread::sleep(settle);
    let before = timer_thread_switches().expect("the timer thread exists");
    std::thread::sleep(watch);
    let after = timer_thread_switches().expect("the timer thread exists");
    assert!(
        after - before <= 1,
        "{} wake-ups while idle",
        after - before
    );
}
