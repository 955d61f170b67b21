//! The state every handle to one driver shares: the clock and the Lawn of
//! wakers, and the protocol by which futures and the driver use it.
//!
//! Ground rules:
//! - `inner` (one mutex) guards the Lawn and every field of [`Locked`].
//!   Every registration reads its tick under this lock (`max` of the
//!   caller's tick and the Lawn's latest), so ticks filed into one bucket
//!   never decrease and each bucket stays deadline-ordered.
//! - No waker is woken, cloned or dropped while the lock is held: wakers
//!   leave the Lawn under the lock and are woken or dropped after it is
//!   released, so a waker may drop or register timers.
//! - `shut_down` mirrors `Locked::shutdown` (set under the lock, never
//!   cleared) so a poll can see it without locking.
//! - `parked_until` is the tick the parked driver wakes at on its own
//!   (`u64::MAX`: only when unparked). A registration that would be too
//!   late if it waited for that wake-up (its deadline plus its slack is
//!   earlier, see `slack.rs`) lowers it and signals `unpark`; every other
//!   registration costs no system call. `parked_hint` mirrors it (0: not
//!   parked), written under the lock and read without it by the foreign
//!   shards' timer thread, which must not wait behind a shard's owner.
//!
//! Expiry and cancellation (the part the loom models check) are in
//! `batch.rs`.

use std::num::NonZeroUsize;
use std::task::Waker;
use std::time::{Duration, Instant as StdInstant};

use super::batch::Batch;
use super::clock::{checked_add_or_far, Clock, Tick};

use super::error::Error;
use super::lock::{DriverCondvar, DriverGuard, DriverLock};
use super::metrics::{Counters, TimerMetrics, WakeCause};
use super::slack::{Levels, TimerSlack};
use crate::lawn::TimerKey;
use crate::loom::atomic::{AtomicBool, AtomicU64, Ordering};

/// `parked_hint` of a driver that is not parked.
const NOT_PARKED: u64 = 0;

pub(crate) struct Shared {
    pub(super) clock: Clock,
    /// What this driver is for (see [`Role`]).
    role: Role,
    pub(super) inner: DriverLock<Locked>,
    /// How the parked driver is told to look again.
    unpark: Unpark,
    /// The wake batch in flight, if any (see `batch.rs`).
    pub(super) batch: Batch,
    /// Set once the driver has shut down.
    shut_down: AtomicBool,
    /// `Locked::parked_until`, for readers without the lock: the tick the
    /// parked driver wakes at (`u64::MAX`: only when unparked), or
    /// [`NOT_PARKED`].
    parked_hint: AtomicU64,
    /// How long, in ticks, a slack level must stay sparse before a park
    /// gives its memory back (one second).
    shrink_hold: u64,
}

/// What the driver's lock guards: the timers and the park and batch state.
pub(super) struct Locked {
    /// The pending timers, one Lawn per slack level.
    pub(super) levels: Levels<Waker>,
    pub(super) shutdown: bool,
    parked_until: Option<u64>,
    /// An unpark came while nobody was parked: the next park returns at once.
    notified: bool,
    pub(super) batch: super::batch::BatchState,
    /// What the timers here have done (see `metrics.rs`).
    pub(super) counters: Counters,
}

/// How a parked driver is woken: its own condition variable (the driver
/// parks in [`Shared::park`]), or a hook given by the event loop that parks
/// elsewhere (a runtime's `mio::Waker`).
pub(crate) enum Unpark {
    Condvar(DriverCondvar),
    Hook(Hook),
}

/// An event loop's unpark hook. Declared unwind-safe (so that a `Runtime`
/// is, as tokio's is, and `catch_unwind(|| rt.block_on(..))` compiles):
/// the hook only wakes a parked loop, so a panic inside it (a caught one,
/// in a `catch_unwind` around the runtime) leaves no state half-updated
/// that the driver would later read.
pub(crate) struct Hook(Box<dyn Fn() + Send + Sync>);

impl std::panic::UnwindSafe for Hook {}
impl std::panic::RefUnwindSafe for Hook {}

