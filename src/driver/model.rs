//! Entry points for the loom models in `loom-tests/`, compiled only under
//! `cfg(loom)` and hidden from the docs: they let a model build the
//! drivers a runtime builds (the fallback driver, a multi-thread runtime's
//! shards) and step them by hand, since the runtime and its mio park loop
//! are compiled out under loom. Each one calls the code the real driver
//! runs; none re-implements it.

use std::time::{Duration, Instant as StdInstant};

use super::shared::{Park, Shared};
use super::{fallback, Driver, Handle, TimerSlack};
use crate::loom::{lock, Arc};

/// A driver made exactly as the fallback driver is (1 ms ticks, parks on
/// its own condition variable), but not global: each model iteration gets
/// a fresh one.
pub fn fallback_driver() -> Driver {
    Driver {
        handle: Handle {
            shared: Arc::new(Shared::new(fallback::options())),
        },
    }
}

/// One turn of the fallback thread's loop: park, then fire what is due.
pub fn fallback_turn(driver: &Driver) {
    fallback::turn(&driver.handle.shared);
}

/// A driver made as a multi-thread runtime makes each worker's timer
/// shard: 1 ms ticks, the default timer slack (with 1 ms ticks: one tick
/// for TTLs from 8 ticks up, none below), shard group `group` (nonzero),
/// and `unpark` called where the runtime would wake the worker's
/// `mio::Poll`. Paused by hand, it keeps filing timers with their slack
/// (only a runtime's `time::pause` makes a driver file exactly).
pub fn shard(group: usize, unpark: impl Fn() + Send + Sync + 'static) -> Driver {
    assert_ne!(group, 0, "shard groups are nonzero");
    Driver::for_runtime(
        Duration::from_millis(1),
        false,
        group,
        TimerSlack::DEFAULT,
        Box::new(unpark),
    )
}

/// The first half of a worker's park: `None` if it must not block (a timer
/// is due, an unpark came, or the driver shut down), else the instant it
/// may block until (`Some(None)`: until unparked). From now on a timer
/// filed to be due before that instant calls the unpark hook.
pub fn begin_park(driver: &Driver) -> Option<Option<StdInstant>> {
    match driver.handle.shared.begin_park(None) {
        Park::Skip => None,
        Park::Until(until) => Some(until),
    }
}

/// The second half of a worker's park, once it stops blocking.
pub fn end_park(driver: &Driver) {
    driver.handle.shared.end_park();
}

/// Panics, naming what is wrong, unless the driver's Lawn passes its own
/// self-check and no wake batch is in flight or waited for.
#[track_caller]
pub fn check(driver: &Driver) {
    let shared = &driver.handle.shared;
    let inner = lock(&shared.inner);
    if let Err(err) = inner.levels.check() {
        panic!("{err}");
    }
    assert!(
        shared.batch.is_idle(&inner.batch),
        "a wake batch is still in flight or waited for"
    );
}
