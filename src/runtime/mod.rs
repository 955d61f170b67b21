//! The runtime: schedulers whose park loop is a mio poll plus the Lawn
//! timer driver; like `tokio::runtime`.
//!
//! Two flavors, as in tokio:
//!
//! - **multi-thread** ([`Runtime::new`], [`Builder::new_multi_thread`]): a
//!   pool of worker threads runs the tasks; each worker has its own park
//!   loop, its own I/O driver and its own **shard of the timers** (a Lawn
//!   driver of its own), so workers never contend on one timer lock. A
//!   timer files with the worker that first polls it.
//! - **current-thread** ([`Builder::new_current_thread`]): the future given
//!   to [`block_on`](Runtime::block_on) and every task
//!   [`spawn`](crate::spawn)ed on the runtime run on the thread in
//!   `block_on`. The one flavor whose clock can be paused (tests).
//!
//! When a park loop has nothing to run, its thread parks in epoll until the
//! next timer deadline (woken at the deadline itself by a timerfd, not at
//! the next whole millisecond), an I/O event, or a wake-up from another
//! thread.
//!
//! ```
//! use lawn_rt::runtime::Runtime;
//! use lawn_rt::time::{sleep, timeout, Duration};
//!
//! let rt = Runtime::new().unwrap();
//! let answer = rt.block_on(async {
//!     let worker = lawn_rt::spawn(async {
//!         sleep(Duration::from_millis(2)).await;
//!         42
//!     });
//!     timeout(Duration::from_secs(1), worker).await.unwrap().unwrap()
//! });
//! assert_eq!(answer, 42);
//! ```
//!
//! # Layers
//!
//! `builder.rs` → `scheduler/` (`current.rs` and `multi/`: the park
//! loops and queues; `owned.rs`: the live tasks) → `park.rs` (mio,
//! timerfd; `park_model.rs` under loom), `io/` (socket readiness),
//! `task/` (task state, join handles) and `blocking.rs` (the
//! `spawn_blocking` pool, whose threads enter the runtime's `Handle`) →
//! `config.rs` (how threads are named, sized and hooked: plain data the
//! builder fills and the workers and the pool read). Only this module,
//! `net` and `signal` (the registration of its socket pair) know about
//! mio.

mod blocking;
mod builder;
mod config;
pub(crate) mod context;
pub(crate) mod io;
#[cfg(not(loom))]
mod park;
#[cfg(loom)]
#[path = "park_model.rs"]
mod park;

/// How many I/O events one poll of a park loop takes
/// (`Builder::max_io_events_per_tick` and `max_io_events_per_busy_tick`,
/// each at least 1); the loom model's parker takes none.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventCaps {
    /// A poll that may wait (the thread has nothing else to do).
    pub(crate) idle: usize,
    /// A poll that does not wait (the thread has tasks or a due timer).
    pub(crate) busy: usize,
}

mod local;
pub(crate) mod local_set;
mod scheduler;
pub(crate) mod task;

pub(crate) use scheduler::block_in_place;

/// Hooks for the loom models (`cfg(loom)` only): a socket's readiness
/// record, which they cannot reach through a socket.
#[cfg(loom)]
#[doc(hidden)]
pub use io::model;

use std::fmt;
use std::future::Future;
use std::time::Duration;

pub use crate::driver::TimerSlack;
pub use builder::{Builder, DEFAULT_TIMER_RESOLUTION};
pub use local::{LocalOptions, LocalRuntime};
use scheduler::Scheduler;
use task::JoinHandle;

