//! How a runtime's threads are started and what they run first and last:
//! the settings [`Builder`](super::Builder) collects and the parts of the
//! runtime that start threads (the schedulers' workers, the blocking pool)
//! read. Plain data with no dependency on either side, so the builder
//! depends on the pool and the pool only on this.

use std::fmt;
use std::io;
use std::sync::Arc;

#[cfg(doc)]
use super::Builder;

/// What makes a thread name: [`Builder::thread_name`] or
/// [`Builder::thread_name_fn`].
pub(crate) type NameFn = Arc<dyn Fn() -> String + Send + Sync + 'static>;

/// How the runtime names a thread it starts.
#[derive(Clone)]
pub(crate) enum ThreadName {
    /// One name for every thread (checked by [`Builder::build`]).
    Fixed(String),
    /// A name made for each thread, on the thread that starts it.
    Made(NameFn),
}

// Declared unwind-safe for the reason `ThreadHooks` is: the runtime only
// calls the function, under its own `catch_unwind`, and keeps nothing it
// returns if it panics.
impl std::panic::UnwindSafe for ThreadName {}
impl std::panic::RefUnwindSafe for ThreadName {}

impl ThreadName {
    /// `InvalidInput` naming the setting if a fixed name has a NUL byte
    /// (which no thread can have); a made name is checked as it is made.
    pub(crate) fn check(&self) -> io::Result<()> {
        match self {
            ThreadName::Fixed(name) if name.contains('\0') => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("lawn_rt: `thread_name` must not contain a NUL byte, got {name:?}"),
            )),
            _ => Ok(()),
        }
    }
}

impl fmt::Debug for ThreadName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThreadName::Fixed(name) => fmt::Debug::fmt(name, f),
            ThreadName::Made(_) => f.write_str("<thread_name_fn>"),
        }
    }
}

/// How every thread of a runtime is started: its name and stack size.
#[derive(Clone)]
pub(crate) struct ThreadSpec {
    name: ThreadName,
    stack_size: Option<usize>,
}

impl ThreadSpec {
    /// Threads named `name` (`default` if unset), of `stack_size` bytes
    /// of stack (`std`'s default if unset).
    pub(crate) fn new(name: Option<ThreadName>, default: &str, stack_size: Option<usize>) -> Self {
        ThreadSpec {
            name: name.unwrap_or_else(|| ThreadName::Fixed(default.to_string())),
            stack_size,
        }
    }

    /// A `thread::Builder` for the next thread, named (by the
    /// [`Builder::thread_name_fn`] function, if set: called once per
    /// thread, here) and sized.
    ///
    /// # Errors
    ///
    /// `InvalidInput` if the function made a name with a NUL byte (which
    /// `std` would panic on), `Other` if it panicked: the caller's
    /// failure to start a thread, as for an error of the OS.
    pub(crate) fn builder(&self) -> io::Result<crate::loom::thread::Builder> {
        let name = match &self.name {
            // Checked by `Builder::build`.
            ThreadName::Fixed(name) => name.clone(),
            ThreadName::Made(make) => {
                let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| make()))
                    .map_err(|_| io::Error::other("the `thread_name_fn` function panicked"))?;
                if made.contains('\0') {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "`thread_name_fn` returned a name with a NUL byte, which no thread \
                             can have: {made:?}"
                        ),
                    ));
                }
                made
            }
        };
        let builder = crate::loom::thread::Builder::new().name(name);
        Ok(match self.stack_size {
            Some(size) => builder.stack_size(size),
            None => builder,
        })
    }
}

/// A thread hook: [`Builder::on_thread_start`], [`Builder::on_thread_stop`],
/// [`Builder::on_thread_park`] or [`Builder::on_thread_unpark`].
pub(crate) type Hook = Arc<dyn Fn() + Send + Sync + 'static>;

/// What every thread a runtime starts runs first and last: its workers
/// (also one started by a `block_in_place` hand-off) and its blocking
/// pool's threads. The thread that calls `block_on` is the caller's, not
/// the runtime's: no start or stop hook runs there. The park and unpark
/// hooks run around a park loop's idle park: on a multi-thread runtime's
/// workers, and on the thread that drives a current-thread runtime (in
/// `block_on`).
#[derive(Clone, Default)]
pub(crate) struct ThreadHooks {
    pub(crate) start: Option<Hook>,
    pub(crate) stop: Option<Hook>,
    pub(crate) park: Option<Hook>,
    pub(crate) unpark: Option<Hook>,
}

// Declared unwind-safe, so that a `Runtime` and its `Handle` stay so (as
// tokio's are; `tests/auto_traits`) with hooks set: the runtime only calls
// them, each under its own `catch_unwind`, and reads nothing they could
// leave half-updated. What a hook captures is the caller's to keep
// consistent, as with any closure.
impl std::panic::UnwindSafe for ThreadHooks {}
impl std::panic::RefUnwindSafe for ThreadHooks {}

impl ThreadHooks {
    /// Runs the start hook, if any: on the new thread, with the runtime
    /// entered, before the thread does any work.
    pub(crate) fn started(&self) {
        run_hook(self.start.as_ref());
    }

    /// Runs the stop hook, if any: on the thread, with the runtime
    /// entered, once it has done its last work.
    pub(crate) fn stopping(&self) {
        run_hook(self.stop.as_ref());
    }

    /// Runs the park hook, if any: on a park loop's thread that found no
    /// work, with the runtime entered, before it looks whether it may
    /// block. Returns whether a hook ran (it may have spawned or woken a
    /// task: the caller must look at its queues again).
    pub(crate) fn parking(&self) -> bool {
        run_hook(self.park.as_ref());
        self.park.is_some()
    }

    /// Runs the unpark hook, if any: after each [`parking`](Self::parking),
    /// once the park is over (whether it blocked or found work).
    pub(crate) fn unparked(&self) {
        run_hook(self.unpark.as_ref());
    }
}

/// Runs `hook`. A panic in it is reported by the panic hook and goes no
/// further: unwinding out of a runtime thread's first or last step would
/// skip its accounting (a shutdown would then wait for a thread that is
/// gone, or a worker's tasks would never be cancelled).
fn run_hook(hook: Option<&Hook>) {
    if let Some(hook) = hook {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook()));
    }
}
