//! Expiry in batches, and cancellation that races it.
//!
//! [`Shared::process_at`] takes up to [`BATCH`] due wakers out of the Lawn
//! under the lock, records their keys in [`BatchState::keys`] and marks the
//! batch as *firing* (naming its thread), then releases the lock and calls
//! the wakers one by one. A timer dropped meanwhile is no longer in the
//! Lawn, so [`Shared::deregister`] looks for its key in the batch:
//!
//! - not in the batch: its waker was called in an earlier batch (or the
//!   timer completed without one); nothing to do;
//! - in the batch at position `i`, not yet reached: it sets bit `i` of
//!   `skip`, and the firing thread drops that waker instead of calling it;
//! - at position `i` being called right now on another thread: it waits
//!   until that call returns (on this thread, inside that very waker, it
//!   cannot and need not wait). Only then: a canceller never waits for
//!   other timers' wakers.
//!
//! So once a `Sleep`'s drop returns, its waker is not called. The handshake
//! on `calling` and `skip` is a store-then-load on each side, both
//! `SeqCst`: the firing thread stores `calling = i` then loads `skip`; the
//! canceller (holding the lock) sets its bit then loads `calling`. Either
//! the firing thread sees the bit, or the canceller sees `calling >= i`.
//!
//! A canceller that must wait counts itself in `waiting` (under the lock)
//! before it reads `calling`; the firing thread reads `waiting` after each
//! `calling` store and, if anyone waits, signals `done` under the lock. The
//! same store-then-load pairing makes that wake-up impossible to miss.
//!
//! Ground rules: `BatchState` is guarded by the driver lock; `calling` is
//! written only by the firing thread (and under the lock at batch start and
//! end), `skip` and `waiting` only under the lock (`skip` reset at batch
//! start, bits set by cancellers).

use std::panic::{self, AssertUnwindSafe};
use std::task::Waker;

use super::clock::Tick;
use super::shared::{Locked, Shared};
use crate::lawn::TimerKey;
use crate::loom::atomic::{AtomicU32, AtomicUsize, Ordering::SeqCst};
use crate::loom::{lock, thread, wait, Condvar, MutexGuard};

/// Wakers taken out of the Lawn per batch: bounds the lock hold and the
/// `skip` mask (one bit each).
pub(super) const BATCH: usize = 32;

/// `calling` when no batch is being woken.
const IDLE: usize = usize::MAX;

/// The lock-free part of the batch protocol.
pub(crate) struct Batch {
    /// Position in the batch of the waker being called, or [`IDLE`].
    calling: AtomicUsize,
    /// Positions whose timers were cancelled after being handed out.
    skip: AtomicU32,
    /// Cancellers waiting for a waker call to return.
    waiting: AtomicUsize,
    /// Signalled when a waker call returns or a batch ends, if someone
    /// waits.
    done: Condvar,
}

/// The part of the batch protocol under the driver lock.
#[derive(Default)]
pub(crate) struct BatchState {
    firing: Option<thread::ThreadId>,
    /// Batches begun so far.
    started: u64,
    /// Threads waiting for the batch to end.
    waiters: usize,
    /// Keys of the batch's timers, by position.
    keys: Vec<TimerKey>,
}

impl Batch {
    /// Whether no batch is in flight and nobody waits for one (for the loom
    /// models' final checks).
    #[cfg(loom)]
    pub(super) fn is_idle(&self, state: &BatchState) -> bool {
        state.firing.is_none()
            && state.waiters == 0
            && state.keys.is_empty()
            && self.calling.load(SeqCst) == IDLE
            && self.waiting.load(SeqCst) == 0
    }

    pub(super) fn new() -> Batch {
        Batch {
            calling: AtomicUsize::new(IDLE),
            skip: AtomicU32::new(0),
            waiting: AtomicUsize::new(0),
            done: Condvar::new(),
        }
    }
}

impl Shared {
    /// Wakes every timer due at or before `now`; returns how many wakers
    /// were called. Called from inside one of this driver's wakers, it
    /// returns 0: the batch loop calling that waker goes on firing.
    pub(crate) fn process_at(&self, now: Tick) -> usize {
        let me = thread::current().id();
        let mut woken = 0;
        let mut wakers: Vec<Waker> = Vec::new();
        let mut inner = lock(&self.inner);
        if inner.batch.firing == Some(me) {
            return 0;
        }
        loop {
            // Another thread is waking a batch: batches never overlap.
            while inner.batch.firing.is_some() {
                inner = self.wait_for_batch_end(inner);
            }
            if inner.shutdown {
                break;
            }
            let Locked { levels, batch, .. } = &mut *inner;
            batch.keys.clear();
            while wakers.len() < BATCH {
                let Some((key, waker)) = levels.pop_expired(now.0) else {
                    break;
                };
                batch.keys.push(key);
                wakers.push(waker);
            }
            if wakers.is_empty() {
                break;
            }
            batch.firing = Some(me);
            batch.started += 1;
            self.batch.skip.store(0, SeqCst);
            self.batch.calling.store(0, SeqCst);
            drop(inner);
            woken += self.wake_batch(&mut wakers);
            inner = lock(&self.inner);
        }
        drop(inner);
        woken
    }

