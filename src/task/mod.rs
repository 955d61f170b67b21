//! Tasks: spawn them, yield, run blocking code; like `tokio::task`.
//!
//! ```
//! use lawn_rt::runtime::Runtime;
//! use lawn_rt::task;
//!
//! let rt = Runtime::new().unwrap();
//! rt.block_on(async {
//!     let cpu = task::spawn_blocking(|| (1..=10u64).product::<u64>());
//!     let io = task::spawn(async { "ready" });
//!     assert_eq!(cpu.await.unwrap(), 3_628_800);
//!     assert_eq!(io.await.unwrap(), "ready");
//! });
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub mod coop;
mod join_set;
mod task_local;

use crate::coop as budget;
pub use crate::runtime::local_set::{spawn_local, LocalEnterGuard, LocalSet};
pub use crate::runtime::task::{id, try_id, AbortHandle, Id, JoinError, JoinHandle};
use crate::runtime::{context, Handle};
pub use join_set::JoinSet;
pub use task_local::{AccessError, LocalKey, TaskLocalFuture};

/// loom's `thread_local!`, for the slots `task_local!` declares under
/// `cfg(loom)`. Not public API.
#[cfg(loom)]
#[doc(hidden)]
pub use loom::thread_local as __loom_thread_local;

/// Spawns `future` as a task on the current runtime; like `tokio::spawn`.
///
/// The task starts running at the runtime's next turn, whether or not the
/// returned [`JoinHandle`] is awaited; dropping the handle detaches it. A
/// panic in the task is caught: the handle gives a [`JoinError`] and the
/// runtime keeps running.
///
/// # Panics
///
/// Outside a `lawn_rt` runtime (with a message saying so, at the caller's
/// line).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let handle = lawn_rt::task::spawn(async { 5 });
///     assert_eq!(handle.await.unwrap(), 5);
/// });
/// ```
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    current("spawn").spawn(future)
}

/// Runs the blocking function `func` on the current runtime's blocking
/// pool (a bounded set of threads, see
/// [`Builder::max_blocking_threads`](crate::runtime::Builder::max_blocking_threads));
/// like `tokio::task::spawn_blocking`.
///
/// It cannot be aborted once started; the runtime's shutdown waits for it
/// (or up to [`Runtime::shutdown_timeout`](crate::runtime::Runtime::shutdown_timeout)),
/// and one still queued then runs all the same, as tokio's pool runs it in
/// practice (so a last `spawn_blocking(flush)` before the drop flushes).
/// After the shutdown, a new one is cancelled at once.
/// While one runs, a paused clock does not auto-advance.
///
/// # Panics
///
/// Outside a `lawn_rt` runtime.
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let len = lawn_rt::task::spawn_blocking(|| std::fs::read_dir(".").map(|d| d.count()));
///     assert!(len.await.unwrap().is_ok());
/// });
/// ```
#[track_caller]
pub fn spawn_blocking<F, R>(func: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    current("spawn_blocking").spawn_blocking(func)
}

/// Runs the blocking function `f` on this thread, after handing this
/// worker's other tasks to a new thread; like `tokio::task::block_in_place`.
///
/// On a worker of a multi-thread runtime, the worker (its queue, its timers
/// and its sockets) moves to a new thread before `f` starts, so the
/// runtime's other tasks keep running while `f` blocks; the task that
/// called it goes on here once `f` returns. Unlike
/// [`spawn_blocking`], `f` need not be `'static` or `Send`: it may borrow
/// from the task. Elsewhere (a multi-thread runtime's `block_on` thread, a
/// blocking-pool thread, no runtime at all, a second `block_in_place`
/// inside `f`) it just runs `f`.
///
/// Whatever else the calling task does during `f` waits for it: futures
/// `join!`ed with the call are not polled until `f` returns.
///
/// # Panics
///
/// On the thread running a current-thread runtime (in its `block_on`),
/// with tokio's message ("can call blocking only when running on the
/// multi-threaded runtime"): there is no other thread to hand the runtime
/// to. Use [`spawn_blocking`] there.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::Builder;
///
/// let rt = Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
/// rt.block_on(async {
///     lawn_rt::spawn(async {
///         let config = String::from("threads = 2");
///         // Borrows `config`: no `'static` needed.
///         let parsed = lawn_rt::task::block_in_place(|| {
///             std::thread::sleep(std::time::Duration::from_millis(5));
///             config.len()
///         });
///         assert_eq!(parsed, 11);
///     })
///     .await
///     .unwrap();
/// });
/// ```
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    if crate::runtime::local_set::is_entered() && context::current().is_some() {
        panic!(
            "can call blocking only when running on the multi-threaded runtime (lawn_rt: not \
             from inside a `LocalSet`, whose tasks must stay on this thread; use \
             `spawn_blocking`)"
        );
    }
    crate::runtime::block_in_place(f)
}

