//! The fallback driver: serves timers created where no driver is entered
//! (`futures::executor::block_on`, a tokio runtime, a plain thread).
//!
//! Its shared state exists from the first use of [`handle`]; its thread,
//! named `lawn-rt-timer`, starts only when the first timer registers, parks
//! until the next deadline (woken early when an earlier timer registers)
//! and fires what is due, for the life of the process.

use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

use super::handle::Handle;
use super::shared::{Options, Shared};

/// The thread's name.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) const THREAD_NAME: &str = "lawn-rt-timer";

/// Runs a driver's park loop until it shuts down: what the fallback
/// thread does.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn run(shared: &Shared) {
    while !shared.is_shutdown() {
        turn(shared);
    }
}

/// One turn of the fallback thread's loop: parks until the earliest timer
/// may be due (or an earlier one registers), then fires what is due. The
/// loom models run this very function on a thread of their own.
///
/// A waker that panics does not end the loop: the panic is reported by the
/// panic hook as usual and the driver goes on serving the other timers.
pub(crate) fn turn(shared: &Shared) {
    shared.park(None);
    let now = shared.clock.tick_floor(shared.clock.now());
    let _ = panic::catch_unwind(AssertUnwindSafe(|| shared.process_at(now)));
}

/// How the fallback driver is made: 1 ms ticks, parked on its own
/// condition variable.
pub(crate) fn options() -> Options {
    Options {
        resolution: Duration::from_millis(1),
        fallback: true,
        pausable: false,
        runtime: false,
        group: 0,
        unpark: None,
        slack: super::TimerSlack::NONE,
    }
}

#[cfg(not(loom))]
mod global {
    use std::sync::{Once, OnceLock};

    use super::*;
    use crate::loom::{thread, Arc};

    static HANDLE: OnceLock<Handle> = OnceLock::new();
    static STARTED: Once = Once::new();

    pub(crate) fn handle() -> Handle {
        HANDLE
            .get_or_init(|| Handle {
                shared: Arc::new(Shared::new(options())),
            })
            .clone()
    }

    #[inline]
    pub(crate) fn ensure_started() {
        STARTED.call_once(|| {
            let shared = handle().shared;
            thread::Builder::new()
                .name(THREAD_NAME.into())
                .spawn(move || run(&shared))
                .unwrap_or_else(|err| {
                    panic!("lawn_rt: cannot start the fallback timer thread `{THREAD_NAME}`: {err}")
                });
        });
    }
}

#[cfg(loom)]
mod global {
    use super::*;

    pub(crate) fn handle() -> Handle {
        panic!("lawn_rt: no timer driver entered; under loom, enter a driver's handle first")
    }

    pub(crate) fn ensure_started() {}
}

pub(crate) use global::{ensure_started, handle};
