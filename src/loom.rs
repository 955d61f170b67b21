//! The one place where synchronization primitives are chosen.
//!
//! Under `cfg(loom)` the driver's locks, condition variables, atomics,
//! thread-locals and threads come from [loom](https://docs.rs/loom), so the
//! models in `loom-tests/` exercise the real driver code; otherwise they are
//! the `std` ones. Everything in `driver` and `time` imports from here.

#[cfg(loom)]
pub(crate) use loom::{
    sync::{Arc, Condvar, Mutex, MutexGuard},
    thread, thread_local,
};
#[cfg(not(loom))]
pub(crate) use std::{
    sync::{Arc, Condvar, Mutex, MutexGuard},
    thread, thread_local,
};

/// Atomics, from loom or std.
pub(crate) mod atomic {
    #[cfg(loom)]
    pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
    #[cfg(not(loom))]
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
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