/// What a driver is for: who turns it, whether `time::pause` may stop its
/// clock, and which timers it takes over on their first poll (see
/// `handle::rebind_target`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A `Driver` made by hand: its owner turns it (`process`, `park`) and
    /// pauses it through its own methods. It takes over no timers.
    Bare,
    /// A thread's foreign shard (where no runtime is entered; see
    /// `foreign/mod.rs`): fired by the `lawn-rt-timer` thread, started on its
    /// first registration. A timer of another thread's shard first polled
    /// here moves here, and one first polled in a runtime moves there.
    Foreign,
    /// A current-thread runtime's driver: `time::pause` may pause it, and
    /// once paused it files every timer exactly (no slack), since
    /// auto-advance jumps the clock to the next deadline, which tokio's
    /// tests expect to the nanosecond. It takes over timers made where no
    /// driver was entered.
    CurrentThread,
    /// One worker's shard of a multi-thread runtime: it takes over timers
    /// made where no driver was entered and timers of its group's other
    /// shards (a task that moved between workers). Never pausable: the
    /// workers' clocks cannot stop together.
    WorkerShard(ShardGroup),
}

/// The shards of one multi-thread runtime, which hand timers to each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ShardGroup(NonZeroUsize);

impl ShardGroup {
    /// A group no other runtime of this process has.
    pub(crate) fn unique() -> ShardGroup {
        // A process-wide counter, not a hand-off between threads: std's
        // atomic (loom's cannot be a `static`).
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
        ShardGroup::from_raw(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }

    /// Group number `n` (nonzero): for the loom models, which pick their
    /// own.
    pub(crate) fn from_raw(n: usize) -> ShardGroup {
        ShardGroup(NonZeroUsize::new(n).expect("shard groups are nonzero"))
    }
}

impl Role {
    /// Whether this is a runtime's driver (either flavour).
    #[inline]
    pub(crate) fn is_runtime(self) -> bool {
        matches!(self, Role::CurrentThread | Role::WorkerShard(_))
    }
}

/// How a driver is made (crate-internal: runtimes and foreign shards).
pub(crate) struct Options {
    pub(crate) resolution: Duration,
    pub(crate) role: Role,
    /// `None`: park on a condition variable in [`Shared::park`].
    pub(crate) unpark: Option<Box<dyn Fn() + Send + Sync>>,
    /// How late timers may fire to share wake-ups.
    pub(crate) slack: TimerSlack,
}

/// What the thread about to park should do (see [`Shared::begin_park`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Park {
    /// Do not block: a timer is due, an unpark came, or the driver shut
    /// down.
    Skip,
    /// Block until this instant at the latest (`None`: until unparked),
    /// then call [`Shared::end_park`].
    Until(Option<StdInstant>),
}

/// What a reset did ([`Shared::reset_within`]).
pub(crate) enum Reset {
    /// Filed under this key (a new one if its slack level changed), due at
    /// this tick; or, reset into the past, handed out for waking under it.
    Moved(TimerKey, Tick),
    /// No longer pending (handed out for waking), or moved beyond the
    /// clock's last tick (see [`Registered::Beyond`]): nothing is filed.
    NotPending,
    /// The range given for the clock's tick could decide where the timer
    /// files: nothing was changed; read the clock and reset again.
    Unsure,
}

/// What a registration found.
pub(crate) enum Registered {
    /// Filed under this key, due at this tick; the waker is called then.
    Pending(TimerKey, Tick),
    /// Already due: nothing was filed.
    Due,
    /// Given a range for the clock's tick ([`Shared::register_within`]),
    /// the range could decide whether or where the timer files: nothing
    /// was filed; read the clock and register again.
    Unsure,
    /// Due after the last tick this driver's clock can count (only a paused
    /// clock moved centuries ahead gets there): nothing was filed, since a
    /// timer filed for that last tick would fire before its deadline. The
    /// sleep stays pending; a poll once the clock has passed the deadline
    /// completes it.
    Beyond,
}

