//! The timer driver: a Lawn of wakers per slack level behind one lock, a
//! clock, and the [`Handle`] that timers use to reach it.
//!
//! Most programs never touch this module: a `lawn_rt` runtime owns a driver
//! and turns it in its park loop, and outside a runtime (under tokio, smol,
//! `futures::executor`) the [`time`](crate::time) futures use a driver of
//! the calling thread's own, a *foreign shard*, and one timer thread fires
//! every thread's shard (see [`Handle::current`]). It is public for two
//! other uses:
//!
//! - **your own event loop**: create a [`Driver`], [`enter`](Handle::enter)
//!   its handle where timers are created, and call [`Driver::process`] when
//!   [`Driver::next_deadline`] comes (or [`Driver::park`] until it does);
//! - **deterministic tests**: [`pause`](Driver::pause) the clock and
//!   [`advance`](Driver::advance) it by hand.
//!
//! ```
//! use lawn_rt::driver::Driver;
//! use lawn_rt::time::{self, Duration};
//! use std::future::Future;
//! use std::pin::pin;
//! use std::task::{Context, Poll};
//!
//! let driver = Driver::new();
//! driver.pause();
//! let _entered = driver.handle().enter();
//!
//! let mut sleep = pin!(time::sleep(Duration::from_secs(5)));
//! let mut cx = Context::from_waker(std::task::Waker::noop());
//! assert!(sleep.as_mut().poll(&mut cx).is_pending()); // registers
//! assert_eq!(driver.advance(Duration::from_secs(5)), 1); // fires it
//! assert!(sleep.as_mut().poll(&mut cx).is_ready());
//! ```
//!
//! # Ground rules
//!
//! One mutex per driver guards its Lawn; wakers are called and dropped only
//! outside it (see `shared.rs`). The clock takes no lock unless it has been
//! paused. Every primitive comes from `crate::loom`, so the loom models run
//! this very code.

mod batch;
mod clock;
mod context;
mod error;
mod foreign;
mod handle;
mod lock;
mod metrics;
#[cfg(loom)]
#[doc(hidden)]
pub mod model;
pub(crate) mod punctual;
mod shared;
mod slack;

use std::fmt;
use std::io;
use std::time::{Duration, Instant as StdInstant};

pub(crate) use batch::Panics;
pub(crate) use clock::{checked_add_or_far, Tick, FAR_FUTURE};
pub use context::EnterGuard;
pub(crate) use context::{enter_time_disabled, entered_now, rebind_target, Restore};
pub use error::Error;
#[cfg(not(loom))]
pub use foreign::{foreign_timer_metrics, set_foreign_timer_slack, thread_timer_metrics};
pub use handle::Handle;
pub(crate) use metrics::WakeCause;
pub use metrics::{Lateness, TimerMetrics, WakeUps};
pub(crate) use shared::{Registered, Reset};
pub use slack::TimerSlack;

use crate::loom::Arc;
use clock::MAX_RESOLUTION;
pub(crate) use shared::Park;
use shared::{Options, Shared};
pub(crate) use shared::{Role, ShardGroup};

/// A timer driver: owns the timers of the handles cloned from it and fires
/// them when told to. Dropping it shuts it down.
///
/// # Examples
///
/// ```
/// use lawn_rt::driver::Driver;
/// use std::time::Duration;
///
/// let driver = Driver::with_resolution(Duration::from_micros(100))?;
/// assert_eq!(driver.handle().resolution(), Duration::from_micros(100));
/// assert_eq!(driver.next_deadline(), None); // no timers yet
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Driver {
    handle: Handle,
}

impl Driver {
    /// A driver on the real clock with 1 ms ticks.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert_eq!(driver.process(), 0);
    /// ```
    pub fn new() -> Driver {
        Driver::build(Duration::from_millis(1))
    }