/// A `lawn_rt` runtime: a scheduler (multi- or current-thread), Lawn timer drivers
/// and a blocking pool; like `tokio::runtime::Runtime`.
///
/// Dropping it drops every task (their futures: on the dropping thread for
/// a current-thread runtime, on a worker for a multi-thread one, before the
/// drop returns) and every pending timer's waker, then waits for its
/// blocking tasks, those still queued included (they run, as in tokio);
/// it leaks no thread or file descriptor. A timer polled after its runtime
/// is gone panics, saying so.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::Runtime;
///
/// let rt = Runtime::new().unwrap();
/// let handle = rt.spawn(async { "done" });
/// assert_eq!(rt.block_on(handle).unwrap(), "done");
/// ```
pub struct Runtime {
    handle: Handle,
}

/// A cheap, clonable reference to a [`Runtime`]: spawn on it, enter it;
/// like `tokio::runtime::Handle`.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::{Handle, Runtime};
///
/// let rt = Runtime::new().unwrap();
/// let handle = rt.handle().clone();
/// let join = std::thread::spawn(move || handle.spawn(async { 1 }));
/// assert_eq!(rt.block_on(join.join().unwrap()).unwrap(), 1);
/// ```
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: Scheduler,
}

/// For the loom models (`cfg(loom)` only): how many references to this
/// handle's scheduler exist, so a model can tell that nothing but its own
/// handles keeps a runtime alive once it is dropped.
#[cfg(loom)]
#[doc(hidden)]
pub fn model_scheduler_references(handle: &Handle) -> usize {
    match &handle.inner {
        Scheduler::Current(inner) => std::sync::Arc::strong_count(inner),
        Scheduler::Multi(shared) => std::sync::Arc::strong_count(shared),
    }
}

/// Keeps a runtime entered on this thread until dropped; see
/// [`Runtime::enter`].
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// let guard: lawn_rt::runtime::EnterGuard<'_> = rt.enter();
/// drop(guard);
/// ```
#[must_use = "the runtime is entered only until the guard is dropped"]
pub struct EnterGuard<'a> {
    // Dropped in this order: a local runtime's task context, the time
    // context, then the runtime's.
    _local: Option<local_set::LocalEnterGuard>,
    _time: crate::driver::Restore,
    _runtime: context::HandleGuard,
    // The runtime is borrowed until the guard's last use, not its drop
    // (no field's drop names `'a`), as with tokio's guard.
    _handle: std::marker::PhantomData<&'a Handle>,
}

impl EnterGuard<'_> {
    /// The same guard, keeping `local` (a `LocalRuntime`'s set) entered
    /// too.
    fn with_local(mut self, local: local_set::LocalEnterGuard) -> Self {
        self._local = Some(local);
        self
    }
}

/// Which scheduler a runtime runs; what [`Handle::runtime_flavor`]
/// gives; like `tokio::runtime::RuntimeFlavor`.
///
/// More flavors may come, so a `match` on it needs a `_` arm outside this
/// crate (as with tokio's).
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::{Builder, Handle, RuntimeFlavor};
///
/// let rt = Builder::new_current_thread().build().unwrap();
/// let flavor = rt.block_on(async { Handle::current().runtime_flavor() });
/// assert_eq!(flavor, RuntimeFlavor::CurrentThread);
/// // A multi-thread runtime's handle only: `block_in_place` needs one.
/// let can_block_in_place = match flavor {
///     RuntimeFlavor::MultiThread => true,
///     _ => false,
/// };
/// assert!(!can_block_in_place);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// Every task runs on the thread in [`Runtime::block_on`]
    /// ([`Builder::new_current_thread`]).
    CurrentThread,
    /// Tasks run on a pool of worker threads
    /// ([`Builder::new_multi_thread`], [`Runtime::new`]).
    MultiThread,
}

/// A runtime's counts, read when asked: tokio's stable
/// `RuntimeMetrics` (`num_workers`, `num_alive_tasks`,
/// `global_queue_depth`). From [`Handle::metrics`] or
/// [`Runtime::metrics`]; cheap to clone, it reads the runtime each call.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::Builder;
///
/// let rt = Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// let metrics = rt.metrics();
/// assert_eq!(metrics.num_workers(), 2);
/// let task = rt.spawn(std::future::pending::<()>());
/// assert_eq!(metrics.num_alive_tasks(), 1);
/// task.abort();
/// ```
#[derive(Clone)]
pub struct RuntimeMetrics {
    scheduler: Scheduler,
}