impl Shared {
    pub(crate) fn new(options: Options) -> Shared {
        Shared {
            clock: Clock::new(options.resolution),
            role: options.role,
            inner: DriverLock::new(Locked {
                levels: Levels::new(options.slack, options.resolution.as_nanos() as u64),
                shutdown: false,
                parked_until: None,
                notified: false,
                batch: Default::default(),
                counters: Counters::default(),
            }),
            unpark: match options.unpark {
                Some(hook) => Unpark::Hook(Hook(hook)),
                None => Unpark::Condvar(DriverCondvar::new()),
            },
            batch: Batch::new(),
            shut_down: AtomicBool::new(false),
            parked_hint: AtomicU64::new(NOT_PARKED),
            shrink_hold: (1_000_000_000 / options.resolution.as_nanos().max(1)) as u64,
        }
    }

    /// What this driver is for.
    #[inline]
    pub(crate) fn role(&self) -> Role {
        self.role
    }

    /// This driver's clock now (its paused time, if paused).
    #[inline]
    pub(crate) fn now(&self) -> StdInstant {
        self.clock.now()
    }

    /// Whether the clock is paused now.
    pub(crate) fn is_paused(&self) -> bool {
        self.clock.is_paused()
    }

    /// Whether the clock has ever been paused (then its instants may run
    /// ahead of `std`'s).
    pub(crate) fn paused_ever(&self) -> bool {
        self.clock.paused_ever()
    }

    /// Pauses the clock; `false` if it already was.
    #[cfg_attr(not(feature = "test-util"), allow(dead_code))] // `time::pause` and the loom models
    pub(crate) fn pause(&self) -> bool {
        self.clock.pause()
    }

    /// Resumes the clock; `false` if it was not paused.
    #[cfg_attr(not(feature = "test-util"), allow(dead_code))] // `time::pause` and the loom models
    pub(crate) fn resume(&self) -> bool {
        self.clock.resume()
    }

    /// Moves the paused clock forward by `by`, firing nothing; `false` if
    /// it is not paused.
    pub(crate) fn advance(&self, by: Duration) -> bool {
        self.clock.advance(by)
    }

    /// The instant tick `tick` of this driver's clock starts.
    pub(crate) fn instant_of(&self, tick: Tick) -> StdInstant {
        self.clock.instant_of(tick)
    }

    /// Fires every timer due by the clock now; returns how many.
    #[cfg_attr(not(feature = "test-util"), allow(dead_code))] // `time::pause` and the loom models
    pub(crate) fn process_now(&self) -> usize {
        self.process_at(self.clock.tick_floor(self.clock.now()))
    }

    /// Files a timer due at tick `due` (its deadline rounded up to a tick),
    /// to wake `waker`. `now` is a tick the caller has seen this driver's
    /// clock reach (the registration's own tick is the later of it and the
    /// driver's latest, read under the lock).
    #[inline]
    pub(crate) fn register(&self, due: Tick, now: Tick, waker: Waker) -> Result<Registered, Error> {
        self.register_within(due, now, now, waker)
    }

    /// [`register`](Shared::register) for a caller that knows only that the
    /// clock's tick now is between `now` (a tick it has reached) and `hi`
    /// (one it has not passed; see `Clock::tick_bounds`): files the timer
    /// from `now` if that range cannot change the outcome (the timer is
    /// not due by `hi`, and a TTL counted from anywhere in the range files
    /// in the same slack level), else says [`Registered::Unsure`].
    //
    // Inlined, with `Sleep::register`, `Levels::insert`,
    // `Lawn::insert_deferred` and the cancel path: a call between the
    // layers is a measurable share of a whole timeout
    // (docs/decisions/inlined-timeout-path.md). Not under loom: there the
    // inlined frame, loom's primitives and all, overflows the stack of
    // the coroutine each modelled thread runs on; the code is the same.
    #[cfg_attr(not(loom), inline(always))]
    pub(crate) fn register_within(
        &self,
        due: Tick,
        now: Tick,
        hi: Tick,
        waker: Waker,
    ) -> Result<Registered, Error> {
        let due = due.0;
        if due == u64::MAX {
            return match self.is_shutdown() {
                true => Err(Error::shutdown()),
                false => Ok(Registered::Beyond),
            };
        }
        let mut inner = self.inner.lock();
        if self.role == Role::Foreign {
            // The foreign timer thread may find this shard busy here.
            crate::loom::switch_point();
        }
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        let now = now.0.max(inner.levels.elapsed());
        if due <= now {
            drop(inner);
            return Ok(Registered::Due);
        }
        if self.unsettled(&inner, due, now, hi.0) {
            drop(inner);
            drop(waker);
            return Ok(Registered::Unsure);
        }
        let exact = self.exact_when_filed();
        let key = match inner.levels.insert(now, due, waker, exact) {
            Ok(key) => key,
            Err(waker) => {
                drop(inner);
                drop(waker);
                return Err(Error::at_capacity());
            }
        };
        inner.counters.registered();
        let unpark = inner.lower_parked_until(key, due);
        // The deliberately broken variant (`--cfg lawn_rt_broken`,
        // test-only) leaves the timer thread the wake-up it planned before.
        if unpark && !crate::loom::planted("hint") {
            self.publish_parked(&inner);
        }
        // A foreign shard's own thread fires what is due here when it sees
        // it (see `batch.rs`, "Firing on the shard's own thread").
        let help = self.role == Role::Foreign && inner.levels.may_be_due(now);
        drop(inner);
        if unpark {
            self.wake_parked();
        }
        if help {
            self.help_fire(Tick(now));
        }
        Ok(Registered::Pending(key, Tick(due)))
    }

