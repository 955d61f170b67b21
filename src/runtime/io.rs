//! The I/O driver: readiness for `lawn_rt::net`'s sockets, from the same
//! `mio::Poll` the park loop blocks in (DESIGN.md, "The park loop":
//! "dispatch I/O readiness").
//!
//! Each park loop (the current-thread runtime's one, or one per worker of
//! a multi-thread runtime) owns a `Poll`; its [`Driver`] holds a clone of
//! that poll's `Registry`, so a socket registers from any thread, and the
//! park loop hands every event whose token is not its own (tokens 0 and 1
//! are its waker and timerfd) to [`Driver::dispatch`].
//!
//! Ground rules: `dispatch` runs on the park loop's thread and calls no
//! waker under a lock; a socket finds the driver it registers with through
//! [`current`] (the one entered on this thread).

use std::sync::Arc;

use super::context;

/// The first token the I/O driver may give a socket: 0 and 1 belong to the
/// park loop (its `mio::Waker` and its timerfd).
#[allow(dead_code)] // used by the net module
pub(crate) const FIRST_TOKEN: usize = 2;

/// The I/O side of one park loop.
pub(crate) struct Driver {
    registry: mio::Registry,
}

impl Driver {
    pub(crate) fn new(registry: mio::Registry) -> Driver {
        Driver { registry }
    }

    /// Where sockets register (any thread may use it).
    #[allow(dead_code)] // used by the net module
    pub(crate) fn registry(&self) -> &mio::Registry {
        &self.registry
    }

    /// Hands one readiness event (a token at or above [`FIRST_TOKEN`]) to
    /// the socket it belongs to. Called by the park loop after each poll.
    pub(crate) fn dispatch(&self, event: &mio::event::Event) {
        let _ = event;
    }

    /// The runtime is shutting down: every socket's pending and later
    /// operations fail (with an error, not a hang).
    pub(crate) fn shutdown(&self) {}
}

/// The I/O driver entered on this thread.
///
/// # Panics
///
/// Outside a `lawn_rt` runtime, or inside one built without I/O, with a
/// message saying so (at the caller's line).
#[allow(dead_code)] // used by the net module
#[track_caller]
pub(crate) fn current() -> Arc<Driver> {
    match context::io() {
        Some(context::Io::Driver(driver)) => driver,
        Some(context::Io::Disabled) => panic!(
            "lawn_rt: sockets need the I/O driver, but this runtime was built without it; call \
             `enable_io()` or `enable_all()` on its `Builder`"
        ),
        None => panic!(
            "lawn_rt: sockets need a lawn_rt runtime with I/O enabled: use them inside \
             `Runtime::block_on`, a spawned task, or after `Runtime::enter`"
        ),
    }
}
