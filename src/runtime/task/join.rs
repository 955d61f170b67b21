//! [`JoinHandle`], [`AbortHandle`] and [`JoinError`]: the spawner's side
//! of a task.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::{Id, Task};
use crate::coop;
use crate::loom::{lock, Mutex};
use crate::runtime::context;

/// A finished task's output, waiting for its handle.
pub(super) struct Slot<T> {
    output: Option<Result<T, JoinError>>,
    waker: Option<Waker>,
    /// The handle is gone: the output is dropped as soon as it exists.
    detached: bool,
    /// The handle has taken the output.
    taken: bool,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot {
            output: None,
            waker: None,
            detached: false,
            taken: false,
        }
    }
}

/// What to drop and whom to wake once the slot lock is released.
type Finished<T> = (Option<Result<T, JoinError>>, Option<Waker>);

impl<T> Slot<T> {
    /// Stores the task's result; returns what to drop and the waker to
    /// wake, both for after the lock.
    pub(super) fn finish(&mut self, result: Result<T, JoinError>) -> Finished<T> {
        if self.detached {
            (Some(result), None)
        } else {
            self.output = Some(result);
            (None, self.waker.take())
        }
    }
}

/// The panic of a [`JoinHandle`] polled again after it returned the
/// task's output: tokio's message ("JoinHandle polled after completion")
/// word for word, then what happened.
const POLLED_AFTER_COMPLETION: &str = "lawn_rt: JoinHandle polled after completion \
     (it was polled again after it returned the task's output)";

/// The typed side of a task, for its handles.
trait JoinSide<T> {
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<T, JoinError>>;
    /// The handle is gone (its task's id is `id`): an output already
    /// there is dropped now, one to come when it comes.
    fn detach(&self, id: Id);
    fn is_finished(&self) -> bool;
}

/// The untyped side, for [`AbortHandle`] (also implemented by a
/// `LocalSet`'s tasks, `task::local`).
pub(crate) trait AbortSide: Send + Sync {
    fn abort(self: Arc<Self>);
    fn is_finished(&self) -> bool;
}

impl<F> JoinSide<F::Output> for Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<F::Output, JoinError>> {
        let mut slot = lock(&self.join);
        if let Some(output) = slot.output.take() {
            slot.taken = true;
            return Poll::Ready(output);
        }
        assert!(!slot.taken, "{POLLED_AFTER_COMPLETION}");
        if crate::loom::planted("join_waker") {
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only): the waker is stored under a second lock, so a
            // completion in between finds no waker to wake.
            drop(slot);
            lock(&self.join).waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        match &slot.waker {
            Some(stored) if stored.will_wake(cx.waker()) => {}
            _ => {
                let old = slot.waker.replace(cx.waker().clone());
                drop(slot);
                drop(old);
            }
        }
        Poll::Pending
    }

    fn detach(&self, id: Id) {
        let (output, waker) = {
            let mut slot = lock(&self.join);
            slot.detached = true;
            (slot.output.take(), slot.waker.take())
        };
        // A panic in the output's drop (or the waker's) stays here, as in
        // tokio: dropping a handle never panics.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            context::drop_as_task(id, output);
            drop(waker);
        }));
    }

    fn is_finished(&self) -> bool {
        self.is_complete()
    }
}

/// The join slot of a task the runtime does not run (a `LocalSet`'s,
/// whose future is `!Send`): shared by its [`JoinHandle`] and whoever runs
/// it. It holds only the output, so it is `Send` and `Sync` exactly when
/// the output is `Send`, and so is the handle.
pub(crate) struct LocalSlot<T> {
    slot: Mutex<Slot<T>>,
}

impl<T> LocalSlot<T> {
    pub(crate) fn new() -> LocalSlot<T> {
        LocalSlot {
            slot: Mutex::new(Slot::default()),
        }
    }

    /// Stores the result of task `id` (drops it, as that task, if the
    /// handle is gone) and wakes the handle's waker; a panic in either drop
    /// or in the waker is swallowed, as for a runtime task.
    pub(crate) fn finish(&self, id: Id, result: Result<T, JoinError>) {
        let (dropped, waker) = lock(&self.slot).finish(result);
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            context::drop_as_task(id, dropped);
            if let Some(waker) = waker {
                waker.wake();
            }
        }));
    }
}

