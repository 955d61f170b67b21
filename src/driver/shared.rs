//! The state every handle to one driver shares: the clock and the Lawn of
//! wakers, and the protocol by which futures and the driver thread use it.
//!
//! Ground rules:
//! - `inner` (one mutex) guards the Lawn and every field of [`Inner`].
//!   Every registration reads its tick under this lock (`max` of the
//!   caller's tick and the Lawn's latest), so ticks filed into one bucket
//!   never decrease and each bucket stays deadline-ordered.
//! - No waker is woken, cloned into a batch for waking, or dropped while the
//!   lock is held: wakers leave the Lawn under the lock and are woken or
//!   dropped after it is released, so a waker may drop or register timers.
//! - A timer handed out for waking belongs to a *batch*; while a batch is
//!   being woken, `firing` names the waking thread. A deregistration that
//!   finds its timer already handed out waits for that batch to end; on the
//!   waking thread itself (a waker dropping a timer) it cannot wait, so it
//!   lists the key in `dropped_in_batch` and raises `dropped`, and the
//!   waking loop drops that waker instead of calling it. Either way, once
//!   `Sleep::drop` returns its waker is never called.
//! - `shut_down` mirrors `Inner::shutdown` (set under the lock, never
//!   cleared) so a poll can see it without locking.
//! - `parked_until` is the tick the parked driver will wake at on its own
//!   (`Some(u64::MAX)`: not before an unpark). A registration due earlier
//!   lowers it and signals `unpark`; every other registration costs no
//!   system call.

use std::task::Waker;
use std::time::{Duration, Instant as StdInstant};

use super::clock::{checked_add_or_far, Clock, Tick};
use super::error::Error;
use crate::lawn::{Lawn, TimerKey};
use crate::loom::atomic::{AtomicBool, Ordering};
use crate::loom::{lock, thread, wait, wait_timeout, Condvar, Mutex, MutexGuard};

/// Wakers taken out of the Lawn per batch; bounds stack use and lock hold.
const BATCH: usize = 32;

/// The most timers one driver holds (the Lawn's limit).
const CAPACITY: usize = u32::MAX as usize - 2;

pub(crate) struct Shared {
    pub(crate) clock: Clock,
    /// Whether this is the fallback driver, whose thread starts on the first
    /// registration.
    pub(crate) fallback: bool,
    inner: Mutex<Inner>,
    /// Signalled when the parked driver must look again.
    unpark: Condvar,
    /// Signalled when a batch of wakers has been woken and someone waits.
    batch_done: Condvar,
    /// Set when `Inner::dropped_in_batch` is not empty.
    dropped: AtomicBool,
    /// Set once the driver has shut down.
    shut_down: AtomicBool,
}

struct Inner {
    lawn: Lawn<Waker>,
    shutdown: bool,
    parked_until: Option<u64>,
    firing: Option<thread::ThreadId>,
    /// Number of batches begun so far.
    batches: u64,
    batch_waiters: usize,
    /// Timers of the batch being woken that a waker of that batch dropped.
    dropped_in_batch: Vec<TimerKey>,
}

/// What a registration found.
pub(crate) enum Registered {
    /// Filed under this key; the waker is called when it is due.
    Pending(TimerKey),
    /// Already due: nothing was filed.
    Due,
}

impl Shared {
    pub(crate) fn new(clock: Clock, fallback: bool) -> Shared {
        Shared {
            clock,
            fallback,
            inner: Mutex::new(Inner {
                lawn: Lawn::new(),
                shutdown: false,
                parked_until: None,
                firing: None,
                batches: 0,
                batch_waiters: 0,
                dropped_in_batch: Vec::new(),
            }),
            unpark: Condvar::new(),
            batch_done: Condvar::new(),
            dropped: AtomicBool::new(false),
            shut_down: AtomicBool::new(false),
        }
    }

    /// Files a timer due at `deadline`, to wake `waker`. `now` is a tick the
    /// caller has seen the clock reach (the registration's own tick is the
    /// later of it and the driver's latest, read under the lock).
    pub(crate) fn register(
        &self,
        deadline: StdInstant,
        now: Tick,
        waker: &Waker,
    ) -> Result<Registered, Error> {
        let due = self.clock.tick_ceil(deadline).0;
        let waker = waker.clone();
        let mut inner = lock(&self.inner);
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        let now = now.0.max(inner.lawn.elapsed());
        if due <= now {
            return Ok(Registered::Due);
        }
        if inner.lawn.len() >= CAPACITY {
            return Err(Error::at_capacity());
        }
        let key = inner.lawn.insert(now, due - now, waker);
        let unpark = inner.lower_parked_until(due);
        drop(inner);
        if unpark {
            self.unpark.notify_one();
        }
        Ok(Registered::Pending(key))
    }

