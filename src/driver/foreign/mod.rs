//! Timers on threads that run no `lawn_rt` driver: a timer shard per thread,
//! and one driver thread for them all.
//!
//! A timer first polled where no driver is entered (a tokio worker, a smol
//! thread, `futures::executor::block_on`, a plain thread) files in the
//! shard of the thread that polls it: a driver of its own (a [`Shared`]),
//! made on that thread's first timer. Its lock is taken by that thread to
//! register and, usually, to cancel (a task's drop runs where it was
//! polled), and by the driver thread when it plans a sleep and fires what
//! is due; threads that use timers share no lock and no cache line. A
//! cancel, reset or poll from another thread takes the shard's lock like
//! any driver's and is just as correct.
//!
//! One thread, `lawn-rt-timer`, started by the first registration, serves
//! every shard ([`Foreign::turn`]). It keeps each shard's planned wake-up
//! (the slack rule of `slack.rs`, as in a runtime's park loop) in a
//! [`Schedule`], earliest first, sleeps until the earliest on a condition
//! variable (with its timer slack set to 1 ns, and the punctual early
//! wake-up of `punctual.rs`), and fires the shards whose wake-up has come.
//! A turn plans only the shards that changed (a new shard, or one whose
//! registration the planned wake-up would serve too late: it unparks the
//! thread, naming itself) and those the last turn looked at, so its cost
//! follows what changed, not how many shards there are. With no timer
//! pending it sleeps until one registers: an idle process has no timer
//! wake-ups.
//!
//! The thread that owns a shard also fires it when it can: a registration
//! there that finds a timer of the shard may be due fires one batch of
//! them then and there (see `batch.rs`, "Firing on the shard's own
//! thread"), so under load most wakers are called on the executor's own
//! threads. The timer thread still plans and fires every shard, so a
//! thread that goes quiet leaves its timers no later than before.
//!
//! A thread that exits drops its shard's handle; the shard stays in the
//! set and its timers fire as before (a task that moved on keeps its
//! sleep). The set lets a shard go only once nothing else holds it: no
//! `Sleep` or handle is bound to it, so nothing can register there again.
//! Such shards are let go by the driver thread's turns (every
//! [`PRUNE_EVERY`] per thousand shards) and by the adding of a shard once
//! the set has doubled since it was last pruned, which also covers a
//! process whose timer thread never started.
//!
//! Ground rules:
//! - A shard's plan keeps the wake-up planned before (still ahead, and
//!   earlier than the new plan: the timer a registration unparked the
//!   thread for may be gone) so that threads making and dropping
//!   timeouts do not keep the thread turning (see
//!   `Shared::begin_park_unless_busy`).
//! - `shards` (a mutex) guards the set. It is held to add a shard, to look
//!   shards up by id and to prune the set, never while a shard's lock is
//!   taken. `schedule` is the driver thread's; it holds it while it plans
//!   and while it fires (a `fork` waits for it). Lock order: `schedule`,
//!   then `shards` or `parking`, never both of those. A shard
//!   that joins unparks the thread: a plan made without it cannot see its
//!   registrations.
//! - [`Parking`]'s `notified` is set under its mutex by every unpark,
//!   together with the shard that unparked, and cleared by the driver
//!   thread when it stops sleeping. The driver takes the shards that
//!   unparked, then plans them (setting each one's `parked_until` under
//!   its lock), then looks at `notified`: a registration that sees a
//!   planned park and unparks is never lost, one that came before the
//!   plan is in it. A shard the driver planned stays parked, with its
//!   wake-up in the schedule, until that wake-up comes or it unparks; a
//!   shard not parked always has a wake-up in the schedule (at once, or
//!   [`BUSY_RETRY`] later) or is planned next turn.
//! - A shard on a clock that was ever paused keeps its own time: every
//!   turn plans it and looks at it.
//! - The driver thread does not queue for a busy shard's lock, nor wait
//!   for a batch another thread is waking there: it plans and looks for
//!   due timers with `try_lock`, counting a shard with a batch in flight
//!   as busy, and fires a shard it just found free (taking the lock
//!   again to fire, it may wait out one registration or cancel, never a
//!   batch): under a storm of
//!   registrations and cancels on some threads, it would queue behind
//!   their owners and leave every other thread's timers late (the storm
//!   of `tests/reliability/storms.rs` asserts they are not). A shard
//!   stays parked from one turn to the next unless it has something to
//!   fire; one whose lock is busy counts with the wake-up it is parked
//!   until (read from its `parked_hint`; a registration that lowers it
//!   unparks the thread as ever), and one that is busy and not parked, or
//!   due, is looked at again [`BUSY_RETRY`] later.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, DefaultHasher};
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant as StdInstant};