    /// Calls the batch's wakers but those cancelled meanwhile, then ends
    /// the batch. A panicking waker does not stop the others: the first
    /// panic is resumed once the batch has ended.
    fn wake_batch(&self, wakers: &mut Vec<Waker>) -> usize {
        let end = EndBatch(self);
        let mut woken = 0;
        let mut panicked = None;
        for (position, waker) in wakers.drain(..).enumerate() {
            self.batch.calling.store(position, SeqCst);
            if self.batch.skip.load(SeqCst) & (1 << position) != 0 {
                drop(waker);
            } else {
                woken += 1;
                if let Err(panic) = panic::catch_unwind(AssertUnwindSafe(|| waker.wake())) {
                    panicked.get_or_insert(panic);
                }
            }
            self.batch.calling.store(position + 1, SeqCst);
            if self.batch.waiting.load(SeqCst) > 0 {
                // Someone waits for the call that just returned.
                let _inner = lock(&self.inner);
                self.batch.done.notify_all();
            }
        }
        drop(end);
        if let Some(panic) = panicked {
            panic::resume_unwind(panic);
        }
        woken
    }

    fn wait_for_batch_end<'a>(&self, mut inner: MutexGuard<'a, Locked>) -> MutexGuard<'a, Locked> {
        let started = inner.batch.started;
        inner.batch.waiters += 1;
        while inner.batch.firing.is_some() && inner.batch.started == started {
            inner = wait(&self.batch.done, inner);
        }
        inner.batch.waiters -= 1;
        inner
    }

    /// Cancels the timer under `key`. When this returns, its waker has been
    /// dropped, or has been called and will not be called again.
    pub(crate) fn deregister(&self, key: TimerKey) {
        let mut inner = lock(&self.inner);
        let removed = inner.levels.remove(key);
        if removed.is_none() {
            inner = self.forget_handed_out(inner, key);
        }
        drop(inner);
        drop(removed);
    }

    /// For a timer handed out for waking under `key` (its `Sleep` saw it
    /// fire, or files itself again and forgets the old key): makes sure its
    /// waker is not called after this returns.
    pub(crate) fn forget(&self, key: TimerKey) {
        // Cheap test first: the handout was seen under the lock, after the
        // batch that made it began, so `IDLE` here means that batch ended.
        if self.batch.calling.load(SeqCst) == IDLE {
            return;
        }
        let inner = lock(&self.inner);
        drop(self.forget_handed_out(inner, key));
    }

    fn forget_handed_out<'a>(
        &self,
        mut inner: MutexGuard<'a, Locked>,
        key: TimerKey,
    ) -> MutexGuard<'a, Locked> {
        let Some(firing) = inner.batch.firing else {
            return inner;
        };
        let Some(position) = inner.batch.keys.iter().position(|&k| k == key) else {
            return inner;
        };
        self.batch.skip.fetch_or(1 << position, SeqCst);
        if firing == thread::current().id() {
            return inner; // we are inside a waker of this batch
        }
        if super::planted("canceller") {
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only): return without waiting for a call in progress.
            // loom-tests/tests/broken.rs proves the models catch it.
            return inner;
        }
        // Wait while that very waker is being called.
        let started = inner.batch.started;
        self.batch.waiting.fetch_add(1, SeqCst);
        while self.batch.calling.load(SeqCst) == position
            && inner.batch.firing.is_some()
            && inner.batch.started == started
        {
            inner = wait(&self.batch.done, inner);
        }
        self.batch.waiting.fetch_sub(1, SeqCst);
        inner
    }
}

/// Ends a batch, also when unwinding: clears `firing` and `keys`, and wakes
/// whoever waits for the batch to end.
struct EndBatch<'a>(&'a Shared);

impl Drop for EndBatch<'_> {
    fn drop(&mut self) {
        let shared = self.0;
        let mut inner = lock(&shared.inner);
        inner.batch.firing = None;
        inner.batch.keys.clear();
        shared.batch.calling.store(IDLE, SeqCst);
        if inner.batch.waiters > 0 || shared.batch.waiting.load(SeqCst) > 0 {
            shared.batch.done.notify_all();
        }
    }
}