    /// A driver whose ticks last `resolution`: deadlines are rounded up to
    /// a whole tick.
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::InvalidInput`] if `resolution` is zero or longer
    /// than one second.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::driver::Driver;
    /// use std::time::Duration;
    ///
    /// assert!(Driver::with_resolution(Duration::ZERO).is_err());
    /// assert!(Driver::with_resolution(Duration::from_micros(50)).is_ok());
    /// ```
    pub fn with_resolution(resolution: Duration) -> io::Result<Driver> {
        check_resolution(resolution)?;
        Ok(Driver::build(resolution))
    }

    fn build(resolution: Duration) -> Driver {
        Driver::with_options(Options {
            resolution,
            role: Role::Bare,
            unpark: None,
            slack: TimerSlack::NONE,
        })
    }

    /// A driver for a runtime, in `role` ([`Role::CurrentThread`] or
    /// [`Role::WorkerShard`]): `unpark` wakes the runtime's parked event
    /// loop; `slack` is how late timers may fire to share wake-ups.
    /// `resolution` must have passed [`check_resolution`].
    pub(crate) fn for_runtime(
        role: Role,
        resolution: Duration,
        slack: TimerSlack,
        unpark: Box<dyn Fn() + Send + Sync>,
    ) -> Driver {
        debug_assert!(role.is_runtime(), "not a runtime's role: {role:?}");
        Driver::with_options(Options {
            resolution,
            role,
            unpark: Some(unpark),
            slack,
        })
    }

    fn with_options(options: Options) -> Driver {
        Driver {
            handle: Handle {
                shared: Arc::new(Shared::new(options)),
            },
        }
    }

    /// The handle timers use to reach this driver.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// let handle = driver.handle().clone(); // cheap: a reference count
    /// # drop(handle);
    /// ```
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Fires every timer due by the driver's clock now; returns how many.
    /// Wakers are called on this thread, with no lock held.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert_eq!(driver.process(), 0);
    /// ```
    pub fn process(&self) -> usize {
        let shared = &self.handle.shared;
        shared.process_at(shared.clock.tick_floor(shared.clock.now()))
    }

    /// Fires every timer due at or before `now`, or before the driver's
    /// clock if that is earlier (timers never fire ahead of their clock:
    /// to move a paused clock, use [`advance`](Driver::advance)); returns
    /// how many wakers were called. Time never goes back: a `now` before an
    /// earlier call's fires nothing new. This is the one entry point that
    /// fires timers: [`process`](Driver::process) and
    /// [`advance`](Driver::advance) come through here.
    ///
    /// Called from inside a waker this driver is calling, it returns 0: the
    /// expiry loop that called the waker goes on firing.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::driver::Driver;
    /// use std::time::{Duration, Instant};
    ///
    /// let driver = Driver::new();
    /// assert_eq!(driver.process_at(Instant::now() - Duration::from_millis(1)), 0);
    /// ```
    pub fn process_at(&self, now: StdInstant) -> usize {
        let shared = &self.handle.shared;
        let now = now.min(shared.clock.now());
        shared.process_at(shared.clock.tick_floor(now))
    }

    /// When the earliest pending timer may be due, or `None` if there is
    /// none. Never later than that timer's deadline (rounded up to a tick);
    /// it can be a little earlier for long timers of uncommon durations, the
    /// deadline of a timer just started and cancelled, or, up to half its
    /// TTL earlier, the old place of a timer a reset pushed back (see the
    /// `lawn` module's "Resets"), so a [`process`](Driver::process) then
    /// may fire nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert!(driver.next_deadline().is_none());
    /// ```
    pub fn next_deadline(&self) -> Option<StdInstant> {
        let shared = &self.handle.shared;
        shared
            .next_deadline()
            .map(|tick| shared.clock.instant_of(tick))
    }

    /// Blocks this thread until the earliest timer may be due, a timer due
    /// earlier registers, or `max` passes (`None`: no limit). Returns at
    /// once if a timer is due or the driver has shut down. Call
    /// [`process`](Driver::process) after it.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let driver = lawn_rt::driver::Driver::new();
    /// driver.park(Some(Duration::from_millis(1))); // no timers: waits 1 ms
    /// assert_eq!(driver.process(), 0);
    /// ```
    pub fn park(&self, max: Option<Duration>) {
        self.handle.shared.park(max);
    }