use super::handle::Handle;
use super::metrics::{TimerMetrics, WakeUps};
use super::punctual::{spin_until, Latency};
use super::shared::{Options, Park, Role, Shared};
use super::TimerSlack;
use crate::loom::{lock, wait, wait_timeout, Arc, Condvar, Mutex};

/// The driver thread's name.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) const THREAD_NAME: &str = "lawn-rt-timer";

/// The tick of a foreign shard: deadlines round up to it.
const RESOLUTION: Duration = Duration::from_micros(1);

/// How soon the driver thread looks again at a shard whose lock was busy
/// when it had to look (see the module's ground rules). No time passes
/// under loom: there it looks again on the next turn.
const BUSY_RETRY: Duration = if cfg!(loom) {
    Duration::ZERO
} else {
    Duration::from_micros(50)
};

/// A map by shard id that iterates in the same order in every run (fixed
/// hash keys): a loom model replays each interleaving, and the prune's
/// walk over the shards reads each one's reference count, a step loom
/// schedules, so a per-map random order would change the steps between
/// replays.
type IdMap<V> = HashMap<u64, V, BuildHasherDefault<DefaultHasher>>;

/// Every foreign shard, and how their driver thread sleeps.
pub(crate) struct Foreign {
    shards: Mutex<ShardList>,
    /// The driver thread's own record of when each shard must be looked
    /// at; held while it plans and while it fires, so that a `fork` can
    /// wait for it to be between turns (see
    /// [`hold_for_fork`](Foreign::hold_for_fork)).
    schedule: Mutex<Schedule>,
    parking: Arc<Parking>,
    /// The slack rule every shard of this set files with.
    slack: TimerSlack,
}

/// How the driver thread sleeps and is woken.
pub(crate) struct Parking {
    state: Mutex<ParkState>,
    condvar: Condvar,
}

struct ParkState {
    /// An unpark came since the driver thread last stopped sleeping.
    notified: bool,
    /// The shards that unparked the thread since it last planned: a new
    /// shard, or a registration the planned wake-up would serve too late.
    changed: Vec<u64>,
    latency: Latency,
}

/// The locks [`Foreign::hold_for_fork`] holds across a `fork`.
pub(crate) struct ForkHold<'a> {
    _schedule: Option<crate::loom::MutexGuard<'a, Schedule>>,
    #[cfg_attr(not(loom), allow(dead_code))]
    shards: crate::loom::MutexGuard<'a, ShardList>,
    _parking: crate::loom::MutexGuard<'a, ParkState>,
}

#[cfg(loom)]
impl ForkHold<'_> {
    /// Whether a shard has a batch of wakers in flight: what a fork's
    /// child would inherit from a thread it does not have (loom model 25).
    pub(crate) fn batch_in_flight(&self) -> bool {
        self.shards
            .shards
            .values()
            .any(|shard| shard.batch_in_flight())
    }
}

/// What one turn planned: until when the driver thread may sleep (`None`:
/// it must not sleep; `Some(None)`: until unparked).
pub(crate) struct Plan {
    sleep: Option<Option<StdInstant>>,
}

impl Plan {
    /// Until when the driver thread may sleep: `None` if it must not,
    /// `Some(None)` until unparked.
    #[cfg_attr(not(loom), allow(dead_code))]
    pub(crate) fn sleep(&self) -> Option<Option<StdInstant>> {
        self.sleep
    }
}

