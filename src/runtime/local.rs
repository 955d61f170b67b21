//! [`LocalRuntime`]: a current-thread runtime that runs `!Send` tasks with
//! no `LocalSet` in sight, like `tokio::runtime::LocalRuntime`.
//!
//! Ground rules: it is a current-thread [`Runtime`] and a
//! [`LocalSet`] of its own, and it stays on the thread that built it
//! (`!Send`). While its `block_on` runs, the set's context is entered, so
//! [`task::spawn_local`](crate::task::spawn_local) from the future or
//! from any of its tasks lands in the set. Tasks left unfinished wait for
//! the next `block_on`. The set drops before the runtime, with the
//! runtime entered (as `Runtime`'s own shutdown drops its tasks), so a
//! task's destructor may use timers, sockets or `spawn`.

use std::fmt;
use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::time::Duration;

use super::local_set::LocalSet;
use super::task::JoinHandle;
use super::{EnterGuard, Handle, Runtime, RuntimeMetrics};

/// Options for [`Builder::build_local`](super::Builder::build_local);
/// none yet, as in tokio.
///
/// # Examples
///
/// ```
/// let options = lawn_rt::runtime::LocalOptions::default();
/// # drop(options);
/// ```
#[derive(Default, Debug)]
#[non_exhaustive]
pub struct LocalOptions {
    // `!Send`, as tokio's: options for a runtime that stays on its thread.
    _not_send: PhantomData<*mut ()>,
}

/// A current-thread runtime whose tasks need not be `Send`; like
/// `tokio::runtime::LocalRuntime`. Made by
/// [`Builder::build_local`](super::Builder::build_local) or [`new`](LocalRuntime::new).
///
/// # Examples
///
/// ```
/// use std::rc::Rc;
/// use lawn_rt::runtime::LocalRuntime;
///
/// let rt = LocalRuntime::new()?;
/// let shared = Rc::new(5); // not `Send`
/// let task = rt.spawn_local({
///     let shared = shared.clone();
///     async move { *shared * 2 }
/// });
/// assert_eq!(rt.block_on(task).unwrap(), 10);
/// // Inside, `spawn_local` needs no `LocalSet`.
/// let inner = rt.block_on(async {
///     lawn_rt::task::spawn_local(async move { *shared + 1 }).await.unwrap()
/// });
/// assert_eq!(inner, 6);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct LocalRuntime {
    /// `None` only once a `shutdown_*` has taken them.
    parts: Option<Parts>,
}

struct Parts {
    local: LocalSet,
    runtime: Runtime,
}

impl Parts {
    /// Drops the local tasks with the runtime entered (their destructors
    /// may touch it) and gives the runtime back.
    fn close(self) -> Runtime {
        let Parts { local, runtime } = self;
        {
            let _entered = runtime.enter();
            drop(local);
        }
        runtime
    }
}

impl LocalRuntime {
    /// A local runtime with time and I/O enabled
    /// (`Builder::new_current_thread().enable_all().build_local(..)`).
    ///
    /// # Errors
    ///
    /// If the I/O driver cannot be made.
    ///
    /// # Examples
    ///
    /// See [`LocalRuntime`].
    pub fn new() -> io::Result<LocalRuntime> {
        super::Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    pub(crate) fn from_runtime(runtime: Runtime) -> LocalRuntime {
        // Its handle tells `spawn_local` on another thread what it is.
        if let super::scheduler::Scheduler::Current(inner) = &runtime.handle().inner {
            inner.make_local();
        }
        LocalRuntime {
            parts: Some(Parts {
                local: LocalSet::new(),
                runtime,
            }),
        }
    }

    fn parts(&self) -> &Parts {
        self.parts
            .as_ref()
            .expect("a LocalRuntime's parts are there until it is consumed")
    }

    /// The runtime's handle: it spawns `Send` tasks (also from other
    /// threads); they run on this runtime's thread.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::LocalRuntime::new()?;
    /// let task = rt.handle().spawn(async { 1 });
    /// assert_eq!(rt.block_on(task).unwrap(), 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn handle(&self) -> &Handle {
        self.parts().runtime.handle()
    }

