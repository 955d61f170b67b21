//! The driver's lock: a mutex whose release is a plain store.
//!
//! Every registration and every cancel takes the driver's lock once, so a
//! timeout that is started and cancelled (the request loop) takes it twice.
//! `std`'s mutex pays two lock-prefixed instructions for each: a
//! compare-and-swap to take it and a swap to release it, the swap because
//! the releasing thread must learn, in the same step, whether anyone sleeps
//! on the lock. On the Intel VM of docs/performance.md a lock-prefixed
//! instruction costs ~9 ns, and the two releases were ~13 ns of an 86 ns
//! timeout in lawn_rt's own runtime (see "The driver's lock releases with a
//! plain store" there).
//!
//! [`DekkerLock`] releases with a plain store. The price is paid by a
//! thread that must sleep for the lock, which is rare: the driver's
//! critical sections are short, and a thread that finds the lock taken
//! spins for a while first. The protocol is the two-sided one of Dekker's
//! mutual exclusion, with the fence of the common side made free:
//!
//! - release: store `UNLOCKED` (release ordering), a *light* barrier, then
//!   read `sleepers`; wake one sleeper if there is any;
//! - a thread about to sleep: under `park`, add itself to `sleepers`, a
//!   *heavy* barrier, then look at the state again, and sleep on `wakeup`
//!   only if the lock is still taken.
//!
//! Either the releasing thread's store comes first, and the thread about
//! to sleep sees the lock free, or its increment does, and the releasing
//! thread sees a sleeper and wakes it (after taking `park`, so not before
//! the sleeper waits). On Linux the light barrier is only a compiler fence
//! and the heavy one is `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`,
//! which makes every running thread of the process execute a full memory
//! barrier (a thread not running has passed one when it was switched out):
//! whichever point of the releasing thread's instructions that barrier
//! falls at, one of the two orders above holds. Where `membarrier` cannot
//! be registered (an old kernel, a sandbox that forbids it), both barriers
//! are full fences, and the release costs what `std`'s does. Should the
//! heavy barrier fail once registered (a child after `fork` is not
//! registered), the sleeper cannot trust its look and sleeps at most 1 ms
//! at a time before it looks again.
//!
//! Under loom the driver takes loom's mutex and condition variable
//! instead ([`DriverLock`] is an alias chosen here, as `crate::loom`
//! chooses the other primitives): the lock's extra steps multiply the
//! interleavings of every driver model (model 3 took 349 s instead of
//! ~30), and what those models check is the driver's protocol given a
//! mutex. The lock's own protocol is checked by models 24 and 24b on
//! [`DekkerLock`] itself, compiled under loom with loom's atomics, cell
//! and mutex: there both barriers are `fence(SeqCst)` (which loom models;
//! it cannot model `membarrier`). They catch a sleeper that skips its
//! barrier (`planted("lock_barrier")`) and a condition variable's waiter
//! that lets go of the lock before it takes `park`
//! (`planted("condvar_order")`).
//!
//! The data sits in an `UnsafeCell` (loom's under loom, which checks that
//! two threads never reach it at once); the guard is the only way to it.
//! This module is the only one in `driver` besides `tsc.rs` that allows
//! `unsafe`, for that cell and its `Sync`.
#![allow(unsafe_code)]

use std::ops::{Deref, DerefMut};

use crate::loom::atomic::{AtomicU32, Ordering};
use crate::loom::{lock as lock_std, wait as wait_std, Condvar, Mutex};

/// The driver's lock: [`DekkerLock`], or loom's mutex under loom (see the
/// module's notes).
#[cfg(not(loom))]
pub(crate) type DriverLock<T> = DekkerLock<T>;
/// What holding a [`DriverLock`] gives.
#[cfg(not(loom))]
pub(crate) type DriverGuard<'a, T> = DekkerGuard<'a, T>;
/// The condition variable of a [`DriverLock`].
#[cfg(not(loom))]
pub(crate) type DriverCondvar = DekkerCondvar;
#[cfg(loom)]
pub(crate) use stand_in::{DriverCondvar, DriverGuard, DriverLock};

const UNLOCKED: u32 = 0;
const LOCKED: u32 = 1;

