//! [`LocalSet`] and [`spawn_local`]: tasks whose futures are not `Send`,
//! run on the one thread that drives the set; like `tokio::task::LocalSet`.
//!
//! Ground rules:
//! - The set owns its tasks' futures (in an `Rc`'d context, so nothing of
//!   them can leave the thread); only the thread driving the set polls or
//!   drops them. A task being polled is out of its slot, so the poll may
//!   spawn into the set (the slots' `RefCell` is borrowed only briefly,
//!   never across user code).
//! - A task's waker is `Send + Sync`: its [`Header`] (a state word, the
//!   task's slot and the set's shared queue), not the future. A wake, from
//!   any thread, sets `SCHEDULED` and queues the slot only if the task was
//!   neither scheduled nor complete, then wakes the waker of whatever polls
//!   the set (a `block_on`, a runtime task, an enclosing set). The driver
//!   clears `SCHEDULED` just before it polls, so a wake during the poll
//!   queues the task again; so a task is queued at most once and polled by
//!   one thread only.
//! - The set's waker is registered before the queue is drained, under the
//!   queue's lock, and the first wake takes it: none is lost.
//! - `abort` is a wake with `CANCELLED` set; the driver then drops the
//!   future instead of polling it. A task that has completed keeps its
//!   output.
//! - Dropping the set closes it and cancels every task left (their handles
//!   hear `Cancelled`); a task spawned into a closed set is cancelled at
//!   once.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use super::task::{AbortSide, Id, LocalSlot};
use super::task::{JoinError, JoinHandle};
use super::Runtime;
use crate::coop;
use crate::loom::atomic::{AtomicUsize, Ordering::AcqRel, Ordering::Acquire};
use crate::loom::{lock, Mutex};

/// Tasks polled per turn of the set before it hands the thread back to
/// whatever drives it (tokio's figure).
const MAX_TASKS_PER_TICK: usize = 61;

const SCHEDULED: usize = 1;
const COMPLETE: usize = 2;
const CANCELLED: usize = 4;

crate::loom::const_thread_local! {
    /// The set whose context this thread is in (see `enter`).
    static CURRENT: RefCell<Option<Rc<Shell>>> = RefCell::new(None);
}

/// A set of `!Send` tasks that all run on the thread that drives the set;
/// like `tokio::task::LocalSet`.
///
/// [`spawn_local`] (inside the set's context) and
/// [`LocalSet::spawn_local`] add tasks; they run while the set is driven:
/// by [`run_until`](LocalSet::run_until) (which drives it while a future
/// runs), [`block_on`](LocalSet::block_on), or by awaiting the set itself,
/// which completes once every task has finished. A task woken from another
/// thread (a timer, a blocking task, a channel) is queued for the set, and
/// whatever polls the set is woken.
///
/// Works inside either runtime flavor: the set runs within the
/// `block_on` (or the task) that polls it, so on a multi-thread runtime
/// its tasks stay on that one thread while the workers run the rest.
///
/// Dropping the set drops the futures of the tasks left; their handles
/// then give a [`JoinError`] for which
/// [`is_cancelled`](JoinError::is_cancelled) is true.
///
/// # Examples
///
/// ```
/// use std::rc::Rc;
/// use lawn_rt::task::{self, LocalSet};
///
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// let local = LocalSet::new();
/// let shared = Rc::new("not Send");
/// local.block_on(&rt, async {
///     let mine = shared.clone();
///     let handle = task::spawn_local(async move { mine.len() });
///     assert_eq!(handle.await.unwrap(), 8);
/// });
/// ```
///
/// The set cannot leave its thread (neither can a handle whose output is
/// not `Send`), which is what keeps its tasks there:
///
/// ```compile_fail
/// fn send<T: Send>(_: T) {}
/// send(lawn_rt::task::LocalSet::new());
/// ```
pub struct LocalSet {
    shell: Rc<Shell>,
}

/// The set's state on its thread, shared with the thread-local context.
struct Shell {
    tasks: RefCell<Tasks>,
    woken: Arc<WokenQueue>,
    id: crate::runtime::Id,
}

struct Tasks {
    slots: Vec<Option<Entry>>,
    free: Vec<usize>,
    /// Tasks in the set (also the one being polled).
    len: usize,
    closed: bool,
}