impl<T> JoinSide<T> for LocalSlot<T> {
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<T, JoinError>> {
        let mut slot = lock(&self.slot);
        if let Some(output) = slot.output.take() {
            slot.taken = true;
            return Poll::Ready(output);
        }
        assert!(!slot.taken, "{POLLED_AFTER_COMPLETION}");
        match &slot.waker {
            Some(stored) if stored.will_wake(cx.waker()) => {}
            _ => {
                let old = slot.waker.replace(cx.waker().clone());
                drop(slot);
                drop(old);
            }
        }
        Poll::Pending
    }

    fn detach(&self, id: Id) {
        let (output, waker) = {
            let mut slot = lock(&self.slot);
            slot.detached = true;
            (slot.output.take(), slot.waker.take())
        };
        // A panic in the output's drop (or the waker's) stays here, as in
        // tokio: dropping a handle never panics.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            context::drop_as_task(id, output);
            drop(waker);
        }));
    }

    fn is_finished(&self) -> bool {
        let slot = lock(&self.slot);
        slot.output.is_some() || slot.taken
    }
}

impl<F> AbortSide for Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn abort(self: Arc<Self>) {
        Task::abort(&self);
    }

    fn is_finished(&self) -> bool {
        self.is_complete()
    }
}

/// An owned permission to await a spawned task's output; like
/// `tokio::task::JoinHandle`.
///
/// Awaiting it gives `Ok(output)`, or a [`JoinError`] if the task panicked
/// or was aborted. Dropping it *detaches* the task: it keeps running, and
/// its output is dropped when it completes.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::Runtime;
///
/// let rt = Runtime::new().unwrap();
/// let sum = rt.block_on(async {
///     let handle = lawn_rt::spawn(async { 1 + 2 });
///     handle.await.unwrap()
/// });
/// assert_eq!(sum, 3);
/// ```
pub struct JoinHandle<T> {
    raw: Raw<T>,
    abort: Arc<dyn AbortSide>,
    id: Id,
    _output: PhantomData<T>,
}

/// Where a handle's output comes from.
enum Raw<T> {
    /// A runtime task: the join slot is in the task.
    Task(Arc<dyn JoinSide<T> + Send + Sync>),
    /// A `LocalSet`'s task: the slot on its own.
    Local(Arc<LocalSlot<T>>),
}

impl<T> Raw<T> {
    fn side(&self) -> &dyn JoinSide<T> {
        match self {
            Raw::Task(task) => &**task,
            Raw::Local(slot) => &**slot,
        }
    }
}

/// Aborts a task without owning its [`JoinHandle`]; like
/// `tokio::task::AbortHandle`.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::Runtime;
///
/// let rt = Runtime::new().unwrap();
/// rt.block_on(async {
///     let handle = lawn_rt::spawn(std::future::pending::<()>());
///     let abort = handle.abort_handle();
///     abort.abort();
///     assert!(handle.await.unwrap_err().is_cancelled());
///     assert!(abort.is_finished());
/// });
/// ```
#[derive(Clone)]
pub struct AbortHandle {
    raw: Arc<dyn AbortSide>,
    id: Id,
}

impl<T: Send + 'static> JoinHandle<T> {
    pub(super) fn new<F>(task: Arc<Task<F>>) -> JoinHandle<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        JoinHandle {
            id: task.id,
            abort: task.clone(),
            raw: Raw::Task(task),
            _output: PhantomData,
        }
    }
}

impl<T> JoinHandle<T> {
    /// The handle of a task the runtime does not run (see [`LocalSlot`]):
    /// `abort` asks its runner to cancel it.
    pub(crate) fn local(slot: Arc<LocalSlot<T>>, abort: Arc<dyn AbortSide>, id: Id) -> Self {
        JoinHandle {
            raw: Raw::Local(slot),
            abort,
            id,
            _output: PhantomData,
        }
    }
}

impl<T> JoinHandle<T> {
    /// Asks the task to stop: unless it has completed, its future is dropped
    /// the next time the runtime looks at it, and awaiting this handle gives
    /// a [`JoinError`] for which [`is_cancelled`](JoinError::is_cancelled)
    /// is true. A task that has completed keeps its output.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::Runtime;
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let handle = lawn_rt::spawn(sleep(Duration::from_secs(3600)));
    ///     handle.abort();
    ///     assert!(handle.await.unwrap_err().is_cancelled());
    /// });
    /// ```
    pub fn abort(&self) {
        self.abort.clone().abort();
    }