/// How many times a thread that finds the lock taken looks again before it
/// goes to sleep (each look after a `spin_loop` hint: a few microseconds in
/// all, longer than any of the driver's critical sections but a firing
/// batch's).
#[cfg(not(loom))]
const SPINS: u32 = 100;

/// A mutex for the driver's state (see the module's notes). No poisoning:
/// the driver's state is never left half-changed by a panic (see
/// `crate::loom::lock`).
pub(crate) struct DekkerLock<T> {
    state: AtomicU32,
    /// Threads between announcing they will sleep and having looked again
    /// after waking (never more than are in [`DekkerLock::lock_contended`]).
    sleepers: AtomicU32,
    park: Mutex<()>,
    wakeup: Condvar,
    data: Cell<T>,
}

// SAFETY: the data is reached only through a `DekkerGuard`, and a guard
// exists only while its thread holds the lock (`state` is `LOCKED` from its
// acquire to its release), so one thread at a time reaches it: the same
// contract as `std::sync::Mutex`, which is `Sync` for `T: Send`.
unsafe impl<T: Send> Sync for DekkerLock<T> {}

// As `std`'s mutex is (which poisons where this one does not): the
// driver never leaves its state half-changed across a panic (see
// `crate::loom::lock`), so a `Runtime` stays unwind-safe, as tokio's is.
impl<T> std::panic::UnwindSafe for DekkerLock<T> {}
impl<T> std::panic::RefUnwindSafe for DekkerLock<T> {}

/// Proof of holding a [`DekkerLock`]: derefs to its data; releases it when
/// dropped.
pub(crate) struct DekkerGuard<'a, T> {
    lock: &'a DekkerLock<T>,
    /// A guard is shared between threads only as `&T` is (`T: Sync`), as
    /// `std`'s is: the lock itself is `Sync` for any `T: Send`.
    _data: std::marker::PhantomData<&'a mut T>,
    /// Loom's record of this access to the cell, ended before the release.
    #[cfg(loom)]
    access: Option<loom::cell::MutPtr<T>>,
}

impl<T> DekkerLock<T> {
    pub(crate) fn new(data: T) -> DekkerLock<T> {
        barrier::init();
        DekkerLock {
            state: AtomicU32::new(UNLOCKED),
            sleepers: AtomicU32::new(0),
            park: Mutex::new(()),
            wakeup: Condvar::new(),
            data: Cell::new(data),
        }
    }

    /// Takes the lock, waiting for it if another thread holds it.
    #[inline]
    pub(crate) fn lock(&self) -> DekkerGuard<'_, T> {
        if !self.try_acquire() {
            self.lock_contended();
        }
        DekkerGuard::new(self)
    }

    /// Takes the lock if no other thread holds it.
    #[inline]
    pub(crate) fn try_lock(&self) -> Option<DekkerGuard<'_, T>> {
        self.try_acquire().then(|| DekkerGuard::new(self))
    }

    #[inline]
    fn try_acquire(&self) -> bool {
        self.state
            .compare_exchange(UNLOCKED, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Whether the lock looks free: a plain load, which may be stale (a
    /// failed compare-and-swap is no better, and a load does not take the
    /// cache line from its holder).
    #[inline]
    fn looks_free(&self) -> bool {
        self.state.load(Ordering::Relaxed) == UNLOCKED
    }

    #[cold]
    #[inline(never)]
    fn lock_contended(&self) {
        #[cfg(not(loom))]
        for _ in 0..SPINS {
            std::hint::spin_loop();
            if self.looks_free() && self.try_acquire() {
                return;
            }
        }
        loop {
            let parked = lock_std(&self.park);
            self.sleepers.fetch_add(1, Ordering::Relaxed);
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only) skips the barrier: a release that reads
            // `sleepers` too early and a look here that sees the lock
            // still taken can then both happen, and this thread sleeps
            // with nobody to wake it. loom-tests/tests/broken.rs proves
            // model 24 catches it.
            let synced = super::planted("lock_barrier") || barrier::heavy();
            let parked = if self.looks_free() {
                parked
            } else if synced {
                wait_std(&self.wakeup, parked)
            } else {
                // No heavy barrier to pair with the release's light one:
                // look again after a while rather than risk sleeping
                // through the release.
                barrier::wait_a_while(&self.wakeup, parked)
            };
            self.sleepers.fetch_sub(1, Ordering::Relaxed);
            drop(parked);
            if self.looks_free() && self.try_acquire() {
                return;
            }
        }
    }

    #[inline]
    fn unlock(&self) {
        self.state.store(UNLOCKED, Ordering::Release);
        barrier::light();
        if self.sleepers.load(Ordering::Relaxed) != 0 {
            self.wake_one();
        }
    }

    #[cold]
    #[inline(never)]
    fn wake_one(&self) {
        let _parked = lock_std(&self.park);
        self.wakeup.notify_one();
    }
}

impl<'a, T> DekkerGuard<'a, T> {
    #[inline]
    fn new(lock: &'a DekkerLock<T>) -> Self {
        DekkerGuard {
            lock,
            _data: std::marker::PhantomData,
            #[cfg(loom)]
            access: Some(lock.data.0.get_mut()),
        }
    }
}

impl<T> Deref for DekkerGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: this guard holds the lock (see `Sync` above), so no other
        // reference to the data exists while the returned one lives (it
        // borrows the guard).
        unsafe { &*self.lock.data.get(self) }
    }
}

