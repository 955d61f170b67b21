//! Timer metrics: what one driver (a runtime's shard, or a thread's
//! foreign shard) has done with its timers, counted as it files, cancels,
//! resets and fires them (docs/guide.md, "Reading the timer metrics").
//!
//! Ground rules:
//! - [`Counters`] lives in the driver's `Locked` state: every count is a
//!   plain add under the lock the operation already holds, so counting
//!   costs no atomic and no extra lock on a timer's path. Only a park
//!   loop's wake-up takes the lock once more to count its cause, after a
//!   park that blocked (a system call's worth of time already).
//! - A snapshot ([`TimerMetrics`]) is read under the same lock, so its
//!   counts agree with each other at one instant of that shard.
//! - Totals only grow (wrapping at `u64::MAX`, centuries away); `pending`
//!   and `memory_bytes` are the state now.

use std::ops::AddAssign;
use std::time::Duration;

/// Lateness buckets: under 1 µs, then one per power of two of µs up to
/// 2^20 µs (about 1.05 s), then one for everything later.
const BUCKETS: usize = 22;

/// What a shard counts, under its lock.
#[derive(Clone, Default)]
pub(crate) struct Counters {
    registered: u64,
    cancelled: u64,
    fired: u64,
    reset: u64,
    wake_ups: WakeUps,
    lateness: Lateness,
}

impl Counters {
    #[inline]
    pub(crate) fn registered(&mut self) {
        self.registered = self.registered.wrapping_add(1);
    }

    #[inline]
    pub(crate) fn cancelled(&mut self) {
        self.cancelled = self.cancelled.wrapping_add(1);
    }

    #[inline]
    pub(crate) fn reset(&mut self) {
        self.reset = self.reset.wrapping_add(1);
    }

    /// A timer handed out for waking, `late` after its deadline.
    #[inline]
    pub(crate) fn fired(&mut self, late: Duration) {
        self.fired = self.fired.wrapping_add(1);
        self.lateness.record(late);
    }

    pub(crate) fn woke(&mut self, cause: WakeCause) {
        let count = match cause {
            WakeCause::Timer => &mut self.wake_ups.timer,
            WakeCause::Io => &mut self.wake_ups.io,
            WakeCause::Task => &mut self.wake_ups.task,
            WakeCause::Nothing => &mut self.wake_ups.nothing,
        };
        *count = count.wrapping_add(1);
    }

    /// A snapshot, with the state now.
    pub(crate) fn snapshot(&self, pending: usize, memory_bytes: usize) -> TimerMetrics {
        TimerMetrics {
            shards: 1,
            pending: pending as u64,
            registered: self.registered,
            cancelled: self.cancelled,
            fired: self.fired,
            reset: self.reset,
            wake_ups: self.wake_ups.clone(),
            lateness: self.lateness.clone(),
            memory_bytes,
        }
    }
}

/// Why a park loop (a runtime worker's, or the foreign timer thread's)
/// woke from a park that blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WakeCause {
    /// It fired at least one timer.
    Timer,
    /// No timer: at least one socket's readiness.
    Io,
    /// Neither: it was woken to run a task (or to plan an earlier timer).
    Task,
    /// None of those: a wake-up planned for a timer cancelled since.
    Nothing,
}

