//! Tasks: a spawned future, its state word, its output slot and its waker.
//!
//! A task is one `Arc<Task<F>>`, seen three ways: as a [`TaskRef`] (what
//! run queues and the runtime's owned set hold), as a `Waker` (what timers
//! hold), and as the typed side of a [`JoinHandle`].
//!
//! Ground rules:
//! - `state` bits: `SCHEDULED` (in a run queue, or due to be put back by
//!   its runner), `RUNNING` (being polled), `COMPLETE` (output or error
//!   produced, future dropped), `CANCELLED` (abort asked).
//! - Only the thread that set `RUNNING` polls or drops the future (a
//!   runtime's driving thread; the blocking pool's thread for a blocking
//!   task; one that handed its worker over in `block_in_place` goes on
//!   with the task it polls). A wake from anywhere sets
//!   `SCHEDULED` and pushes the task only if it was neither scheduled,
//!   running nor complete; a runner that sees `SCHEDULED` set again after
//!   its poll pushes the task back itself. So a task is in at most one
//!   queue at a time and never polled concurrently.
//! - `CANCELLED` seen by a runner after a `Pending` poll cancels the task
//!   there; a shutdown that finds the task running only sets it, and
//!   leaves the future to the runner (loom model 21).
//! - The future and the join slot have separate locks: a task that awaits
//!   its own handle waits forever, it does not deadlock its thread.
//! - A panic in `poll` (or in dropping a cancelled future) becomes the
//!   task's [`JoinError`]; one in dropping a completed future, a detached
//!   output or the handle's waker is swallowed (as tokio does). None
//!   unwinds into the scheduler.

mod join;

use std::future::Future;
use std::num::NonZeroU64;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

pub use join::{AbortHandle, JoinError, JoinHandle};
pub(crate) use join::{AbortSide, LocalSlot};

use crate::coop;
use crate::loom::atomic::{AtomicUsize, Ordering::AcqRel, Ordering::Acquire, Ordering::Release};
use crate::loom::{lock, Mutex, MutexGuard};
use crate::runtime::context;

const SCHEDULED: usize = 1;
const RUNNING: usize = 2;
const COMPLETE: usize = 4;
const CANCELLED: usize = 8;

/// Where a task goes when it is woken, and who is told when it ends.
pub(crate) trait Schedule: Send + Sync + 'static {
    /// Puts a woken task in a run queue.
    fn schedule(&self, task: TaskRef);
    /// The task has completed, and its handle has been told (`owned` is
    /// the index it was given in the scheduler's owned set, `usize::MAX` if
    /// it was never bound).
    fn release(&self, owned: usize);
}

/// A type-erased task, as run queues hold it.
pub(crate) type TaskRef = Arc<dyn Run>;

/// What a scheduler does with a task.
pub(crate) trait Run: Send + Sync {
    /// Polls the task once (its `SCHEDULED` bit is set).
    fn run(self: Arc<Self>);
    /// Drops the future and completes the task as cancelled (runtime
    /// shutdown), unless it has completed already.
    fn shutdown(self: Arc<Self>);
    /// Records the task's index in its scheduler's owned set.
    fn set_owned(&self, index: usize);
}

/// An opaque id of a task, unique among every task of the process; like
/// `tokio::task::Id`.
///
/// Every task gets one when it is spawned: [`spawn`](crate::task::spawn)ed,
/// [`spawn_blocking`](crate::task::spawn_blocking) and
/// [`spawn_local`](crate::task::spawn_local) ones alike, on any runtime.
/// Read it from outside the task with [`JoinHandle::id`],
/// [`AbortHandle::id`] or [`JoinError::id`], and from inside with
/// [`task::id`](crate::task::id) or [`task::try_id`](crate::task::try_id).
///
/// Ids come from one process-wide counter, so two tasks never share one
/// (tokio allows an id to be reused once its task and every handle to it
/// are gone; lawn_rt never reuses one). Beyond that, the number means
/// nothing: compare ids for equality, or use them as map keys; do not
/// read an order of spawning into them. Its `Display` is the bare number,
/// its `Debug` `Id(<number>)`, as tokio's.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use lawn_rt::task::{self, Id};
///
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut names: HashMap<Id, &str> = HashMap::new();
///     let handle = task::spawn(async { task::id() });
///     names.insert(handle.id(), "worker");
///     let inside = handle.await.unwrap();
///     assert_eq!(names[&inside], "worker");
///     assert_eq!(format!("{inside:?}"), format!("Id({inside})"));
/// });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id(NonZeroU64);

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Id {
    /// A fresh id from a process-wide counter ([`fresh_id`]). It starts at
    /// 1 and would take centuries to wrap.
    pub(crate) fn next() -> Id {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Id(fresh_id(&NEXT))
    }
}