impl std::fmt::Debug for RuntimeMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeMetrics")
            .field("num_workers", &self.num_workers())
            .field("num_alive_tasks", &self.num_alive_tasks())
            .field("global_queue_depth", &self.global_queue_depth())
            .finish()
    }
}

impl RuntimeMetrics {
    /// The worker threads the runtime runs tasks on: its `worker_threads`
    /// for a multi-thread runtime, 1 for a current-thread one.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 1);
    /// ```
    #[must_use]
    pub fn num_workers(&self) -> usize {
        self.scheduler.num_workers()
    }

    /// Tasks spawned (with `spawn`, not `spawn_blocking`) and not yet
    /// completed or cancelled. As in tokio, a task leaves the count just
    /// after its output is handed over: on a multi-thread runtime its
    /// `JoinHandle` may return a moment before the count drops.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let metrics = rt.metrics();
    /// let task = rt.spawn(std::future::pending::<()>());
    /// assert_eq!(metrics.num_alive_tasks(), 1);
    /// task.abort();
    /// rt.block_on(async { assert!(task.await.unwrap_err().is_cancelled()) });
    /// assert_eq!(metrics.num_alive_tasks(), 0);
    /// ```
    #[must_use]
    pub fn num_alive_tasks(&self) -> usize {
        self.scheduler.alive_tasks()
    }

    /// Tasks waiting in the runtime's shared queue (scheduled from outside
    /// a worker), not counting each worker's own queue.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let _task = rt.spawn(async {}); // from outside: queued until block_on
    /// assert_eq!(rt.metrics().global_queue_depth(), 1);
    /// ```
    #[must_use]
    pub fn global_queue_depth(&self) -> usize {
        self.scheduler.global_queue_depth()
    }