#[track_caller]
fn current(what: &str) -> Handle {
    match context::current() {
        Some(handle) => handle,
        None => panic!(
            "lawn_rt: `{what}` must be called from inside a lawn_rt runtime (in `block_on`, a \
             spawned task, or after `Runtime::enter`)"
        ),
    }
}

/// Lets the runtime run other tasks, timers and I/O before this task goes
/// on; like `tokio::task::yield_now`.
///
/// Inside a runtime the task is put back after the runtime's next look at
/// timers and I/O; elsewhere it wakes itself at once.
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
///
/// // On a current-thread runtime the spawned task runs while this one
/// // yields:
/// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(async {
///     let ran = Arc::new(AtomicBool::new(false));
///     let flag = ran.clone();
///     lawn_rt::spawn(async move { flag.store(true, Ordering::SeqCst) });
///     lawn_rt::task::yield_now().await;
///     assert!(ran.load(Ordering::SeqCst));
/// });
/// ```
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        if !context::defer(cx.waker()) {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}

/// Uses one unit of the task's cooperative budget, and yields to the
/// runtime first if the budget is spent; like `tokio::task::consume_budget`.
///
/// A `lawn_rt` runtime gives each task poll a budget of 128 leaf futures
/// (its timers, join handles, sockets). Futures of other crates know
/// nothing of it: `tokio::sync`'s channels keep tokio's own budget, which
/// only tokio's runtime sets, so a loop over a channel that always has a
/// message ready never yields on a `lawn_rt` runtime and holds its thread
/// (and that thread's timers) until the channel runs dry. Calling this in
/// such a loop makes it yield every 128 turns, as it would in tokio.
/// Outside a runtime the budget is unlimited and this returns at once.
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(async {
///     let (tx, rx) = std::sync::mpsc::channel();
///     (0..1000).for_each(|i| tx.send(i).unwrap());
///     let mut sum = 0;
///     while let Ok(i) = rx.try_recv() {
///         sum += i;
///         lawn_rt::task::consume_budget().await; // yields every 128 items
///     }
///     assert_eq!(sum, 499_500);
/// });
/// ```
pub async fn consume_budget() {
    std::future::poll_fn(|cx| {
        std::task::ready!(budget::poll_proceed(cx));
        budget::made_progress();
        Poll::Ready(())
    })
    .await
}

pin_project_lite::pin_project! {
    /// A future that runs without the cooperative budget; see
    /// [`unconstrained`].
    ///
    /// # Examples
    ///
    /// ```
    /// let fut: lawn_rt::task::Unconstrained<_> = lawn_rt::task::unconstrained(async {});
    /// # drop(fut);
    /// ```
    #[must_use = "futures do nothing unless polled"]
    #[derive(Debug)]
    pub struct Unconstrained<F> {
        #[pin]
        inner: F,
    }
}

/// Runs `future` without the cooperative budget; like
/// `tokio::task::unconstrained`.
///
/// Inside a runtime, a task may complete only so many timers and join
/// handles per poll (128) before they answer `Pending` and the task is put
/// back, so one busy task cannot starve the others or the timers. An
/// unconstrained future never gets that forced `Pending`: use it only where
/// starving the runtime is what you want.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{sleep, Duration};
///
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(lawn_rt::task::unconstrained(async {
///     for _ in 0..1000 {
///         sleep(Duration::ZERO).await; // never forced to yield
///     }
/// }));
/// ```
pub fn unconstrained<F: Future>(future: F) -> Unconstrained<F> {
    Unconstrained { inner: future }
}

impl<F: Future> Future for Unconstrained<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let inner = self.project().inner;
        budget::with_budget(None, || inner.poll(cx))
    }
}
