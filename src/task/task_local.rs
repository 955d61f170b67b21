//! Task-local storage: [`LocalKey`], declared with
//! [`task_local!`](crate::task_local), and the [`TaskLocalFuture`] that
//! carries a value for it; like tokio's.
//!
//! Ground rules:
//! - Between polls the value lives in the [`TaskLocalFuture`], not in any
//!   thread: a task that moves to another worker takes its value along,
//!   and any executor can drive the future (nothing here needs a
//!   `lawn_rt` runtime).
//! - Each key has one thread-local slot. A poll swaps the future's value
//!   into the slot (and whatever the slot held, an enclosing scope's value
//!   or nothing, out into the future), polls the inner future, and swaps
//!   back. The swap back is a guard's drop, so it also happens when the
//!   inner poll unwinds: an enclosing scope then sees its own value again.
//! - The inner future is dropped inside a swap too (when it completes, and
//!   when the `TaskLocalFuture` is dropped before that), so its `Drop`
//!   sees the value.
//! - The slot is a `RefCell`: [`LocalKey::with`] borrows it shared while
//!   its closure runs, a swap borrows it mutably with no user code inside.
//!   So entering a scope of a key from inside that key's own `with` is the
//!   only way to find it borrowed, and that panics (as in tokio).

use std::cell::RefCell;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::loom::thread::LocalKey as ThreadKey;

/// The thread-local slot of one task-local key: the value of the scope
/// being run on this thread, if any.
type Slot<T> = RefCell<Option<T>>;

/// Declares task-local keys: statics of type
/// [`LocalKey`](crate::task::LocalKey), each holding a value that a
/// future sees while it runs; like `tokio::task_local!`.
///
/// Any number of `static NAME: Type;` declarations, each with its own
/// attributes and visibility. A key has no value until a
/// [`scope`](crate::task::LocalKey::scope) (or
/// [`sync_scope`](crate::task::LocalKey::sync_scope)) gives it one: there
/// is no initializer.
///
/// # Examples
///
/// ```
/// lawn_rt::task_local! {
///     /// The id of the request this task serves.
///     pub static REQUEST_ID: u64;
///
///     static USER: String;
/// }
///
/// futures::executor::block_on(REQUEST_ID.scope(17, async {
///     assert_eq!(REQUEST_ID.get(), 17);
///     assert!(USER.try_with(|user| user.len()).is_err()); // no scope of USER here
/// }));
/// ```
#[macro_export]
macro_rules! task_local {
    () => {};

    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty; $($rest:tt)*) => {
        $crate::task_local!($(#[$attr])* $vis static $name: $t);
        $crate::task_local!($($rest)*);
    };

    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty) => {
        $(#[$attr])*
        $vis static $name: $crate::task::LocalKey<$t> = $crate::task::LocalKey::__new(
            $crate::__task_local_slot!($t),
            ::core::stringify!($name),
        );
    };
}

/// A key's thread-local slot (an expression: a `&'static` to it), from
/// std (or loom's, under `cfg(loom)`, where thread-locals must come from
/// loom). Not public API.
#[doc(hidden)]
#[macro_export]
#[cfg(not(loom))]
macro_rules! __task_local_slot {
    ($t:ty) => {{
        ::std::thread_local! {
            static SLOT: ::core::cell::RefCell<::core::option::Option<$t>> =
                const { ::core::cell::RefCell::new(::core::option::Option::None) };
        }
        &SLOT
    }};
}

/// A key's thread-local slot, from loom (see the other definition). Not
/// public API.
#[doc(hidden)]
#[macro_export]
#[cfg(loom)]
macro_rules! __task_local_slot {
    ($t:ty) => {{
        $crate::task::__loom_thread_local! {
            static SLOT: ::core::cell::RefCell<::core::option::Option<$t>> =
                ::core::cell::RefCell::new(::core::option::Option::None);
        }
        &SLOT
    }};
}

/// A key to a task-local value: the value of the innermost
/// [`scope`](LocalKey::scope) being run on this thread; like
/// `tokio::task::LocalKey`.
///
/// Declared with [`task_local!`](crate::task_local). Unlike a
/// `thread_local!`, it has no initial value: [`with`](LocalKey::with) and
/// [`get`](LocalKey::get) panic outside every scope of the key
/// ([`try_with`](LocalKey::try_with) and [`try_get`](LocalKey::try_get)
/// give an [`AccessError`]). The value belongs to the future that
/// [`scope`](LocalKey::scope) wraps, so it follows that future from thread
/// to thread, under any executor; a task spawned from inside a scope does
/// not inherit it.
///
/// # Examples
///
/// ```
/// use lawn_rt::task;
///
/// lawn_rt::task_local! {
///     static TENANT: &'static str;
/// }
///
/// let rt = lawn_rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let a = task::spawn(TENANT.scope("acme", async {
///         task::yield_now().await;
///         TENANT.get()
///     }));
///     let b = task::spawn(TENANT.scope("globex", async {
///         task::yield_now().await;
///         TENANT.get()
///     }));
///     assert_eq!(a.await.unwrap(), "acme");
///     assert_eq!(b.await.unwrap(), "globex");
/// });
/// ```
pub struct LocalKey<T: 'static> {
    slot: &'static ThreadKey<Slot<T>>,
    /// The static's name, for messages.
    name: &'static str,
}