    /// Moves a pending timer to `deadline` (not yet due), keeping its
    /// waker. Returns its key now (a new one if its slack level changed)
    /// and the tick it is due at, or `None` if it is no longer pending
    /// (handed out for waking).
    #[inline]
    pub(crate) fn reset(
        &self,
        key: TimerKey,
        deadline: StdInstant,
        now: Tick,
    ) -> Result<Option<(TimerKey, Tick)>, Error> {
        let due = self.clock.tick_ceil(deadline);
        Ok(match self.reset_within(key, due, now, now)? {
            Reset::Moved(key, due) => Some((key, due)),
            Reset::NotPending => None,
            Reset::Unsure => unreachable!("an exact reset is never unsure"),
        })
    }

    /// [`reset`](Shared::reset) to the tick `due`, for a caller that knows
    /// only that the clock's tick now is between `now` and `hi` (as for
    /// [`register_within`](Shared::register_within)).
    #[cfg_attr(not(loom), inline)]
    pub(crate) fn reset_within(
        &self,
        key: TimerKey,
        due: Tick,
        now: Tick,
        hi: Tick,
    ) -> Result<Reset, Error> {
        let due = due.0;
        let mut inner = self.inner.lock();
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        let now = now.0.max(inner.levels.elapsed());
        if due == u64::MAX {
            // Beyond the clock's last tick (see `Registered::Beyond`): no
            // longer filed; the sleep's next poll says it is pending.
            let removed = inner.levels.remove(key);
            if removed.is_some() {
                inner.counters.cancelled();
            }
            drop(inner);
            drop(removed);
            return Ok(Reset::NotPending);
        }
        if due <= now {
            // Due already: hand it out now.
            let removed = inner.levels.remove(key);
            if removed.is_some() {
                inner.counters.fired(Duration::ZERO);
            }
            drop(inner);
            return Ok(match removed {
                Some(waker) => {
                    waker.wake();
                    Reset::Moved(key, Tick(now))
                }
                None => Reset::NotPending,
            });
        }
        if self.unsettled(&inner, due, now, hi.0) {
            return Ok(Reset::Unsure);
        }
        let exact = self.exact_when_filed();
        let Some(key) = inner.levels.reset(key, now, due, exact) else {
            return Ok(Reset::NotPending);
        };
        inner.counters.reset();
        let unpark = inner.lower_parked_until(key, due);
        if unpark {
            self.publish_parked(&inner);
        }
        drop(inner);
        if unpark {
            self.wake_parked();
        }
        Ok(Reset::Moved(key, Tick(due)))
    }

    /// Whether the clock's tick being anywhere in `now..=hi` (`now < due`)
    /// could decide whether a timer due at `due` is due, or which slack
    /// level it files in.
    #[inline]
    fn unsettled(&self, inner: &Locked, due: u64, now: u64, hi: u64) -> bool {
        hi > now
            && (due <= hi
                || !(self.exact_when_filed() || inner.levels.same_level(due - now, due - hi)))
    }

    /// Whether a timer filed now goes in without slack: on a runtime's
    /// clock that has been paused (see [`Role::CurrentThread`]).
    #[inline]
    fn exact_when_filed(&self) -> bool {
        self.role == Role::CurrentThread && self.clock.paused_ever()
    }