    /// How many times worker `worker` has parked: gone to sleep with
    /// nothing to run (a look for events that does not wait is not
    /// counted); like tokio's. On a current-thread runtime worker 0 is
    /// the thread in `block_on`.
    ///
    /// # Panics
    ///
    /// If `worker` is not below [`num_workers`](Self::num_workers).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build()?;
    /// rt.block_on(sleep(Duration::from_millis(5)));
    /// let metrics = rt.metrics();
    /// assert!(metrics.worker_park_count(0) >= 1);
    /// assert_eq!(metrics.worker_park_unpark_count(0) % 2, 0); // awake now
    /// assert!(metrics.worker_total_busy_duration(0) < Duration::from_secs(5));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        self.worker(worker).parks()
    }

    /// Parks and wake-ups of worker `worker` together: odd while it is
    /// parked, even while it runs; like tokio's.
    ///
    /// # Panics
    ///
    /// If `worker` is not below [`num_workers`](Self::num_workers).
    ///
    /// # Examples
    ///
    /// See [`worker_park_count`](Self::worker_park_count).
    #[must_use]
    #[track_caller]
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        self.worker(worker).park_unparks()
    }

    /// How long worker `worker` has been busy (awake, running tasks and
    /// looking for work) up to its latest park, or on a current-thread
    /// runtime up to the latest `block_on`'s end; like tokio's.
    ///
    /// # Panics
    ///
    /// If `worker` is not below [`num_workers`](Self::num_workers).
    ///
    /// # Examples
    ///
    /// See [`worker_park_count`](Self::worker_park_count).
    #[must_use]
    #[track_caller]
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        self.worker(worker).busy()
    }

    /// What the timers of worker `worker`'s shard have done: filed,
    /// cancelled, fired and reset, pending now, the park loop's wake-ups
    /// by cause, how late fired timers were, and the memory the shard
    /// holds (see [`TimerMetrics`](crate::time::TimerMetrics)). All zero
    /// on a runtime without time. On a current-thread runtime worker 0 is
    /// the thread in `block_on`.
    ///
    /// # Panics
    ///
    /// If `worker` is not below [`num_workers`](Self::num_workers).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .enable_all()
    ///     .build()?;
    /// rt.block_on(async {
    ///     lawn_rt::spawn(sleep(Duration::from_millis(1))).await.unwrap();
    /// });
    /// let metrics = rt.metrics();
    /// let fired: u64 = (0..metrics.num_workers())
    ///     .map(|worker| metrics.worker_timer_metrics(worker).fired)
    ///     .sum();
    /// assert_eq!(fired, 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn worker_timer_metrics(&self, worker: usize) -> crate::time::TimerMetrics {
        match self.scheduler.worker_timers(worker) {
            Some(Some(driver)) => driver.metrics(),
            Some(None) => crate::time::TimerMetrics::default(),
            None => self.no_such_worker(worker),
        }
    }

    /// [`worker_timer_metrics`](Self::worker_timer_metrics) summed over
    /// every worker (`shards` says how many were summed).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{timeout, Duration};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     // Done at once: the timeout is cancelled, never fired.
    ///     timeout(Duration::from_secs(1), async {}).await.unwrap();
    /// });
    /// let timers = rt.metrics().timer_metrics();
    /// assert_eq!(timers.shards, rt.metrics().num_workers());
    /// assert_eq!((timers.fired, timers.pending), (0, 0));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    pub fn timer_metrics(&self) -> crate::time::TimerMetrics {
        let mut sum = crate::time::TimerMetrics::default();
        for worker in 0..self.num_workers() {
            sum += &self.worker_timer_metrics(worker);
        }
        sum
    }

    #[track_caller]
    fn worker(&self, worker: usize) -> &scheduler::WorkerStats {
        match self.scheduler.worker_stats(worker) {
            Some(stats) => stats,
            None => self.no_such_worker(worker),
        }
    }

    #[track_caller]
    fn no_such_worker(&self, worker: usize) -> ! {
        panic!(
            "lawn_rt: worker index {worker} is out of range: the runtime has {} worker(s)",
            self.num_workers()
        )
    }
}

/// The error [`Handle::try_current`] gives outside a runtime.
///
/// # Examples
///
/// ```
/// let err = lawn_rt::runtime::Handle::try_current().unwrap_err();
/// assert!(err.to_string().contains("no lawn_rt runtime"));
/// assert!(err.is_missing_context() && !err.is_thread_local_destroyed());
/// ```
#[derive(Debug)]
pub struct TryCurrentError {
    /// The thread's context was already destroyed (the call came from
    /// another thread-local's destructor at thread exit).
    destroyed: bool,
}

impl TryCurrentError {
    /// Whether the call came from a thread with no runtime entered; like
    /// tokio's.
    ///
    /// # Examples
    ///
    /// See [`TryCurrentError`].
    #[must_use]
    pub fn is_missing_context(&self) -> bool {
        !self.destroyed
    }

    /// Whether the call came while the thread was exiting, after its
    /// runtime context had been destroyed (from another thread-local's
    /// destructor); like tokio's.
    ///
    /// # Examples
    ///
    /// See [`TryCurrentError`].
    #[must_use]
    pub fn is_thread_local_destroyed(&self) -> bool {
        self.destroyed
    }
}

/// An opaque id of a runtime, unique among the runtimes of the process
/// (never reused); like `tokio::runtime::Id`. From [`Handle::id`], and
/// [`LocalSet::id`](crate::task::LocalSet::id) for a local set.
///
/// # Examples
///
/// ```
/// let a = lawn_rt::runtime::Runtime::new()?;
/// let b = lawn_rt::runtime::Runtime::new()?;
/// assert_ne!(a.handle().id(), b.handle().id());
/// assert_eq!(a.handle().id(), a.handle().clone().id());
/// println!("runtime {}", a.handle().id());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Id(std::num::NonZeroU64);