impl<T> DerefMut for DekkerGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this the only reference
        // made through the guard.
        unsafe { &mut *self.lock.data.get(self) }
    }
}

impl<T> Drop for DekkerGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        #[cfg(loom)]
        drop(self.access.take());
        self.lock.unlock();
    }
}

/// A condition variable for a [`DekkerLock`]. Its waiter takes `park`
/// before releasing the driver's lock, and a notifier takes `park` to
/// notify, so a notifier that changed the waited-for state under the
/// driver's lock (as every one does) notifies after the waiter sleeps.
pub(crate) struct DekkerCondvar {
    park: Mutex<()>,
    condvar: Condvar,
}

impl DekkerCondvar {
    pub(crate) fn new() -> DekkerCondvar {
        DekkerCondvar {
            park: Mutex::new(()),
            condvar: Condvar::new(),
        }
    }

    /// Releases the lock, sleeps until notified (or spuriously), and takes
    /// the lock again.
    pub(crate) fn wait<'a, T>(&self, guard: DekkerGuard<'a, T>) -> DekkerGuard<'a, T> {
        self.wait_up_to(guard, None)
    }

    /// [`wait`](DekkerCondvar::wait) for at most `timeout` (under loom, for
    /// no time at all: see `crate::loom::wait_timeout`).
    pub(crate) fn wait_timeout<'a, T>(
        &self,
        guard: DekkerGuard<'a, T>,
        timeout: std::time::Duration,
    ) -> DekkerGuard<'a, T> {
        self.wait_up_to(guard, Some(timeout))
    }

    fn wait_up_to<'a, T>(
        &self,
        guard: DekkerGuard<'a, T>,
        timeout: Option<std::time::Duration>,
    ) -> DekkerGuard<'a, T> {
        let lock = guard.lock;
        // The deliberately broken variant (`--cfg lawn_rt_broken`,
        // test-only) lets go of the lock first: a notifier can then change
        // the state and notify before this thread waits.
        // loom-tests/tests/broken.rs proves model 24b catches it.
        let guard = if super::planted("condvar_order") {
            drop(guard);
            None
        } else {
            Some(guard)
        };
        // Taken before the lock is let go: a notifier, which takes it too,
        // cannot notify between the release and this thread's wait.
        let parked = lock_std(&self.park);
        drop(guard);
        match timeout {
            None => drop(wait_std(&self.condvar, parked)),
            Some(timeout) => drop(crate::loom::wait_timeout(&self.condvar, parked, timeout)),
        }
        lock.lock()
    }

    pub(crate) fn notify_all(&self) {
        let _parked = lock_std(&self.park);
        self.condvar.notify_all();
    }
}

/// The lock's data cell: `std`'s, or loom's, which records each access.
#[cfg(not(loom))]
struct Cell<T>(std::cell::UnsafeCell<T>);
#[cfg(loom)]
struct Cell<T>(loom::cell::UnsafeCell<T>);

impl<T> Cell<T> {
    fn new(data: T) -> Self {
        #[cfg(not(loom))]
        return Cell(std::cell::UnsafeCell::new(data));
        #[cfg(loom)]
        return Cell(loom::cell::UnsafeCell::new(data));
    }

