//! The one place where synchronization primitives are chosen.
//!
//! Under `cfg(loom)` the driver's locks, condition variables, atomics,
//! thread-locals and threads come from [loom](https://docs.rs/loom), so the
//! models in `loom-tests/` exercise the real driver and runtime code;
//! otherwise they are the `std` ones. Every lock, condition variable,
//! atomic that hands something between threads, thread-local and thread
//! in `driver`, `time` and `runtime` comes from here. `Arc` is the
//! exception outside the driver: the runtime's tasks, schedulers, I/O
//! slots and blocking pool hold `std::sync::Arc` (a task's `Waker` is made
//! from its `Arc` through `std::task::Wake`, which needs `std`'s, and the
//! rest shares those types); loom then models their accesses, not their
//! reference counts. Process-wide id counters (task ids, shard groups)
//! are `std` atomics: they are no hand-off, and loom's cannot be statics.

#[cfg(loom)]
pub(crate) use loom::{
    sync::{Arc, Condvar, Mutex, MutexGuard},
    thread,
};
#[cfg(not(loom))]
pub(crate) use std::{
    sync::{Arc, Condvar, Mutex, MutexGuard},
    thread,
};

/// Atomics, from loom or std.
pub(crate) mod atomic {
    #[cfg(loom)]
    pub(crate) use loom::sync::atomic::{
        fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    #[cfg(not(loom))]
    pub(crate) use std::sync::atomic::{
        fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
}

/// Locks `mutex`, ignoring poison: the driver's state is updated so that a
/// panic in a caller (a waker, say) never leaves it half-changed, and wakers
/// are never called with the lock held.
#[inline]
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A point where loom may switch threads while the caller holds a lock;
/// nothing outside loom. loom switches threads only at a synchronizing
/// operation, so a critical section with none inside is one indivisible
/// step to it, and a `try_lock` elsewhere would never find that lock
/// held: a model of a thread that must not wait for a busy lock needs
/// this point inside the section it must not wait for.
#[inline]
pub(crate) fn switch_point() {
    #[cfg(loom)]
    loom::thread::yield_now();
}

/// Waits on `condvar`, ignoring poison like [`lock`].
pub(crate) fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar
        .wait(guard)
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Waits on `condvar` for at most `timeout`, ignoring poison like [`lock`].
#[cfg(not(loom))]
pub(crate) fn wait_timeout<'a, T>(
    condvar: &Condvar,
    guard: MutexGuard<'a, T>,
    timeout: std::time::Duration,
) -> MutexGuard<'a, T> {
    match condvar.wait_timeout(guard, timeout) {
        Ok((guard, _)) => guard,
        Err(poisoned) => poisoned.into_inner().0,
    }
}

/// Under loom no time passes, so a timed wait times out at once, as if its
/// time had run out (loom's own `wait_timeout` would wait for a notify
/// that may never come, and report a deadlock that cannot happen). Callers
/// of a timed wait must handle an early return anyway; a model of a lost
/// wake-up uses an untimed wait, where loom does catch a missing notify.
#[cfg(loom)]
pub(crate) fn wait_timeout<'a, T>(
    _condvar: &Condvar,
    guard: MutexGuard<'a, T>,
    _timeout: std::time::Duration,
) -> MutexGuard<'a, T> {
    guard
}

/// `thread_local!` with `const` initializers: `std`'s takes them (no
/// lazy-initialization check on each access), loom's does not.
macro_rules! const_thread_local {
    ($($(#[$attr:meta])* static $name:ident: $t:ty = $init:expr;)*) => {
        #[cfg(not(loom))]
        std::thread_local! { $($(#[$attr])* static $name: $t = const { $init };)* }
        #[cfg(loom)]
        loom::thread_local! { $($(#[$attr])* static $name: $t = $init;)* }
    };
}
pub(crate) use const_thread_local;

/// Whether `thread` has finished running. loom's join handles cannot tell,
/// so there every thread counts as running until it is joined.
pub(crate) fn is_finished<T>(thread: &thread::JoinHandle<T>) -> bool {
    #[cfg(not(loom))]
    return thread.is_finished();
    #[cfg(loom)]
    {
        let _ = thread;
        false
    }
}

/// Whether the deliberately broken variant `bug` is planted: only in a
/// `--cfg lawn_rt_broken` build (test-only; `loom-tests/tests/broken.rs`
/// proves the loom models catch each), where `LAWN_RT_PLANTED` names the
/// one to plant (all of them if unset). Always `false` otherwise, at no
/// cost. It lives here, beside the primitives the models swap in, so that
/// every layer reaches it without naming another layer.
#[inline]
pub(crate) fn planted(bug: &str) -> bool {
    cfg!(lawn_rt_broken) && std::env::var("LAWN_RT_PLANTED").map_or(true, |planted| planted == bug)
}

/// The time now for the timer drivers: `std`'s monotonic clock, except
/// under loom, where no time passes: every read in a model's process
/// gives the same instant, so a replayed interleaving makes the same
/// comparisons (a real read would let a slow step move a deadline from
/// ahead to past between replays, and loom aborts on a replay that
/// differs).
#[inline(always)]
pub(crate) fn now() -> std::time::Instant {
    #[cfg(not(loom))]
    return std::time::Instant::now();
    #[cfg(loom)]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        *START.get_or_init(std::time::Instant::now)
    }
}