struct Entry {
    header: Arc<Header>,
    waker: Waker,
    /// `None` while it is being polled.
    task: Option<Box<dyn LocalRun>>,
    /// Its queue entry was taken while it was being polled (the set driven
    /// from inside this very task): it is queued again once put back.
    missed: bool,
}

/// What other threads reach of the set: the queue of woken tasks.
struct WokenQueue {
    queue: Mutex<Queue>,
}

struct Queue {
    /// Woken tasks: slot index and task id (a slot may have been reused).
    ready: VecDeque<(usize, Id)>,
    /// The waker of whatever polls the set; taken by the first wake.
    waker: Option<Waker>,
    closed: bool,
}

/// A task's `Send + Sync` part: its waker and its abort side.
struct Header {
    state: AtomicUsize,
    index: usize,
    id: Id,
    woken: Arc<WokenQueue>,
}

/// A local task with its output type erased.
trait LocalRun {
    /// Polls the future once; `Ready` once it has finished (its result is
    /// in the join slot, the future is dropped).
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()>;
    /// Drops the future and completes the task as cancelled.
    fn cancel(&mut self);
}

struct LocalTask<F: Future> {
    future: Option<Pin<Box<F>>>,
    slot: Arc<LocalSlot<F::Output>>,
    id: Id,
}

impl<F: Future> LocalRun for LocalTask<F> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(future) = self.future.as_mut() else {
            return Poll::Ready(());
        };
        // The task's id is current while it is polled and its future drops
        // (`task::id`); then the one of the task polling the set, if any.
        let running = crate::runtime::context::enter_task(self.id);
        let result = match panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(output)) => Ok(output),
            Err(payload) => Err(JoinError::panic(self.id, payload)),
        };
        // The future goes before the handle hears of it; a panic in its
        // drop is swallowed (as for a runtime task).
        let future = self.future.take();
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| drop(future))) {
            drop(payload);
        }
        drop(running);
        self.slot.finish(self.id, result);
        Poll::Ready(())
    }

    fn cancel(&mut self) {
        let future = self.future.take();
        let id = self.id;
        let dropped = panic::catch_unwind(AssertUnwindSafe(|| {
            crate::runtime::context::drop_as_task(id, future)
        }));
        let result = match dropped {
            Ok(()) => JoinError::cancelled(id),
            Err(payload) => JoinError::panic(id, payload),
        };
        self.slot.finish(id, Err(result));
    }
}

impl WokenQueue {
    /// Queues task `id` (in slot `index`) and wakes whatever polls the set.
    fn push(&self, index: usize, id: Id) {
        let waker = {
            let mut queue = lock(&self.queue);
            if queue.closed {
                return;
            }
            queue.ready.push_back((index, id));
            if crate::loom::planted("local_wake") {
                return; // broken on purpose (loom model 20): queued, poller not woken
            }
            queue.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn pop(&self) -> Option<(usize, Id)> {
        lock(&self.queue).ready.pop_front()
    }

    fn has_ready(&self) -> bool {
        !lock(&self.queue).ready.is_empty()
    }

    /// Makes `waker` the one woken when a task is queued.
    fn register(&self, waker: &Waker) {
        let mut queue = lock(&self.queue);
        let old = match &queue.waker {
            Some(stored) if stored.will_wake(waker) => None,
            _ => queue.waker.replace(waker.clone()),
        };
        drop(queue);
        drop(old);
    }
}

impl Wake for Header {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let prev = self.state.fetch_or(SCHEDULED, AcqRel);
        if prev & (SCHEDULED | COMPLETE) == 0 {
            self.woken.push(self.index, self.id);
        }
    }
}

impl AbortSide for Header {
    fn abort(self: Arc<Self>) {
        let prev = self.state.fetch_or(CANCELLED | SCHEDULED, AcqRel);
        if prev & (SCHEDULED | COMPLETE) == 0 {
            self.woken.push(self.index, self.id);
        }
    }

