//! [`Interval`], [`interval`], [`interval_at`] and [`MissedTickBehavior`].

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::driver::FAR_FUTURE;
use crate::time::{sleep_until, Instant, Sleep};

/// How late a tick may be before it counts as missed (tokio's rule).
const MISSED_AFTER: Duration = Duration::from_millis(5);

/// Ticks every `period`, the first tick completing at once; like
/// `tokio::time::interval`.
///
/// # Panics
///
/// If `period` is zero, with a message that contains tokio's
/// (`` `period` must be non-zero. ``), at the caller's line.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{interval, Duration, Instant};
///
/// futures::executor::block_on(async {
///     let start = Instant::now();
///     let mut every = interval(Duration::from_millis(10));
///     every.tick().await; // at once
///     every.tick().await; // 10 ms after start
///     every.tick().await; // 20 ms after start
///     assert!(start.elapsed() >= Duration::from_millis(20));
/// });
/// ```
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    check_period(period);
    Interval::new(Instant::now(), period)
}

/// Ticks at `start`, then every `period`; like `tokio::time::interval_at`.
///
/// # Panics
///
/// If `period` is zero, with a message that contains tokio's
/// (`` `period` must be non-zero. ``), at the caller's line.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{interval_at, Duration, Instant};
///
/// futures::executor::block_on(async {
///     let start = Instant::now() + Duration::from_millis(5);
///     let mut every = interval_at(start, Duration::from_millis(10));
///     assert_eq!(every.tick().await, start);
/// });
/// ```
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    check_period(period);
    Interval::new(start, period)
}

/// Panics, at the caller's line, for a zero `period`. The message holds
/// tokio's (`` `period` must be non-zero. ``) word for word, so a test
/// written for tokio's `#[should_panic(expected = ...)]` passes here too.
#[track_caller]
fn check_period(period: Duration) {
    assert!(
        !period.is_zero(),
        "lawn_rt: `period` must be non-zero. (A zero period would tick forever.)"
    );
}

/// What an [`Interval`] does when ticks were missed (the task came back
/// more than 5 ms after a tick was due); like `tokio::time::MissedTickBehavior`.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{interval, Duration, MissedTickBehavior};
///
/// let mut every = interval(Duration::from_millis(50));
/// every.set_missed_tick_behavior(MissedTickBehavior::Delay);
/// assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Delay);
/// ```
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum MissedTickBehavior {
    /// Ticks as fast as possible until caught up, then on the original
    /// schedule: the next tick is due one `period` after the missed one.
    #[default]
    Burst,
    /// Starts a new schedule from now: the next tick is due one `period`
    /// after the late tick was taken.
    Delay,
    /// Skips the missed ticks: the next tick is the next one on the original
    /// schedule that is still ahead.
    Skip,
}

impl MissedTickBehavior {
    /// The deadline after a tick due at `due` and taken late, at `now`.
    fn next_deadline(self, due: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => due + period,
            MissedTickBehavior::Delay => now + period,
            MissedTickBehavior::Skip => {
                let late = (now - due).as_nanos();
                let into_period = late % period.as_nanos();
                // `into_period < period`, so it fits in a Duration's nanos.
                let into_period = Duration::from_nanos(into_period as u64);
                now + (period - into_period)
            }
        }
    }
}

/// Ticks on a schedule; made by [`interval`] or [`interval_at`]. Also a
/// [`Stream`](futures_core::Stream) of tick instants, with no wrapper.
///
/// # Examples
///
/// ```
/// use futures::StreamExt;
/// use lawn_rt::time::{interval, Duration};
///
/// futures::executor::block_on(async {
///     let ticks: Vec<_> = interval(Duration::from_millis(2)).take(3).collect().await;
///     assert_eq!(ticks.len(), 3);
///     assert!(ticks[1] - ticks[0] == Duration::from_millis(2));
/// });
/// ```
#[derive(Debug)]
pub struct Interval {
    delay: Pin<Box<Sleep>>,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    #[track_caller]
    fn new(start: Instant, period: Duration) -> Interval {
        Interval {
            delay: Box::pin(sleep_until(start)),
            period: period.min(FAR_FUTURE),
            missed_tick_behavior: MissedTickBehavior::default(),
        }
    }

