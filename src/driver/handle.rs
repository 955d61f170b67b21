//! [`Handle`]: the façade every timer talks to its driver through. Which
//! handle a timer gets (the entered driver or the thread's foreign shard)
//! is `context.rs`'s, which also holds [`Handle::current`] and
//! [`Handle::enter`].

use std::fmt;
use std::task::Waker;
use std::time::{Duration, Instant as StdInstant};

use super::clock::Tick;
use super::shared::{Park, Registered, Reset, Role, Shared};
use super::Error;
use crate::lawn::TimerKey;
use crate::loom::Arc;

/// The most spare handles a thread keeps (for its entered driver, and
/// for its foreign shard).
pub(super) const SPARE_MAX: usize = 64;

/// A cheap, clonable reference to a timer driver.
///
/// Timers ([`Sleep`](crate::time::Sleep), [`Interval`](crate::time::Interval),
/// [`Timeout`](crate::time::Timeout)) bind to the handle that is current on
/// the thread that creates them: the one [`enter`](Handle::enter)ed there (a
/// runtime enters its own), or else this thread's foreign shard (see
/// [`current`](Handle::current)).
///
/// # Examples
///
/// ```
/// use lawn_rt::driver::Driver;
/// use std::time::Duration;
///
/// let driver = Driver::new();
/// let _entered = driver.handle().enter();
/// // Timers made here use `driver`, which this thread turns by hand:
/// let sleep = lawn_rt::time::sleep(Duration::from_millis(1));
/// # drop(sleep);
/// ```
#[derive(Clone)]
pub struct Handle {
    pub(super) shared: Arc<Shared>,
}

impl Handle {
    /// Whether `self` and `other` refer to the same driver.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert!(driver.handle().same_driver(&driver.handle().clone()));
    /// ```
    pub fn same_driver(&self, other: &Handle) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The driver's current time (its paused time, if paused).
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert!(driver.handle().now() <= std::time::Instant::now());
    /// ```
    pub fn now(&self) -> StdInstant {
        self.shared.now()
    }

    /// The driver's tick length: every deadline is rounded up to a whole
    /// tick.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert_eq!(driver.handle().resolution(), Duration::from_millis(1));
    /// ```
    pub fn resolution(&self) -> std::time::Duration {
        self.shared.clock.resolution()
    }

    /// Whether the driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// let handle = driver.handle().clone();
    /// drop(driver);
    /// assert!(handle.is_shutdown());
    /// ```
    #[inline]
    pub fn is_shutdown(&self) -> bool {
        self.shared.is_shutdown()
    }

    /// Number of timers registered and not yet fired or dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert_eq!(driver.handle().pending_timers(), 0);
    /// ```
    pub fn pending_timers(&self) -> usize {
        self.shared.len()
    }

    /// Heap bytes the driver's timer store holds (capacity, not just use):
    /// see [`Driver::allocated_bytes`](super::Driver::allocated_bytes). For
    /// a runtime's driver, `Handle::current()` inside it.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert_eq!(driver.handle().allocated_bytes(), 0);
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.shared.allocated_bytes()
    }

    /// The tick the clock has reached at `t`.
    #[inline]
    pub(crate) fn tick_of(&self, t: StdInstant) -> Tick {
        self.shared.clock.tick_floor(t)
    }

    /// The first tick at or after `t`: when a timer due at `t` fires.
    #[inline]
    pub(crate) fn tick_ceil(&self, t: StdInstant) -> Tick {
        self.shared.clock.tick_ceil(t)
    }

    /// The deadline of `sleep(d)` made now, a tick the clock has reached
    /// and the tick the deadline rounds up to (see
    /// `Clock::sleep_deadline`).
    #[inline(always)]
    pub(crate) fn sleep_deadline(&self, d: Duration) -> (StdInstant, Tick, Tick) {
        self.shared.clock.sleep_deadline(d)
    }
}

/// What the layers above ask of their driver: `time`'s timers (filing,
/// polling, cancelling), the paused clock (`time::pause` and friends), and
/// the schedulers' park protocol (see `docs/architecture.md`, "The
/// driver"). Each forwards to the driver's shared state, which stays
/// private to the driver module.
impl Handle {
    /// What this driver is for.
    #[inline]
    pub(crate) fn role(&self) -> Role {
        self.shared.role()
    }

    /// Files a timer due at tick `due` (its deadline rounded up, see
    /// [`tick_ceil`](Handle::tick_ceil)) to wake `waker`, from tick `now`.
    #[inline]
    pub(crate) fn register(&self, due: Tick, now: Tick, waker: Waker) -> Result<Registered, Error> {
        self.shared.register(due, now, waker)
    }