/// The driver thread's planned wake-ups, one per shard that has one, so
/// that a turn costs what changed, not what the set holds (see the
/// module's ground rules).
pub(crate) struct Schedule {
    /// Each shard's planned wake-up, by id.
    planned: IdMap<StdInstant>,
    /// The same, earliest first; an entry that no longer matches
    /// `planned` is stale and skipped.
    heap: BinaryHeap<Reverse<(StdInstant, u64)>>,
    /// Shards to plan on the next turn: those this turn looked at.
    again: Vec<u64>,
    /// Shards on a clock that was paused: their time is their own, so
    /// every turn plans and looks at them, as it did every shard.
    paused: Vec<u64>,
    /// When the set was last pruned by a turn, and how long until the
    /// next: [`PRUNE_EVERY`] per thousand shards (at least once), so a
    /// prune, which looks at every shard, costs a turn O(1) on average.
    #[cfg_attr(loom, allow(dead_code))]
    pruned: (StdInstant, Duration),
    /// The driver thread's wake-ups, by cause (see `metrics.rs`).
    wake_ups: WakeUps,
}

/// How often a turn lets go of the shards nothing holds any more, per
/// thousand shards in the set (adding a shard does too, once the set has
/// doubled).
#[cfg_attr(loom, allow(dead_code))]
const PRUNE_EVERY: Duration = Duration::from_millis(100);

impl Schedule {
    /// Records `shard`'s planned wake-up (`None`: none, until unparked).
    fn set(&mut self, shard: u64, wake: Option<StdInstant>) {
        match wake {
            Some(at) => {
                if self.planned.insert(shard, at) != Some(at) {
                    self.heap.push(Reverse((at, shard)));
                }
            }
            None => {
                self.planned.remove(&shard);
            }
        }
    }

    /// The earliest planned wake-up, dropping stale entries on the way.
    fn earliest(&mut self) -> Option<StdInstant> {
        while let Some(&Reverse((at, shard))) = self.heap.peek() {
            if self.planned.get(&shard) == Some(&at) {
                return Some(at);
            }
            self.heap.pop();
        }
        None
    }

    /// Takes the shards whose planned wake-up is not after `now`.
    fn take_due(&mut self, now: StdInstant, due: &mut Vec<u64>) {
        while let Some(at) = self.earliest() {
            if at > now {
                break;
            }
            let Some(Reverse((_, shard))) = self.heap.pop() else {
                break;
            };
            self.planned.remove(&shard);
            due.push(shard);
        }
        // Stale entries pile up when wake-ups move earlier; rebuild once
        // they outnumber the live ones.
        if self.heap.len() > 2 * self.planned.len() + 64 {
            self.heap = self
                .planned
                .iter()
                .map(|(&shard, &at)| Reverse((at, shard)))
                .collect();
        }
    }
}

impl Foreign {
    pub(crate) fn new(slack: TimerSlack) -> Foreign {
        Foreign {
            shards: Mutex::new(ShardList {
                shards: IdMap::default(),
                retired: TimerMetrics::default(),
                next_id: 0,
                prune_at: PRUNE_AT_LEAST,
            }),
            schedule: Mutex::new(Schedule {
                planned: IdMap::default(),
                heap: BinaryHeap::new(),
                again: Vec::new(),
                paused: Vec::new(),
                pruned: (crate::loom::now(), PRUNE_EVERY),
                wake_ups: WakeUps::default(),
            }),
            parking: Arc::new(Parking {
                state: Mutex::new(ParkState {
                    notified: false,
                    changed: Vec::new(),
                    latency: Latency::new(),
                }),
                condvar: Condvar::new(),
            }),
            slack,
        }
    }

    /// A new shard in this set, for one thread.
    pub(crate) fn new_shard(&self) -> Handle {
        let id = {
            let mut list = lock(&self.shards);
            list.next_id += 1;
            list.next_id
        };
        let parking = self.parking.clone();
        let shared = Arc::new(Shared::new(Options {
            resolution: RESOLUTION,
            role: Role::Foreign,
            unpark: Some(Box::new(move || parking.unpark(id))),
            slack: self.slack,
        }));
        let mut list = lock(&self.shards);
        list.shards.insert(id, shared.clone());
        // Exited threads' shards go here too, not only on the driver
        // thread's turns: it may never have started (no timer of this set
        // was ever filed), and then nothing else would let them go.
        if list.shards.len() >= list.prune_at {
            list.prune();
        }
        drop(list);
        // The thread plans only the shards it is told of (nor will this
        // one's registrations unpark it until a plan parks the shard):
        // have it plan this one.
        if !crate::loom::planted("join") {
            self.parking.unpark(id);
        }
        Handle { shared }
    }