/// Why a scope could not be entered.
enum ScopeError {
    /// The slot is borrowed by a `with` of the same key on this thread.
    Borrowed,
    /// The thread-local is being (or has been) destroyed: this thread is
    /// exiting.
    Destroyed,
}

impl ScopeError {
    #[track_caller]
    fn panic(self, key: &str) -> ! {
        match self {
            // tokio's messages, word for word, then what happened here.
            ScopeError::Borrowed => panic!(
                "lawn_rt: cannot enter a task-local scope while the task-local storage is \
                 borrowed (a `scope` or `sync_scope` of task-local `{key}` entered from inside \
                 `{key}.with`)"
            ),
            ScopeError::Destroyed => panic!(
                "lawn_rt: cannot enter a task-local scope during or after destruction of the \
                 underlying thread-local (task-local `{key}`, on a thread that is exiting)"
            ),
        }
    }
}

/// Puts the value that a scope swapped out back into the slot (and the
/// scope's own value back where it came from) when dropped: after the
/// scope's code returns or unwinds.
struct SwapBack<'a, T: 'static> {
    key: &'static LocalKey<T>,
    held: &'a mut Option<T>,
}

impl<T: 'static> Drop for SwapBack<'_, T> {
    fn drop(&mut self) {
        // Cannot fail: the slot was there when the scope began, and no
        // borrow of it outlives the `with` that took it.
        let _ = self.key.slot.try_with(|slot| {
            if let Ok(mut current) = slot.try_borrow_mut() {
                mem::swap(self.held, &mut *current);
            }
        });
    }
}

