//! The driver's lock and its condition variable: the mutex and condition
//! variable of `crate::loom` (std's, or loom's under loom), without
//! poisoning, so the loom models check the lock that ships.
//!
//! The driver's state is never left half-changed by a panic (see
//! `crate::loom::lock`), so a poisoned lock is taken as it is. A custom
//! lock that released with a plain store won nothing end to end and was
//! removed: `docs/decisions/driver-lock-and-clock.md`.

use crate::loom::{Condvar, Mutex, MutexGuard};

/// A mutex for the driver's state that ignores poison.
pub(crate) struct DriverLock<T>(Mutex<T>);

/// What holding a [`DriverLock`] gives.
pub(crate) type DriverGuard<'a, T> = MutexGuard<'a, T>;

impl<T> DriverLock<T> {
    // Inlined so that the driver's state (7.5 KiB) is not copied through
    // one more frame: loom's threads have small stacks.
    #[inline(always)]
    pub(crate) fn new(data: T) -> DriverLock<T> {
        DriverLock(Mutex::new(data))
    }

    #[inline]
    pub(crate) fn lock(&self) -> DriverGuard<'_, T> {
        crate::loom::lock(&self.0)
    }

    #[inline]
    pub(crate) fn try_lock(&self) -> Option<DriverGuard<'_, T>> {
        match self.0.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }
}

/// The condition variable of a [`DriverLock`].
pub(crate) struct DriverCondvar(Condvar);

impl DriverCondvar {
    pub(crate) fn new() -> DriverCondvar {
        DriverCondvar(Condvar::new())
    }

    pub(crate) fn wait<'a, T>(&self, guard: DriverGuard<'a, T>) -> DriverGuard<'a, T> {
        crate::loom::wait(&self.0, guard)
    }

    pub(crate) fn wait_timeout<'a, T>(
        &self,
        guard: DriverGuard<'a, T>,
        timeout: std::time::Duration,
    ) -> DriverGuard<'a, T> {
        crate::loom::wait_timeout(&self.0, guard, timeout)
    }

    pub(crate) fn notify_all(&self) {
        self.0.notify_all();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn one_thread_at_a_time_under_contention() {
        let lock = Arc::new(DriverLock::new((0u64, false)));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let lock = lock.clone();
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        let mut guard = lock.lock();
                        assert!(!guard.1, "two threads inside the lock");
                        guard.1 = true;
                        guard.0 += 1;
                        if guard.0 % 1000 == 0 {
                            // Held long enough for the others to sleep.
                            std::thread::sleep(std::time::Duration::from_micros(50));
                        }
                        guard.1 = false;
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(lock.lock().0, 80_000);
    }

    #[test]
    fn try_lock_fails_while_held_and_succeeds_after() {
        let lock = DriverLock::new(1);
        let guard = lock.lock();
        assert!(lock.try_lock().is_none());
        drop(guard);
        assert_eq!(*lock.try_lock().expect("free again"), 1);
    }

    #[test]
    fn a_condvar_waiter_is_woken_by_a_change_made_under_the_lock() {
        let shared = Arc::new((DriverLock::new(false), DriverCondvar::new()));
        let waiter = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                let (lock, condvar) = &*shared;
                let mut guard = lock.lock();
                while !*guard {
                    guard = condvar.wait(guard);
                }
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(10));
        *shared.0.lock() = true;
        shared.1.notify_all();
        waiter.join().unwrap();
    }
}