    /// Spawns `future` on this runtime's thread; it need not be `Send`. It
    /// runs when the runtime is driven (by [`block_on`](Self::block_on)).
    ///
    /// # Examples
    ///
    /// See [`LocalRuntime`].
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.parts().local.spawn_local(future)
    }

    /// Runs `func` on the runtime's blocking pool, as
    /// [`Runtime::spawn_blocking`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::LocalRuntime::new()?;
    /// let sum = rt.spawn_blocking(|| (1..=4).sum::<u32>());
    /// assert_eq!(rt.block_on(sum).unwrap(), 10);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.parts().runtime.spawn_blocking(func)
    }

    /// Runs `future` to completion on this thread, driving the runtime's
    /// tasks (local ones too) meanwhile; `spawn_local` inside lands here.
    ///
    /// # Panics
    ///
    /// As [`Runtime::block_on`]: inside a runtime's task or another
    /// `block_on`.
    ///
    /// # Examples
    ///
    /// See [`LocalRuntime`].
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        // Entered for the whole run, so that tasks spawned with `spawn`
        // (polled by the runtime, outside the set's own polls) can
        // `spawn_local` too.
        let parts = self.parts();
        let _local = parts.local.enter();
        parts.local.block_on(&parts.runtime, future)
    }

    /// Enters the runtime's context on this thread until the guard drops,
    /// as [`Runtime::enter`] does, and the local tasks' too: meanwhile
    /// [`task::spawn_local`](crate::task::spawn_local) spawns here (the
    /// task runs when the runtime is next driven).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::LocalRuntime::new()?;
    /// let task = {
    ///     let _guard = rt.enter();
    ///     assert_eq!(lawn_rt::runtime::Handle::current().id(), rt.handle().id());
    ///     lawn_rt::task::spawn_local(async { std::rc::Rc::new(1) })
    /// };
    /// assert_eq!(*rt.block_on(task).unwrap(), 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        let parts = self.parts();
        parts.runtime.enter().with_local(parts.local.enter())
    }

    /// Drops the local tasks, then shuts the runtime down as
    /// [`Runtime::shutdown_timeout`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::LocalRuntime::new()?;
    /// rt.spawn_local(std::future::pending::<()>());
    /// rt.shutdown_timeout(std::time::Duration::from_millis(10));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        if let Some(parts) = self.parts.take() {
            parts.close().shutdown_timeout(timeout);
        }
    }

    /// Drops the local tasks, then shuts the runtime down without waiting
    /// for its blocking tasks, as [`Runtime::shutdown_background`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::LocalRuntime::new()?;
    /// rt.shutdown_background();
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn shutdown_background(mut self) {
        if let Some(parts) = self.parts.take() {
            parts.close().shutdown_background();
        }
    }

    /// The runtime's counts, as [`Runtime::metrics`] gives them (local
    /// tasks are not counted among `num_alive_tasks`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::LocalRuntime::new()?;
    /// assert_eq!(rt.metrics().num_workers(), 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn metrics(&self) -> RuntimeMetrics {
        self.parts().runtime.metrics()
    }
}

// As tokio's (and as `Runtime` is): a panic that unwinds out of
// `block_on` leaves the runtime usable. The set's state is only borrowed
// within its own calls, never across a poll of user code.
impl std::panic::UnwindSafe for LocalRuntime {}
impl std::panic::RefUnwindSafe for LocalRuntime {}

impl Drop for LocalRuntime {
    fn drop(&mut self) {
        if let Some(parts) = self.parts.take() {
            drop(parts.close());
        }
    }
}

impl fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalRuntime").finish_non_exhaustive()
    }
}