impl<T: 'static> LocalKey<T> {
    /// Made by [`task_local!`](crate::task_local); not public API.
    #[doc(hidden)]
    pub const fn __new(slot: &'static ThreadKey<Slot<T>>, name: &'static str) -> LocalKey<T> {
        LocalKey { slot, name }
    }

    /// Runs `f` with `held` swapped into this key's slot on this thread:
    /// `held` holds the slot's previous content meanwhile, and gets its
    /// own back afterwards, also if `f` unwinds.
    fn swapped_in<R>(
        &'static self,
        held: &mut Option<T>,
        f: impl FnOnce() -> R,
    ) -> Result<R, ScopeError> {
        let swapped = self.slot.try_with(|slot| match slot.try_borrow_mut() {
            Ok(mut current) => {
                mem::swap(held, &mut *current);
                Ok(())
            }
            Err(_) => Err(ScopeError::Borrowed),
        });
        swapped.map_err(|_| ScopeError::Destroyed)??;
        let _swap_back = SwapBack { key: self, held };
        Ok(f())
    }

    /// Wraps `future` so that it sees `value` as this key's value whenever
    /// it is polled; like `tokio::task::LocalKey::scope`.
    ///
    /// The value is set only during each poll of the returned
    /// [`TaskLocalFuture`] (and while it drops the inner future); between
    /// polls the future keeps it. Scopes nest: an inner scope of the same
    /// key hides the outer value until it completes. The value is dropped
    /// with the `TaskLocalFuture` (or taken out with
    /// [`take_value`](TaskLocalFuture::take_value)).
    ///
    /// # Panics
    ///
    /// The returned future's poll panics if it runs inside this key's own
    /// [`with`](LocalKey::with) (or [`try_with`](LocalKey::try_with)).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::task_local! {
    ///     static DEPTH: u32;
    /// }
    ///
    /// futures::executor::block_on(DEPTH.scope(1, async {
    ///     assert_eq!(DEPTH.get(), 1);
    ///     DEPTH.scope(2, async { assert_eq!(DEPTH.get(), 2) }).await;
    ///     assert_eq!(DEPTH.get(), 1); // the outer value again
    /// }));
    /// ```
    pub fn scope<F>(&'static self, value: T, future: F) -> TaskLocalFuture<T, F>
    where
        F: Future,
    {
        TaskLocalFuture {
            key: self,
            value: Some(value),
            future: Some(future),
        }
    }

    /// Runs `f` with `value` as this key's value, and returns what `f`
    /// returns; like `tokio::task::LocalKey::sync_scope`.
    ///
    /// The previous value (an enclosing scope's, or none) is back once `f`
    /// returns or panics; `value` is dropped then.
    ///
    /// # Panics
    ///
    /// If called inside this key's own [`with`](LocalKey::with) (or
    /// [`try_with`](LocalKey::try_with)), at the caller's line. A panic in
    /// `f` goes on to the caller.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::task_local! {
    ///     static LIMIT: usize;
    /// }
    ///
    /// let doubled = LIMIT.sync_scope(21, || LIMIT.get() * 2);
    /// assert_eq!(doubled, 42);
    /// assert!(LIMIT.try_get().is_err()); // out of the scope again
    /// ```
    #[track_caller]
    pub fn sync_scope<F, R>(&'static self, value: T, f: F) -> R
    where
        F: FnOnce() -> R,
    {
        let mut held = Some(value);
        match self.swapped_in(&mut held, f) {
            Ok(output) => output,
            Err(err) => err.panic(self.name),
        }
    }

    /// Runs `f` with a reference to this key's current value; like
    /// `tokio::task::LocalKey::with`.
    ///
    /// # Panics
    ///
    /// Outside every scope of this key (with a message that names the key,
    /// at the caller's line); [`try_with`](LocalKey::try_with) does not
    /// panic.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::task_local! {
    ///     static PATH: String;
    /// }
    ///
    /// let len = PATH.sync_scope("/index.html".to_string(), || PATH.with(|path| path.len()));
    /// assert_eq!(len, 11);
    /// ```
    #[track_caller]
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        match self.try_with(f) {
            Ok(output) => output,
            // tokio's message, word for word, then ours.
            Err(_) => panic!(
                "lawn_rt: cannot access a task-local storage value without setting it first \
                 (task-local `{}` read outside every `scope` and `sync_scope` of it; \
                 `try_with` does not panic)",
                self.name
            ),
        }
    }

    /// Runs `f` with a reference to this key's current value, or gives an
    /// [`AccessError`] if it has none here (outside every scope of the
    /// key, or on a thread that is exiting); like
    /// `tokio::task::LocalKey::try_with`.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::task_local! {
    ///     static TRACE: bool;
    /// }
    ///
    /// assert!(TRACE.try_with(|on| *on).is_err());
    /// assert_eq!(TRACE.sync_scope(true, || TRACE.try_with(|on| *on)), Ok(true));
    /// ```
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        // The slot is mutably borrowed only inside a swap, which runs no
        // user code: this shared borrow cannot fail.
        self.slot
            .try_with(|slot| slot.borrow().as_ref().map(f))
            .ok()
            .flatten()
            .ok_or(AccessError { _private: () })
    }
}

impl<T: Clone + 'static> LocalKey<T> {
    /// A clone of this key's current value; like
    /// `tokio::task::LocalKey::get`.
    ///
    /// # Panics
    ///
    /// Outside every scope of this key, as [`with`](LocalKey::with).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::task_local! {
    ///     static ATTEMPT: u8;
    /// }
    ///
    /// assert_eq!(ATTEMPT.sync_scope(3, || ATTEMPT.get()), 3);
    /// ```
    #[track_caller]
    pub fn get(&'static self) -> T {
        self.with(T::clone)
    }

    /// A clone of this key's current value, or an [`AccessError`] if it
    /// has none here; like `tokio::task::LocalKey::try_get`.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::task_local! {
    ///     static ATTEMPT: u8;
    /// }
    ///
    /// assert!(ATTEMPT.try_get().is_err());
    /// assert_eq!(ATTEMPT.sync_scope(3, || ATTEMPT.try_get()), Ok(3));
    /// ```
    pub fn try_get(&'static self) -> Result<T, AccessError> {
        self.try_with(T::clone)
    }
}