    /// Wakes a thread blocked in [`park`](Driver::park), or makes the next
    /// `park` return at once if none is.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// driver.unpark(); // nobody parked: nothing happens
    /// ```
    pub fn unpark(&self) {
        self.handle.shared.unpark();
    }

    /// Freezes the driver's clock: [`Instant::now`](crate::time::Instant::now)
    /// on threads that entered this driver stands still until
    /// [`advance`](Driver::advance) or [`resume`](Driver::resume). The clock
    /// stops on a tick boundary (up to one tick ahead of the real time), so
    /// a timer made `d` ahead fires after `advance(d)` when `d` is a whole
    /// number of ticks. Does nothing if
    /// already paused.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// driver.pause();
    /// assert_eq!(driver.handle().now(), driver.handle().now());
    /// ```
    pub fn pause(&self) {
        self.handle.shared.clock.pause();
    }

    /// Lets a paused clock run again from where it stands. Does nothing if
    /// it is not paused.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// driver.pause();
    /// driver.resume();
    /// ```
    pub fn resume(&self) {
        self.handle.shared.clock.resume();
    }

    /// Whether the clock is paused.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert!(!driver.is_paused());
    /// driver.pause();
    /// assert!(driver.is_paused());
    /// ```
    pub fn is_paused(&self) -> bool {
        self.handle.shared.clock.is_paused()
    }

    /// Moves the paused clock forward by `by` and fires what is due by then;
    /// returns how many timers fired.
    ///
    /// # Panics
    ///
    /// If the clock is not paused: time only moves by hand when paused.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let driver = lawn_rt::driver::Driver::new();
    /// driver.pause();
    /// let before = driver.handle().now();
    /// driver.advance(Duration::from_secs(60));
    /// assert_eq!(driver.handle().now() - before, Duration::from_secs(60));
    /// ```
    #[track_caller]
    pub fn advance(&self, by: Duration) -> usize {
        assert!(
            self.handle.shared.clock.advance(by),
            "lawn_rt: `Driver::advance` needs a paused clock; call `Driver::pause` first"
        );
        self.process()
    }

    /// Shuts the driver down: drops every stored waker; a timer bound to it
    /// that is polled afterwards panics with a message saying so. Dropping
    /// the driver does the same. Idempotent.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// driver.shutdown();
    /// assert!(driver.handle().is_shutdown());
    /// ```
    pub fn shutdown(&self) {
        self.handle.shared.shutdown();
    }

    /// Heap bytes the driver's timer store holds (capacity, not just use).
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// assert_eq!(driver.allocated_bytes(), 0);
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.handle.shared.allocated_bytes()
    }

    /// What this driver's timers have done: counts since it was made, and
    /// its state now.
    ///
    /// # Examples
    ///
    /// ```
    /// let driver = lawn_rt::driver::Driver::new();
    /// let metrics = driver.metrics();
    /// assert_eq!((metrics.pending, metrics.fired), (0, 0));
    /// ```
    pub fn metrics(&self) -> TimerMetrics {
        self.handle.shared.metrics()
    }

    /// Counts a wake-up of the loop that parks this driver.
    pub(crate) fn count_wake_up(&self, cause: WakeCause) {
        self.handle.shared.count_wake_up(cause);
    }
}

/// Checks a timer resolution: an `InvalidInput` error naming the value
/// unless it is within 1 ns..=1 s.
pub(crate) fn check_resolution(resolution: Duration) -> io::Result<()> {
    if resolution.is_zero() || resolution > MAX_RESOLUTION {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("lawn_rt: timer resolution must be between 1 ns and 1 s, got {resolution:?}"),
        ));
    }
    Ok(())
}

impl Default for Driver {
    fn default() -> Self {
        Driver::new()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver")
            .field("resolution", &self.handle.resolution())
            .field("pending_timers", &self.handle.pending_timers())
            .finish()
    }
}
