//! Entry points for the loom models in `loom-tests/`, compiled only under
//! `cfg(loom)` and hidden from the docs: they let a model build the
//! drivers a runtime builds (the foreign shards and their driver thread's
//! turn, a multi-thread runtime's shards) and step them by hand, since a
//! runtime under loom parks with no timers of its own to step. Each one
//! calls the code the real driver runs; none re-implements it.

use std::time::{Duration, Instant as StdInstant};

use super::foreign::{Foreign, Plan};
use super::shared::{Park, Shared};
use super::{Driver, Handle, TimerSlack};
use crate::loom::Arc;

/// A set of foreign shards as the process has one (1 µs ticks, timers
/// filed with `slack`), but not global: each model iteration gets a fresh
/// one, with no thread of its own. Clones share the set.
#[derive(Clone)]
pub struct ForeignSet(Arc<Foreign>);

/// What [`ForeignSet::plan`] planned.
pub struct ForeignPlan(Plan);

impl std::fmt::Debug for ForeignSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForeignSet").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ForeignPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ForeignPlan").field(&self.sleep()).finish()
    }
}

/// A fresh [`ForeignSet`].
pub fn foreign(slack: TimerSlack) -> ForeignSet {
    ForeignSet(Arc::new(Foreign::new(slack)))
}

impl ForeignSet {
    /// A new shard in the set, as a thread gets on its first timer. Pause
    /// it with [`pause`] to step its clock by hand.
    pub fn new_shard(&self) -> Handle {
        self.0.new_shard()
    }

    /// One whole turn of the driver thread, as it runs it.
    pub fn turn(&self) {
        self.0.turn();
    }

    /// The first part of a turn: every shard planned.
    pub fn plan(&self) -> ForeignPlan {
        ForeignPlan(self.0.plan())
    }

    /// The second part: the driver thread's sleep until unparked (the one
    /// a plan with no deadline makes, where loom catches a lost wake-up).
    pub fn sleep_until_unparked(&self) {
        self.0.parking().sleep(None);
    }

    /// The last part: end the planned sleep, fire what is due, prune.
    pub fn finish(&self, plan: ForeignPlan) {
        self.0.finish(plan.0);
    }

    /// Shards in the set.
    pub fn shard_count(&self) -> usize {
        self.0.shard_count()
    }

    /// What a `fork` from a thread other than the driver thread does
    /// before it forks: takes the set's locks (`Foreign::hold_for_fork`).
    /// Returns whether, while they are held, a shard had a batch of
    /// wakers in flight, which a child (where only the forking thread
    /// lives on) would inherit from a thread it does not have.
    pub fn fork_sees_a_batch_in_flight(&self) -> bool {
        self.0.hold_for_fork(false).batch_in_flight()
    }
}

impl ForeignPlan {
    /// Until when the plan lets the driver thread sleep: `None` if it must
    /// not, `Some(None)` until unparked.
    pub fn sleep(&self) -> Option<Option<StdInstant>> {
        self.0.sleep()
    }
}

/// Pauses the clock of the driver behind `handle` (a foreign shard's).
pub fn pause(handle: &Handle) {
    handle.shared.pause();
}

/// Moves the paused clock of the driver behind `handle` forward (firing
/// nothing: the driver thread's turn fires).
pub fn advance(handle: &Handle, by: Duration) {
    assert!(handle.shared.advance(by), "the clock is not paused");
}

/// A driver made as a multi-thread runtime makes each worker's timer
/// shard: 1 ms ticks, the default timer slack (with 1 ms ticks: one tick
/// for TTLs from 8 ticks up, none below), shard group `group` (nonzero),
/// and `unpark` called where the runtime would wake the worker's
/// `mio::Poll`. Paused by hand, it keeps filing timers with their slack
/// (only a runtime's `time::pause` makes a driver file exactly).
pub fn shard(group: usize, unpark: impl Fn() + Send + Sync + 'static) -> Driver {
    Driver::for_runtime(
        super::Role::WorkerShard(super::ShardGroup::from_raw(group)),
        Duration::from_millis(1),
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
    check_shard(&driver.handle);
}

/// [`check`] for the driver behind `handle` (a foreign shard's).
#[track_caller]
pub fn check_shard(handle: &Handle) {
    let shared = &handle.shared;
    let inner = shared.inner.lock();
    if let Err(err) = inner.levels.check() {
        panic!("{err}");
    }
    assert!(
        shared.batch.is_idle(&inner.batch),
        "a wake batch is still in flight or waited for"
    );
}