    /// Shards in the set.
    #[cfg_attr(not(loom), allow(dead_code))]
    pub(crate) fn shard_count(&self) -> usize {
        lock(&self.shards).shards.len()
    }

    /// One turn of the driver thread: plan, sleep, fire.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn turn(&self) {
        let plan = self.plan();
        if let Some(until) = plan.sleep {
            self.parking.sleep(until);
        }
        self.finish(plan);
    }

    /// What the set's timers have done: every shard's figures summed
    /// (those of threads gone included), with the driver thread's
    /// wake-ups.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn metrics(&self) -> TimerMetrics {
        let wake_ups = lock(&self.schedule).wake_ups.clone();
        let (mut sum, shards) = {
            let list = lock(&self.shards);
            let shards: Vec<Arc<Shared>> = list.shards.values().cloned().collect();
            (list.retired.clone(), shards)
        };
        for shard in &shards {
            sum += &shard.metrics();
        }
        sum.wake_ups = wake_ups;
        sum
    }

    /// The set's locks, taken before a `fork` and let go after it in both
    /// processes: the driver thread is then between turns (unless this is
    /// it, forking from a waker) and holds none of the set's locks, nor
    /// does any thread adding a shard, so the child, where only the forking
    /// thread lives on, finds them all free.
    pub(crate) fn hold_for_fork(&self, on_driver_thread: bool) -> ForkHold<'_> {
        // The deliberately broken variant (`--cfg lawn_rt_broken`,
        // test-only) does not wait for the driver thread's turn to end.
        // loom-tests/tests/broken.rs proves model 25 catches it.
        let wait = !on_driver_thread && !crate::loom::planted("fork_hold");
        ForkHold {
            _schedule: wait.then(|| lock(&self.schedule)),
            shards: lock(&self.shards),
            _parking: lock(&self.parking.state),
        }
    }

    /// The shards of `ids` still in the set (ids sorted and deduplicated
    /// first).
    fn look_up(&self, ids: &mut Vec<u64>) -> Vec<(u64, Arc<Shared>)> {
        ids.sort_unstable();
        ids.dedup();
        let list = lock(&self.shards);
        ids.iter()
            .filter_map(|id| list.shards.get(id).map(|shard| (*id, shard.clone())))
            .collect()
    }

    /// Plans a sleep: asks each shard that changed, or was looked at last
    /// turn, when it must be woken (from now on a registration due earlier
    /// than that unparks the thread); the others keep the wake-up planned
    /// before.
    pub(crate) fn plan(&self) -> Plan {
        let mut schedule = lock(&self.schedule);
        let mut ids = std::mem::take(&mut schedule.again);
        ids.extend_from_slice(&schedule.paused);
        ids.append(&mut lock(&self.parking.state).changed);
        let shards = self.look_up(&mut ids);
        let now = crate::loom::now();
        let mut skip = false;
        schedule.paused.clear();
        for &id in &ids {
            // Gone from the set: forget it.
            if shards.binary_search_by_key(&id, |(id, _)| *id).is_err() {
                schedule.planned.remove(&id);
            }
        }
        for (id, shard) in &shards {
            let wake = match shard.begin_park_unless_busy(now) {
                Some(Park::Skip) => {
                    skip = true;
                    Some(now)
                }
                Some(Park::Until(wake)) => wake,
                None => Some(now + BUSY_RETRY),
            };
            schedule.set(*id, wake);
            if shard.clock.paused_ever() {
                schedule.paused.push(*id);
            }
        }
        let sleep = if skip {
            None
        } else {
            Some(schedule.earliest())
        };
        Plan { sleep }
    }

    /// Sleeps as planned (for the loom models, which decide themselves
    /// whether to sleep).
    #[cfg_attr(not(loom), allow(dead_code))]
    pub(crate) fn parking(&self) -> &Parking {
        &self.parking
    }

    /// Ends the planned sleep of the shards whose wake-up has come, fires
    /// what is due there, and now and then lets go of shards nothing else
    /// holds.
    ///
    /// A waker that panics does not stop the thread: the panic is reported
    /// by the panic hook as usual and the other timers still fire.
    pub(crate) fn finish(&self, plan: Plan) {
        let mut schedule = lock(&self.schedule);
        let mut due = Vec::new();
        schedule.take_due(crate::loom::now(), &mut due);
        due.extend_from_slice(&schedule.paused);
        let mut fired = 0;
        for (id, shard) in self.look_up(&mut due) {
            let now = shard.clock.tick_floor(shard.clock.now());
            if shard.end_park_if_due(now) {
                let processed =
                    panic::catch_unwind(AssertUnwindSafe(|| shard.process_unless_busy(now)));
                fired += processed.unwrap_or(1);
            }
            // Planned again next turn, whether it fired or was busy.
            schedule.again.push(id);
        }
        if plan.sleep.is_some() {
            let wake_ups = &mut schedule.wake_ups;
            match fired {
                0 => wake_ups.nothing = wake_ups.nothing.wrapping_add(1),
                _ => wake_ups.timer = wake_ups.timer.wrapping_add(1),
            }
        }
        // Under loom no time passes: prune on every turn there.
        let now = crate::loom::now();
        let (last, every) = schedule.pruned;
        if cfg!(loom) || now.duration_since(last) >= every {
            let mut list = lock(&self.shards);
            list.prune();
            let thousands = u32::try_from(list.shards.len() / 1000).unwrap_or(u32::MAX);
            schedule.pruned = (now, PRUNE_EVERY.saturating_mul(thousands.max(1)));
        }
    }
}