    /// [`register`](Handle::register) from a range the clock's tick now
    /// lies in (see `Shared::register_within`); may say `Unsure`.
    #[inline]
    pub(crate) fn register_within(
        &self,
        due: Tick,
        now: Tick,
        hi: Tick,
        waker: Waker,
    ) -> Result<Registered, Error> {
        self.shared.register_within(due, now, hi, waker)
    }

    /// Two ticks the clock's tick now lies between, read from the kernel's
    /// coarse clock (see `Clock::tick_bounds`); `None` where there is none
    /// or the clock has been paused.
    #[inline]
    pub(crate) fn tick_bounds(&self) -> Option<(Tick, Tick)> {
        self.shared.clock.tick_bounds()
    }

    /// Moves a pending timer to `deadline`, keeping its waker.
    #[inline]
    pub(crate) fn reset(
        &self,
        key: TimerKey,
        deadline: StdInstant,
        now: Tick,
    ) -> Result<Option<(TimerKey, Tick)>, Error> {
        self.shared.reset(key, deadline, now)
    }

    /// [`reset`](Handle::reset) to tick `due` from a range the clock's tick
    /// now lies in (see `Shared::reset_within`); may say `Unsure`.
    #[inline]
    pub(crate) fn reset_within(
        &self,
        key: TimerKey,
        due: Tick,
        now: Tick,
        hi: Tick,
    ) -> Result<Reset, Error> {
        self.shared.reset_within(key, due, now, hi)
    }

    /// Cancels a pending timer; no waker of it is called once this returns.
    /// Returns the waker it held if it was still filed, for the caller to
    /// drop or reuse (outside the driver's lock).
    #[inline]
    pub(crate) fn deregister(&self, key: TimerKey) -> Option<Waker> {
        self.shared.deregister(key)
    }

    /// Lets go of a timer already handed out for waking.
    #[inline]
    pub(crate) fn forget(&self, key: TimerKey) {
        self.shared.forget(key)
    }

    /// Takes a pending timer out as due now; whether it was still pending.
    #[inline]
    pub(crate) fn fire_now(&self, key: TimerKey) -> bool {
        self.shared.fire_now(key)
    }

    /// Stores `waker` on a pending timer; `false` once it is handed out.
    #[inline]
    pub(crate) fn poll_pending(&self, key: TimerKey, waker: &Waker) -> Result<bool, Error> {
        self.shared.poll_pending(key, waker)
    }

    /// Whether the timer has been handed out for waking.
    #[inline]
    pub(crate) fn is_fired(&self, key: TimerKey) -> bool {
        self.shared.is_fired(key)
    }

    /// Whether the clock is paused now.
    pub(crate) fn is_paused(&self) -> bool {
        self.shared.is_paused()
    }

    /// Whether the clock has ever been paused.
    pub(crate) fn paused_ever(&self) -> bool {
        self.shared.paused_ever()
    }

    /// Pauses the clock; `false` if it already was.
    #[cfg_attr(not(feature = "test-util"), allow(dead_code))] // `time::pause`
    pub(crate) fn pause(&self) -> bool {
        self.shared.pause()
    }

    /// Resumes the clock; `false` if it was not paused.
    #[cfg_attr(not(feature = "test-util"), allow(dead_code))] // `time::resume`
    pub(crate) fn resume(&self) -> bool {
        self.shared.resume()
    }

    /// Moves the paused clock forward by `by`, firing nothing; `false` if
    /// it is not paused.
    pub(crate) fn advance(&self, by: Duration) -> bool {
        self.shared.advance(by)
    }

    /// Fires every timer due by the clock now; returns how many.
    #[cfg_attr(not(feature = "test-util"), allow(dead_code))] // `time::advance`
    pub(crate) fn process_now(&self) -> usize {
        self.shared.process_now()
    }

    /// The earliest pending deadline, if any.
    pub(crate) fn next_deadline(&self) -> Option<Tick> {
        self.shared.next_deadline()
    }

    /// The instant tick `tick` starts.
    pub(crate) fn instant_of(&self, tick: Tick) -> StdInstant {
        self.shared.instant_of(tick)
    }

    /// A parking thread's plan, waiting at most `max`.
    pub(crate) fn begin_park(&self, max: Option<Duration>) -> Park {
        self.shared.begin_park(max)
    }

    /// A parking thread's plan with the clock paused.
    pub(crate) fn begin_park_paused(&self, seen: Option<Option<u64>>) -> Park {
        self.shared.begin_park_paused(seen)
    }

    /// Ends a park begun with a plan other than `Park::Skip`.
    pub(crate) fn end_park(&self) {
        self.shared.end_park()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("resolution", &self.resolution())
            .field("role", &self.shared.role())
            .finish_non_exhaustive()
    }
}
