//! [`Instant`]: a point in time on the driver's clock.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::Duration;

use crate::driver::{checked_add_or_far, entered_now};

/// A measurement of a monotonically nondecreasing clock, like
/// [`std::time::Instant`], read from the timer driver's clock: inside a
/// driver whose clock is paused, [`Instant::now`] is the paused time.
///
/// Adding a duration never overflows: a sum beyond what the platform can
/// represent is clamped (about 30 years ahead, as tokio's far future).
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{Duration, Instant};
///
/// let start = Instant::now();
/// let later = start + Duration::from_millis(10);
/// assert_eq!(later - start, Duration::from_millis(10));
/// assert_eq!(start - later, Duration::ZERO); // saturates, like tokio
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// The current time of the driver entered on this thread (its paused
    /// time, if paused), or the real time.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = lawn_rt::time::Instant::now();
    /// let b = lawn_rt::time::Instant::now();
    /// assert!(b >= a);
    /// ```
    #[inline]
    pub fn now() -> Instant {
        Instant {
            std: entered_now().unwrap_or_else(std::time::Instant::now),
        }
    }

    /// Wraps a `std::time::Instant`.
    ///
    /// # Examples
    ///
    /// ```
    /// let std = std::time::Instant::now();
    /// assert_eq!(lawn_rt::time::Instant::from_std(std).into_std(), std);
    /// ```
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// The `std::time::Instant` this wraps.
    ///
    /// # Examples
    ///
    /// ```
    /// let now = lawn_rt::time::Instant::now();
    /// let _std: std::time::Instant = now.into_std();
    /// ```
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// Time from `earlier` to `self`; zero if `earlier` is later.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{Duration, Instant};
    ///
    /// let a = Instant::now();
    /// let b = a + Duration::from_secs(1);
    /// assert_eq!(b.duration_since(a), Duration::from_secs(1));
    /// assert_eq!(a.duration_since(b), Duration::ZERO);
    /// ```
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time from `earlier` to `self`, or `None` if `earlier` is later.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{Duration, Instant};
    ///
    /// let a = Instant::now();
    /// let b = a + Duration::from_secs(1);
    /// assert_eq!(b.checked_duration_since(a), Some(Duration::from_secs(1)));
    /// assert_eq!(a.checked_duration_since(b), None);
    /// ```
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Time from `earlier` to `self`; zero if `earlier` is later.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{Duration, Instant};
    ///
    /// let a = Instant::now();
    /// assert_eq!(a.saturating_duration_since(a + Duration::from_secs(1)), Duration::ZERO);
    /// ```
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time passed since `self` ([`Instant::now`] minus `self`, or zero).
    ///
    /// # Examples
    ///
    /// ```
    /// let start = lawn_rt::time::Instant::now();
    /// assert!(start.elapsed() < lawn_rt::time::Duration::from_secs(60));
    /// ```
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// `self + duration`, or `None` if the platform cannot represent it.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{Duration, Instant};
    ///
    /// let now = Instant::now();
    /// assert!(now.checked_add(Duration::from_secs(1)).is_some());
    /// assert!(now.checked_add(Duration::MAX).is_none());
    /// ```
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// `self - duration`, or `None` if the platform cannot represent it.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{Duration, Instant};
    ///
    /// let now = Instant::now();
    /// assert!(now.checked_sub(Duration::MAX).is_none());
    /// ```
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }

    /// `self + duration`, clamped to about 30 years ahead where the platform
    /// cannot represent the sum.
    pub(crate) fn saturating_add(self, duration: Duration) -> Instant {
        Instant::from_std(checked_add_or_far(self.std, duration))
    }
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant::from_std(std)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(instant: Instant) -> std::time::Instant {
        instant.into_std()
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    /// Never panics: an unrepresentable sum is clamped about 30 years ahead.
    fn add(self, rhs: Duration) -> Instant {
        self.saturating_add(rhs)
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    ///
    /// If the result is before the earliest instant the platform can
    /// represent; use [`Instant::checked_sub`] to handle that.
    #[track_caller]
    fn sub(self, rhs: Duration) -> Instant {
        match self.checked_sub(rhs) {
            Some(instant) => instant,
            None => panic!(
                "lawn_rt: `Instant - {rhs:?}` is before the earliest representable instant; \
                 use `Instant::checked_sub`"
            ),
        }
    }
}

impl SubAssign<Duration> for Instant {
    #[track_caller]
    fn sub_assign(&mut self, rhs: Duration) {
        *self = *self - rhs;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;

    /// Saturates at zero, like [`Instant::duration_since`].
    fn sub(self, rhs: Instant) -> Duration {
        self.duration_since(rhs)
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