    /// The data's address, for `guard`.
    #[inline]
    fn get(&self, guard: &DekkerGuard<'_, T>) -> *mut T {
        #[cfg(not(loom))]
        {
            let _ = guard;
            self.0.get()
        }
        #[cfg(loom)]
        {
            let access = guard
                .access
                .as_ref()
                .expect("a guard's access lasts until its drop");
            // SAFETY: loom's pointer is valid while `access` lives, which is
            // until the guard's drop; the caller holds the lock.
            unsafe { access.deref() as *mut T }
        }
    }
}

/// Under loom, the driver's lock is loom's mutex (see the module's notes).
#[cfg(loom)]
mod stand_in {
    use crate::loom::{Condvar, Mutex, MutexGuard};

    pub(crate) struct DriverLock<T>(Mutex<T>);

    pub(crate) type DriverGuard<'a, T> = MutexGuard<'a, T>;

    impl<T> DriverLock<T> {
        // Inlined so that the driver's state (7.5 KiB) is not copied
        // through one more frame: loom's threads have 32 KiB stacks.
        #[inline(always)]
        pub(crate) fn new(data: T) -> DriverLock<T> {
            DriverLock(Mutex::new(data))
        }

        pub(crate) fn lock(&self) -> DriverGuard<'_, T> {
            crate::loom::lock(&self.0)
        }

        pub(crate) fn try_lock(&self) -> Option<DriverGuard<'_, T>> {
            match self.0.try_lock() {
                Ok(guard) => Some(guard),
                Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            }
        }
    }

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
}

/// The two barriers of the module's notes.
mod barrier {
    #[cfg(not(loom))]
    use std::sync::atomic::{compiler_fence, AtomicBool, Ordering::Relaxed};

    use crate::loom::atomic::{fence, Ordering::SeqCst};
    use crate::loom::{Condvar, MutexGuard};

    /// Whether this process registered for `membarrier`'s private
    /// expedited command: set, once, before the first lock exists, so that
    /// every release of every lock sees the same value.
    #[cfg(not(loom))]
    static ASYMMETRIC: AtomicBool = AtomicBool::new(false);

    /// Registers for `membarrier` (once per process), before a lock is
    /// made.
    pub(super) fn init() {
        #[cfg(all(not(loom), target_os = "linux"))]
        {
            static REGISTER: std::sync::Once = std::sync::Once::new();
            REGISTER.call_once(|| {
                use rustix::thread::{membarrier, MembarrierCommand};
                let ok = membarrier(MembarrierCommand::RegisterPrivateExpedited).is_ok();
                ASYMMETRIC.store(ok, Relaxed);
            });
        }
    }

    /// The releasing side's barrier, between its store and its read.
    #[inline(always)]
    pub(super) fn light() {
        #[cfg(not(loom))]
        if ASYMMETRIC.load(Relaxed) {
            compiler_fence(SeqCst);
            return;
        }
        fence(SeqCst);
    }

    /// The sleeping side's barrier; `false` if it could not be made (the
    /// caller must not sleep without a time limit).
    pub(super) fn heavy() -> bool {
        #[cfg(all(not(loom), target_os = "linux"))]
        if ASYMMETRIC.load(Relaxed) {
            use rustix::thread::{membarrier, MembarrierCommand};
            return membarrier(MembarrierCommand::PrivateExpedited).is_ok();
        }
        fence(SeqCst);
        true
    }

    /// A sleep of at most a millisecond, for a sleeper with no barrier.
    pub(super) fn wait_a_while<'a>(
        condvar: &Condvar,
        parked: MutexGuard<'a, ()>,
    ) -> MutexGuard<'a, ()> {
        crate::loom::wait_timeout(condvar, parked, std::time::Duration::from_millis(1))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn one_thread_at_a_time_under_contention() {
        let lock = Arc::new(DekkerLock::new((0u64, false)));
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
        let lock = DekkerLock::new(1);
        let guard = lock.lock();
        assert!(lock.try_lock().is_none());
        drop(guard);
        assert_eq!(*lock.try_lock().expect("free again"), 1);
    }

    #[test]
    fn a_condvar_waiter_is_woken_by_a_change_made_under_the_lock() {
        let shared = Arc::new((DekkerLock::new(false), DekkerCondvar::new()));
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