    fn is_finished(&self) -> bool {
        self.state.load(Acquire) & COMPLETE != 0
    }
}

impl Shell {
    /// Adds `future` as a task, queued to run; cancels it at once if the
    /// set is closed (being dropped).
    fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let id = Id::next();
        let slot = Arc::new(LocalSlot::new());
        let mut task: Box<dyn LocalRun> = Box::new(LocalTask {
            future: Some(Box::pin(future)),
            slot: slot.clone(),
            id,
        });
        let mut tasks = self.tasks.borrow_mut();
        if tasks.closed {
            drop(tasks);
            let header = Arc::new(Header {
                state: AtomicUsize::new(COMPLETE),
                index: usize::MAX,
                id,
                woken: self.woken.clone(),
            });
            task.cancel();
            return JoinHandle::local(slot, header, id);
        }
        let index = match tasks.free.pop() {
            Some(index) => index,
            None => {
                tasks.slots.push(None);
                tasks.slots.len() - 1
            }
        };
        let header = Arc::new(Header {
            state: AtomicUsize::new(SCHEDULED),
            index,
            id,
            woken: self.woken.clone(),
        });
        tasks.slots[index] = Some(Entry {
            waker: Waker::from(header.clone()),
            header: header.clone(),
            task: Some(task),
            missed: false,
        });
        tasks.len += 1;
        drop(tasks);
        self.woken.push(index, id);
        JoinHandle::local(slot, header, id)
    }

    /// Runs up to `MAX_TASKS_PER_TICK` queued tasks; returns whether some
    /// are still queued.
    fn tick(&self) -> bool {
        for _ in 0..MAX_TASKS_PER_TICK {
            let Some((index, id)) = self.woken.pop() else {
                return false;
            };
            self.run(index, id);
        }
        self.woken.has_ready()
    }

    /// Polls (or, if aborted, cancels) the task `id` in slot `index`, if it
    /// is still there.
    fn run(&self, index: usize, id: Id) {
        let (header, waker, mut task) = {
            let mut tasks = self.tasks.borrow_mut();
            let Some(Some(entry)) = tasks.slots.get_mut(index) else {
                return;
            };
            if entry.header.id != id {
                return;
            }
            // `None`: it is being polled further up this thread's stack
            // (the set driven from inside one of its own tasks); that
            // poll queues it again when it is done.
            let Some(task) = entry.task.take() else {
                entry.missed = true;
                return;
            };
            (entry.header.clone(), entry.waker.clone(), task)
        };
        let prev = header.state.fetch_and(!SCHEDULED, AcqRel);
        let finished = if prev & CANCELLED != 0 {
            task.cancel();
            true
        } else {
            let mut cx = Context::from_waker(&waker);
            coop::poll_task(&waker, || task.poll(&mut cx)).is_ready()
        };
        let mut tasks = self.tasks.borrow_mut();
        if finished {
            // Only once the result is in the join slot.
            header.state.fetch_or(COMPLETE, AcqRel);
            if let Some(slot) = tasks.slots.get_mut(index) {
                *slot = None;
            }
            tasks.free.push(index);
            tasks.len -= 1;
            drop(tasks);
            // (The future is gone already: this drops only the box.)
            drop(task);
        } else if let Some(Some(entry)) = tasks.slots.get_mut(index) {
            entry.task = Some(task);
            if std::mem::take(&mut entry.missed) {
                drop(tasks);
                self.woken.push(index, id);
            }
        }
    }

    fn len(&self) -> usize {
        self.tasks.try_borrow().map_or(0, |tasks| tasks.len)
    }

    /// Closes the set and cancels every task left (the futures are dropped
    /// on this thread; their handles hear `Cancelled`).
    fn close(&self) {
        let slots = {
            let mut tasks = self.tasks.borrow_mut();
            tasks.closed = true;
            tasks.len = 0;
            tasks.free = Vec::new();
            std::mem::take(&mut tasks.slots)
        };
        let (ready, waker) = {
            let mut queue = lock(&self.woken.queue);
            queue.closed = true;
            (std::mem::take(&mut queue.ready), queue.waker.take())
        };
        drop(ready);
        drop(waker);
        for entry in slots.into_iter().flatten() {
            if let Some(mut task) = entry.task {
                task.cancel();
            }
            entry.header.state.fetch_or(COMPLETE, AcqRel);
        }
    }
}

/// Whether a local set's context is entered on this thread (its
/// `run_until`, its own poll, or `LocalSet::enter`).
pub(crate) fn is_entered() -> bool {
    CURRENT
        .try_with(|current| current.borrow().is_some())
        .unwrap_or(false)
}

/// Makes `shell` this thread's local-set context until dropped (restoring
/// the previous one).
struct Entered {
    previous: Option<Option<Rc<Shell>>>,
}

fn enter(shell: &Rc<Shell>) -> Entered {
    Entered {
        previous: CURRENT
            .try_with(|current| current.replace(Some(shell.clone())))
            .ok(),
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            let _ = CURRENT.try_with(|current| current.replace(previous));
        }
    }
}

