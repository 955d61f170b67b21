//! [`JoinSet`]: a collection of spawned tasks, joined in the order they
//! finish; like `tokio::task::JoinSet`.
//!
//! Ground rules:
//! - Each task sits in a slot of the set (an index and a sequence number
//!   that is never reused, so a late notification for a slot that has
//!   been emptied and filled again is recognised and skipped).
//! - At insertion the set polls the task's [`JoinHandle`] once with the
//!   slot's own waker, which the join slot keeps: the task's completion
//!   wakes that waker, which appends the slot's key to the set's ready
//!   queue and wakes the waker of whoever last waited on the set. Joining
//!   pops that queue: O(1) per finished task, whatever the set's size.
//! - A task that has already finished at insertion (spawned on a runtime
//!   that has shut down: cancelled at once) keeps its result in its slot
//!   and is queued as ready straight away.
//! - The ready queue's lock is held only to push or pop a key or to swap
//!   the waiting waker; wakers are woken and dropped outside it.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use super::{AbortHandle, Id, JoinError, JoinHandle, LocalSet};
use crate::coop;
use crate::loom::{lock, Mutex};
use crate::runtime::Handle;

/// A set of tasks spawned on a runtime, whose outputs are collected in the
/// order the tasks finish; like `tokio::task::JoinSet`.
///
/// Every task is spawned through the set and keeps running on its own;
/// [`join_next`](JoinSet::join_next) waits for the next one to finish and
/// returns its output (or the [`JoinError`] if it panicked or was
/// aborted). All tasks have the same output type `T`.
///
/// Dropping the set aborts every task still in it ([`detach_all`](JoinSet::detach_all)
/// first to let them run on). Joining costs the same whatever the number
/// of tasks: finished tasks are queued for the set by their own wake-ups,
/// the set never looks through the unfinished ones.
///
/// # Examples
///
/// ```
/// use lawn_rt::task::JoinSet;
/// use lawn_rt::time::{sleep, Duration};
///
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut set = JoinSet::new();
///     for ms in [30u64, 10, 20] {
///         set.spawn(async move {
///             sleep(Duration::from_millis(ms)).await;
///             ms
///         });
///     }
///     let mut order = Vec::new();
///     while let Some(result) = set.join_next().await {
///         order.push(result.unwrap());
///     }
///     assert_eq!(order, [10, 20, 30]); // finishing order, not spawning order
/// });
/// ```
pub struct JoinSet<T> {
    /// The tasks, by slot index.
    slots: Vec<Slot<T>>,
    /// Indices of the empty slots.
    free: Vec<usize>,
    /// Tasks in the set.
    len: usize,
    /// The sequence number of the next task inserted.
    next_seq: u64,
    ready: Arc<Ready>,
}

struct Slot<T> {
    seq: u64,
    entry: Option<Entry<T>>,
}

enum Entry<T> {
    /// Not known to have finished; `waker` is the one its join slot holds.
    Running { handle: JoinHandle<T>, waker: Waker },
    /// Finished before it could be waited for (task `Id`).
    Done(Id, Result<T, JoinError>),
}

/// Which slot a notification is for.
#[derive(Clone, Copy)]
struct Key {
    index: usize,
    seq: u64,
}

/// The tasks that have finished and are not yet joined, as their tasks'
/// wakers report them (from any thread).
struct Ready {
    inner: Mutex<ReadyInner>,
}

struct ReadyInner {
    keys: VecDeque<Key>,
    /// Whoever waits for the set (the last `poll_join_next` that found
    /// nothing ready); taken by the first notification.
    waker: Option<Waker>,
}