    /// Moves a pending timer to `deadline`, keeping its waker. `Ok(false)`
    /// if it is no longer pending (handed out for waking, or due already:
    /// then it is removed).
    pub(crate) fn reset(
        &self,
        key: TimerKey,
        deadline: StdInstant,
        now: Tick,
    ) -> Result<bool, Error> {
        let due = self.clock.tick_ceil(deadline).0;
        let mut inner = lock(&self.inner);
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        let now = now.0.max(inner.lawn.elapsed());
        if due <= now {
            let removed = inner.lawn.remove(key);
            drop(inner);
            drop(removed);
            return Ok(false);
        }
        if !inner.lawn.reset(key, now, due - now) {
            return Ok(false);
        }
        let unpark = inner.lower_parked_until(due);
        drop(inner);
        if unpark {
            self.unpark.notify_one();
        }
        Ok(true)
    }

    /// Whether the timer under `key` is still filed, storing `waker` in it
    /// if it is (and does not already wake the same task).
    pub(crate) fn poll_pending(&self, key: TimerKey, waker: &Waker) -> Result<bool, Error> {
        let mut inner = lock(&self.inner);
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        let Some(stored) = inner.lawn.get_mut(key) else {
            return Ok(false);
        };
        if stored.will_wake(waker) {
            return Ok(true);
        }
        let old = std::mem::replace(stored, waker.clone());
        drop(inner);
        drop(old);
        Ok(true)
    }

    /// Whether the timer under `key` has been handed out for waking.
    pub(crate) fn is_fired(&self, key: TimerKey) -> Result<bool, Error> {
        let inner = lock(&self.inner);
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        Ok(inner.lawn.get(key).is_none())
    }

    /// Whether the driver has shut down.
    #[inline]
    pub(crate) fn is_shutdown(&self) -> bool {
        self.shut_down.load(Ordering::Acquire)
    }

    /// Cancels the timer under `key`. When this returns, its waker has been
    /// dropped or has been called and will not be called again.
    pub(crate) fn deregister(&self, key: TimerKey) {
        let mut inner = lock(&self.inner);
        let removed = inner.lawn.remove(key);
        if removed.is_none() {
            inner = self.forget_handed_out(inner, key);
        }
        drop(inner);
        drop(removed);
    }