    /// Cancels a pending timer that became due by a reset to the past and
    /// wakes its waker (its task may be waiting on it elsewhere). Returns
    /// whether it was still pending.
    pub(crate) fn fire_now(&self, key: TimerKey) -> bool {
        let mut inner = self.inner.lock();
        let removed = inner.levels.remove(key);
        if removed.is_some() {
            inner.counters.fired(Duration::ZERO);
        }
        drop(inner);
        match removed {
            Some(waker) => {
                waker.wake();
                true
            }
            None => false,
        }
    }

    /// Whether the timer under `key` is still filed, storing `waker` in it
    /// if it is (and does not already wake the same task).
    #[cfg_attr(not(loom), inline)]
    pub(crate) fn poll_pending(&self, key: TimerKey, waker: &Waker) -> Result<bool, Error> {
        let inner = self.inner.lock();
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        match inner.levels.get(key) {
            None => return Ok(false),
            Some(stored) if stored.will_wake(waker) => return Ok(true),
            Some(_) => {}
        }
        // Another task polls it now: swap the waker, cloning it outside the
        // lock (a clone may run any code).
        drop(inner);
        let new = waker.clone();
        let mut inner = self.inner.lock();
        if inner.shutdown {
            return Err(Error::shutdown());
        }
        let Some(stored) = inner.levels.get_mut(key) else {
            return Ok(false);
        };
        let old = std::mem::replace(stored, new);
        drop(inner);
        drop(old);
        Ok(true)
    }

    /// Whether the timer under `key` has been handed out for waking (`true`
    /// also after a shutdown: it will never be pending again).
    pub(crate) fn is_fired(&self, key: TimerKey) -> bool {
        let inner = self.inner.lock();
        inner.shutdown || inner.levels.get(key).is_none()
    }

    /// Whether the driver has shut down.
    #[inline]
    pub(crate) fn is_shutdown(&self) -> bool {
        self.shut_down.load(Ordering::Acquire)
    }

    /// The tick of the earliest pending timer, or `None`. May be early (see
    /// `Lawn::next_deadline`); never late.
    pub(crate) fn next_deadline(&self) -> Option<Tick> {
        self.inner.lock().levels.next_deadline().map(Tick)
    }

    /// Blocks the calling thread (the driver's) until the earliest timer may
    /// be due, an earlier timer is registered, [`unpark`](Shared::unpark) is
    /// called (also if it was called since the last park), `max` has
    /// passed, or the driver shuts down. Returns at once if a timer is due.
    /// One thread parks a driver at a time. Only for a driver that parks on
    /// its condition variable (no unpark hook).
    pub(crate) fn park(&self, max: Option<Duration>) {
        let Unpark::Condvar(condvar) = &self.unpark else {
            unreachable!("lawn_rt: a driver with an unpark hook is parked by its event loop");
        };
        let mut inner = self.inner.lock();
        inner = match self.plan_park(&mut inner, max) {
            Park::Skip => return,
            Park::Until(Some(until)) => {
                let left = until.saturating_duration_since(self.clock.now());
                condvar.wait_timeout(inner, left)
            }
            Park::Until(None) => condvar.wait(inner),
        };
        self.end_park_locked(&mut inner);
    }

    /// The first half of parking for an event loop that blocks elsewhere
    /// (in `mio::Poll`, say): says how long it may block, and from now on
    /// a registration due earlier than that calls the unpark hook. The loop
    /// must call [`end_park`](Shared::end_park) once it stops blocking.
    pub(crate) fn begin_park(&self, max: Option<Duration>) -> Park {
        let mut inner = self.inner.lock();
        self.plan_park(&mut inner, max)
    }

    /// [`begin_park`](Shared::begin_park) for a paused clock: the event loop
    /// blocks with no deadline (paused time does not pass by itself), and
    /// any registration unparks it.
    pub(crate) fn begin_park_paused(&self, seen: Option<Option<u64>>) -> Park {
        let mut inner = self.inner.lock();
        if inner.shutdown || std::mem::take(&mut inner.notified) {
            return Park::Skip;
        }
        // A timer filed since the caller last looked (and found nothing it
        // could advance to) must be looked at again, not slept through.
        if seen.is_some_and(|seen| inner.levels.next_deadline() != seen) {
            return Park::Skip;
        }
        inner.parked_until = Some(u64::MAX);
        self.publish_parked(&inner);
        Park::Until(None)
    }