    /// Waits for the next tick and returns when it was due.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration};
    ///
    /// futures::executor::block_on(async {
    ///     let mut every = interval(Duration::from_millis(1));
    ///     let first = every.tick().await;
    ///     assert_eq!(every.tick().await - first, Duration::from_millis(1));
    /// });
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a tick is consumed only when the returned future
    /// completes.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick: `Ready(due)` when it has come (and the
    /// schedule moves on), else `Pending` with the waker stored.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration};
    /// use std::task::{Context, Waker};
    ///
    /// let mut every = interval(Duration::from_secs(1));
    /// let mut cx = Context::from_waker(Waker::noop());
    /// assert!(every.poll_tick(&mut cx).is_ready()); // the first tick
    /// assert!(every.poll_tick(&mut cx).is_pending());
    /// ```
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        if self.delay.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        let due = self.delay.deadline();
        // The sleep's own clock: the `now` it is re-filed from must be a
        // time its driver has reached.
        let now = self.delay.clock_now();
        let next = if now > due + MISSED_AFTER {
            self.missed_tick_behavior
                .next_deadline(due, now, self.period)
        } else {
            due + self.period
        };
        self.delay.as_mut().reset_at(next, now);
        Poll::Ready(due)
    }

    /// Restarts the schedule: the next tick is one `period` from now.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration, Instant};
    ///
    /// futures::executor::block_on(async {
    ///     let mut every = interval(Duration::from_millis(5));
    ///     every.tick().await;
    ///     every.reset();
    ///     let from = Instant::now();
    ///     every.tick().await;
    ///     assert!(from.elapsed() >= Duration::from_millis(4));
    /// });
    /// ```
    pub fn reset(&mut self) {
        self.reset_at(Instant::now() + self.period);
    }

    /// Makes the next tick due now.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration};
    ///
    /// futures::executor::block_on(async {
    ///     let mut every = interval(Duration::from_secs(3600));
    ///     every.tick().await;
    ///     every.reset_immediately();
    ///     every.tick().await; // at once, not in an hour
    /// });
    /// ```
    pub fn reset_immediately(&mut self) {
        self.reset_at(Instant::now());
    }

    /// Makes the next tick due `after` from now.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration};
    ///
    /// futures::executor::block_on(async {
    ///     let mut every = interval(Duration::from_secs(3600));
    ///     every.tick().await;
    ///     every.reset_after(Duration::from_millis(1));
    ///     every.tick().await;
    /// });
    /// ```
    pub fn reset_after(&mut self, after: Duration) {
        self.reset_at(Instant::now() + after.min(FAR_FUTURE));
    }

    /// Makes the next tick due at `deadline`; later ticks follow from it.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration, Instant};
    ///
    /// futures::executor::block_on(async {
    ///     let mut every = interval(Duration::from_secs(3600));
    ///     every.tick().await;
    ///     let at = Instant::now() + Duration::from_millis(2);
    ///     every.reset_at(at);
    ///     assert_eq!(every.tick().await, at);
    /// });
    /// ```
    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.as_mut().reset(deadline);
    }

    /// The time between ticks.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration};
    ///
    /// assert_eq!(interval(Duration::from_secs(2)).period(), Duration::from_secs(2));
    /// ```
    pub fn period(&self) -> Duration {
        self.period
    }

    /// What the interval does about missed ticks.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration, MissedTickBehavior};
    ///
    /// let every = interval(Duration::from_secs(1));
    /// assert_eq!(every.missed_tick_behavior(), MissedTickBehavior::Burst);
    /// ```
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets what the interval does about missed ticks.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{interval, Duration, MissedTickBehavior};
    ///
    /// let mut every = interval(Duration::from_secs(1));
    /// every.set_missed_tick_behavior(MissedTickBehavior::Skip);
    /// ```
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }
}

impl futures_core::Stream for Interval {
    type Item = Instant;

    /// Never ends: every item is a tick.
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Instant>> {
        self.get_mut().poll_tick(cx).map(Some)
    }
}