/// Keeps a [`LocalSet`]'s context entered on this thread until dropped;
/// see [`LocalSet::enter`].
///
/// # Examples
///
/// ```
/// let local = lawn_rt::task::LocalSet::new();
/// let guard: lawn_rt::task::LocalEnterGuard = local.enter();
/// drop(guard);
/// ```
#[must_use = "the set's context is entered only until the guard is dropped"]
pub struct LocalEnterGuard {
    _entered: Entered,
}

impl LocalSet {
    /// An empty set.
    ///
    /// # Examples
    ///
    /// ```
    /// let local = lawn_rt::task::LocalSet::new();
    /// # drop(local);
    /// ```
    pub fn new() -> LocalSet {
        LocalSet {
            shell: Rc::new(Shell {
                id: crate::runtime::Id::next(),
                tasks: RefCell::new(Tasks {
                    slots: Vec::new(),
                    free: Vec::new(),
                    len: 0,
                    closed: false,
                }),
                woken: Arc::new(WokenQueue {
                    queue: Mutex::new(Queue {
                        ready: VecDeque::new(),
                        waker: None,
                        closed: false,
                    }),
                }),
            }),
        }
    }

    /// The set's id, a [`runtime::Id`](crate::runtime::Id) of its own
    /// (unique among runtimes and sets); like `tokio::task::LocalSet::id`.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = lawn_rt::task::LocalSet::new();
    /// let b = lawn_rt::task::LocalSet::new();
    /// assert_ne!(a.id(), b.id());
    /// println!("local set {}", a.id());
    /// ```
    pub fn id(&self) -> crate::runtime::Id {
        self.shell.id
    }

    /// Enters the set's context on this thread until the guard is dropped:
    /// [`spawn_local`] called meanwhile spawns into this set. The tasks run
    /// when the set is next driven.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = lawn_rt::task::LocalSet::new();
    /// let handle = {
    ///     let _entered = local.enter();
    ///     lawn_rt::task::spawn_local(async { 2 })
    /// };
    /// assert_eq!(local.block_on(&rt, handle).unwrap(), 2);
    /// ```
    pub fn enter(&self) -> LocalEnterGuard {
        LocalEnterGuard {
            _entered: enter(&self.shell),
        }
    }

    /// Spawns the `!Send` future `future` as a task of this set, which
    /// need not be running: the task runs when the set is next driven,
    /// whether or not the returned handle is awaited.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::rc::Rc;
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = lawn_rt::task::LocalSet::new();
    /// let name = Rc::new(String::from("local"));
    /// let handle = local.spawn_local(async move { name.len() });
    /// assert_eq!(local.block_on(&rt, handle).unwrap(), 5);
    /// ```
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.shell.spawn(future)
    }

    /// Runs `future` to completion on `rt`, driving this set's tasks on
    /// the calling thread meanwhile (`rt.block_on(self.run_until(future))`).
    ///
    /// # Panics
    ///
    /// As [`Runtime::block_on`]: inside a runtime's task or another
    /// `block_on`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::cell::Cell;
    /// use std::rc::Rc;
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let local = lawn_rt::task::LocalSet::new();
    /// let count = Rc::new(Cell::new(0));
    /// let total = local.block_on(&rt, async {
    ///     for _ in 0..3 {
    ///         let count = count.clone();
    ///         lawn_rt::task::spawn_local(async move { count.set(count.get() + 1) })
    ///             .await
    ///             .unwrap();
    ///     }
    ///     count.get()
    /// });
    /// assert_eq!(total, 3);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, rt: &Runtime, future: F) -> F::Output {
        rt.block_on(self.run_until(future))
    }

    /// Runs `future` to completion inside the set's context, driving the
    /// set's tasks whenever the returned future is polled; returns
    /// `future`'s output. Tasks still unfinished then stay in the set.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::task::{self, LocalSet};
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let local = LocalSet::new();
    ///     let out = local
    ///         .run_until(async {
    ///             let handle = task::spawn_local(async {
    ///                 sleep(Duration::from_millis(1)).await;
    ///                 std::rc::Rc::new(9)
    ///             });
    ///             *handle.await.unwrap()
    ///         })
    ///         .await;
    ///     assert_eq!(out, 9);
    /// });
    /// ```
    pub async fn run_until<F: Future>(&self, future: F) -> F::Output {
        RunUntil {
            shell: &self.shell,
            future,
        }
        .await
    }
}

