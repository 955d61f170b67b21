//! Cooperative scheduling as tokio's `task::coop` offers it: a task polled
//! by a `lawn_rt` runtime may complete only so many leaf futures per poll
//! (128, tokio's figure) before they answer `Pending` and wake it, so that
//! one busy task hands the thread back to the others and to the timers.
//! These let a future of your own take part: spend a unit
//! ([`consume_budget`]), check ([`has_budget_remaining`]), wrap a future so
//! it counts ([`cooperative`]), or opt out ([`unconstrained`]).
//!
//! Outside a `lawn_rt` runtime (a `futures` executor, a foreign runtime)
//! the budget is unlimited and these change nothing.
//!
//! ```
//! use lawn_rt::task::coop;
//!
//! let rt = lawn_rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let (tx, mut rx) = lawn_rt::sync::mpsc::unbounded_channel();
//!     for i in 0..1000 {
//!         tx.send(i).unwrap();
//!     }
//!     drop(tx);
//!     // Each receive counts against this task's budget, so the loop
//!     // yields to the runtime every 128 messages.
//!     while let Some(_) = coop::cooperative(rx.recv()).await {}
//! });
//! ```

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

pub use super::{consume_budget, unconstrained, Unconstrained};

/// Whether the current task may still complete a leaf future this poll
/// without being made to yield; always `true` outside a `lawn_rt`
/// runtime (and inside [`unconstrained`]). Like tokio's.
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     assert!(lawn_rt::task::coop::has_budget_remaining());
/// });
/// ```
#[must_use]
pub fn has_budget_remaining() -> bool {
    crate::coop::has_budget_left()
}

/// The permission [`poll_proceed`] gives: call
/// [`made_progress`](RestoreOnPending::made_progress) when the future
/// completes, which spends a unit of budget; dropped without it, nothing
/// is spent. Like tokio's (and, like it, tied to the polling thread).
///
/// # Examples
///
/// See [`poll_proceed`].
#[derive(Debug)]
#[must_use = "call made_progress() when the future completes"]
pub struct RestoreOnPending {
    spent: std::cell::Cell<bool>,
    _not_send: PhantomData<*mut ()>,
}

impl RestoreOnPending {
    /// Records that the future made progress: one unit of the task's
    /// budget is spent (once, however often this is called).
    ///
    /// # Examples
    ///
    /// See [`poll_proceed`].
    pub fn made_progress(&self) {
        if !self.spent.replace(true) {
            crate::coop::made_progress();
        }
    }
}

/// For a leaf future of your own: `Pending` (having woken the task, so it
/// runs again after the others) if the task's budget is spent, else
/// permission to go on. Like tokio's.
///
/// # Examples
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use std::task::{ready, Context, Poll};
///
/// /// Always ready, but counts against the budget like a socket read.
/// struct Tick;
///
/// impl Future for Tick {
///     type Output = ();
///     fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
///         let coop = ready!(lawn_rt::task::coop::poll_proceed(cx));
///         coop.made_progress();
///         Poll::Ready(())
///     }
/// }
///
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     for _ in 0..1000 {
///         Tick.await; // yields to the runtime every 128
///     }
/// });
/// ```
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    ready!(crate::coop::poll_proceed(cx));
    Poll::Ready(RestoreOnPending {
        spent: std::cell::Cell::new(false),
        _not_send: PhantomData,
    })
}

pin_project_lite::pin_project! {
    /// The future [`cooperative`] returns.
    ///
    /// # Examples
    ///
    /// See [`cooperative`].
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Coop<F> {
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let coop = ready!(poll_proceed(cx));
        let output = ready!(self.project().future.poll(cx));
        coop.made_progress();
        Poll::Ready(output)
    }
}

/// Makes `future` a leaf future of the task's budget: each completion
/// spends a unit, and once it is spent the future answers `Pending` (and
/// wakes the task) until the task has yielded. For other crates' futures
/// that know no budget, such as `lawn_rt::sync`'s channels (tokio's).
/// Like tokio's.
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// let n = rt.block_on(lawn_rt::task::coop::cooperative(async { 7 }));
/// assert_eq!(n, 7);
/// ```
pub fn cooperative<F: Future>(future: F) -> Coop<F> {
    Coop { future }
}