/// Every shard of a set, by id.
pub(crate) struct ShardList {
    shards: IdMap<Arc<Shared>>,
    /// The figures of the shards let go of (their threads are gone).
    retired: TimerMetrics,
    /// The last id given.
    next_id: u64,
    /// The length at which adding a shard prunes the list: twice what
    /// the last prune left, so a thread's start pays O(1) for it on
    /// average.
    prune_at: usize,
}

/// The least [`ShardList::prune_at`].
const PRUNE_AT_LEAST: usize = 64;

impl ShardList {
    /// Lets go of the shards only the list holds: nothing is bound to
    /// them, so no timer is pending there and none can register.
    fn prune(&mut self) {
        let before = self.shards.len();
        self.shards.retain(|_, shard| {
            let unused = if crate::loom::planted("prune") {
                // The deliberately broken variant (`--cfg lawn_rt_broken`,
                // test-only): a shard is let go once it has nothing
                // pending now, though a sleep bound to it may file there
                // again. loom-tests/tests/broken.rs proves model 11
                // catches it.
                shard.len() == 0
            } else {
                Arc::strong_count(shard) == 1
            };
            if unused && !cfg!(loom) {
                let mut gone = shard.metrics();
                gone.pending = 0;
                gone.memory_bytes = 0;
                gone.shards = 0;
                self.retired += &gone;
            }
            !unused
        });
        if self.shards.len() < before / 2 {
            self.shards.shrink_to_fit();
        }
        self.prune_at = (2 * self.shards.len()).max(PRUNE_AT_LEAST);
    }
}

impl Parking {
    /// Wakes the driver thread, or makes its next sleep return at once,
    /// to plan `shard` again.
    pub(crate) fn unpark(&self, shard: u64) {
        let mut state = lock(&self.state);
        state.changed.push(shard);
        if !crate::loom::planted("unpark") {
            state.notified = true;
        }
        // The deliberately broken variant (`--cfg lawn_rt_broken`, test-only)
        // only signals, so an unpark that comes between the plan and the
        // sleep is lost: loom-tests/tests/broken.rs proves model 10 catches
        // it.
        drop(state);
        self.condvar.notify_one();
    }