/// The next value of a process-wide id counter: one relaxed increment (a
/// `std` atomic: no hand-off, see `crate::loom`), skipping 0 should it
/// ever wrap. Task ids and runtime ids are drawn this way.
pub(crate) fn fresh_id(counter: &AtomicU64) -> NonZeroU64 {
    loop {
        let drawn = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(id) = NonZeroU64::new(drawn) {
            return id;
        }
    }
}

/// The [`Id`] of the task being run on this thread; like
/// `tokio::task::id`.
///
/// A task counts as running while it is polled, and also while its future
/// or its unclaimed output is dropped, so a `Drop` in it sees its id; a
/// `spawn_blocking` closure runs as a task too. The future given to
/// `block_on` is not a task (as in tokio).
///
/// # Panics
///
/// Outside a task: in `block_on`'s own future, or on a thread that runs
/// none (with a message saying so, at the caller's line);
/// [`try_id`] does not panic.
///
/// # Examples
///
/// ```
/// use lawn_rt::task;
///
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let handle = task::spawn(async { task::id() });
///     let expected = handle.id();
///     assert_eq!(handle.await.unwrap(), expected);
/// });
/// ```
#[track_caller]
pub fn id() -> Id {
    match context::current_task() {
        Some(id) => id,
        // tokio's message, word for word, then ours.
        None => panic!(
            "lawn_rt: Can't get a task id when not inside a task (`task::id()` called outside \
             every spawned task: the future given to `block_on` is not one; `task::try_id()` \
             does not panic)"
        ),
    }
}

/// The [`Id`] of the task being run on this thread, or `None` outside
/// every task (see [`id`]); like `tokio::task::try_id`.
///
/// # Examples
///
/// ```
/// use lawn_rt::task;
///
/// assert_eq!(task::try_id(), None);
/// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(async {
///     assert_eq!(task::try_id(), None); // block_on's future is no task
///     let blocking = task::spawn_blocking(task::try_id);
///     let expected = blocking.id();
///     assert_eq!(blocking.await.unwrap(), Some(expected));
/// });
/// ```
pub fn try_id() -> Option<Id> {
    context::current_task()
}

pub(crate) struct Task<F: Future> {
    state: AtomicUsize,
    id: Id,
    owned: AtomicUsize,
    scheduler: Arc<dyn Schedule>,
    future: Mutex<Option<Pin<Box<F>>>>,
    join: Mutex<join::Slot<F::Output>>,
}

/// A new task, marked scheduled: the runnable side (for the caller to push
/// to a run queue, or run) and its handle.
pub(crate) fn new_task<F>(
    future: F,
    scheduler: Arc<dyn Schedule>,
) -> (TaskRef, JoinHandle<F::Output>)
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let task = Arc::new(Task {
        state: AtomicUsize::new(SCHEDULED),
        id: Id::next(),
        owned: AtomicUsize::new(usize::MAX),
        scheduler,
        future: Mutex::new(Some(Box::pin(future))),
        join: Mutex::new(join::Slot::default()),
    });
    let handle = JoinHandle::new(task.clone());
    (task, handle)
}

impl<F> Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    /// Completes the task with `result`: stores it for the handle (or drops
    /// it if the handle is gone), wakes the handle's waker, and tells the
    /// scheduler.
    fn complete(&self, result: Result<F::Output, JoinError>) {
        let (dropped, waker) = {
            let mut slot = lock(&self.join);
            slot.finish(result)
        };
        // Only once the output is in the slot: `is_finished` means ready.
        self.state.fetch_or(COMPLETE, AcqRel);
        // The output's drop and the handle's waker are user code: neither
        // may unwind into the scheduler (or skip `release`).
        let _ = panic::catch_unwind(AssertUnwindSafe(move || {
            context::drop_as_task(self.id, dropped);
            if let Some(waker) = waker {
                waker.wake();
            }
        }));
        self.scheduler.release(self.owned.load(Acquire));
    }

    /// Drops the future (catching a panic in its drop) and completes the
    /// task as cancelled.
    fn cancel(&self) {
        let future = lock(&self.future).take();
        let dropped =
            panic::catch_unwind(AssertUnwindSafe(|| context::drop_as_task(self.id, future)));
        let result = match dropped {
            Ok(()) => JoinError::cancelled(self.id),
            Err(payload) => JoinError::panic(self.id, payload),
        };
        self.complete(Err(result));
    }

    fn abort(self: &Arc<Self>) {
        let prev = self.state.fetch_or(CANCELLED | SCHEDULED, AcqRel);
        if prev & (SCHEDULED | RUNNING | COMPLETE) == 0 {
            self.scheduler.schedule(self.clone());
        }
    }

    pub(crate) fn is_complete(&self) -> bool {
        self.state.load(Acquire) & COMPLETE != 0
    }
}