impl Id {
    /// A fresh id, from a process-wide counter.
    pub(crate) fn next() -> Id {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Id(task::fresh_id(&NEXT))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The index of the worker this thread is, in the runtime it drives:
/// `0..num_workers` on a multi-thread runtime's worker (which may change
/// across an `.await`, as the task may move), `Some(0)` on the thread that
/// drives a current-thread runtime (inside its `block_on`), `None`
/// elsewhere (a blocking-pool thread, a multi-thread runtime's `block_on`
/// thread, outside any runtime); like `tokio::runtime::worker_index`.
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Builder::new_multi_thread().worker_threads(2).build()?;
/// let index = rt.block_on(rt.spawn(async { lawn_rt::runtime::worker_index() })).unwrap();
/// assert!(matches!(index, Some(0 | 1)));
/// assert_eq!(lawn_rt::runtime::worker_index(), None);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn worker_index() -> Option<usize> {
    context::driving_index()
}

/// Whether `err` is the error an I/O operation gives once the runtime its
/// socket, pipe or descriptor was registered with has shut down; like
/// `tokio::runtime::is_rt_shutdown_err`.
///
/// # Examples
///
/// ```
/// use lawn_rt::net::TcpListener;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// let listener = rt.block_on(TcpListener::bind("127.0.0.1:0"))?;
/// drop(rt);
/// let other = lawn_rt::runtime::Runtime::new()?;
/// let err = other.block_on(listener.accept()).unwrap_err();
/// assert!(lawn_rt::runtime::is_rt_shutdown_err(&err));
/// assert!(!lawn_rt::runtime::is_rt_shutdown_err(&std::io::Error::other("other")));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn is_rt_shutdown_err(err: &std::io::Error) -> bool {
    io::is_shut_down_error(err)
}

const NO_RUNTIME: &str = "there is no lawn_rt runtime on this thread: call this from inside \
    `Runtime::block_on`, a spawned task, or after `Runtime::enter`";

impl Runtime {
    /// A multi-thread runtime with one worker per CPU and time and I/O
    /// enabled (`Builder::new_multi_thread().enable_all().build()`), as
    /// tokio's `Runtime::new`. Tests that pause the clock want
    /// `Builder::new_current_thread()` (or `#[lawn_rt::test]`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// # drop(rt);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new() -> std::io::Result<Runtime> {
        Builder::new_multi_thread().enable_all().build()
    }

    pub(crate) fn from_handle(handle: Handle) -> Runtime {
        Runtime { handle }
    }

    /// Runs `future` to completion on this thread and returns its output.
    /// On a multi-thread runtime the workers run the tasks, timers and I/O
    /// meanwhile. On a current-thread runtime this thread runs them while
    /// it waits; several threads may call it at once: one drives the
    /// runtime, the others wait for their own future.
    ///
    /// # Panics
    ///
    /// If called from a thread that is already running a runtime's tasks
    /// (from inside a task or another `block_on`): `.await` the future
    /// there.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(sleep(Duration::from_millis(1)));
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// Spawns `future` as a task on this runtime; see
    /// [`Handle::spawn`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.spawn(async { 2 + 2 });
    /// assert_eq!(rt.block_on(handle).unwrap(), 4);
    /// ```
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Runs `func` on the runtime's blocking pool; see
    /// [`task::spawn_blocking`](crate::task::spawn_blocking).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.spawn_blocking(|| 6 * 7);
    /// assert_eq!(rt.block_on(handle).unwrap(), 42);
    /// ```
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(func)
    }

    /// This runtime's handle.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let handle: &lawn_rt::runtime::Handle = rt.handle();
    /// # drop(handle);
    /// ```
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// The runtime's counts ([`Handle::metrics`]); like
    /// `tokio::runtime::Runtime::metrics`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 2);
    /// ```
    #[must_use]
    pub fn metrics(&self) -> RuntimeMetrics {
        self.handle.metrics()
    }

    /// Enters the runtime on this thread until the guard drops: timers
    /// created there use its driver, and [`spawn`](crate::spawn) and
    /// [`Handle::current`] find it. Nothing runs until a `block_on`.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let sleep = {
    ///     let _entered = rt.enter();
    ///     sleep(Duration::from_millis(1)) // bound to rt's driver
    /// };
    /// rt.block_on(sleep);
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Shuts the runtime down, waiting at most `timeout` for its blocking
    /// tasks (those still queued run too; any left when it returns go on
    /// running on their threads, as in tokio); the rest is as for dropping
    /// it.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::Duration;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.spawn_blocking(|| std::thread::sleep(Duration::from_millis(200)));
    /// rt.shutdown_timeout(Duration::from_millis(10)); // returns after ~10 ms
    /// ```
    pub fn shutdown_timeout(self, timeout: Duration) {
        self.shutdown(Some(timeout));
    }

    /// Shuts the runtime down without waiting for its blocking tasks
    /// (`shutdown_timeout(Duration::ZERO)`): they go on running on their
    /// threads, the queued ones included.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.shutdown_background();
    /// ```
    pub fn shutdown_background(self) {
        self.shutdown(Some(Duration::ZERO));
    }

    fn shutdown(&self, timeout: Option<Duration>) {
        // Futures dropped here may create or drop timers and tasks: give
        // them the runtime's context (new tasks are cancelled at once).
        let _entered = self.enter();
        self.handle.inner.shutdown(timeout);
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown(None);
    }
}