/// `LocalKey { name: "KEY" }`: the static's name (its value, if any,
/// belongs to whichever future is running).
impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalKey")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

pin_project_lite::pin_project! {
    /// A future that sets a task-local key's value while its inner future
    /// runs; made by [`LocalKey::scope`]; like tokio's
    /// `task::futures::TaskLocalFuture`.
    ///
    /// Its output is the inner future's. Polling it again after that
    /// panics. Dropping it drops the inner future (with the value set, so
    /// the inner future's `Drop` sees it), then the value.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::task::TaskLocalFuture;
    ///
    /// lawn_rt::task_local! {
    ///     static NAME: &'static str;
    /// }
    ///
    /// let fut: TaskLocalFuture<&'static str, _> = NAME.scope("worker", async { NAME.get() });
    /// assert_eq!(futures::executor::block_on(fut), "worker");
    /// ```
    #[must_use = "futures do nothing unless polled"]
    pub struct TaskLocalFuture<T, F>
    where
        T: 'static,
    {
        key: &'static LocalKey<T>,
        // `None` while the inner future is being polled (the value is in
        // the key's slot then), or once `take_value` took it.
        value: Option<T>,
        // `None` once the inner future has completed.
        #[pin]
        future: Option<F>,
    }

    impl<T, F> PinnedDrop for TaskLocalFuture<T, F>
    where
        T: 'static,
    {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            let key = *this.key;
            let mut future = this.future;
            if mem::needs_drop::<F>() && future.is_some() {
                // With the value set if the slot can take it; if not (the
                // thread is exiting), the field's own drop drops it.
                let _ = key.swapped_in(this.value, || future.set(None));
            }
        }
    }
}

impl<T: 'static, F> TaskLocalFuture<T, F> {
    /// Takes the value out of this future: `Some` the first time (whether
    /// or not the inner future has completed), `None` after. An inner
    /// future still to be polled then runs without a value for the key.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::task_local! {
    ///     static BUFFER: Vec<u8>;
    /// }
    ///
    /// futures::executor::block_on(async {
    ///     let mut fut = Box::pin(BUFFER.scope(Vec::new(), async {
    ///         BUFFER.with(|buf| assert!(buf.is_empty()));
    ///     }));
    ///     fut.as_mut().await;
    ///     // The value outlives the inner future: reuse it.
    ///     assert_eq!(fut.as_mut().take_value(), Some(Vec::new()));
    ///     assert_eq!(fut.as_mut().take_value(), None);
    /// });
    /// ```
    pub fn take_value(self: Pin<&mut Self>) -> Option<T> {
        self.project().value.take()
    }
}

impl<T: 'static, F: Future> Future for TaskLocalFuture<T, F> {
    type Output = F::Output;

    /// # Panics
    ///
    /// If polled again after it returned `Ready`, or inside the key's own
    /// [`with`](LocalKey::with) (see [`LocalKey::scope`]). A panic of the
    /// inner future goes on to the caller, the key's previous value back
    /// in place.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let key = *this.key;
        let mut future = this.future;
        let polled = key.swapped_in(this.value, || {
            let poll = future.as_mut().as_pin_mut()?.poll(cx);
            if poll.is_ready() {
                // Dropped here, with the value still set.
                future.set(None);
            }
            Some(poll)
        });
        match polled {
            Ok(Some(poll)) => poll,
            Ok(None) => panic!(
                "lawn_rt: `TaskLocalFuture` polled after completion (task-local `{}`)",
                key.name
            ),
            Err(err) => err.panic(key.name),
        }
    }
}

/// `TaskLocalFuture { key: "KEY", value: .. }`: the value this future
/// holds (`None` once taken).
impl<T: fmt::Debug + 'static, F> fmt::Debug for TaskLocalFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskLocalFuture")
            .field("key", &self.key.name)
            .field("value", &self.value)
            .finish_non_exhaustive()
    }
}

/// A task-local key read where it has no value; the error of
/// [`LocalKey::try_with`] and [`LocalKey::try_get`].
///
/// Its `Display` is tokio's: "task-local value not set".
///
/// # Examples
///
/// ```
/// lawn_rt::task_local! {
///     static KEY: u8;
/// }
///
/// let err: lawn_rt::task::AccessError = KEY.try_get().unwrap_err();
/// assert_eq!(err.to_string(), "task-local value not set");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AccessError {
    _private: (),
}

impl fmt::Debug for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AccessError")
    }
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("task-local value not set")
    }
}

impl Error for AccessError {}