    /// Whether the task has completed (returned, panicked or been
    /// cancelled).
    ///
    /// # Examples
    ///
    /// ```
    /// // On a current-thread runtime the spawned task runs while this one
    /// // yields:
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(async {
    ///     let handle = lawn_rt::spawn(async {});
    ///     lawn_rt::task::yield_now().await;
    ///     assert!(handle.is_finished());
    /// });
    /// ```
    pub fn is_finished(&self) -> bool {
        self.raw.side().is_finished()
    }

    /// A handle that can abort the task, without its output.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::Runtime;
    ///
    /// let rt = Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let handle = lawn_rt::spawn(async {});
    ///     let _abort = handle.abort_handle();
    /// });
    /// ```
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            raw: self.abort.clone(),
            id: self.id,
        }
    }

    /// The task's [`Id`]: the one [`task::id`](crate::task::id) gives
    /// inside it; like `tokio::task::JoinHandle::id`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let handle = lawn_rt::spawn(async { lawn_rt::task::id() });
    ///     let id = handle.id();
    ///     assert_eq!(handle.await.unwrap(), id);
    /// });
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }
}

impl AbortHandle {
    /// Like [`JoinHandle::abort`].
    ///
    /// # Examples
    ///
    /// See [`AbortHandle`].
    pub fn abort(&self) {
        self.raw.clone().abort();
    }

    /// Like [`JoinHandle::is_finished`].
    ///
    /// # Examples
    ///
    /// See [`AbortHandle`].
    pub fn is_finished(&self) -> bool {
        self.raw.is_finished()
    }

    /// The task's [`Id`]; like `tokio::task::AbortHandle::id`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let handle = lawn_rt::spawn(std::future::pending::<()>());
    ///     let abort = handle.abort_handle();
    ///     assert_eq!(abort.id(), handle.id());
    ///     abort.abort();
    ///     assert_eq!(handle.await.unwrap_err().id(), abort.id());
    /// });
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    /// # Panics
    ///
    /// If polled again after it returned `Ready`, with a message that
    /// contains tokio's ("JoinHandle polled after completion").
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        std::task::ready!(coop::poll_proceed(cx));
        let polled = self.raw.side().poll_join(cx);
        if polled.is_ready() {
            coop::made_progress();
        }
        polled
    }
}

impl<T> Unpin for JoinHandle<T> {}

// As tokio's: a handle only reads a finished task's output or aborts it,
// through the join slot's own lock, so a panic caught around code that
// holds one leaves nothing half-done that the handle would see.
impl<T> std::panic::UnwindSafe for JoinHandle<T> {}
impl<T> std::panic::RefUnwindSafe for JoinHandle<T> {}
impl std::panic::UnwindSafe for AbortHandle {}
impl std::panic::RefUnwindSafe for AbortHandle {}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        self.raw.side().detach(self.id);
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id)
            .field("finished", &self.is_finished())
            .finish()
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id)
            .field("finished", &self.is_finished())
            .finish()
    }
}

/// Why a task did not produce its output: it was cancelled (aborted, or
/// its runtime shut down) or it panicked; like `tokio::task::JoinError`.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::Runtime;
///
/// let rt = Runtime::new().unwrap();
/// let err = rt.block_on(async { lawn_rt::spawn(async { panic!("boom") }).await.unwrap_err() });
/// assert!(err.is_panic());
/// // Worded as tokio's: "task <id> panicked with message \"boom\"".
/// assert!(err.to_string().ends_with(" panicked with message \"boom\""));
/// assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");
/// ```
///
/// Its `Display` and `Debug` are tokio's, word for word (the task ids are
/// lawn_rt's own): `task 7 was cancelled`, `task 7 panicked with message
/// "boom"`, and `task 7 panicked` when the payload is not a string
/// (`std::panic::panic_any(42)`); into an `io::Error` it says only "task
/// was cancelled" or "task panicked", as tokio's does.
pub struct JoinError {
    id: Id,
    repr: Repr,
}