/// What the timers of one shard, or of several shards summed, have done:
/// a snapshot, read with [`RuntimeMetrics::worker_timer_metrics`] or
/// [`RuntimeMetrics::timer_metrics`] (a runtime's shards) or
/// [`time::foreign_timer_metrics`] (the timers used outside a lawn_rt
/// runtime).
///
/// Counting is always on, and costs a plain add under a lock the timer's
/// operation holds anyway. A healthy service's figures, and what a leak
/// or a late shard looks like, are in the guide's "Reading the timer
/// metrics".
///
/// [`RuntimeMetrics::worker_timer_metrics`]: crate::runtime::RuntimeMetrics::worker_timer_metrics
/// [`RuntimeMetrics::timer_metrics`]: crate::runtime::RuntimeMetrics::timer_metrics
/// [`time::foreign_timer_metrics`]: crate::time::foreign_timer_metrics
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use lawn_rt::time::{sleep, timeout};
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(async {
///     sleep(Duration::from_millis(1)).await; // fires
///     let quick = timeout(Duration::from_secs(5), async { 7 }).await; // cancelled before firing
///     assert_eq!(quick, Ok(7));
/// });
/// let timers = rt.metrics().timer_metrics();
/// assert_eq!(timers.fired, 1);
/// assert_eq!(timers.pending, 0);
/// assert!(timers.registered >= 1);
/// assert_eq!(timers.lateness.count(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimerMetrics {
    /// How many shards these figures sum (1 for one worker's).
    pub shards: usize,
    /// Timers filed now, waiting for their deadline. A figure that only
    /// grows under a steady load is a leak: timers made and never dropped.
    pub pending: u64,
    /// Timers filed, in total. A timer whose deadline had passed when it
    /// was first polled completes at once and is not filed.
    pub registered: u64,
    /// Timers taken out before they fired (a timeout whose future finished
    /// first, a sleep dropped), in total. Most timeouts should end here. A
    /// timer whose task moved to another worker counts as cancelled on its
    /// old shard and registered on the new one.
    pub cancelled: u64,
    /// Timers handed out for waking at their deadline, in total.
    pub fired: u64,
    /// Timers moved to a new deadline while filed (`Sleep::reset`,
    /// `Interval`'s ticks, hyper's timer), in total.
    pub reset: u64,
    /// Wake-ups of the park loop (a runtime worker) or of the timer thread
    /// (timers outside a runtime), by cause.
    pub wake_ups: WakeUps,
    /// How late the fired timers were handed out.
    pub lateness: Lateness,
    /// Bytes the shard's Lawns hold (spare capacity included), now.
    pub memory_bytes: usize,
}

impl AddAssign<&TimerMetrics> for TimerMetrics {
    fn add_assign(&mut self, other: &TimerMetrics) {
        self.shards += other.shards;
        self.pending += other.pending;
        self.registered = self.registered.wrapping_add(other.registered);
        self.cancelled = self.cancelled.wrapping_add(other.cancelled);
        self.fired = self.fired.wrapping_add(other.fired);
        self.reset = self.reset.wrapping_add(other.reset);
        self.wake_ups += &other.wake_ups;
        self.lateness += &other.lateness;
        self.memory_bytes += other.memory_bytes;
    }
}

/// Wake-ups of a park loop from a park that blocked, by what it found to
/// do; part of [`TimerMetrics`].
///
/// A runtime worker counts a wake-up as `timer` if it fired a timer, else
/// `io` if a socket became ready, else `task` if it was woken to run a
/// task; the timer thread (timers outside a runtime) counts `timer` or
/// `nothing`. `nothing` is a wake-up that found no work: planned for a
/// timer that was cancelled before it came.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(lawn_rt::time::sleep(Duration::from_millis(2)));
/// let wake_ups = rt.metrics().timer_metrics().wake_ups;
/// assert!(wake_ups.timer >= 1);
/// assert_eq!(wake_ups.total(), wake_ups.timer + wake_ups.io + wake_ups.task + wake_ups.nothing);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WakeUps {
    /// Woke and fired at least one timer.
    pub timer: u64,
    /// Woke for a socket's readiness (and fired no timer).
    pub io: u64,
    /// Woken to run a task (by another thread, or a registration that
    /// needed an earlier wake-up).
    pub task: u64,
    /// Woke and found nothing to do.
    pub nothing: u64,
}

impl WakeUps {
    /// All the wake-ups counted.
    ///
    /// # Examples
    ///
    /// ```
    /// let wake_ups = lawn_rt::time::WakeUps::default();
    /// assert_eq!(wake_ups.total(), 0);
    /// ```
    pub fn total(&self) -> u64 {
        self.timer
            .wrapping_add(self.io)
            .wrapping_add(self.task)
            .wrapping_add(self.nothing)
    }
}

impl AddAssign<&WakeUps> for WakeUps {
    fn add_assign(&mut self, other: &WakeUps) {
        self.timer = self.timer.wrapping_add(other.timer);
        self.io = self.io.wrapping_add(other.io);
        self.task = self.task.wrapping_add(other.task);
        self.nothing = self.nothing.wrapping_add(other.nothing);
    }
}

/// A histogram of how late fired timers were handed out, past their
/// deadline as filed (rounded up to the step of their slack level, a
/// fraction of the slack); part of [`TimerMetrics`]. A timer's slack lets
/// the driver hand it out later still, to share a wake-up with others
/// (see [`TimerSlack`](crate::runtime::TimerSlack)): that counts here, so
/// a healthy shard's lateness stays within its timers' slack.
///
/// Log-scale buckets: under 1 µs, then `[2^(i-1), 2^i)` µs for `i` in
/// `1..=20` (up to about 1.05 s), then one for everything later. The
/// handing out is the driver's; the task then still waits for its turn to
/// run, which this does not count.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(async {
///     for _ in 0..3 {
///         lawn_rt::time::sleep(Duration::from_millis(1)).await;
///     }
/// });
/// let lateness = rt.metrics().timer_metrics().lateness;
/// assert_eq!(lateness.count(), 3);
/// let (below, above, count) = lateness.buckets().find(|&(_, _, n)| n > 0).unwrap();
/// assert!(count >= 1 && above.map_or(true, |above| below < above));
/// assert!(lateness.quantile(0.5).unwrap() <= Duration::from_secs(2));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lateness {
    counts: [u64; BUCKETS],
}