impl Ready {
    fn push(&self, key: Key) {
        let waker = {
            let mut inner = lock(&self.inner);
            inner.keys.push_back(key);
            if crate::loom::planted("set_wake") {
                return; // broken on purpose (loom model 19): queued, joiner not woken
            }
            inner.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The waker a task's join slot holds: its completion queues the slot.
struct Notify {
    ready: Arc<Ready>,
    key: Key,
}

impl Wake for Notify {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.ready.push(self.key);
    }
}

/// A finished task's result with its id inside the `Ok` (a `JoinError`
/// carries its own).
fn with_id<T>((id, result): (Id, Result<T, JoinError>)) -> Result<(Id, T), JoinError> {
    result.map(|output| (id, output))
}

/// The result without the id.
fn without_id<T>(result: Result<(Id, T), JoinError>) -> Result<T, JoinError> {
    result.map(|(_, output)| output)
}

/// Polls `handle` without the cooperative budget (the set accounts for
/// it once per join).
fn poll_handle<T>(handle: &mut JoinHandle<T>, waker: &Waker) -> Poll<Result<T, JoinError>> {
    let mut cx = Context::from_waker(waker);
    coop::with_budget(None, || Pin::new(handle).poll(&mut cx))
}

impl<T> JoinSet<T> {
    /// An empty set.
    ///
    /// # Examples
    ///
    /// ```
    /// let set = lawn_rt::task::JoinSet::<u32>::new();
    /// assert!(set.is_empty());
    /// ```
    pub fn new() -> JoinSet<T> {
        JoinSet {
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
            next_seq: 0,
            ready: Arc::new(Ready {
                inner: Mutex::new(ReadyInner {
                    keys: VecDeque::new(),
                    waker: None,
                }),
            }),
        }
    }

    /// How many tasks are in the set: running, or finished and not yet
    /// joined.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     set.spawn(async { 1 });
    ///     set.spawn(async { 2 });
    ///     assert_eq!(set.len(), 2);
    ///     set.join_next().await;
    ///     assert_eq!(set.len(), 1);
    /// });
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set holds no task.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     assert!(set.is_empty());
    ///     set.spawn(async {});
    ///     assert!(!set.is_empty());
    ///     set.join_next().await;
    ///     assert!(set.is_empty());
    /// });
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the task behind `handle`: registers the slot's waker with its
    /// join slot (or, if it has finished already, keeps its result and
    /// queues it as ready).
    fn insert(&mut self, mut handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        let seq = self.next_seq;
        self.next_seq += 1;
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push(Slot { seq, entry: None });
                self.slots.len() - 1
            }
        };
        let key = Key { index, seq };
        let waker = Waker::from(Arc::new(Notify {
            ready: self.ready.clone(),
            key,
        }));
        let entry = match poll_handle(&mut handle, &waker) {
            Poll::Pending => Entry::Running { handle, waker },
            Poll::Ready(result) => {
                self.ready.push(key);
                Entry::Done(handle.id(), result)
            }
        };
        self.slots[index] = Slot {
            seq,
            entry: Some(entry),
        };
        self.len += 1;
        abort
    }

    /// The id and result of the task `key` names, removing it from the
    /// set, if that slot still holds that task and the task has finished.
    fn take_ready(&mut self, key: Key) -> Option<(Id, Result<T, JoinError>)> {
        let slot = self.slots.get_mut(key.index)?;
        if slot.seq != key.seq {
            return None;
        }
        let result = match slot.entry.take()? {
            Entry::Done(id, result) => (id, result),
            Entry::Running { mut handle, waker } => match poll_handle(&mut handle, &waker) {
                Poll::Ready(result) => (handle.id(), result),
                Poll::Pending => {
                    // Not finished after all: its waker stays registered.
                    slot.entry = Some(Entry::Running { handle, waker });
                    return None;
                }
            },
        };
        self.free.push(key.index);
        self.len -= 1;
        Some(result)
    }