impl<F> Run for Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn run(self: Arc<Self>) {
        let prev = self.state.fetch_update(AcqRel, Acquire, |s| {
            (s & COMPLETE == 0).then_some((s & !SCHEDULED) | RUNNING)
        });
        let Ok(prev) = prev else { return };
        if prev & CANCELLED != 0 {
            self.cancel();
            return;
        }
        let waker = Waker::from(self.clone());
        let mut cx = Context::from_waker(&waker);
        let polled = {
            // The task's id is current here while it is polled and while
            // its future drops (`task::id`).
            let _running = context::enter_task(self.id);
            let future = lock(&self.future);
            if future.is_none() {
                return;
            }
            let polled = panic::catch_unwind(AssertUnwindSafe(|| {
                // A panic in `poll` drops the future during the unwind, as
                // tokio does: `thread::panicking()` is true in its `Drop`,
                // and a panic there aborts rather than being lost.
                let mut on_unwind = DropOnUnwind(Some(future));
                let fut = on_unwind.0.as_mut().and_then(|f| f.as_mut());
                let fut = fut.expect("checked above");
                let polled = coop::poll_task(&waker, || fut.as_mut().poll(&mut cx));
                (polled, on_unwind.0.take())
            }));
            match polled {
                Ok((Poll::Pending, _)) => Ok(Poll::Pending),
                Ok((Poll::Ready(output), future)) => {
                    // Done: the future goes now, outside its lock and
                    // before the handle hears of it.
                    let fut = future.and_then(|mut future| future.take());
                    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| drop(fut))) {
                        drop(payload);
                    }
                    Ok(Poll::Ready(output))
                }
                // The future went during the unwind.
                Err(payload) => Err(payload),
            }
        };
        match polled {
            Ok(Poll::Ready(output)) => self.complete(Ok(output)),
            Err(payload) => self.complete(Err(JoinError::panic(self.id, payload))),
            Ok(Poll::Pending) => {
                // Aborted or shut down during the poll: cancelled here
                // (still `RUNNING`), not left to a queue that may be gone.
                let idle = self.state.fetch_update(AcqRel, Acquire, |s| {
                    (s & CANCELLED == 0).then_some(s & !RUNNING)
                });
                match idle {
                    Ok(prev) if prev & SCHEDULED != 0 => self.scheduler.schedule(self.clone()),
                    Ok(_) => {}
                    Err(_) => self.cancel(),
                }
            }
        }
    }

    fn shutdown(self: Arc<Self>) {
        let prev = self.state.fetch_update(AcqRel, Acquire, |s| {
            (s & COMPLETE == 0).then_some(s | CANCELLED | RUNNING)
        });
        match prev {
            Ok(prev)
                if prev & RUNNING != 0
                    // The deliberately broken variants (test-only) cancel
                    // a running task here, waiting for its poll to end.
                    && !crate::loom::planted("shutdown_running")
                    && !crate::loom::planted("drop_in_task") =>
            {
                // Polled right now (by a thread that handed its worker
                // over): its runner completes or cancels it.
            }
            Ok(_) => self.cancel(),
            Err(_) => {}
        }
    }

    fn set_owned(&self, index: usize) {
        self.owned.store(index, Release);
    }
}

/// Holds a task's future (locked) while it is polled; dropped by an
/// unwind out of `poll`, it drops the future then and there (outside its
/// lock), as tokio's harness does. Defused by taking the lock back out.
struct DropOnUnwind<'a, T>(Option<MutexGuard<'a, Option<T>>>);

impl<T> Drop for DropOnUnwind<'_, T> {
    fn drop(&mut self) {
        if let Some(mut future) = self.0.take() {
            let fut = future.take();
            drop(future);
            drop(fut);
        }
    }
}

impl<F> Wake for Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let prev = self.state.fetch_or(SCHEDULED, AcqRel);
        if prev & (SCHEDULED | RUNNING | COMPLETE) == 0 {
            self.scheduler.schedule(self.clone());
        }
    }
}