    /// Sleeps until `until` (`None`: until unparked), or less if unparked
    /// since the last sleep. A timed sleep asks to be woken the learnt
    /// latency early and spins the rest, so it ends within µs of `until`.
    pub(crate) fn sleep(&self, until: Option<StdInstant>) {
        let mut state = lock(&self.state);
        let Some(until) = until else {
            while !state.notified {
                state = wait(&self.condvar, state);
            }
            state.notified = false;
            return;
        };
        if cfg!(loom) {
            // No time passes under loom: a timed wait times out at once.
            state = wait_timeout(&self.condvar, state, Duration::ZERO);
            state.notified = false;
            return;
        }
        let early = state.latency.early();
        let expiry = until.checked_sub(early).unwrap_or(until);
        loop {
            if state.notified {
                state.notified = false;
                return;
            }
            let now = crate::loom::now();
            let Some(left) = expiry.checked_duration_since(now).filter(|d| !d.is_zero()) else {
                break;
            };
            state = wait_timeout(&self.condvar, state, left);
        }
        let woke = crate::loom::now();
        if woke > expiry && until > expiry {
            state.latency.learn(expiry, woke);
        }
        drop(state);
        spin_until(until);
    }
}

#[cfg(not(loom))]
mod global {
    use std::cell::{OnceCell, RefCell};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::OnceLock;

    use super::*;
    use crate::loom::thread;

    static FOREIGN: OnceLock<Foreign> = OnceLock::new();
    /// Whether the timer thread runs in this process (cleared in a fork's
    /// child).
    static RUNNING: AtomicBool = AtomicBool::new(false);
    /// Held to start the timer thread.
    static STARTING: Mutex<()> = Mutex::new(());
    /// For timers made where the thread's own shard is gone (in a
    /// thread-local destructor).
    static COMMON: OnceLock<Handle> = OnceLock::new();

    /// A thread's shard, and spare handles to it.
    struct ThreadShard {
        handle: OnceCell<Handle>,
        /// Handles to this thread's shard that timers gave back when
        /// dropped here: the next timers made here take them instead of
        /// cloning (an atomic increment, and the drop's decrement, saved).
        spare: RefCell<Vec<Handle>>,
    }

    use super::super::handle::SPARE_MAX;

    std::thread_local! {
        static SHARD: ThreadShard = const {
            ThreadShard {
                handle: OnceCell::new(),
                spare: RefCell::new(Vec::new()),
            }
        };
    }

