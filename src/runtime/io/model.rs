//! A socket's readiness record for the loom models (`cfg(loom)` only,
//! hidden from the docs): the models cannot make sockets (mio is not
//! modelled), so they drive the record the way the park loop and a socket
//! operation do, through the same code.

use std::task::{Context, Poll};

use super::readiness::{Direction, Ready, ReadyEvent, ScheduledIo, WaiterKey};

/// One socket's readiness, as [`crate::net`]'s sockets hold it.
pub struct Readiness(ScheduledIo);

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readiness").finish_non_exhaustive()
    }
}

/// What a readiness poll saw: kept by an operation so that its
/// `WouldBlock` clears only what it saw.
#[derive(Clone, Copy, Debug)]
pub struct Seen(ReadyEvent);

impl Readiness {
    /// A socket with nothing reported yet.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Readiness {
        Readiness(ScheduledIo::new())
    }

    /// The park loop's dispatch of an event that says "readable".
    pub fn event_readable(&self) {
        self.0.set(Ready::READABLE);
    }

    /// A reader's poll (`poll_read`'s): readable now, or `Pending` with
    /// the waker stored. `None`: the driver has shut down.
    pub fn poll_readable(&self, cx: &mut Context<'_>) -> Poll<Option<Seen>> {
        self.0
            .poll_ready(cx, Direction::Read, WaiterKey::Poll)
            .map(|ready| ready.ok().map(Seen))
    }

    /// The read got `WouldBlock`: forget the readiness it saw.
    pub fn would_block(&self, seen: Seen) {
        self.0.clear(seen.0);
    }
}