    /// Waits for the next task to finish and returns its result, or `None`
    /// if the set is empty. Tasks come out in the order they finish.
    ///
    /// Cancel safe: if the returned future is dropped before it completes
    /// (a losing branch of a `select`), no task has left the set.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     set.spawn(async { "one" });
    ///     assert_eq!(set.join_next().await.unwrap().unwrap(), "one");
    ///     assert!(set.join_next().await.is_none());
    /// });
    /// ```
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// As [`join_next`](JoinSet::join_next), with the [`Id`] of the task
    /// that finished: `Ok((id, output))`, or a [`JoinError`] whose
    /// [`id`](JoinError::id) is the task's; like
    /// `tokio::task::JoinSet::join_next_with_id`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     let ok = set.spawn(async { "done" }).id();
    ///     let (id, output) = set.join_next_with_id().await.unwrap().unwrap();
    ///     assert_eq!((id, output), (ok, "done"));
    ///
    ///     let failing = set.spawn(async { panic!("boom") }).id();
    ///     let err = set.join_next_with_id().await.unwrap().unwrap_err();
    ///     assert_eq!(err.id(), failing);
    /// });
    /// ```
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// The result of a task that has finished, if any has, without
    /// waiting; `None` if none has (or the set is empty).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     set.spawn(async { 7 });
    ///     assert!(set.try_join_next().is_none()); // not run yet
    ///     lawn_rt::task::yield_now().await; // the task runs meanwhile
    ///     assert_eq!(set.try_join_next().unwrap().unwrap(), 7);
    /// });
    /// ```
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id().map(without_id)
    }

    /// As [`try_join_next`](JoinSet::try_join_next), with the [`Id`] of
    /// the task that finished (see
    /// [`join_next_with_id`](JoinSet::join_next_with_id)); like
    /// `tokio::task::JoinSet::try_join_next_with_id`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     let id = set.spawn(async { 7 }).id();
    ///     assert!(set.try_join_next_with_id().is_none()); // not run yet
    ///     lawn_rt::task::yield_now().await;
    ///     assert_eq!(set.try_join_next_with_id().unwrap().unwrap(), (id, 7));
    /// });
    /// ```
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        loop {
            let key = lock(&self.ready.inner).keys.pop_front()?;
            if let Some(finished) = self.take_ready(key) {
                return Some(with_id(finished));
            }
        }
    }

    /// Polls for the next task to finish: `Ready(Some(result))` (the task
    /// leaves the set), `Ready(None)` if the set is empty, or `Pending`,
    /// in which case the waker of `cx` is woken when a task finishes (only
    /// the waker of the latest call is kept). Inside a runtime it may also
    /// say `Pending` (and wake at once) when the calling task has used up
    /// its cooperative budget.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     set.spawn(async { 3 });
    ///     let next = poll_fn(|cx| set.poll_join_next(cx)).await;
    ///     assert_eq!(next.unwrap().unwrap(), 3);
    /// });
    /// ```
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx)
            .map(|next| next.map(without_id))
    }

    /// As [`poll_join_next`](JoinSet::poll_join_next), with the [`Id`] of
    /// the task that finished (see
    /// [`join_next_with_id`](JoinSet::join_next_with_id)); like
    /// `tokio::task::JoinSet::poll_join_next_with_id`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     let id = set.spawn(async { 3 }).id();
    ///     let next = poll_fn(|cx| set.poll_join_next_with_id(cx)).await;
    ///     assert_eq!(next.unwrap().unwrap(), (id, 3));
    /// });
    /// ```
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        if self.len == 0 {
            return Poll::Ready(None);
        }
        loop {
            let key = {
                let mut inner = lock(&self.ready.inner);
                if inner.keys.is_empty() {
                    let old = match &inner.waker {
                        Some(stored) if stored.will_wake(cx.waker()) => None,
                        _ => inner.waker.replace(cx.waker().clone()),
                    };
                    drop(inner);
                    drop(old);
                    return Poll::Pending;
                }
                if !coop::has_budget_left() {
                    // The calling task has used up its budget: it goes
                    // back to the run queue and joins on its next poll.
                    drop(inner);
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                inner.keys.pop_front()
            };
            if let Some(finished) = key.and_then(|key| self.take_ready(key)) {
                coop::made_progress();
                return Poll::Ready(Some(with_id(finished)));
            }
        }
    }

    /// Waits for every task and returns their outputs, in the order the
    /// tasks finished.
    ///
    /// # Panics
    ///
    /// If a task panicked (with that task's panic, resumed here) or was
    /// aborted; the tasks still running are then aborted (the set is
    /// dropped). To handle errors, call [`join_next`](JoinSet::join_next)
    /// in a loop instead.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     for i in 0..4u32 {
    ///         set.spawn(async move { i * i });
    ///     }
    ///     let mut squares = set.join_all().await;
    ///     squares.sort();
    ///     assert_eq!(squares, [0, 1, 4, 9]);
    /// });
    /// ```
    pub async fn join_all(mut self) -> Vec<T> {
        let mut outputs = Vec::with_capacity(self.len);
        while let Some(result) = self.join_next().await {
            match result {
                Ok(output) => outputs.push(output),
                Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                Err(err) => panic!("lawn_rt: `JoinSet::join_all`: {err}"),
            }
        }
        outputs
    }

    /// Aborts every task in the set. They stay in it: joining them gives
    /// a [`JoinError`] for which [`is_cancelled`](JoinError::is_cancelled)
    /// is true, or their output if they finished first.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     set.spawn(std::future::pending::<()>());
    ///     set.abort_all();
    ///     assert!(set.join_next().await.unwrap().unwrap_err().is_cancelled());
    /// });
    /// ```
    pub fn abort_all(&mut self) {
        for slot in &self.slots {
            if let Some(Entry::Running { handle, .. }) = &slot.entry {
                handle.abort();
            }
        }
    }

    /// Empties the set without aborting its tasks: they run on, and their
    /// outputs are dropped when they finish.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::mpsc;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     set.spawn(async move { tx.send("still ran").unwrap() });
    ///     set.detach_all();
    ///     assert!(set.is_empty());
    /// }); // the set is dropped: the detached task is not aborted
    /// assert_eq!(rx.recv().unwrap(), "still ran");
    /// ```
    pub fn detach_all(&mut self) {
        let slots = std::mem::take(&mut self.slots);
        self.free.clear();
        self.len = 0;
        let keys = std::mem::take(&mut lock(&self.ready.inner).keys);
        drop(keys);
        // Dropping the handles detaches the tasks.
        drop(slots);
    }

    /// Aborts every task and waits until they have all finished; the set
    /// is empty afterwards. Their results (outputs, cancellations, panics)
    /// are dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     for _ in 0..3 {
    ///         set.spawn(std::future::pending::<()>());
    ///     }
    ///     set.shutdown().await;
    ///     assert!(set.is_empty());
    /// });
    /// ```
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