    fn foreign() -> &'static Foreign {
        FOREIGN.get_or_init(|| Foreign::new(TimerSlack::DEFAULT))
    }

    /// Sets the slack of every timer used outside a lawn_rt runtime (on a
    /// tokio worker, a smol thread, under `futures::executor`), in place
    /// of [`TimerSlack::DEFAULT`].
    ///
    /// Those timers share one process-wide set of drivers, made at the
    /// first of them, so this works only before the first: afterwards it
    /// changes nothing and returns `Err` with the slack in force. A
    /// runtime's own timers take [`Builder::timer_slack`] instead.
    ///
    /// `TimerSlack::NONE` wakes for every deadline (the lateness of a
    /// timer that needs no slack, at the CPU of a wake-up each); the
    /// guide's "The lateness rule" has the trade-off.
    ///
    /// [`Builder::timer_slack`]: crate::runtime::Builder::timer_slack
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::TimerSlack;
    /// use std::time::Duration;
    ///
    /// // First thing in `main`, before any timer outside a runtime.
    /// let tight = TimerSlack::new(32, Duration::from_micros(100));
    /// assert_eq!(lawn_rt::time::set_foreign_timer_slack(tight), Ok(()));
    ///
    /// futures::executor::block_on(lawn_rt::time::sleep(Duration::from_millis(1)));
    ///
    /// // Too late now: the slack in force is returned.
    /// assert_eq!(lawn_rt::time::set_foreign_timer_slack(TimerSlack::NONE), Err(tight));
    /// ```
    pub fn set_foreign_timer_slack(slack: TimerSlack) -> Result<(), TimerSlack> {
        let mut set = false;
        let foreign = FOREIGN.get_or_init(|| {
            set = true;
            Foreign::new(slack)
        });
        if set {
            Ok(())
        } else {
            Err(foreign.slack)
        }
    }

    /// What the timers used outside a lawn_rt runtime (on a tokio worker,
    /// a smol thread, under `futures::executor`) have done, summed over
    /// every thread's shard, those of threads that have exited included;
    /// `wake_ups` are the `lawn-rt-timer` thread's. All zero before the
    /// first such timer. A runtime's own timers are in its
    /// [`RuntimeMetrics::timer_metrics`].
    ///
    /// [`RuntimeMetrics::timer_metrics`]: crate::runtime::RuntimeMetrics::timer_metrics
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let before = lawn_rt::time::foreign_timer_metrics();
    /// futures::executor::block_on(lawn_rt::time::sleep(Duration::from_millis(1)));
    /// let after = lawn_rt::time::foreign_timer_metrics();
    /// assert_eq!(after.fired - before.fired, 1);
    /// assert!(after.lateness.count() > before.lateness.count());
    /// ```
    pub fn foreign_timer_metrics() -> TimerMetrics {
        match FOREIGN.get() {
            Some(foreign) => foreign.metrics(),
            None => TimerMetrics::default(),
        }
    }

    /// What the timers of this thread's own shard have done: the timers
    /// polled first on this thread outside a lawn_rt runtime (its part of
    /// [`foreign_timer_metrics`]); `None` if it has used none. `wake_ups`
    /// are not counted per shard (the timer thread serves them all).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// std::thread::spawn(|| {
    ///     assert_eq!(lawn_rt::time::thread_timer_metrics(), None);
    ///     futures::executor::block_on(lawn_rt::time::sleep(Duration::from_millis(1)));
    ///     let mine = lawn_rt::time::thread_timer_metrics().unwrap();
    ///     assert_eq!((mine.registered, mine.fired), (1, 1));
    /// })
    /// .join()
    /// .unwrap();
    /// ```
    pub fn thread_timer_metrics() -> Option<TimerMetrics> {
        SHARD
            .try_with(|shard| shard.handle.get().map(|here| here.shared.metrics()))
            .ok()
            .flatten()
    }

    /// This thread's shard, made on first use.
    pub(crate) fn handle() -> Handle {
        this_thread().unwrap_or_else(|| COMMON.get_or_init(|| foreign().new_shard()).clone())
    }

    /// This thread's shard, made on first use; `None` in a thread-local
    /// destructor.
    fn this_thread() -> Option<Handle> {
        SHARD
            .try_with(|shard| {
                let here = shard.handle.get_or_init(|| foreign().new_shard());
                let spare = shard.spare.borrow_mut().pop();
                spare.unwrap_or_else(|| here.clone())
            })
            .ok()
    }

    /// How many spare handles this thread keeps.
    #[cfg(test)]
    pub(crate) fn spare_count() -> usize {
        SHARD.with(|shard| shard.spare.borrow().len())
    }

    /// Keeps `handle` as a spare if it is this thread's shard's, else
    /// drops it. (No handle is dropped while `spare` is borrowed: a last
    /// reference's drop drops a driver, whose wakers may drop timers.)
    #[inline]
    pub(crate) fn give_back(handle: Handle) {
        let _ = SHARD.try_with(move |shard| {
            if shard
                .handle
                .get()
                .is_some_and(|here| Arc::ptr_eq(&here.shared, &handle.shared))
            {
                let mut spare = shard.spare.borrow_mut();
                if spare.len() < SPARE_MAX {
                    spare.push(handle);
                    return;
                }
            }
            drop(handle);
        });
    }

    /// This thread's shard (made on first use) unless it is `shared`; the
    /// common case, a timer first polled on the thread that made it, costs
    /// no reference count.
    #[inline]
    pub(crate) fn this_thread_unless(shared: &Arc<Shared>) -> Option<Handle> {
        SHARD
            .try_with(|shard| {
                let here = shard.handle.get_or_init(|| foreign().new_shard());
                (!Arc::ptr_eq(&here.shared, shared)).then(|| here.clone())
            })
            .ok()
            .flatten()
    }

    /// Starts the timer thread unless it runs in this process. The first
    /// start, and the first after a `fork` (only the forking thread lives
    /// on in the child), spawn it; a failed spawn panics with the reason
    /// here, at the registration that needed it, and the next
    /// registration tries again.
    #[inline]
    pub(crate) fn ensure_started() {
        if !RUNNING.load(Ordering::Acquire) {
            start();
        }
    }

    #[cold]
    #[inline(never)]
    fn start() {
        let _starting = lock(&STARTING);
        if RUNNING.load(Ordering::Acquire) {
            return;
        }
        fork::watch();
        if let Err(err) = thread::Builder::new().name(THREAD_NAME.into()).spawn(|| {
            precise_timeouts();
            fork::on_driver_thread();
            let foreign = foreign();
            loop {
                foreign.turn();
            }
        }) {
            panic!("lawn_rt: cannot start the timer thread `{THREAD_NAME}`: {err}");
        }
        RUNNING.store(true, Ordering::Release);
    }

    /// The timer thread across a `fork`: the child has only the forking
    /// thread, so it starts its own timer thread at its next
    /// registration, or poll of a pending timer. The fork waits for the
    /// timer thread to be between turns and holds the set's locks across
    /// the fork, so that none is left taken in the child by a thread that
    /// is not there (see `Foreign::hold_for_fork`).
    mod fork {
        use std::cell::{Cell, RefCell};
        use std::sync::Once;

        use super::{foreign, ForkHold, Ordering, RUNNING};
        use crate::sys;

        std::thread_local! {
            static HELD: RefCell<Option<ForkHold<'static>>> = const { RefCell::new(None) };
            static DRIVER_THREAD: Cell<bool> = const { Cell::new(false) };
        }

        /// Marks this thread as the timer thread.
        pub(super) fn on_driver_thread() {
            DRIVER_THREAD.with(|here| here.set(true));
        }

        static WATCH: Once = Once::new();

        /// Registers the handlers below with `pthread_atfork` (through
        /// `sys::fork`), once. They never unwind: they take locks that
        /// ignore poison and a thread-local `RefCell` only they borrow. A
        /// failure (ENOMEM) leaves a fork's child without its timer
        /// thread, as before: nothing else depends on it. Where there is
        /// no `pthread_atfork`, a fork's child keeps the flag that says
        /// the thread runs.
        pub(super) fn watch() {
            WATCH.call_once(|| {
                let _ = sys::fork::at_fork(prepare, parent, child);
            });
        }

        extern "C" fn prepare() {
            let here = DRIVER_THREAD.try_with(Cell::get).unwrap_or(false);
            let hold = foreign().hold_for_fork(here);
            let _ = HELD.try_with(|held| *held.borrow_mut() = Some(hold));
        }

        extern "C" fn parent() {
            let _ = HELD.try_with(|held| held.borrow_mut().take());
        }

        extern "C" fn child() {
            RUNNING.store(false, Ordering::Release);
            let _ = HELD.try_with(|held| held.borrow_mut().take());
        }
    }

    /// Timed waits on this thread end when asked, not up to 50 µs later
    /// (Linux's default timer slack for a thread).
    fn precise_timeouts() {
        // 1 ns. Best effort: without it (or elsewhere), timeouts are just
        // less precise.
        let _ = crate::sys::thread::set_timer_slack(std::num::NonZeroU64::MIN);
    }
}

#[cfg(loom)]
mod global {
    use super::*;

    pub(crate) fn handle() -> Handle {
        panic!("lawn_rt: no timer driver entered; under loom, enter a driver's handle first")
    }

    pub(crate) fn this_thread_unless(_shared: &Arc<Shared>) -> Option<Handle> {
        None
    }

    pub(crate) fn ensure_started() {}

    pub(crate) fn give_back(handle: Handle) {
        drop(handle);
    }
}

pub(crate) use global::{ensure_started, give_back, handle, this_thread_unless};
#[cfg(not(loom))]
pub use global::{foreign_timer_metrics, set_foreign_timer_slack, thread_timer_metrics};

#[cfg(all(test, not(loom)))]
mod tests;
