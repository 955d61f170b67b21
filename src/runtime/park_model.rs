//! The park of a runtime thread under loom (`cfg(loom)` only): a flag and
//! a condition variable in place of the `mio::Poll`, so the models in
//! `loom-tests/` run the real schedulers, task states and blocking pool,
//! with loom choosing every interleaving.
//!
//! It keeps the contract of the real parker (`park.rs`): [`Parker::park`]
//! returns after an [`Unpark::unpark`] made since the last park returned,
//! at once if one was made before it began. No time passes in a model, so
//! a park with a deadline returns at once, as if the deadline had come
//! (the models build their runtimes without a time driver, and with no
//! I/O: there is no socket to poll).

use std::sync::Arc;
use std::time::Instant as StdInstant;

use super::io;
use crate::loom::{lock, wait, Condvar, Mutex};

/// The blocking side, owned by the runtime's core.
pub(crate) struct Parker {
    signal: Arc<Signal>,
}

/// Wakes the parked thread (or makes its next park return at once).
#[derive(Clone)]
pub(crate) struct Unpark(Arc<Signal>);

struct Signal {
    /// An unpark not yet consumed by a park.
    notified: Mutex<bool>,
    condvar: Condvar,
}

impl Unpark {
    pub(crate) fn unpark(&self) {
        *lock(&self.0.notified) = true;
        self.0.condvar.notify_one();
    }
}

impl Parker {
    /// A parker and its unpark handle; I/O cannot be enabled under loom
    /// (so there are no events to take: `_caps` is not used).
    pub(crate) fn new(
        enable_io: bool,
        _caps: super::EventCaps,
    ) -> std::io::Result<(Parker, Unpark, Option<Arc<io::Driver>>)> {
        if enable_io {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "lawn_rt: a runtime under loom has no I/O driver",
            ));
        }
        let signal = Arc::new(Signal {
            notified: Mutex::new(false),
            condvar: Condvar::new(),
        });
        Ok((
            Parker {
                signal: signal.clone(),
            },
            Unpark(signal),
            None,
        ))
    }

    /// Blocks until an unpark if `until` is `None`; with a deadline,
    /// returns at once (consuming a pending unpark).
    pub(crate) fn park(&mut self, until: Option<StdInstant>, _now: StdInstant, _real: bool) {
        let mut notified = lock(&self.signal.notified);
        if until.is_none() {
            while !*notified {
                notified = wait(&self.signal.condvar, notified);
            }
        }
        *notified = false;
    }

    /// Nothing to forget: there is no timerfd.
    pub(crate) fn forget_armed(&mut self) {}

    /// Why the last park woke: a timer if one fired, else an unpark (no
    /// socket can have woken it).
    pub(crate) fn wake_cause(&self, fired: usize) -> crate::driver::WakeCause {
        match fired {
            0 => crate::driver::WakeCause::Task,
            _ => crate::driver::WakeCause::Timer,
        }
    }

    /// Consumes a pending unpark, as a poll with no timeout reads the
    /// real parker's waker event.
    pub(crate) fn poll_now(&mut self) {
        *lock(&self.signal.notified) = false;
    }
}
