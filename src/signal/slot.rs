//! One signal number's record: the flag its handler sets, the delivery
//! counter a broadcast bumps, and the wakers of its listeners. This is the
//! part of signal delivery that hands something between threads in
//! process (a broadcasting listener in one runtime, a listener polled in
//! another), so it takes its primitives from `crate::loom` and loom model
//! 22 runs it; the handler and the socket it writes to are `registry.rs`'s.
//!
//! Ground rules:
//! - The counter is bumped before the listeners' wakers are taken (under
//!   the waiter lock), and a listener stores its waker and reads the
//!   counter again under that lock: a broadcast either sees the waker or
//!   is seen by the listener. Wakers are called after the lock is
//!   released.
//! - A listener has a message when the counter differs from the value it
//!   last saw, so deliveries coalesce and one made after the listener is
//!   never lost for it.

use std::sync::Arc;
use std::task::Waker;

use crate::loom::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use crate::loom::{lock, Mutex};

/// One signal number's record.
pub(crate) struct Slot {
    signum: i32,
    /// Set by the handler, taken by a broadcast.
    pending: Arc<AtomicBool>,
    /// Bumped by each broadcast that took `pending`.
    delivered: AtomicU64,
    waiters: Mutex<Waiters>,
}

#[derive(Default)]
struct Waiters {
    /// Ids for new listeners.
    next_id: u64,
    /// Listeners waiting for the counter to move: (id, waker).
    list: Vec<(u64, Waker)>,
}

impl Slot {
    pub(crate) fn new(signum: i32) -> Slot {
        Slot {
            signum,
            pending: Arc::new(AtomicBool::new(false)),
            delivered: AtomicU64::new(0),
            waiters: Mutex::new(Waiters::default()),
        }
    }

    pub(crate) fn signum(&self) -> i32 {
        self.signum
    }

    /// The flag the handler sets.
    #[cfg(not(loom))]
    pub(crate) fn pending(&self) -> &Arc<AtomicBool> {
        &self.pending
    }

    /// What the handler does (for the loom model, which has no handler).
    #[cfg(loom)]
    pub(crate) fn raise(&self) {
        self.pending.store(true, SeqCst);
    }

    /// The counter now: what a new listener has seen.
    pub(crate) fn delivered(&self) -> u64 {
        self.delivered.load(SeqCst)
    }

    /// A fresh id for a listener's waker.
    pub(crate) fn new_waiter(&self) -> u64 {
        let mut waiters = lock(&self.waiters);
        waiters.next_id += 1;
        waiters.next_id
    }

    /// Whether the counter moved past `seen` (updating it); otherwise
    /// stores `waker` under `id`, to be woken by the next broadcast that
    /// moves it.
    pub(crate) fn poll_delivered(&self, seen: &mut u64, id: u64, waker: &Waker) -> bool {
        let now = self.delivered.load(SeqCst);
        if now != *seen {
            *seen = now;
            return true;
        }
        let mut waiters = lock(&self.waiters);
        match waiters.list.iter_mut().find(|(key, _)| *key == id) {
            Some((_, stored)) => stored.clone_from(waker),
            None => waiters.list.push((id, waker.clone())),
        }
        if crate::loom::planted("signal_recheck") {
            // The deliberately broken variant (test-only): no second look,
            // so a broadcast between the first look and the waker's store
            // wakes nobody.
            return false;
        }
        // Under the lock a broadcast takes wakers with: one that bumped
        // the counter before the waker was stored is seen here.
        let now = self.delivered.load(SeqCst);
        if now != *seen {
            *seen = now;
            return true;
        }
        false
    }

    /// Forgets the waker of listener `id` (dropped).
    pub(crate) fn forget(&self, id: u64) {
        lock(&self.waiters).list.retain(|(key, _)| *key != id);
    }

    /// If the handler's flag is set, takes it, bumps the counter and moves
    /// the listeners' wakers to `woken` (for the caller to wake once no
    /// lock is held).
    pub(crate) fn take_pending(&self, woken: &mut Vec<Waker>) {
        if self.pending.swap(false, SeqCst) {
            self.delivered.fetch_add(1, SeqCst);
            woken.extend(lock(&self.waiters).list.drain(..).map(|(_, waker)| waker));
        }
    }
}

/// Loom-only access for loom model 22 (`loom-tests`): a signal's record
/// without a handler, a listener's poll and a broadcast.
#[cfg(loom)]
#[doc(hidden)]
pub mod model {
    use std::task::Waker;

    /// A signal's record.
    pub struct Record(super::Slot);

    impl std::fmt::Debug for Record {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Record").finish_non_exhaustive()
        }
    }

    /// A listener of a [`Record`]: the counter it saw and its waker's id.
    #[derive(Debug)]
    pub struct Listener {
        seen: u64,
        id: u64,
    }

    impl Record {
        pub fn new() -> Record {
            Record(super::Slot::new(1))
        }

        /// What the handler does: flags the signal.
        pub fn raise(&self) {
            self.0.raise();
        }

        /// What a listener that drained the socket does: takes the flag,
        /// bumps the counter, wakes the listeners.
        pub fn broadcast(&self) {
            let mut woken = Vec::new();
            self.0.take_pending(&mut woken);
            for waker in woken {
                waker.wake();
            }
        }

        /// A listener made now.
        pub fn listen(&self) -> Listener {
            Listener {
                seen: self.0.delivered(),
                id: self.0.new_waiter(),
            }
        }

        /// One poll of `listener`: whether a delivery came since it last
        /// looked (else `waker` is stored).
        pub fn poll(&self, listener: &mut Listener, waker: &Waker) -> bool {
            self.0
                .poll_delivered(&mut listener.seen, listener.id, waker)
        }
    }

    impl Default for Record {
        fn default() -> Record {
            Record::new()
        }
    }
}