impl Lateness {
    #[inline]
    fn record(&mut self, late: Duration) {
        let index = Self::bucket_of(late);
        self.counts[index] = self.counts[index].wrapping_add(1);
    }

    #[inline]
    fn bucket_of(late: Duration) -> usize {
        let micros = late.as_micros();
        if micros == 0 {
            return 0;
        }
        // 1 µs lands in bucket 1, [2, 4) µs in 2, and so on.
        let bucket = 1 + (u128::BITS - 1 - micros.leading_zeros()) as usize;
        bucket.min(BUCKETS - 1)
    }

    /// The lower bound of bucket `index`.
    fn lower(index: usize) -> Duration {
        match index {
            0 => Duration::ZERO,
            _ => Duration::from_micros(1 << (index - 1)),
        }
    }

    /// Each bucket as `(from, to, count)`: `count` timers were handed out
    /// at least `from` and less than `to` after their deadline (`to` is
    /// `None` for the last bucket).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let lateness = lawn_rt::time::Lateness::default();
    /// let buckets: Vec<_> = lateness.buckets().collect();
    /// assert_eq!(buckets[0], (Duration::ZERO, Some(Duration::from_micros(1)), 0));
    /// assert_eq!(buckets[1], (Duration::from_micros(1), Some(Duration::from_micros(2)), 0));
    /// assert_eq!(buckets.last().unwrap().1, None);
    /// ```
    pub fn buckets(&self) -> impl Iterator<Item = (Duration, Option<Duration>, u64)> + '_ {
        self.counts.iter().enumerate().map(|(index, &count)| {
            let to = (index + 1 < BUCKETS).then(|| Self::lower(index + 1));
            (Self::lower(index), to, count)
        })
    }

    /// How many fired timers the histogram holds.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(lawn_rt::time::Lateness::default().count(), 0);
    /// ```
    pub fn count(&self) -> u64 {
        self.counts.iter().fold(0, |sum, &n| sum.wrapping_add(n))
    }

    /// An upper bound of the `q` quantile (`q` in `0.0..=1.0`): the upper
    /// end of the bucket it falls in (the last bucket's lower end, for the
    /// last bucket); `None` if no timer fired.
    ///
    /// # Panics
    ///
    /// If `q` is not in `0.0..=1.0`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(lawn_rt::time::Lateness::default().quantile(0.99), None);
    /// ```
    #[track_caller]
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        assert!(
            (0.0..=1.0).contains(&q),
            "lawn_rt: Lateness::quantile takes a q in 0.0..=1.0, got {q}"
        );
        let count = self.count();
        if count == 0 {
            return None;
        }
        let rank = ((q * count as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (index, &n) in self.counts.iter().enumerate() {
            seen = seen.wrapping_add(n);
            if seen >= rank {
                return Some(Self::lower((index + 1).min(BUCKETS - 1)));
            }
        }
        Some(Self::lower(BUCKETS - 1))
    }
}

impl AddAssign<&Lateness> for Lateness {
    fn add_assign(&mut self, other: &Lateness) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine = mine.wrapping_add(*theirs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_falls_in_log_scale_buckets() {
        let us = Duration::from_micros;
        assert_eq!(Lateness::bucket_of(Duration::from_nanos(999)), 0);
        assert_eq!(Lateness::bucket_of(us(1)), 1);
        assert_eq!(Lateness::bucket_of(us(2)), 2);
        assert_eq!(Lateness::bucket_of(us(3)), 2);
        assert_eq!(Lateness::bucket_of(us(4)), 3);
        assert_eq!(Lateness::bucket_of(us((1 << 20) - 1)), 20);
        assert_eq!(Lateness::bucket_of(us(1 << 20)), 21);
        assert_eq!(Lateness::bucket_of(Duration::MAX), 21);
        for (index, (from, to, _)) in Lateness::default().buckets().enumerate() {
            assert_eq!(Lateness::bucket_of(from), index);
            if let Some(to) = to {
                assert_eq!(Lateness::bucket_of(to - Duration::from_nanos(1)), index);
            }
        }
    }

    #[test]
    fn quantiles_give_the_upper_end_of_their_bucket() {
        let mut lateness = Lateness::default();
        for _ in 0..90 {
            lateness.record(Duration::from_micros(3)); // [2, 4) µs
        }
        for _ in 0..10 {
            lateness.record(Duration::from_millis(5)); // [4096, 8192) µs
        }
        assert_eq!(lateness.count(), 100);
        assert_eq!(lateness.quantile(0.5), Some(Duration::from_micros(4)));
        assert_eq!(lateness.quantile(0.9), Some(Duration::from_micros(4)));
        assert_eq!(lateness.quantile(0.91), Some(Duration::from_micros(8192)));
        assert_eq!(lateness.quantile(0.0), Some(Duration::from_micros(4)));
        let mut sum = lateness.clone();
        sum += &lateness;
        assert_eq!(sum.count(), 200);
    }
}