enum Repr {
    Cancelled,
    // A `Mutex` so that the error is `Sync` (the payload is only `Send`).
    Panic(Mutex<Box<dyn Any + Send + 'static>>),
}

impl JoinError {
    pub(crate) fn cancelled(id: Id) -> JoinError {
        JoinError {
            id,
            repr: Repr::Cancelled,
        }
    }

    pub(crate) fn panic(id: Id, payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            id,
            repr: Repr::Panic(Mutex::new(payload)),
        }
    }

    /// Whether the task was cancelled: aborted, or dropped by its runtime's
    /// shutdown.
    ///
    /// # Examples
    ///
    /// See [`JoinHandle::abort`].
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// Whether the task panicked.
    ///
    /// # Examples
    ///
    /// See [`JoinError`].
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The [`Id`] of the task that failed; like
    /// `tokio::task::JoinError::id`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let handle = lawn_rt::spawn(async { panic!("boom") });
    ///     let id = handle.id();
    ///     assert_eq!(handle.await.unwrap_err().id(), id);
    /// });
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }

    /// The panic's payload, to resume it with
    /// [`std::panic::resume_unwind`].
    ///
    /// # Panics
    ///
    /// If the task was cancelled, not panicked, with a message that
    /// contains tokio's (`` `JoinError` reason is not a panic. ``).
    ///
    /// # Examples
    ///
    /// See [`JoinError`].
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        // A `match`, not a closure: `#[track_caller]` does not reach into
        // closures.
        match self.try_into_panic() {
            Ok(payload) => payload,
            // tokio's message word for word, then ours.
            Err(err) => panic!(
                "lawn_rt: `JoinError` reason is not a panic. \
                 (`JoinError::into_panic` on a task that did not panic: {err})"
            ),
        }
    }

    /// The panic's payload, or the error back if the task was cancelled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::Runtime;
    ///
    /// let rt = Runtime::new().unwrap();
    /// let err = rt.block_on(async {
    ///     let handle = lawn_rt::spawn(std::future::pending::<()>());
    ///     handle.abort();
    ///     handle.await.unwrap_err()
    /// });
    /// assert!(err.try_into_panic().unwrap_err().is_cancelled());
    /// ```
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            Repr::Panic(payload) => Ok(payload.into_inner().unwrap_or_else(|p| p.into_inner())),
            Repr::Cancelled => Err(self),
        }
    }

    /// The panic's message, if the task panicked with a string payload
    /// (`&'static str` or `String`, which `panic!` gives), passed to `f`
    /// while the payload is locked.
    fn with_panic_message<R>(&self, f: impl FnOnce(Option<&str>) -> R) -> Option<R> {
        let Repr::Panic(payload) = &self.repr else {
            return None;
        };
        let payload = lock(payload);
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&'static str>().copied());
        Some(f(message))
    }
}

/// As tokio's: `task <id> was cancelled`, `task <id> panicked with message
/// "<message>"`, or `task <id> panicked` for a payload that is not a string.
impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id;
        self.with_panic_message(|message| match message {
            Some(message) => write!(f, "task {id} panicked with message {message:?}"),
            None => write!(f, "task {id} panicked"),
        })
        .unwrap_or_else(|| write!(f, "task {id} was cancelled"))
    }
}

/// As tokio's: `JoinError::Cancelled(Id(<id>))`,
/// `JoinError::Panic(Id(<id>), "<message>", ...)`, or
/// `JoinError::Panic(Id(<id>), ...)` for a payload that is not a string.
impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id;
        self.with_panic_message(|message| match message {
            Some(message) => write!(f, "JoinError::Panic({id:?}, {message:?}, ...)"),
            None => write!(f, "JoinError::Panic({id:?}, ...)"),
        })
        .unwrap_or_else(|| write!(f, "JoinError::Cancelled({id:?})"))
    }
}

impl std::error::Error for JoinError {}

/// As tokio's: an [`io::ErrorKind::Other`] error saying only "task was
/// cancelled" or "task panicked" (no id, no panic message; the payload is
/// dropped).
impl From<JoinError> for io::Error {
    fn from(err: JoinError) -> io::Error {
        io::Error::other(match err.repr {
            Repr::Cancelled => "task was cancelled",
            Repr::Panic(_) => "task panicked",
        })
    }
}
