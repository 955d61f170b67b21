//! The runtime's per-thread context: which runtime is entered (for
//! `Handle::current` and `spawn`), which task is running (for `task::id`),
//! and, on the thread driving a runtime, its local run queue.
//!
//! Ground rules: the local queue exists only while a thread drives a
//! runtime (inside `block_on` holding the core); a task woken there is
//! pushed to it without a lock. Borrows of the queue are brief (a push or
//! a pop), never across a poll, so wakers called from a poll can push.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::task::Waker;

use std::sync::Arc;

use super::io;
use super::task::{Id, TaskRef};
use super::Handle;

/// The run queue of the runtime this thread drives.
pub(crate) struct Local {
    /// Which runtime (its scheduler's address).
    owner: usize,
    /// Which worker of a multi-thread runtime this thread is (0 for a
    /// current-thread runtime).
    index: usize,
    pub(crate) queue: VecDeque<TaskRef>,
    /// Wakers of tasks that yielded: woken after the next park, so a task
    /// that yields lets timers and I/O in first.
    pub(crate) deferred: Vec<Waker>,
}

/// The I/O driver a socket made on this thread registers with.
#[derive(Clone)]
pub(crate) enum Io {
    Driver(Arc<io::Driver>),
    /// The entered runtime was built without I/O.
    Disabled,
}

crate::loom::const_thread_local! {
    static HANDLE: RefCell<Option<Handle>> = RefCell::new(None);
    static IO: RefCell<Option<Io>> = RefCell::new(None);
    static LOCAL: RefCell<Option<Local>> = RefCell::new(None);
    /// How many multi-thread `block_on`s run on this thread (at most one:
    /// a nested one panics).
    static BLOCKING_ON: Cell<u32> = Cell::new(0);
    /// How many runtime contexts are entered on this thread (see
    /// [`HandleGuard`]).
    static ENTER_DEPTH: Cell<usize> = Cell::new(0);
    /// The task being polled (or whose future or output is being dropped)
    /// on this thread.
    static CURRENT_TASK: Cell<Option<Id>> = Cell::new(None);
}

/// The task running on this thread (see `task::id`).
pub(crate) fn current_task() -> Option<Id> {
    CURRENT_TASK.try_with(Cell::get).ok().flatten()
}

/// Makes `id` the running task on this thread until the guard drops (also
/// on a panic), when the task that ran before (if any: a task polling a
/// `LocalSet`) is current again.
#[inline]
pub(crate) fn enter_task(id: Id) -> TaskGuard {
    TaskGuard {
        previous: CURRENT_TASK
            .try_with(|c| c.replace(Some(id)))
            .ok()
            .flatten(),
    }
}

/// See [`enter_task`].
pub(crate) struct TaskGuard {
    previous: Option<Id>,
}

impl Drop for TaskGuard {
    #[inline]
    fn drop(&mut self) {
        let _ = CURRENT_TASK.try_with(|c| c.set(self.previous));
    }
}

/// Drops `value` (a task's future or output) with task `id` running, as
/// tokio does, so its `Drop` sees the task's id; no thread-local access
/// when there is nothing to drop.
pub(crate) fn drop_as_task<T>(id: Id, value: Option<T>) {
    if value.is_some() {
        let _running = enter_task(id);
        drop(value);
    }
}

/// The runtime entered on this thread.
pub(crate) fn current() -> Option<Handle> {
    try_current().ok().flatten()
}

/// [`current`], or an error if the thread's context is already destroyed
/// (a call from a thread-local's destructor at thread exit).
pub(crate) fn try_current() -> Result<Option<Handle>, ()> {
    HANDLE.try_with(|h| h.borrow().clone()).map_err(drop)
}

/// The I/O driver entered on this thread.
pub(crate) fn io() -> Option<Io> {
    IO.try_with(|h| h.borrow().clone()).ok().flatten()
}

/// Makes `handle` the entered runtime, and `io` its I/O driver here, until
/// the guard drops.
pub(crate) fn enter(handle: Handle, io: Io) -> HandleGuard {
    let depth = ENTER_DEPTH
        .try_with(|depth| {
            depth.set(depth.get() + 1);
            depth.get()
        })
        .unwrap_or(0);
    HandleGuard {
        handle: HANDLE
            .try_with(|h| h.borrow_mut().replace(handle))
            .ok()
            .flatten(),
        io: IO.try_with(|h| h.borrow_mut().replace(io)).ok().flatten(),
        depth,
    }
}

/// Restores the previously entered runtime when dropped.
pub(crate) struct HandleGuard {
    handle: Option<Handle>,
    io: Option<Io>,
    /// How many guards were alive on this thread with this one, counting
    /// it: guards must be dropped in the reverse order of their making.
    depth: usize,
}