pin_project_lite::pin_project! {
    /// The future of [`LocalSet::run_until`].
    struct RunUntil<'a, F> {
        shell: &'a Rc<Shell>,
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for RunUntil<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let _entered = enter(this.shell);
        this.shell.woken.register(cx.waker());
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(output);
        }
        if this.shell.tick() {
            // More tasks are queued: come back after the others have had
            // the thread.
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}

/// Awaiting a set drives its tasks until every one has finished.
///
/// ```
/// use lawn_rt::task::LocalSet;
/// use lawn_rt::time::{sleep, Duration};
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let local = LocalSet::new();
/// let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
/// for ms in [2u64, 1] {
///     let log = log.clone();
///     local.spawn_local(async move {
///         sleep(Duration::from_millis(ms)).await;
///         log.borrow_mut().push(ms);
///     });
/// }
/// rt.block_on(local);
/// assert_eq!(*log.borrow(), [1, 2]);
/// ```
impl Future for LocalSet {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let shell = &self.shell;
        let _entered = enter(shell);
        shell.woken.register(cx.waker());
        if shell.tick() {
            cx.waker().wake_by_ref();
            Poll::Pending
        } else if shell.len() == 0 {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Default for LocalSet {
    fn default() -> LocalSet {
        LocalSet::new()
    }
}

impl Drop for LocalSet {
    /// Drops the futures of the tasks left, in the set's context (so a
    /// `spawn_local` in a future's drop does not panic: its task is
    /// cancelled at once).
    fn drop(&mut self) {
        let _entered = enter(&self.shell);
        self.shell.close();
    }
}

impl fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSet")
            .field("tasks", &self.shell.len())
            .finish()
    }
}

impl fmt::Debug for LocalEnterGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalEnterGuard").finish_non_exhaustive()
    }
}

/// Spawns the `!Send` future `future` on the [`LocalSet`] whose context
/// this thread is in; like `tokio::task::spawn_local`.
///
/// The task runs on this thread, when the set is driven (at once if this
/// is called from one of its tasks or its `run_until` future). Awaiting
/// the handle gives its output; dropping it detaches the task.
///
/// # Panics
///
/// Outside a [`LocalSet`]'s context (not inside its
/// [`run_until`](LocalSet::run_until), [`block_on`](LocalSet::block_on),
/// one of its tasks, or after [`LocalSet::enter`]), with a message saying
/// so, at the caller's line; with tokio's "Local tasks can only be spawned
/// on a LocalRuntime from the thread the runtime was created on" where the
/// runtime entered is a [`LocalRuntime`](crate::runtime::LocalRuntime)'s
/// from another thread.
///
/// # Examples
///
/// ```
/// use std::rc::Rc;
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
/// let local = lawn_rt::task::LocalSet::new();
/// local.block_on(&rt, async {
///     let counter = Rc::new(std::cell::Cell::new(1));
///     let mine = counter.clone();
///     lawn_rt::task::spawn_local(async move { mine.set(2) }).await.unwrap();
///     assert_eq!(counter.get(), 2);
/// });
/// ```
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let current = CURRENT
        .try_with(|current| current.borrow().clone())
        .ok()
        .flatten();
    match current {
        Some(shell) => shell.spawn(future),
        // A `LocalRuntime`'s handle entered on another thread: tokio's
        // message for it, word for word, then ours.
        None if entered_local_runtime_elsewhere() => panic!(
            "Local tasks can only be spawned on a LocalRuntime from the thread the runtime was \
             created on (lawn_rt: the entered handle is a `LocalRuntime`'s, built on another \
             thread; spawn there, or `spawn` a `Send` task)"
        ),
        None => panic!(
            "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime` \
             (lawn_rt: call it from a task or future the set runs: `LocalSet::run_until`, \
             `LocalSet::block_on`, an awaited `LocalSet`, or after `LocalSet::enter`)"
        ),
    }
}

/// Whether the runtime entered on this thread is a `LocalRuntime` built
/// on another thread (only on `spawn_local`'s way to a panic).
fn entered_local_runtime_elsewhere() -> bool {
    let local = match super::context::current().map(|handle| handle.inner) {
        Some(super::scheduler::Scheduler::Current(inner)) => inner.local_thread(),
        _ => None,
    };
    local.is_some_and(|thread| thread != std::thread::current().id())
}