impl<T: 'static> JoinSet<T> {
    /// Spawns `task` on the current runtime (as [`spawn`](crate::task::spawn))
    /// and adds it to the set; returns a handle that can abort it.
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
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     let abort = set.spawn(std::future::pending::<()>());
    ///     abort.abort();
    ///     assert!(set.join_next().await.unwrap().unwrap_err().is_cancelled());
    /// });
    /// ```
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        self.insert(super::spawn(task))
    }

    /// Spawns `task` on the runtime of `handle` and adds it to the set.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let mut set = lawn_rt::task::JoinSet::new();
    /// set.spawn_on(async { 4 }, rt.handle()); // outside the runtime
    /// assert_eq!(rt.block_on(set.join_next()).unwrap().unwrap(), 4);
    /// ```
    pub fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn(task))
    }

    /// Runs the blocking function `f` on the current runtime's blocking
    /// pool (as [`spawn_blocking`](crate::task::spawn_blocking)) and adds
    /// it to the set. Aborting it has no effect once it has started.
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
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     set.spawn_blocking(|| (1..=5u32).sum::<u32>());
    ///     assert_eq!(set.join_next().await.unwrap().unwrap(), 15);
    /// });
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        self.insert(super::spawn_blocking(f))
    }

    /// Runs the blocking function `f` on the blocking pool of the runtime
    /// of `handle` and adds it to the set.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// let mut set = lawn_rt::task::JoinSet::new();
    /// set.spawn_blocking_on(|| "blocking", rt.handle());
    /// assert_eq!(rt.block_on(set.join_next()).unwrap().unwrap(), "blocking");
    /// ```
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn_blocking(f))
    }

    /// Spawns the `!Send` future `task` on the current [`LocalSet`] (as
    /// [`spawn_local`](crate::task::spawn_local)) and adds it to the set.
    ///
    /// # Panics
    ///
    /// Outside a [`LocalSet`]'s context.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::rc::Rc;
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = lawn_rt::task::LocalSet::new();
    /// local.block_on(&rt, async {
    ///     let mut set = lawn_rt::task::JoinSet::new();
    ///     let shared = Rc::new(5);
    ///     let mine = shared.clone();
    ///     set.spawn_local(async move { *mine + 1 });
    ///     assert_eq!(set.join_next().await.unwrap().unwrap(), 6);
    ///     assert_eq!(Rc::strong_count(&shared), 1);
    /// });
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        self.insert(super::spawn_local(task))
    }

    /// Spawns the `!Send` future `task` on `local_set` and adds it to the
    /// set; it runs when `local_set` is driven.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = lawn_rt::task::LocalSet::new();
    /// let mut set = lawn_rt::task::JoinSet::new();
    /// set.spawn_local_on(async { std::rc::Rc::new(8) }, &local);
    /// let eight = local.block_on(&rt, set.join_next());
    /// assert_eq!(*eight.unwrap().unwrap(), 8);
    /// ```
    pub fn spawn_local_on<F>(&mut self, task: F, local_set: &LocalSet) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        self.insert(local_set.spawn_local(task))
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> JoinSet<T> {
        JoinSet::new()
    }
}

impl<T> Drop for JoinSet<T> {
    /// Aborts every task still in the set.
    fn drop(&mut self) {
        self.abort_all();
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len).finish()
    }
}

/// Spawns each future on the current runtime into a new set (as
/// [`JoinSet::spawn`]).
///
/// # Panics
///
/// Outside a `lawn_rt` runtime, if there is at least one future.
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let set: lawn_rt::task::JoinSet<u8> = (1..=3u8).map(|i| async move { i }).collect();
///     let mut all = set.join_all().await;
///     all.sort();
///     assert_eq!(all, [1, 2, 3]);
/// });
/// ```
impl<T, F> FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

/// Spawns each future on the current runtime into this set (as
/// [`JoinSet::spawn`]).
///
/// # Panics
///
/// Outside a `lawn_rt` runtime, if there is at least one future.
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut set = lawn_rt::task::JoinSet::new();
///     set.extend((0..10).map(|i| async move { i }));
///     assert_eq!(set.len(), 10);
/// });
/// ```
impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        for future in iter {
            self.spawn(future);
        }
    }
}