    /// The second half of [`begin_park`](Shared::begin_park).
    pub(crate) fn end_park(&self) {
        self.end_park_locked(&mut self.inner.lock());
    }

    fn end_park_locked(&self, inner: &mut DriverGuard<'_, Locked>) {
        inner.end_park();
        self.publish_parked(inner);
    }

    /// Whether a batch of this shard's wakers is being woken (loom model
    /// 25 looks at it across a `fork`'s hold).
    #[cfg(loom)]
    pub(crate) fn batch_in_flight(&self) -> bool {
        self.inner.lock().batch.in_flight()
    }

    /// [`begin_park`](Shared::begin_park) with no limit, for the foreign
    /// shards' timer thread, which must not wait behind a thread that is
    /// registering or cancelling here: if the lock is held, the wake-up
    /// this driver is parked until (planned earlier, lowered since by each
    /// registration that needed it, each of which unparked the thread),
    /// or `None` if it is not parked or that wake-up is not after `now`
    /// (the caller looks again shortly).
    ///
    /// A wake-up planned before that is still ahead is kept if it is
    /// earlier than the new plan (the thread wakes then once for nothing):
    /// a registration lowered it to its deadline and unparked the thread,
    /// and that timer may be gone (cancelled). Planning anew to "until
    /// unparked" would have the next such registration unpark the thread
    /// again, and a thread that makes and drops timeouts would keep the
    /// timer thread turning (the timeout storm of
    /// `tests/reliability/storms.rs` then wakes its sleeper late).
    pub(crate) fn begin_park_unless_busy(&self, now: StdInstant) -> Option<Park> {
        if let Some(mut inner) = self.inner.try_lock() {
            // A batch in flight (the shard's own thread firing what it
            // found due, see `batch.rs`) keeps the shard busy too.
            if !inner.batch.in_flight() {
                // The wake-up kept caps the new plan, as a runtime's
                // event loop caps its own with `max`.
                let kept = inner
                    .parked_until
                    .filter(|&tick| tick != u64::MAX)
                    .and_then(|tick| {
                        self.clock
                            .instant_of(Tick(tick))
                            .checked_duration_since(now)
                    })
                    .filter(|left| !left.is_zero());
                return Some(self.plan_park(&mut inner, kept));
            }
        }
        match self.parked_hint.load(Ordering::Acquire) {
            NOT_PARKED => None,
            u64::MAX => Some(Park::Until(None)),
            hint => {
                let at = self.clock.instant_of(Tick(hint));
                (at > now).then_some(Park::Until(Some(at)))
            }
        }
    }

    /// [`end_park`](Shared::end_park) for the foreign shards' timer thread,
    /// only if this driver has something to fire at `now` (it is not
    /// parked, or its wake-up has come) and its lock is free; returns
    /// whether it did. Otherwise the driver stays parked as planned (a
    /// registration due earlier unparks the thread) or, if busy, waits for
    /// the thread's next turn.
    pub(crate) fn end_park_if_due(&self, now: Tick) -> bool {
        let hint = self.parked_hint.load(Ordering::Acquire);
        if hint != NOT_PARKED && hint > now.0 {
            return false;
        }
        let Some(mut inner) = self.inner.try_lock() else {
            return false;
        };
        self.end_park_locked(&mut inner);
        true
    }

    fn publish_parked(&self, inner: &Locked) {
        let hint = inner.parked_until.map_or(NOT_PARKED, |until| until.max(1));
        self.parked_hint.store(hint, Ordering::Release);
    }

    /// Plans a park (see [`begin_park`](Shared::begin_park)) and records
    /// it in `parked_until`: the tick to wake at, or not parked on `Skip`.
    fn plan_park(&self, inner: &mut Locked, max: Option<Duration>) -> Park {
        let park = self.plan_park_until(inner, max);
        inner.parked_until = match park {
            Park::Skip => None,
            Park::Until(until) => Some(until.map_or(u64::MAX, |at| self.clock.tick_ceil(at).0)),
        };
        self.publish_parked(inner);
        park
    }