impl Handle {
    /// The runtime entered on this thread.
    ///
    /// # Panics
    ///
    /// Outside a runtime, with a message saying so (at the caller's line);
    /// [`try_current`](Handle::try_current) does not panic.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let handle = lawn_rt::runtime::Handle::current();
    ///     handle.spawn(async {}).await.unwrap();
    /// });
    /// ```
    #[track_caller]
    pub fn current() -> Handle {
        match context::current() {
            Some(handle) => handle,
            None => panic!("lawn_rt: `Handle::current()`: {NO_RUNTIME}"),
        }
    }

    /// The runtime entered on this thread, or an error.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::runtime::Handle::try_current().is_err());
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let _entered = rt.enter();
    /// assert!(lawn_rt::runtime::Handle::try_current().is_ok());
    /// ```
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        match context::try_current() {
            Ok(Some(handle)) => Ok(handle),
            Ok(None) => Err(TryCurrentError { destroyed: false }),
            Err(_) => Err(TryCurrentError { destroyed: true }),
        }
    }

    /// The runtime's [`Id`]; like `tokio::runtime::Handle::id`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let inside = rt.block_on(async { lawn_rt::runtime::Handle::current().id() });
    /// assert_eq!(inside, rt.handle().id());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn id(&self) -> Id {
        self.inner.runtime_id()
    }

    /// Spawns `future` as a task on this runtime, from any thread. It runs
    /// when the runtime is driven (by a `block_on`); awaiting the returned
    /// handle gives its output. If the runtime has shut down, the task is
    /// cancelled at once.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().spawn(async { "hi" });
    /// assert_eq!(rt.block_on(handle).unwrap(), "hi");
    /// ```
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let scheduler = self.inner.as_schedule();
        let (task, handle) = task::new_task(future, scheduler.clone());
        if self.inner.bind(&task) {
            scheduler.schedule(task);
        }
        handle
    }

    /// Runs `func` on this runtime's blocking pool; see
    /// [`task::spawn_blocking`](crate::task::spawn_blocking).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().spawn_blocking(|| "blocking");
    /// assert_eq!(rt.block_on(handle).unwrap(), "blocking");
    /// ```
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_blocking_unless_shut_down(func).1
    }

    /// Runs `future` to completion on this thread, with the runtime
    /// entered, and returns its output; like `tokio::runtime::Handle::block_on`.
    ///
    /// On a multi-thread runtime the workers run the spawned tasks, timers
    /// and I/O while this thread waits for `future`. On a current-thread
    /// runtime this is [`Runtime::block_on`]: the calling thread drives the
    /// runtime (or waits while another thread does).
    ///
    /// # Panics
    ///
    /// If called from a thread that is running a runtime's tasks (inside a
    /// task, on a worker, or inside another `block_on`): `.await` the
    /// future there instead. Also if the runtime has been dropped and the
    /// future waits on its timers.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::Builder;
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    /// let handle = rt.handle().clone();
    /// let out = std::thread::spawn(move || {
    ///     handle.block_on(async {
    ///         sleep(Duration::from_millis(1)).await;
    ///         lawn_rt::spawn(async { 5 }).await.unwrap()
    ///     })
    /// })
    /// .join()
    /// .unwrap();
    /// assert_eq!(out, 5);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        assert!(
            !context::is_driving(),
            "Cannot start a runtime from within a runtime. This happens because a function \
             (like `block_on`) attempted to block the current thread while the thread is being \
             used to drive asynchronous tasks. If you are in an async function, use `.await` on \
             the future instead of blocking on it. (lawn_rt: cannot `block_on` inside a \
             runtime; `.await` the future instead, or spawn it.)"
        );
        let _entered = self.enter();
        self.inner.block_on(future)
    }

    /// The flavor of this handle's runtime; like
    /// `tokio::runtime::Handle::runtime_flavor`.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::{Builder, RuntimeFlavor};
    ///
    /// let rt = Builder::new_multi_thread().worker_threads(1).build().unwrap();
    /// assert_eq!(rt.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
    /// ```
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        match self.inner {
            Scheduler::Current(_) => RuntimeFlavor::CurrentThread,
            Scheduler::Multi(_) => RuntimeFlavor::MultiThread,
        }
    }

    /// The runtime's name, if its [`Builder::name`] gave one; like
    /// `tokio::runtime::Handle::name`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread().name("api").build().unwrap();
    /// assert_eq!(rt.handle().name(), Some("api"));
    /// assert_eq!(lawn_rt::runtime::Runtime::new().unwrap().handle().name(), None);
    /// ```
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        self.inner.name()
    }

    /// The runtime's counts; like `tokio::runtime::Handle::metrics`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread().worker_threads(3).build().unwrap();
    /// assert_eq!(rt.handle().metrics().num_workers(), 3);
    /// ```
    #[must_use]
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics {
            scheduler: self.inner.clone(),
        }
    }

    /// Enters the runtime on this thread; see [`Runtime::enter`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// std::thread::spawn(move || {
    ///     let _entered = handle.enter();
    ///     let _join = lawn_rt::spawn(async {});
    /// })
    /// .join()
    /// .unwrap();
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        let parts = self.inner.enter_parts();
        let runtime = context::enter(self.clone(), parts.io);
        let time = match parts.time {
            Some(driver) => driver.handle().enter(),
            None => crate::driver::enter_time_disabled(),
        };
        EnterGuard {
            _local: None,
            _time: time.into_restore(),
            _runtime: runtime,
            _handle: std::marker::PhantomData,
        }
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("flavor", &self.handle.inner.flavor())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("flavor", &self.inner.flavor())
            .field("time", &self.inner.has_time())
            .field("io", &self.inner.has_io())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for EnterGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterGuard").finish_non_exhaustive()
    }
}

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.destroyed {
            f.write_str(
                "lawn_rt: the runtime context of this thread is gone: the thread is \
                 exiting, and this ran in a thread-local's destructor",
            )
        } else {
            write!(f, "lawn_rt: {NO_RUNTIME}")
        }
    }
}

impl std::error::Error for TryCurrentError {}