impl Drop for HandleGuard {
    fn drop(&mut self) {
        let depth = ENTER_DEPTH.try_with(Cell::get).unwrap_or(self.depth);
        if depth != self.depth {
            if !std::thread::panicking() {
                panic!(
                    "`EnterGuard` values dropped out of order. Guards returned by \
                     `tokio::runtime::Handle::enter()` must be dropped in the reverse order as \
                     they were acquired. (lawn_rt: `Runtime::enter` and `Handle::enter` guards \
                     nest.)"
                );
            }
            // Already unwinding: leave the context as it is, as tokio does.
            return;
        }
        let _ = ENTER_DEPTH.try_with(|d| d.set(depth - 1));
        let io = self.io.take();
        let _ = IO.try_with(|h| *h.borrow_mut() = io);
        let previous = self.handle.take();
        let _ = HANDLE.try_with(|h| *h.borrow_mut() = previous);
    }
}

/// Whether this thread is driving some runtime right now, or blocked in
/// a multi-thread runtime's `block_on` (where a nested `block_on` would
/// block the future that waits for it).
pub(crate) fn is_driving() -> bool {
    LOCAL.try_with(|l| l.borrow().is_some()).unwrap_or(false)
        || BLOCKING_ON.try_with(Cell::get).unwrap_or(0) > 0
}

/// Starts driving runtime `owner` on this thread (as its worker `index`)
/// with `queue`.
pub(crate) fn start_driving(owner: usize, index: usize, queue: VecDeque<TaskRef>) {
    LOCAL.with(|l| {
        *l.borrow_mut() = Some(Local {
            owner,
            index,
            queue,
            deferred: Vec::new(),
        })
    });
}

/// Drives again what [`stop_driving`] gave back, on this thread: a
/// multi-thread worker's role handed to a new thread by `block_in_place`.
pub(crate) fn resume_driving(local: Local) {
    LOCAL.with(|l| *l.borrow_mut() = Some(local));
}

/// Whether this thread drives a runtime now (holds a run queue: a
/// current-thread runtime's `block_on`, or a multi-thread worker).
pub(crate) fn drives_a_runtime() -> bool {
    LOCAL.try_with(|l| l.borrow().is_some()).unwrap_or(false)
}

/// Which worker of the runtime it drives this thread is, if it drives one
/// (0 on a current-thread runtime's driving thread).
pub(crate) fn driving_index() -> Option<usize> {
    LOCAL
        .try_with(|l| l.borrow().as_ref().map(|local| local.index))
        .ok()
        .flatten()
}

/// Which worker of runtime `owner` this thread is, if it is one.
#[inline]
pub(crate) fn worker_index(owner: usize) -> Option<usize> {
    with_local(owner, |local| local.index)
}

/// Marks this thread as blocked in a multi-thread runtime's `block_on`
/// until the guard drops.
pub(crate) fn enter_block_on() -> BlockOnGuard {
    BLOCKING_ON.with(|b| b.set(b.get() + 1));
    BlockOnGuard(())
}

pub(crate) struct BlockOnGuard(());

impl Drop for BlockOnGuard {
    fn drop(&mut self) {
        let _ = BLOCKING_ON.try_with(|b| b.set(b.get() - 1));
    }
}

/// Leaves the multi-thread `block_on`s on this thread until the guard
/// drops (`block_in_place` from a `block_on` future: the closure may
/// `block_on` in turn, as in tokio).
pub(crate) fn leave_block_on() -> LeftBlockOn {
    LeftBlockOn(BLOCKING_ON.try_with(|b| b.replace(0)).unwrap_or(0))
}

pub(crate) struct LeftBlockOn(u32);

impl Drop for LeftBlockOn {
    fn drop(&mut self) {
        let _ = BLOCKING_ON.try_with(|b| b.set(self.0));
    }
}

/// Stops driving; returns the queue and the deferred wakers left.
pub(crate) fn stop_driving() -> Option<Local> {
    LOCAL.try_with(|l| l.borrow_mut().take()).ok().flatten()
}

/// Runs `f` on the local queue if this thread drives runtime `owner`.
#[inline]
pub(crate) fn with_local<R>(owner: usize, f: impl FnOnce(&mut Local) -> R) -> Option<R> {
    LOCAL
        .try_with(|l| match &mut *l.borrow_mut() {
            Some(local) if local.owner == owner => Some(f(local)),
            _ => None,
        })
        .ok()
        .flatten()
}

/// Defers `waker` to after the next park if this thread drives a runtime;
/// gives it back otherwise.
pub(crate) fn defer(waker: &Waker) -> bool {
    LOCAL
        .try_with(|l| match &mut *l.borrow_mut() {
            Some(local) => {
                local.deferred.push(waker.clone());
                true
            }
            None => false,
        })
        .unwrap_or(false)
}