    fn plan_park_until(&self, inner: &mut Locked, max: Option<Duration>) -> Park {
        if inner.shutdown || std::mem::take(&mut inner.notified) {
            return Park::Skip;
        }
        if max.is_some_and(|max| max.is_zero()) {
            return Park::Skip;
        }
        let now = self.clock.now();
        let hold = self.shrink_hold;
        inner
            .levels
            .shrink_sparse(self.clock.tick_floor(now).0, hold);
        let until = match inner.levels.next_wake() {
            Some(wake) => {
                let at = self.clock.instant_of(Tick(wake));
                match at.checked_duration_since(now) {
                    Some(d) if !d.is_zero() => match max {
                        Some(max) if max < d => Some(checked_add_or_far(now, max)),
                        _ => Some(at),
                    },
                    _ => return Park::Skip,
                }
            }
            None => {
                // Idle: a good time to give the timer store's memory back.
                inner.levels.shrink_to_fit();
                max.map(|max| checked_add_or_far(now, max))
            }
        };
        Park::Until(until)
    }

    /// Wakes the thread in [`park`](Shared::park) (or the event loop parked
    /// after [`begin_park`](Shared::begin_park)), or makes the next park
    /// return at once.
    pub(crate) fn unpark(&self) {
        self.inner.lock().notified = true;
        self.wake_parked();
    }

    fn wake_parked(&self) {
        match &self.unpark {
            Unpark::Condvar(condvar) => condvar.notify_all(),
            Unpark::Hook(Hook(hook)) => hook(),
        }
    }

    /// Shuts the driver down: wakes (and so drops) every stored waker, so
    /// their tasks poll their timers and learn of it; later use of a timer
    /// bound to it fails. Idempotent.
    pub(crate) fn shutdown(&self) {
        let mut inner = self.inner.lock();
        if inner.shutdown {
            return;
        }
        inner.shutdown = true;
        self.shut_down.store(true, Ordering::Release);
        let wakers = inner.levels.take_all();
        drop(inner);
        self.wake_parked();
        // A waker that panics does not keep the other tasks from learning
        // of the shutdown.
        let mut panics = super::batch::Panics::default();
        for waker in wakers {
            panics.catch(|| waker.wake());
        }
        panics.resume();
    }

    /// Number of pending timers.
    pub(crate) fn len(&self) -> usize {
        self.inner.lock().levels.len()
    }

    /// Heap bytes held by the Lawn.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.inner.lock().levels.allocated_bytes()
    }

    /// What this driver's timers have done (see `metrics.rs`).
    pub(crate) fn metrics(&self) -> TimerMetrics {
        let inner = self.inner.lock();
        inner
            .counters
            .snapshot(inner.levels.len(), inner.levels.allocated_bytes())
    }

    /// Counts a wake-up of the loop that parks this driver, from a park
    /// that blocked.
    pub(crate) fn count_wake_up(&self, cause: WakeCause) {
        self.inner.lock().counters.woke(cause);
    }

    /// How late `ticks` of this driver's clock are.
    #[inline]
    pub(super) fn ticks_late(&self, ticks: u64) -> Duration {
        let resolution = self.clock.resolution().as_nanos() as u64;
        Duration::from_nanos(ticks.saturating_mul(resolution))
    }
}

impl Locked {
    fn end_park(&mut self) {
        self.parked_until = None;
        self.notified = false;
    }

    /// Lowers `parked_until` to `due` if the parked driver would wake too
    /// late for the timer under `key` (later than its deadline plus its
    /// slack); returns whether it must be unparked.
    #[inline]
    fn lower_parked_until(&mut self, key: TimerKey, due: u64) -> bool {
        let mut slack = self.levels.slack_of(key);
        if crate::loom::planted("slack") {
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only): the slack counted twice, so a timer that the
            // planned wake-up would serve too late does not unpark it.
            // loom-tests/tests/broken.rs proves model 9 catches it.
            slack *= 2;
        }
        match self.parked_until {
            Some(until) if due.saturating_add(slack) < until => {
                self.parked_until = Some(due);
                true
            }
            _ => false,
        }
    }
}