    /// For a timer no longer in the Lawn: if a batch is being woken (which
    /// may hold it), makes sure its waker is not called after this returns.
    fn forget_handed_out<'a>(
        &self,
        mut inner: MutexGuard<'a, Inner>,
        key: TimerKey,
    ) -> MutexGuard<'a, Inner> {
        let Some(firing) = inner.firing else {
            return inner;
        };
        if firing == thread::current().id() {
            // Called from a waker of this very batch: the waking loop will
            // skip the key.
            inner.dropped_in_batch.push(key);
            self.dropped.store(true, Ordering::Relaxed);
            return inner;
        }
        let batch = inner.batches;
        inner.batch_waiters += 1;
        while inner.firing.is_some() && inner.batches == batch {
            inner = wait(&self.batch_done, inner);
        }
        inner.batch_waiters -= 1;
        inner
    }

    /// The tick of the earliest pending timer, or `None`. May be early (see
    /// [`Lawn::next_deadline`]); never late.
    pub(crate) fn next_deadline(&self) -> Option<Tick> {
        lock(&self.inner).lawn.next_deadline().map(Tick)
    }

    /// Wakes every timer due at or before `now`; returns how many. Wakers are
    /// called in batches, outside the lock.
    pub(crate) fn process_at(&self, now: Tick) -> usize {
        let me = thread::current().id();
        let mut woken = 0;
        let mut batch: Vec<(TimerKey, Waker)> = Vec::new();
        let mut inner = lock(&self.inner);
        loop {
            if inner.shutdown {
                break;
            }
            // Another thread is waking a batch: let it finish first, so
            // batches never overlap and `firing` names one thread.
            while inner.firing.is_some_and(|t| t != me) {
                inner.batch_waiters += 1;
                inner = wait(&self.batch_done, inner);
                inner.batch_waiters -= 1;
            }
            while batch.len() < BATCH {
                match inner.lawn.pop_expired(now.0) {
                    Some(due) => batch.push(due),
                    None => break,
                }
            }
            if batch.is_empty() {
                break;
            }
            let nested = inner.firing.is_some();
            inner.firing = Some(me);
            inner.batches += 1;
            drop(inner);
            woken += batch.len();
            let firing = Firing {
                shared: self,
                nested,
            };
            for (key, waker) in batch.drain(..) {
                if self.dropped.load(Ordering::Relaxed) && self.take_dropped(key) {
                    drop(waker);
                } else {
                    waker.wake();
                }
            }
            drop(firing);
            inner = lock(&self.inner);
        }
        drop(inner);
        woken
    }

    /// Whether a waker of the batch being woken dropped the timer `key`.
    #[cold]
    fn take_dropped(&self, key: TimerKey) -> bool {
        let mut inner = lock(&self.inner);
        let Some(at) = inner.dropped_in_batch.iter().position(|&k| k == key) else {
            return false;
        };
        inner.dropped_in_batch.swap_remove(at);
        true
    }

    /// Blocks the calling thread (the driver's) until the earliest timer may
    /// be due, an earlier timer is registered, `max` has passed, or the
    /// driver shuts down. Returns at once if a timer is due already.
    pub(crate) fn park(&self, max: Option<Duration>) {
        let mut inner = lock(&self.inner);
        if inner.shutdown {
            return;
        }
        let now = self.clock.now();
        let wait_for = match inner.lawn.next_deadline() {
            Some(next) => {
                let at = self.clock.instant_of(Tick(next));
                match at.checked_duration_since(now) {
                    None => return,
                    Some(d) if d.is_zero() => return,
                    Some(d) => Some(max.map_or(d, |max| max.min(d))),
                }
            }
            None => max,
        };
        let until = match wait_for {
            Some(d) => self.clock.tick_ceil(checked_add_or_far(now, d)).0,
            None => u64::MAX,
        };
        inner.parked_until = Some(until);
        inner = match wait_for {
            Some(d) => wait_timeout(&self.unpark, inner, d),
            None => wait(&self.unpark, inner),
        };
        inner.parked_until = None;
    }

    /// Wakes the thread in [`park`](Shared::park), if any.
    pub(crate) fn unpark(&self) {
        self.unpark.notify_all();
    }

    /// Shuts the driver down: drops every stored waker and makes later use
    /// of a timer bound to it fail. Idempotent.
    pub(crate) fn shutdown(&self) {
        let mut inner = lock(&self.inner);
        if inner.shutdown {
            return;
        }
        inner.shutdown = true;
        self.shut_down.store(true, Ordering::Release);
        let wakers = std::mem::take(&mut inner.lawn);
        let waiters = inner.batch_waiters > 0;
        drop(inner);
        self.unpark.notify_all();
        if waiters {
            self.batch_done.notify_all();
        }
        drop(wakers);
    }

    /// Number of pending timers.
    pub(crate) fn len(&self) -> usize {
        lock(&self.inner).lawn.len()
    }

    /// Heap bytes held by the Lawn.
    pub(crate) fn allocated_bytes(&self) -> usize {
        lock(&self.inner).lawn.allocated_bytes()
    }
}

/// Ends a batch, also when a waker panics: clears `firing` (unless the
/// batch is nested in another on this thread) and wakes whoever waits.
struct Firing<'a> {
    shared: &'a Shared,
    nested: bool,
}

impl Drop for Firing<'_> {
    fn drop(&mut self) {
        let mut inner = lock(&self.shared.inner);
        if !self.nested {
            inner.firing = None;
            inner.dropped_in_batch.clear();
            self.shared.dropped.store(false, Ordering::Relaxed);
        }
        if inner.batch_waiters > 0 {
            self.shared.batch_done.notify_all();
        }
    }
}

impl Inner {
    /// Lowers `parked_until` to `due` if the parked driver would wake later;
    /// returns whether it must be unparked.
    #[inline]
    fn lower_parked_until(&mut self, due: u64) -> bool {
        match self.parked_until {
            Some(until) if due < until => {
                self.parked_until = Some(due);
                true
            }
            _ => false,
        }
    }
}
